//! A loom model of rtrb's ring (0.3), for `--cfg loom` builds only, with
//! what `Links` uses of its interface. Same protocol: positions run over
//! `0..2 * capacity` (so a full ring differs from an empty one); each end
//! caches the other's index and refreshes it with an acquire load only
//! when its cache says full (producer) or empty (consumer); the producer
//! publishes written slots with a release store of the tail, the consumer
//! frees read slots with a release store of the head. Its slots are loom
//! cells, so loom fails a test where a slot is read before the write it
//! should see, or written while its old value may still be read.

use std::cell::Cell;
use std::mem::MaybeUninit;
use std::sync::Arc;

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};

/// The shared part: both indices and the slots.
pub(crate) struct RingBuffer<T> {
    head: AtomicUsize,
    tail: AtomicUsize,
    slots: Box<[UnsafeCell<MaybeUninit<T>>]>,
    capacity: usize,
}

// SAFETY: as rtrb's: a slot is written by the producer only while the head
// says the consumer is done with it, and read by the consumer only once
// the tail says it is written (loom checks exactly this).
unsafe impl<T: Send> Sync for RingBuffer<T> {}

/// A push that found the ring full gives the value back.
pub(crate) enum PushError<T> {
    Full(T),
}

/// Fewer slots (or items) than asked for.
#[derive(Debug)]
pub(crate) struct ChunkError;

impl<T: Copy> RingBuffer<T> {
    /// A ring of `capacity` slots, as its two ends (rtrb's signature).
    #[allow(clippy::new_ret_no_self)]
    pub(crate) fn new(capacity: usize) -> (Producer<T>, Consumer<T>) {
        let buffer = Arc::new(RingBuffer {
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
            slots: (0..capacity).map(|_| UnsafeCell::new(MaybeUninit::uninit())).collect(),
            capacity,
        });
        let p = Producer { buffer: buffer.clone(), cached_head: Cell::new(0), cached_tail: Cell::new(0) };
        (p, Consumer { buffer, cached_head: Cell::new(0), cached_tail: Cell::new(0) })
    }

    fn distance(&self, a: usize, b: usize) -> usize {
        if a <= b {
            b - a
        } else {
            2 * self.capacity - a + b
        }
    }

    fn increment(&self, pos: usize, n: usize) -> usize {
        let threshold = 2 * self.capacity - n;
        if pos < threshold {
            pos + n
        } else {
            pos - threshold
        }
    }

    fn slot(&self, pos: usize) -> &UnsafeCell<MaybeUninit<T>> {
        &self.slots[if pos < self.capacity { pos } else { pos - self.capacity }]
    }

    /// Writes the slot at `pos` (the producer's, by the indices).
    fn write(&self, pos: usize, value: T) {
        // SAFETY: only the producer writes, and only free slots.
        self.slot(pos).with_mut(|p| unsafe { *p = MaybeUninit::new(value) });
    }

    /// Reads the slot at `pos` (written, by the indices).
    fn read(&self, pos: usize) -> T {
        // SAFETY: only the consumer reads, and only written slots.
        self.slot(pos).with(|p| unsafe { (*p).assume_init() })
    }
}

/// The writing end.
pub(crate) struct Producer<T> {
    buffer: Arc<RingBuffer<T>>,
    cached_head: Cell<usize>,
    cached_tail: Cell<usize>,
}

impl<T: Copy> Producer<T> {
    /// Writes `value` into the ring, or gives it back when the ring is full.
    pub(crate) fn push(&mut self, value: T) -> Result<(), PushError<T>> {
        let b = &self.buffer;
        let tail = self.cached_tail.get();
        if b.distance(self.cached_head.get(), tail) == b.capacity {
            let head = b.head.load(Ordering::Acquire);
            self.cached_head.set(head);
            if b.distance(head, tail) == b.capacity {
                return Err(PushError::Full(value));
            }
        }
        b.write(tail, value);
        let tail = b.increment(tail, 1);
        b.tail.store(tail, Ordering::Release);
        self.cached_tail.set(tail);
        Ok(())
    }

    /// Free slots now.
    pub(crate) fn slots(&self) -> usize {
        let head = self.buffer.head.load(Ordering::Acquire);
        self.cached_head.set(head);
        self.buffer.capacity - self.buffer.distance(head, self.cached_tail.get())
    }

    /// The next `n` free slots, if there are as many.
    pub(crate) fn write_chunk_uninit(&mut self, n: usize) -> Result<WriteChunkUninit<'_, T>, ChunkError> {
        let b = &self.buffer;
        let tail = self.cached_tail.get();
        if b.capacity - b.distance(self.cached_head.get(), tail) < n {
            let head = b.head.load(Ordering::Acquire);
            self.cached_head.set(head);
            if b.capacity - b.distance(head, tail) < n {
                return Err(ChunkError);
            }
        }
        Ok(WriteChunkUninit { producer: self, n })
    }
}

/// Free slots the producer may fill.
pub(crate) struct WriteChunkUninit<'a, T> {
    producer: &'a mut Producer<T>,
    n: usize,
}

impl<T: Copy> WriteChunkUninit<'_, T> {
    /// Moves up to the chunk's size of items from `iter` into it and
    /// publishes them; returns how many.
    pub(crate) fn fill_from_iter<I: IntoIterator<Item = T>>(self, iter: I) -> usize {
        let p = self.producer;
        let start = p.cached_tail.get();
        let mut written = 0;
        for item in iter.into_iter().take(self.n) {
            p.buffer.write(p.buffer.increment(start, written), item);
            written += 1;
        }
        let tail = p.buffer.increment(start, written);
        p.buffer.tail.store(tail, Ordering::Release);
        p.cached_tail.set(tail);
        written
    }
}

/// The reading end.
pub(crate) struct Consumer<T> {
    buffer: Arc<RingBuffer<T>>,
    cached_head: Cell<usize>,
    cached_tail: Cell<usize>,
}

impl<T: Copy> Consumer<T> {
    /// Written slots now.
    pub(crate) fn slots(&self) -> usize {
        let tail = self.buffer.tail.load(Ordering::Acquire);
        self.cached_tail.set(tail);
        self.buffer.distance(self.cached_head.get(), tail)
    }

    /// The next `n` written slots, if there are as many.
    pub(crate) fn read_chunk(&mut self, n: usize) -> Result<ReadChunk<'_, T>, ChunkError> {
        let b = &self.buffer;
        let head = self.cached_head.get();
        if b.distance(head, self.cached_tail.get()) < n {
            let tail = b.tail.load(Ordering::Acquire);
            self.cached_tail.set(tail);
            if b.distance(head, tail) < n {
                return Err(ChunkError);
            }
        }
        Ok(ReadChunk { consumer: self, n })
    }
}

/// Written slots the consumer may take.
pub(crate) struct ReadChunk<'a, T> {
    consumer: &'a mut Consumer<T>,
    n: usize,
}

impl<'a, T: Copy> IntoIterator for ReadChunk<'a, T> {
    type Item = T;
    type IntoIter = ReadChunkIntoIter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        let start = self.consumer.cached_head.get();
        ReadChunkIntoIter { consumer: self.consumer, n: self.n, start, taken: 0 }
    }
}

/// Takes the chunk's items in order; dropped, frees the slots it took.
pub(crate) struct ReadChunkIntoIter<'a, T: Copy> {
    consumer: &'a mut Consumer<T>,
    n: usize,
    start: usize,
    taken: usize,
}

impl<T: Copy> Iterator for ReadChunkIntoIter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.taken == self.n {
            return None;
        }
        let b = &self.consumer.buffer;
        let value = b.read(b.increment(self.start, self.taken));
        self.taken += 1;
        Some(value)
    }
}

impl<T: Copy> Drop for ReadChunkIntoIter<'_, T> {
    fn drop(&mut self) {
        let b = &self.consumer.buffer;
        let head = b.increment(self.start, self.taken);
        b.head.store(head, Ordering::Release);
        self.consumer.cached_head.set(head);
    }
}
