//! Worker threads of the parallel kernels: spawning, failure, and what
//! they hand back ([`Ran`]; their figures are merged in [`crate::report`]). A worker that fails (an error or a panic in a handler) stops
//! all the others through [`Failure`], so no worker waits forever on one that
//! is gone.

use std::sync::atomic::{AtomicBool, Ordering::*};
use std::sync::Mutex;

use crate::error::Error;
use crate::key::Key;
use crate::stats::WorkerStats;

/// The error that ends a run, and a flag every worker polls.
///
/// A model's error is kept with the key of the event that raised it, and the
/// smallest key wins: workers that see the flag report their own committed
/// errors below it (`Pe::iterate` calls `Pe::report_earlier_error`), so an
/// optimistic run reports the error a sequential run meets first. Any other
/// error wins outright.
#[derive(Default)]
pub(crate) struct Failure {
    failed: AtomicBool,
    /// The error, with the key of its event (None: not an event's error).
    error: Mutex<Option<(Option<Key>, Error)>>,
}

impl Failure {
    /// Records `e` (unless an error is recorded already) and tells every worker to stop.
    pub(crate) fn fail(&self, e: Error) {
        self.record(None, e);
    }

    /// Records the error `e` of the event `key` unless one of a smaller key
    /// is recorded, and tells every worker to stop.
    pub(crate) fn fail_at(&self, key: Key, e: Error) {
        self.record(Some(key), e);
    }

    fn record(&self, key: Option<Key>, e: Error) {
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        let wins = match (&*slot, key) {
            (None, _) => true,
            (Some((Some(old), _)), Some(new)) => new < *old,
            (Some((Some(_), _)), None) => true,
            (Some((None, _)), _) => false,
        };
        if wins {
            *slot = Some((key, e));
        }
        self.failed.store(true, Release);
    }

    /// The key of the recorded error (None: no error, or not an event's).
    pub(crate) fn key(&self) -> Option<Key> {
        let slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        slot.as_ref().and_then(|(k, _)| *k)
    }

    /// True once some worker failed.
    #[inline]
    pub(crate) fn failed(&self) -> bool {
        self.failed.load(Relaxed)
    }

    /// The flag itself (for barriers that poll it).
    pub(crate) fn flag(&self) -> &AtomicBool {
        &self.failed
    }

    fn take(&self) -> Option<Error> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take().map(|(_, e)| e)
    }
}

/// Runs `work(id, input)` for every input on its own scoped thread and
/// returns the results in id order, or the first failure.
pub(crate) fn run_workers<I: Send, T: Send>(
    inputs: Vec<I>,
    failure: &Failure,
    work: impl Fn(usize, I) -> Result<T, Error> + std::marker::Sync,
) -> Result<Vec<T>, Error> {
    let n = inputs.len();
    let done: Vec<Option<T>> = std::thread::scope(|sc| {
        let work = &work;
        let mut handles = Vec::with_capacity(n);
        for (id, input) in inputs.into_iter().enumerate() {
            let spawned =
                std::thread::Builder::new().name(format!("timewarp worker {id}")).spawn_scoped(sc, move || {
                    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(id, input))) {
                        Ok(Ok(v)) => Some(v),
                        Ok(Err(e)) => {
                            failure.fail(e);
                            None
                        }
                        Err(p) => {
                            failure.fail(Error::WorkerPanic(format!("worker {id}: {}", super::panic_text(p.as_ref()))));
                            None
                        }
                    }
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // The workers already started see the failure and stop
                    // (they poll it wherever they wait for each other).
                    failure.fail(Error::Threads(format!(
                        "cannot start worker thread {} of {n}: {e}; use fewer --threads, or raise the limit on \
                         processes or memory (ulimit -u, ulimit -v)",
                        id + 1
                    )));
                    break;
                }
            }
        }
        handles.into_iter().map(|h| h.join().ok().flatten()).collect()
    });
    if let Some(e) = failure.take() {
        return Err(e);
    }
    let done: Vec<T> = done.into_iter().flatten().collect();
    if done.len() != n {
        return Err(Error::Internal("a worker thread ended without a result".into()));
    }
    Ok(done)
}

/// What a parallel kernel's `run_pes` returns: this process' PEs after the
/// segment (each with the seconds its initialisation took), the workers'
/// figures (optimistic), the total seconds and the events sent to other
/// processes (conservative; the optimistic network counts its own). The
/// same shape for both kernels, so one end-of-segment path takes either.
pub(crate) struct Ran<P> {
    pub(crate) pes: Vec<(P, f64)>,
    pub(crate) workers: Vec<WorkerStats>,
    pub(crate) total: f64,
    pub(crate) net_events: u64,
}

/// A yield that took this long ran another thread: the cores are
/// contended, and only then do the kernels' waits sleep (an idle
/// optimistic worker parks, a barrier waiter sleeps). On free cores a
/// sleeper gives nobody anything and only answers late: a sparse model's
/// PEs wait for each other's messages all the time, and a parked one
/// would see them up to a nap late (issue 39).
pub(crate) const CONTENDED: std::time::Duration = std::time::Duration::from_micros(20);

/// A worker's clocks, read when it starts and when it ends (never in
/// between): wall time, and the OS's account of its time on a core and on
/// a run queue (Linux `/proc/thread-self/schedstat`: nanoseconds on a CPU,
/// nanoseconds runnable but waiting for one, timeslices).
pub(crate) struct Clocks {
    start: std::time::Instant,
    sched: Option<(u64, u64)>,
}

impl Clocks {
    /// Reads the calling thread's clocks.
    pub(crate) fn start() -> Self {
        Clocks { start: std::time::Instant::now(), sched: sched_times() }
    }

    /// Puts what the calling thread (the one that called `start`) used
    /// since into `stats`: absent figures stay absent, not zero.
    pub(crate) fn finish(&self, stats: &mut WorkerStats) {
        stats.seconds = self.start.elapsed().as_secs_f64();
        if let (Some((cpu0, queued0)), Some((cpu, queued))) = (self.sched, sched_times()) {
            stats.cpu_seconds = Some(cpu.saturating_sub(cpu0) as f64 * 1e-9);
            stats.descheduled_seconds = Some(queued.saturating_sub(queued0) as f64 * 1e-9);
        }
    }
}

/// The calling thread's nanoseconds on a CPU and waiting on a run queue
/// (None where the file is missing or unreadable: not Linux, or a kernel
/// without scheduler statistics).
fn sched_times() -> Option<(u64, u64)> {
    parse_schedstat(&std::fs::read_to_string("/proc/thread-self/schedstat").ok()?)
}

/// The first two fields of a schedstat line (None unless both are numbers).
fn parse_schedstat(text: &str) -> Option<(u64, u64)> {
    let mut f = text.split_whitespace().map(|x| x.parse::<u64>().ok());
    Some((f.next()??, f.next()??))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedstat_gives_both_figures_or_none() {
        assert_eq!(parse_schedstat("123 456 7\n"), Some((123, 456)));
        assert_eq!(parse_schedstat(""), None);
        assert_eq!(parse_schedstat("123"), None);
        assert_eq!(parse_schedstat("x 1 2"), None);
        // Where Linux has the file, a thread's figures are there and only grow.
        if std::path::Path::new("/proc/thread-self/schedstat").exists() {
            let c = Clocks::start();
            let mut w = WorkerStats::default();
            c.finish(&mut w);
            assert!(w.cpu_seconds.is_some_and(|s| s >= 0.0) && w.descheduled_seconds.is_some_and(|s| s >= 0.0));
            assert!(w.seconds >= 0.0);
        }
    }
}
