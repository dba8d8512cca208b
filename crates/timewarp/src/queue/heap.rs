//! Implicit 4-ary min-heap of [`Entry`], ordered by [`Entry::ord`].
//!
//! Sifting moves a hole instead of swapping, so each level costs one copy.
//! Four children share a cache line or two, which halves the depth of a
//! binary heap at the price of three comparisons per level.

use super::{Entry, PendingQueue};
use crate::key::Key;

/// Children per node.
const ARITY: usize = 4;

/// `a` comes strictly before `b`.
#[inline(always)]
fn less<P>(a: &Entry<P>, b: &Entry<P>) -> bool {
    a.ord() < b.ord()
}

/// A 4-ary implicit min-heap of pending events.
#[derive(Clone, Debug)]
pub struct QuadHeap<P = u32> {
    v: Vec<Entry<P>>,
}

impl<P> Default for QuadHeap<P> {
    fn default() -> Self {
        QuadHeap { v: Vec::new() }
    }
}

impl<P: Copy> QuadHeap<P> {
    /// An empty heap with room for `n` entries.
    pub fn with_capacity(n: usize) -> Self {
        QuadHeap { v: Vec::with_capacity(n) }
    }

    /// Inserts `e` and removes the smallest entry in one pass (the "hold"
    /// operation): cheaper than `push` then `pop`.
    ///
    /// Returns `e` itself when it is not larger than the current minimum.
    #[inline]
    pub fn pop_push(&mut self, e: Entry<P>) -> Entry<P> {
        match self.v.first() {
            Some(min) if less(min, &e) => {
                let min = *min;
                self.sift_down(0, e);
                min
            }
            _ => e,
        }
    }

    /// Removes every entry, keeping the allocation.
    pub fn clear(&mut self) {
        self.v.clear();
    }

    /// Moves the hole at `pos` up until `e` fits, then stores `e` there.
    #[inline]
    fn sift_up(&mut self, mut pos: usize, e: Entry<P>) {
        let v = &mut self.v[..];
        while pos > 0 {
            let parent = (pos - 1) / ARITY;
            if !less(&e, &v[parent]) {
                break;
            }
            v[pos] = v[parent];
            pos = parent;
        }
        v[pos] = e;
    }

    /// Moves the hole at `pos` down until `e` fits, then stores `e` there.
    #[inline]
    fn sift_down(&mut self, mut pos: usize, e: Entry<P>) {
        let v = &mut self.v[..];
        let len = v.len();
        loop {
            let first = ARITY * pos + 1;
            let best = if first + ARITY <= len {
                // All four children exist: a small tournament.
                let c = &v[first..first + ARITY];
                let a = if less(&c[1], &c[0]) { 1 } else { 0 };
                let b = if less(&c[3], &c[2]) { 3 } else { 2 };
                first + if less(&c[b], &c[a]) { b } else { a }
            } else if first < len {
                let mut best = first;
                for i in first + 1..len {
                    if less(&v[i], &v[best]) {
                        best = i;
                    }
                }
                best
            } else {
                break;
            };
            if !less(&v[best], &e) {
                break;
            }
            v[pos] = v[best];
            pos = best;
        }
        v[pos] = e;
    }
}

impl<P: Copy + Send> PendingQueue<P> for QuadHeap<P> {
    #[inline]
    fn push(&mut self, e: Entry<P>) {
        let pos = self.v.len();
        self.v.push(e);
        self.sift_up(pos, e);
    }

    #[inline]
    fn pop(&mut self) -> Option<Entry<P>> {
        let last = self.v.pop()?;
        match self.v.first() {
            Some(&min) => {
                self.sift_down(0, last);
                Some(min)
            }
            None => Some(last),
        }
    }

    #[inline]
    fn peek(&mut self) -> Option<Key> {
        self.v.first().map(Entry::key)
    }

    #[inline]
    fn len(&self) -> usize {
        self.v.len()
    }

    fn drain_unordered(&mut self, f: impl FnMut(Entry<P>)) {
        self.v.drain(..).for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(time: f64, age: u32, tie: u64) -> Entry {
        Entry { time, tie, age, item: tie as u32 }
    }

    fn drain(h: &mut QuadHeap) -> Vec<Entry> {
        std::iter::from_fn(|| h.pop()).collect()
    }

    #[test]
    fn empty() {
        let mut h: QuadHeap = QuadHeap::default();
        assert!(h.is_empty());
        assert_eq!(h.peek(), None);
        assert_eq!(h.pop(), None);
    }

    #[test]
    fn sorts_by_time_then_age_then_tie() {
        let mut h = QuadHeap::default();
        let mut want = Vec::new();
        for i in 0..200u64 {
            let x = e(((i * 37) % 11) as f64 * 0.5, ((i * 7) % 3) as u32, i);
            want.push(x);
            h.push(x);
        }
        want.sort_by_key(Entry::ord);
        assert_eq!(h.len(), 200);
        assert_eq!(h.peek(), Some(want[0].key()));
        assert_eq!(drain(&mut h), want);
        assert!(h.is_empty());
    }

    #[test]
    fn zero_times_and_equal_times() {
        let mut h = QuadHeap::default();
        for i in (0..100u64).rev() {
            h.push(e(0.0, 0, i));
        }
        let got: Vec<u64> = drain(&mut h).iter().map(|x| x.tie).collect();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn pop_push_matches_push_then_pop() {
        let mut a = QuadHeap::with_capacity(64);
        let mut b = QuadHeap::default();
        let mut x = 12345u64;
        for i in 0..64u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = (x >> 40) as f64;
            a.push(e(t, 0, i));
            b.push(e(t, 0, i));
        }
        for i in 64..1000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = (x >> 40) as f64;
            let got = a.pop_push(e(t, 0, i));
            b.push(e(t, 0, i));
            assert_eq!(Some(got), b.pop());
        }
        assert_eq!(drain(&mut a), drain(&mut b));
        // Inserting below the minimum hands the entry straight back.
        a.push(e(5.0, 0, 1));
        assert_eq!(a.pop_push(e(1.0, 0, 2)), e(1.0, 0, 2));
        a.clear();
        assert!(a.is_empty());
    }
}
