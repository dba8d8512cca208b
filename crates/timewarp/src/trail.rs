//! A KP's lists of processed events, their sends and their journal entries:
//! appended and popped at the back (processing, rollback), dropped from the
//! front (fossil collection). A vector whose front is dropped by moving a start index,
//! and compacted once the dropped part is as long as the live one: every
//! operation a plain vector's (a `VecDeque`'s index wrapping cost about 20
//! instructions per optimistic event), at O(1) amortised per element.

/// A vector dropped from the front lazily.
#[derive(Debug)]
pub(crate) struct Trail<T> {
    items: Vec<T>,
    /// Elements before this index are dropped.
    head: usize,
    /// The longest the vector was (dropped front included) when its front
    /// was dropped, decaying by a sixteenth at each [`trim`](Self::trim):
    /// what the list needed at its fullest of late.
    peak: usize,
    /// The position of the first live element among all ever pushed
    /// (wrapping): what a record names its first element by.
    start: u32,
}

/// Dropped elements kept before a compaction is worth its move. Small: a
/// PE has 16 KPs of three trails each, and on 16 PEs of a small network 64
/// kept a fifth of the run's memory in dropped records (hypercube 1,024 on
/// 16 PEs: 28 → 23 MB; +0.1 % instructions per event).
const COMPACT_MIN: usize = 16;

impl<T> Trail<T> {
    pub(crate) fn new() -> Self {
        Trail { items: Vec::new(), head: 0, peak: 0, start: 0 }
    }

    /// The live elements, oldest first.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[T] {
        &self.items[self.head..]
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.items.len() - self.head
    }

    #[inline]
    pub(crate) fn push(&mut self, v: T) {
        self.items.push(v);
    }

    /// Appends every element of `it` (a vector's drain: one copy).
    #[inline]
    pub(crate) fn extend(&mut self, it: impl IntoIterator<Item = T>) {
        self.items.extend(it);
    }

    /// Room for `n` more items.
    #[inline]
    pub(crate) fn reserve(&mut self, n: usize) {
        self.items.reserve(n);
    }

    /// Moves every element of `v` to the back (one copy), leaving it empty.
    #[inline]
    pub(crate) fn append(&mut self, v: &mut Vec<T>) {
        self.items.append(v);
    }

    /// The position the next pushed element will have (see [`start`](Self::start)).
    #[inline]
    pub(crate) fn end_pos(&self) -> u32 {
        self.start.wrapping_add(self.len() as u32)
    }

    /// The position of the first live element: positions count every
    /// element ever pushed and not popped (wrapping), so they stay put
    /// when the front is dropped.
    #[inline]
    pub(crate) fn start(&self) -> u32 {
        self.start
    }

    /// Drops the live elements before position `pos` (at most all).
    #[inline]
    pub(crate) fn drop_to(&mut self, pos: u32) {
        let n = pos.wrapping_sub(self.start) as usize;
        debug_assert!(n <= self.len(), "position {pos} is not live (start {}, {} live)", self.start, self.len());
        self.drop_front(n);
    }

    /// The live elements' count, `None` if the vector was replaced by a
    /// shorter one while lent (see `items_mut`).
    #[inline]
    pub(crate) fn checked_len(&self) -> Option<usize> {
        self.items.len().checked_sub(self.head)
    }

    /// The vector behind the trail, dropped elements first (for
    /// `Ctx::save_into`, which lends it to a handler to push onto).
    #[inline]
    pub(crate) fn items_mut(&mut self) -> &mut Vec<T> {
        &mut self.items
    }

    /// Drops every element.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.peak = self.peak.max(self.items.len());
        // (Saturating: a journal a handler replaced may be shorter than its dropped front.)
        self.start = self.start.wrapping_add(self.items.len().saturating_sub(self.head) as u32);
        self.items.clear();
        self.head = 0;
    }

    /// The newest live element.
    #[inline]
    pub(crate) fn last(&self) -> Option<&T> {
        if self.items.len() > self.head {
            self.items.last()
        } else {
            None
        }
    }

    #[inline]
    pub(crate) fn last_mut(&mut self) -> Option<&mut T> {
        if self.items.len() > self.head {
            self.items.last_mut()
        } else {
            None
        }
    }

    /// Removes the newest live element.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<T> {
        if self.items.len() > self.head {
            self.items.pop()
        } else {
            None
        }
    }

    /// Drops the `n` oldest live elements (at most all of them).
    #[inline]
    pub(crate) fn drop_front(&mut self, n: usize) {
        self.peak = self.peak.max(self.items.len());
        let n = n.min(self.len());
        self.start = self.start.wrapping_add(n as u32);
        self.head += n;
        if self.head == self.items.len() {
            self.items.clear();
            self.head = 0;
        } else if self.head >= COMPACT_MIN && self.head >= self.len() {
            self.items.drain(..self.head);
            self.head = 0;
        }
    }

    /// Gives back memory a burst left: a list that held less than a quarter
    /// of what it has room for, at its fullest over the last rounds (a
    /// peak that decays by a sixteenth a trim: about twenty rounds to a
    /// quarter), halves its room. At its fullest of late, not now: a trim
    /// follows fossil collection, when a list is at its shortest, and what
    /// a round needs varies by more than twice from one round to the next;
    /// a list shrunk then grew back — a large list's buffer, which the
    /// allocator maps and remaps, page-faulted every round (dragonfly 1,056,
    /// 600 messages, on one PE with one KP: 13,867 remaps and 29,937 page
    /// faults; 0.79 s, now 0.64).
    #[inline]
    pub(crate) fn trim(&mut self) {
        self.peak = self.peak.max(self.items.len());
        if self.items.capacity() > 1024 && self.peak * 4 < self.items.capacity() {
            self.shrink();
        }
        self.peak -= self.peak / 16;
    }

    /// [`trim`](Self::trim)'s work, rarely done: kept off the fossil loop.
    #[cold]
    #[inline(never)]
    fn shrink(&mut self) {
        self.items.drain(..self.head);
        self.head = 0;
        self.items.shrink_to(self.items.capacity() / 2);
    }
}

impl<T> std::ops::Index<usize> for Trail<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.items[self.head + i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trim_keeps_the_room_the_list_needed_at_its_fullest() {
        let mut t = Trail::new();
        // Rounds that fill the list to 3,000 or 700 and drop all but 200:
        // the room it needs at its fullest stays, however short it is when
        // trimmed and however little the round between needed.
        for round in 0..10 {
            // Every other round needs less than a quarter of the room.
            let fill = if round % 2 == 0 { 3_000 } else { 700 };
            while t.len() < fill {
                t.push(round);
            }
            t.drop_front(t.len() - 200);
            t.trim();
            assert!(t.items.capacity() >= 3_000, "round {round}: {}", t.items.capacity());
        }
        // A burst's room goes once rounds no longer need it.
        let big = t.items.capacity();
        for _ in 0..100 {
            t.push(0);
            t.drop_front(1);
            t.trim();
        }
        assert!(t.items.capacity() <= big / 4, "{} of {big}", t.items.capacity());
    }

    #[test]
    fn positions_name_elements_whatever_the_front_dropped() {
        let mut t = Trail::new();
        let mut at = Vec::new();
        for v in 0..40u32 {
            at.push(t.end_pos());
            t.push(v);
        }
        t.drop_front(3);
        assert_eq!(t.start(), at[3]);
        // Compacted (the dropped front outgrows the live part): positions stay.
        t.drop_to(at[25]);
        assert_eq!((t.start(), t.as_slice()[0]), (at[25], 25));
        assert_eq!(t.pop(), Some(39));
        assert_eq!(t.end_pos(), at[39]);
        t.clear();
        assert_eq!((t.start(), t.end_pos()), (at[39], at[39]));
        t.push(100);
        t.drop_to(at[39].wrapping_add(1));
        assert_eq!(t.len(), 0);
    }

    #[test]
    fn behaves_as_a_deque_popped_at_the_back_and_dropped_at_the_front() {
        let mut t = Trail::new();
        let mut model = std::collections::VecDeque::new();
        let mut x = 0u64;
        for step in 0..20_000u64 {
            // A fixed pseudo-random walk of the three operations.
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            match (x >> 60) % 4 {
                0 | 1 => {
                    t.push(step);
                    model.push_back(step);
                }
                2 => assert_eq!(t.pop(), model.pop_back()),
                _ => {
                    let n = ((x >> 40) % 7) as usize;
                    t.drop_front(n);
                    model.drain(..n.min(model.len()));
                }
            }
            assert_eq!(t.len(), model.len());
            assert_eq!(t.end_pos().wrapping_sub(t.start()) as usize, t.len());
            assert_eq!(t.last(), model.back());
            assert!(t.as_slice().iter().eq(model.iter()));
            if step % 1000 == 0 {
                t.trim();
            }
        }
    }
}
