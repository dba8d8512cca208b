//! Ladder queue (Tang, Goh and Thng, "Ladder queue: An O(1) priority queue
//! structure for large-scale discrete event simulation", TOMACS 2005).
//!
//! Events live in one of four tiers, each holding only keys smaller than the
//! next one's:
//!
//! * **Bottom**: a short `Vec` sorted in descending key order (pop is
//!   `Vec::pop`), followed by the **spill**, an unsorted `Vec` of keys larger
//!   than all of Bottom (so inserts that land past Bottom's end are `O(1)`).
//!   A Bottom of one time cannot become a rung; when it is long (a TLM step:
//!   a million events at one time), inserts inside it go to the **overflow**
//!   heap beside it instead of shifting it (`O(log n)`, not `O(n)`), and pop
//!   takes the smaller of the two;
//! * **Rungs** `nrungs-1 ..= 0`: arrays of time buckets, each rung spreading
//!   one bucket of the rung above it (rung 0 spreads the old Top);
//! * **Top**: an unsorted `Vec` of everything later than `top_floor`.
//!
//! Where a new event goes depends on its time only and is monotone in time,
//! so equal times always share a tier and a bucket; order among equal times
//! (age, tie) is settled by the full [`Entry::ord`] sort into Bottom.
//! A rung spreads `n` events over `n` buckets of width `(max - min) / n`, so
//! widths adapt to the data. Rung 0 also receives the events scheduled while
//! it drains (in a hold model several times what Top gave it), so it gets
//! `n * g` buckets, `g` a running average of how much rung 0 grew over its
//! life (1 ..= `MAX_GROWTH`): buckets then hold about one event when they
//! are drained, whatever the model. A bucket of more than `THRES` events
//! with more than one distinct time becomes a finer rung (at most
//! `MAX_RUNGS`), otherwise it is sorted into Bottom.
//!
//! Buckets are singly linked lists threaded through one node pool with a free
//! list, so memory is one 32-byte node per rung event plus 4 bytes per bucket,
//! and nothing is allocated once the pool, the bucket arrays and the three
//! `Vec`s have reached their working sizes.

use super::{Entry, PendingQueue};
use crate::key::Key;
use sort::{sort_desc, Scratch};

mod sort;

/// A bucket larger than this is spread over a finer rung instead of sorted.
pub(crate) const THRES: usize = 50;
/// Most rungs at once; past this buckets are sorted whatever their size.
pub(crate) const MAX_RUNGS: usize = 8;
/// Cap on rung 0's extra buckets per event (see the module docs).
pub(crate) const MAX_GROWTH: f64 = 16.0;
/// Buckets looked at past the one being drained for the next one to prefetch.
const PREFETCH_SCAN: usize = 64;
/// Bottom larger than this (after an insert) becomes a rung of its own.
const BOTTOM_LIMIT: usize = 4 * THRES;

/// Smallest and largest time in `v` (`(inf, -inf)` when empty).
#[inline]
fn time_range<P>(v: &[Entry<P>]) -> (f64, f64) {
    v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), e| (lo.min(e.time), hi.max(e.time)))
}

/// A link: `0` is the end of a list, `k` is `nodes[k - 1]`.
type Link = u32;

/// A bucket list node.
#[derive(Clone, Copy, Debug)]
struct Node<P> {
    e: Entry<P>,
    next: Link,
}

/// Storage for all bucket lists, with a free list.
#[derive(Debug)]
struct Pool<P> {
    nodes: Vec<Node<P>>,
    /// First free node.
    free: Link,
}

impl<P> Default for Pool<P> {
    fn default() -> Self {
        Pool { nodes: Vec::new(), free: 0 }
    }
}

impl<P: Copy> Pool<P> {
    /// A node holding `e` in front of `next`.
    #[inline(always)]
    fn alloc(&mut self, e: Entry<P>, next: Link) -> Link {
        let l = self.free;
        if l != 0 {
            let n = &mut self.nodes[l as usize - 1];
            self.free = n.next;
            *n = Node { e, next };
            l
        } else {
            self.nodes.push(Node { e, next });
            Link::try_from(self.nodes.len()).expect("more than 2^32 queued events")
        }
    }

    /// Appends the list from `l` to `out` and frees its nodes.
    #[inline]
    fn drain(&mut self, mut l: Link, out: &mut Vec<Entry<P>>) {
        while l != 0 {
            let n = &mut self.nodes[l as usize - 1];
            out.push(n.e);
            let next = n.next;
            n.next = self.free;
            self.free = l;
            l = next;
        }
    }
}

/// One rung: `nb` buckets of equal width from `start`.
#[derive(Debug, Default)]
struct Rung {
    /// Bucket list heads; only `..nb` is in use, the rest is empty.
    heads: Vec<Link>,
    /// Buckets in use.
    nb: usize,
    /// Next bucket to drain; earlier buckets are empty and closed.
    cur: usize,
    /// Events in the rung.
    count: usize,
    /// Events put in since it was opened.
    added: usize,
    /// Events it was opened with.
    filled: usize,
    /// Time of the start of bucket 0.
    start: f64,
    /// `1 / width`.
    inv_w: f64,
}

impl Rung {
    /// Bucket of time `t`: monotone in `t`, clamped to `0..nb`.
    #[inline(always)]
    fn index(&self, t: f64) -> usize {
        // `as` saturates: negatives (times before `start`) give 0.
        (((t - self.start) * self.inv_w) as usize).min(self.nb - 1)
    }

    /// Adds `e` to bucket `i`.
    #[inline(always)]
    fn insert<P: Copy>(&mut self, pool: &mut Pool<P>, i: usize, e: Entry<P>) {
        self.heads[i] = pool.alloc(e, self.heads[i]);
        self.count += 1;
        self.added += 1;
    }

    /// Reopens the (empty) rung with `nb >= 1` buckets spanning `[lo, hi]`,
    /// `lo < hi`.
    fn open(&mut self, nb: usize, lo: f64, hi: f64) {
        debug_assert!(self.count == 0 && nb > 0 && hi > lo);
        if self.heads.len() < nb {
            self.heads.resize(nb, 0);
        }
        self.nb = nb;
        self.cur = 0;
        self.added = 0;
        self.start = lo;
        // `nb` buckets over the span; the event at `hi` lands in the last.
        let inv_w = nb as f64 / (hi - lo);
        self.inv_w = if inv_w.is_finite() { inv_w } else { f64::MAX };
    }

    /// Reopens the rung with `nb` buckets and spreads `src` (times within
    /// `[lo, hi]`, `lo < hi`) into it.
    fn fill<P: Copy>(&mut self, pool: &mut Pool<P>, src: &[Entry<P>], nb: usize, lo: f64, hi: f64) {
        self.open(nb, lo, hi);
        for &e in src {
            let i = self.index(e.time);
            self.insert(pool, i, e);
        }
        self.filled = src.len();
    }
}

/// A ladder queue of pending events.
#[derive(Debug)]
pub struct LadderQueue<P = u32> {
    /// Number of entries.
    len: usize,
    /// Unsorted events with `time > top_floor`.
    top: Vec<Entry<P>>,
    /// Smallest time in `top` (meaningless when empty).
    top_min: f64,
    /// Largest time in `top` (meaningless when empty).
    top_max: f64,
    /// Largest time of the last Top transfer: later events go to Top.
    top_floor: f64,
    /// Rung storage; `..nrungs` are in use, deeper ones are finer.
    rungs: Vec<Rung>,
    /// Rungs in use.
    nrungs: usize,
    /// Running average of rung 0's growth factor (0: none yet).
    grow: f64,
    /// Nodes of every rung's buckets.
    pool: Pool<P>,
    /// Sorted in descending key order.
    bottom: Vec<Entry<P>>,
    /// Unsorted; every key is above all of `bottom` and `overflow` and below all rungs.
    spill: Vec<Entry<P>>,
    /// Inserts inside a long Bottom of one time: a min-heap, part of the lowest tier.
    overflow: std::collections::BinaryHeap<Low<P>>,
    /// Largest key put in `overflow` since it was last empty.
    overflow_max: (u64, u32, u64),
    /// Next node of the next bucket's list to prefetch (0: none).
    warm: Link,
    /// The node `warm` last passed (0: none): an event of the next bucket,
    /// [`PendingQueue::upcoming`]'s answer past Bottom's end.
    warmed: Link,
    /// Buffers Bottom's sort reuses.
    scratch: Scratch<P>,
}

/// An entry ordered for a min-heap (`BinaryHeap` is a max-heap).
#[derive(Debug, Clone, Copy)]
struct Low<P>(Entry<P>);

impl<P> PartialEq for Low<P> {
    fn eq(&self, o: &Self) -> bool {
        self.0.ord() == o.0.ord()
    }
}
impl<P> Eq for Low<P> {}
impl<P> PartialOrd for Low<P> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<P> Ord for Low<P> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.0.ord().cmp(&self.0.ord())
    }
}

impl<P> Default for LadderQueue<P> {
    fn default() -> Self {
        LadderQueue {
            len: 0,
            top: Vec::new(),
            top_min: 0.0,
            top_max: 0.0,
            top_floor: 0.0,
            rungs: Vec::new(),
            nrungs: 0,
            grow: 0.0,
            pool: Pool::default(),
            bottom: Vec::new(),
            spill: Vec::new(),
            overflow: std::collections::BinaryHeap::new(),
            overflow_max: (0, 0, 0),
            warm: 0,
            warmed: 0,
            scratch: Scratch::default(),
        }
    }
}

impl<P: Copy> LadderQueue<P> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of rungs in use (for tests).
    #[cfg(test)]
    pub(crate) fn rungs(&self) -> usize {
        self.nrungs
    }

    /// Inserts below every rung: into Bottom, the overflow or the spill.
    #[inline]
    fn push_low(&mut self, e: Entry<P>) {
        let k = e.ord();
        if !self.overflow.is_empty() && k < self.overflow_max {
            self.overflow.push(Low(e));
            return;
        }
        match self.bottom.first() {
            Some(max) if k < max.ord() => {
                let n = self.bottom.len();
                if n >= BOTTOM_LIMIT && (self.nrungs == MAX_RUNGS || self.bottom[0].time == self.bottom[n - 1].time) {
                    // A long Bottom that cannot be spread: keep it, heap the insert.
                    self.overflow_max = if self.overflow.is_empty() { k } else { self.overflow_max.max(k) };
                    self.overflow.push(Low(e));
                    return;
                }
                let pos = self.bottom.partition_point(|x| x.ord() > k);
                self.bottom.insert(pos, e);
                // Only times can be spread: a Bottom at one time stays.
                if n + 1 > BOTTOM_LIMIT && self.nrungs < MAX_RUNGS && self.bottom[0].time > self.bottom[n].time {
                    self.bottom_to_rung();
                }
            }
            _ => self.spill.push(e),
        }
    }

    /// Whether the lowest tier (Bottom and the overflow) is empty.
    #[inline]
    fn low_is_empty(&self) -> bool {
        self.bottom.is_empty() && self.overflow.is_empty()
    }

    /// Removes the smallest entry of the lowest tier (which is not empty).
    #[inline]
    fn pop_low(&mut self) -> Option<Entry<P>> {
        let take_overflow = match (self.overflow.peek(), self.bottom.last()) {
            (Some(h), Some(b)) => h.0.ord() < b.ord(),
            (h, _) => h.is_some(),
        };
        if take_overflow {
            return self.overflow.pop().map(|l| l.0);
        }
        self.bottom.pop()
    }

    /// Turns a Bottom grown by inserts (plus the spill) into a new deepest
    /// rung; Bottom must hold more than one time.
    #[cold]
    fn bottom_to_rung(&mut self) {
        let (lo, hi) = time_range(&self.spill);
        let lo = lo.min(self.bottom[self.bottom.len() - 1].time);
        let hi = hi.max(self.bottom[0].time);
        let (lo, hi) = self.overflow.iter().fold((lo, hi), |(lo, hi), e| (lo.min(e.0.time), hi.max(e.0.time)));
        let k = self.nrungs;
        self.ensure_rung(k);
        let rung = &mut self.rungs[k];
        rung.open(self.bottom.len() + self.spill.len() + self.overflow.len(), lo, hi);
        for &e in self.bottom.iter().chain(self.spill.iter()).chain(self.overflow.iter().map(|l| &l.0)) {
            let i = rung.index(e.time);
            rung.insert(&mut self.pool, i, e);
        }
        rung.filled = rung.added;
        self.bottom.clear();
        self.spill.clear();
        self.overflow.clear();
        self.nrungs += 1;
    }

    /// Prefetches the node at the warm-up cursor and moves the cursor to its
    /// successor (read from the node the previous step prefetched). The
    /// cursor may have gone stale (its bucket drained, its node reused):
    /// a link is always an index into the pool, so that costs a useless
    /// prefetch at worst.
    #[inline(always)]
    fn warm_step(&mut self) {
        if let Some(n) = self.warm.checked_sub(1).and_then(|i| self.pool.nodes.get(i as usize)) {
            crate::prefetch::prefetch_all(n);
            self.warmed = self.warm;
            self.warm = n.next;
        }
    }

    /// Makes sure rung `k` exists.
    #[inline]
    fn ensure_rung(&mut self, k: usize) {
        if self.rungs.len() <= k {
            self.rungs.resize_with(k + 1, Rung::default);
        }
    }

    /// Makes Bottom non-empty unless the queue is; false when it is empty.
    #[inline]
    fn refill(&mut self) -> bool {
        while self.bottom.is_empty() {
            if !self.refill_step() {
                return false;
            }
        }
        true
    }

    /// One step towards a non-empty Bottom (which is empty); false when the
    /// queue is empty.
    fn refill_step(&mut self) -> bool {
        // 1. The spill is next in line.
        if !self.spill.is_empty() {
            let (lo, hi) = time_range(&self.spill);
            if self.spill.len() > THRES && self.nrungs < MAX_RUNGS && lo < hi {
                let k = self.nrungs;
                self.ensure_rung(k);
                self.rungs[k].fill(&mut self.pool, &self.spill, self.spill.len(), lo, hi);
                self.spill.clear();
                self.nrungs += 1;
            } else {
                std::mem::swap(&mut self.bottom, &mut self.spill);
                sort_desc(&mut self.bottom, &mut self.scratch);
            }
            return true;
        }
        // 2. No rungs: bring Top down.
        if self.nrungs == 0 {
            if self.top.is_empty() {
                return false;
            }
            let (lo, hi) = (self.top_min, self.top_max);
            self.top_floor = hi;
            if self.top.len() <= THRES || lo >= hi {
                std::mem::swap(&mut self.bottom, &mut self.top);
                sort_desc(&mut self.bottom, &mut self.scratch);
            } else {
                self.ensure_rung(0);
                let g = self.grow.clamp(1.0, MAX_GROWTH);
                let nb = (self.top.len() as f64 * g) as usize;
                self.rungs[0].fill(&mut self.pool, &self.top, nb, lo, hi);
                self.top.clear();
                self.nrungs = 1;
            }
            return true;
        }
        // 3. Next bucket of the deepest rung.
        let k = self.nrungs - 1;
        let rung = &mut self.rungs[k];
        if rung.count == 0 {
            // Exhausted: its span now belongs to Bottom (which is empty).
            if k == 0 {
                // Learn how much it grew while it drained.
                let grew = rung.added as f64 / rung.filled.max(1) as f64;
                self.grow = if self.grow == 0.0 { grew } else { 0.5 * (self.grow + grew) };
            }
            rung.nb = 0;
            rung.cur = 0;
            self.nrungs -= 1;
            return true;
        }
        let mut b = rung.cur;
        while rung.heads[b] == 0 {
            b += 1;
        }
        rung.cur = b + 1;
        let head = std::mem::take(&mut rung.heads[b]);
        // Reading a bucket's list is a chain of cache misses when the queue
        // is larger than the cache (nodes are reused in no time order): warm
        // the next bucket's list while this bucket's events run, its first
        // node now and one more at each pop (`warm_step`).
        self.warm = rung.heads[b + 1..rung.nb].iter().take(PREFETCH_SCAN).copied().find(|&h| h != 0).unwrap_or(0);
        self.pool.drain(head, &mut self.bottom);
        rung.count -= self.bottom.len();
        self.warm_step();
        if self.bottom.len() > THRES && k + 1 < MAX_RUNGS {
            let (lo, hi) = time_range(&self.bottom);
            if lo < hi {
                self.ensure_rung(k + 1);
                self.rungs[k + 1].fill(&mut self.pool, &self.bottom, self.bottom.len(), lo, hi);
                self.bottom.clear();
                self.nrungs += 1;
                return true;
            }
        }
        sort_desc(&mut self.bottom, &mut self.scratch);
        true
    }

    /// Checks the structural invariants (tests only).
    #[cfg(test)]
    pub(crate) fn check(&self) {
        let mut n = self.top.len() + self.bottom.len() + self.spill.len() + self.overflow.len();
        for h in &self.overflow {
            assert!(h.0.ord() <= self.overflow_max);
            assert!(self.spill.iter().all(|e| e.ord() > h.0.ord()));
        }
        for e in &self.top {
            assert!(e.time > self.top_floor);
            assert!(e.time >= self.top_min && e.time <= self.top_max);
        }
        assert!(self.bottom.windows(2).all(|w| w[0].ord() > w[1].ord()));
        if let Some(max) = self.bottom.first() {
            assert!(self.spill.iter().all(|e| e.ord() > max.ord()));
        }
        let list = |mut l: Link| {
            let mut v = Vec::new();
            while l != 0 {
                let node = self.pool.nodes[l as usize - 1];
                v.push(node.e);
                l = node.next;
            }
            v
        };
        let mut upper: Option<(u64, u32, u64)> = None;
        let mut in_rungs = 0;
        for r in &self.rungs[..self.nrungs] {
            assert!(r.heads[..r.cur].iter().all(|&h| h == 0));
            let mut c = 0;
            let mut lowest = None;
            for (i, &h) in r.heads[..r.nb].iter().enumerate() {
                for e in list(h) {
                    assert_eq!(r.index(e.time), i);
                    assert!(e.time <= self.top_floor);
                    lowest = lowest.min(Some(e.ord())).or(Some(e.ord()));
                    c += 1;
                }
            }
            assert_eq!(c, r.count);
            upper = lowest.or(upper);
            in_rungs += c;
        }
        for r in &self.rungs[self.nrungs..] {
            assert!(r.heads.iter().all(|&h| h == 0));
        }
        if let Some(u) = upper {
            assert!(self
                .bottom
                .iter()
                .chain(&self.spill)
                .chain(self.overflow.iter().map(|l| &l.0))
                .all(|e| e.ord() < u));
        }
        let mut free = 0;
        let mut l = self.pool.free;
        while l != 0 {
            free += 1;
            l = self.pool.nodes[l as usize - 1].next;
        }
        assert_eq!(free + in_rungs, self.pool.nodes.len());
        assert_eq!(n + in_rungs, self.len);
        n += in_rungs;
        assert_eq!(n, self.len);
    }
}

impl<P: Copy + Send> PendingQueue<P> for LadderQueue<P> {
    #[inline]
    fn push(&mut self, e: Entry<P>) {
        self.len += 1;
        let t = e.time;
        if t > self.top_floor {
            if self.top.is_empty() {
                self.top_min = t;
                self.top_max = t;
            } else {
                self.top_min = self.top_min.min(t);
                self.top_max = self.top_max.max(t);
            }
            self.top.push(e);
            return;
        }
        for rung in &mut self.rungs[..self.nrungs] {
            let i = rung.index(t);
            if i >= rung.cur {
                rung.insert(&mut self.pool, i, e);
                return;
            }
        }
        self.push_low(e);
    }

    #[inline]
    fn pop(&mut self) -> Option<Entry<P>> {
        if self.low_is_empty() && !self.refill() {
            return None;
        }
        self.len -= 1;
        self.warm_step();
        self.pop_low()
    }

    #[inline]
    fn peek(&mut self) -> Option<Key> {
        if self.low_is_empty() && !self.refill() {
            return None;
        }
        match (self.bottom.last(), self.overflow.peek()) {
            (Some(b), Some(h)) if h.0.ord() < b.ord() => Some(h.0.key()),
            (None, Some(h)) => Some(h.0.key()),
            (b, _) => b.map(Entry::key),
        }
    }

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    fn drain_unordered(&mut self, f: impl FnMut(Entry<P>)) {
        let mut all = std::mem::take(&mut self.top);
        all.append(&mut self.bottom);
        all.append(&mut self.spill);
        all.extend(std::mem::take(&mut self.overflow).into_iter().map(|l| l.0));
        for r in 0..self.nrungs {
            let rung = &mut self.rungs[r];
            for b in rung.cur..rung.nb {
                let head = std::mem::replace(&mut rung.heads[b], 0);
                self.pool.drain(head, &mut all);
            }
        }
        debug_assert_eq!(all.len(), self.len);
        *self = LadderQueue::default();
        all.into_iter().for_each(f);
    }

    #[inline]
    fn upcoming(&self, k: usize) -> Option<P> {
        // Bottom is sorted descending: the k-th next entry is k from the end.
        if !self.overflow.is_empty() {
            return None;
        }
        match self.bottom.len().checked_sub(k + 1) {
            Some(i) => Some(self.bottom[i].item),
            None => self.warmed.checked_sub(1).and_then(|i| self.pool.nodes.get(i as usize)).map(|n| n.e.item),
        }
    }
}

#[cfg(test)]
mod tests;
