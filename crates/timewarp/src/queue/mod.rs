//! Pending-event sets: the events a PE has not processed yet, ordered by [`Key`].
//!
//! Two structures behind one trait so that the kernel is generic over them
//! (monomorphised, no `dyn`): a 4-ary heap ([`heap::QuadHeap`]) and a ladder
//! queue with adaptive bucket widths ([`ladder::LadderQueue`]). The default is
//! the faster one by the `queues` criterion benchmark (see docs/performance.md).
//!
//! Cancelled events are not removed from a queue: the optimistic kernel
//! remembers their incarnation numbers and drops them when they are popped
//! (lazy cancellation).

use crate::key::Key;

pub mod heap;
pub mod ladder;

/// One queued event: its key and an item — an arena handle (24 bytes in
/// all), or, for kernels that never roll back, the event itself, so the hot
/// loop touches one place in memory per event instead of two.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry<P = u32> {
    /// Timestamp of the event.
    pub time: f64,
    /// Tie-breaker (see [`Key::tie`]).
    pub tie: u64,
    /// Zero-delay generation (see [`Key::age`]).
    pub age: u32,
    /// The event's arena handle, or the event itself.
    pub item: P,
}

impl<P> Entry<P> {
    /// Packs a key and an item.
    #[inline]
    pub fn new(key: Key, item: P) -> Self {
        Entry { time: key.time, tie: key.tie, age: key.age, item }
    }

    /// The event's key.
    #[inline]
    pub fn key(&self) -> Key {
        Key { time: self.time, age: self.age, tie: self.tie }
    }

    /// Comparable form of the key; smaller is earlier.
    #[inline]
    pub fn ord(&self) -> (u64, u32, u64) {
        (self.time.to_bits(), self.age, self.tie)
    }
}

/// A priority queue of pending events, smallest [`Key`] first.
///
/// Implementations must return entries in exactly key order (keys are unique).
pub trait PendingQueue<P: Copy + Send = u32>: Send + Default {
    /// Inserts an entry.
    fn push(&mut self, e: Entry<P>);
    /// Removes and returns the entry with the smallest key.
    fn pop(&mut self) -> Option<Entry<P>>;
    /// The smallest key without removing it (may reorganise internally).
    fn peek(&mut self) -> Option<Key>;
    /// Number of entries.
    fn len(&self) -> usize;
    /// Item of the entry `k` places after the minimum, when the structure
    /// knows it without work (a hint for prefetching; `None` is always a
    /// correct answer).
    #[inline]
    fn upcoming(&self, k: usize) -> Option<P> {
        let _ = k;
        None
    }
    /// True when empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Removes every entry, handing each to `f` in no particular order
    /// (a checkpoint takes a paused PE's events; order costs time there).
    fn drain_unordered(&mut self, mut f: impl FnMut(Entry<P>)) {
        while let Some(e) = self.pop() {
            f(e);
        }
    }
}

/// Which pending-queue structure a run uses (a run-time option for experiments).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueKind {
    /// Ladder queue with adaptive bucket widths (default: fastest measured).
    #[default]
    Ladder,
    /// 4-ary implicit heap.
    Heap,
}

#[cfg(test)]
mod tests;
