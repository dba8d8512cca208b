//! The waiting lists: which input queues' heads wait for each output.

use super::super::node::{Node, Saved, NIL};

impl Node {
    /// Input queue `q`'s head (routed to `out`) starts waiting for its output.
    #[inline]
    pub(crate) fn wait_for(&mut self, q: usize, out: usize) {
        let l = &self.links[out];
        let (waiting, waiting_last) = (l.waiting, l.waiting_last);
        let q_wait = self.input.lanes[q].wait;
        let last_wait = if waiting_last != NIL { self.input.lanes[waiting_last as usize].wait } else { NIL };
        self.log.save(|| Saved::WaitFor { o: out as u16, q: q as u16, q_wait, last_wait, waiting, waiting_last });
        let l = &mut self.links[out];
        l.heads = l.heads.wrapping_add(1);
        let last = std::mem::replace(&mut l.waiting_last, q as u16);
        match last {
            NIL => l.waiting = q as u16,
            t => self.input.lanes[t as usize].wait = q as u16,
        }
        self.input.lanes[q].wait = NIL;
    }

    /// Input queue `q`'s head (routed to `out`) leaves.
    #[inline]
    pub(crate) fn done_waiting(&mut self, q: usize, out: usize) {
        let next = self.input.lanes[q].wait;
        let (waiting, waiting_last) = (self.links[out].waiting, self.links[out].waiting_last);
        let (mut prev, mut at) = (NIL, waiting);
        while at as usize != q {
            debug_assert!(at != NIL, "input {q} was not waiting for output {out}");
            prev = at;
            at = self.input.lanes[at as usize].wait;
        }
        self.log.save(|| Saved::DoneWaiting { o: out as u16, q: q as u16, prev, waiting, waiting_last });
        self.links[out].heads = self.links[out].heads.wrapping_sub(1);
        match prev {
            NIL => self.links[out].waiting = next,
            p => self.input.lanes[p as usize].wait = next,
        }
        if next == NIL {
            self.links[out].waiting_last = prev;
        }
    }

    /// The network input queues whose heads wait for output `o`.
    #[inline]
    pub(crate) fn waiting(&self, o: usize) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.links[o].waiting;
        std::iter::from_fn(move || {
            (at != NIL).then(|| {
                let q = at as usize;
                at = self.input.lanes[q].wait;
                q
            })
        })
    }
}
