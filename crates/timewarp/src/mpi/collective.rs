//! A non-blocking collective and the words it reads and writes, owned
//! together so that the `'static` references MPI holds are sound by
//! construction: the words are handed out only through [`Collective::start`]
//! while no request is in flight, read back only through
//! [`Collective::done`] once the request has completed, and leaked (never
//! freed under MPI's feet) if the collective is dropped in flight.

use mpi::request::{Request, StaticScope};

/// One collective at a time over a fixed pair of word buffers.
pub(super) struct Collective {
    /// Words sent and words received: boxes turned into raw pointers, so
    /// MPI's references do not alias a live `Box`.
    out: *mut [u64],
    inp: *mut [u64],
    req: Option<Request<'static, [u64], StaticScope>>,
}

// SAFETY: the words are plain memory owned by this value; the request is an
// MPI handle used only by the thread holding the courier's lock.
unsafe impl Send for Collective {}

impl Collective {
    /// Buffers of `out` words sent and `inp` words received.
    pub(super) fn new(out: usize, inp: usize) -> Self {
        let words = |n: usize| Box::into_raw(vec![0u64; n].into_boxed_slice());
        Collective { out: words(out), inp: words(inp), req: None }
    }

    /// Fills the words to send with `fill` and starts the collective with
    /// `start` (given the words to send and the words to receive into).
    /// Panics if one is still in flight (a courier bug).
    pub(super) fn start(
        &mut self,
        fill: impl FnOnce(&mut [u64]),
        start: impl FnOnce(&'static [u64], &'static mut [u64]) -> Request<'static, [u64], StaticScope>,
    ) {
        assert!(self.req.is_none(), "a collective is already in flight");
        // SAFETY: no request is in flight (checked above), so nothing else
        // references the words; they stay allocated until `drop`, which
        // leaks them while a request is in flight, so 'static holds for
        // as long as MPI can use them.
        let (out, inp) = unsafe { (&mut *self.out, &mut *self.inp) };
        fill(out);
        self.req = Some(start(out, inp));
    }

    /// The received words once the collective in flight has completed
    /// (`None` while it runs, or when none was started).
    pub(super) fn done(&mut self) -> Option<&[u64]> {
        match self.req.take().map(Request::test) {
            Some(Ok(_)) => {
                // SAFETY: the request completed and is gone: MPI no longer
                // uses the words, and `&self` borrows keep `start` away.
                Some(unsafe { &*self.inp })
            }
            Some(Err(req)) => {
                self.req = Some(req);
                None
            }
            None => None,
        }
    }
}

impl Drop for Collective {
    fn drop(&mut self) {
        if let Some(req) = self.req.take() {
            // In flight: the run failed and the process is about to abort.
            // Leak the request and the words rather than free what MPI may
            // still write.
            std::mem::forget(req);
            return;
        }
        // SAFETY: created by Box::into_raw in `new`, freed once, and no
        // request uses them.
        unsafe {
            drop(Box::from_raw(self.out));
            drop(Box::from_raw(self.inp));
        }
    }
}
