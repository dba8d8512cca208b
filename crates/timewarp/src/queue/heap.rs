//! TEMPORARY placeholder.
#![allow(missing_docs, clippy::type_complexity)]
use super::{Entry, PendingQueue};
use crate::key::Key;
use std::cmp::Reverse;
#[derive(Default)]
pub struct QuadHeap(std::collections::BinaryHeap<Reverse<((u64, u32, u64), u32, u64)>>);
impl PendingQueue for QuadHeap {
    fn push(&mut self, e: Entry) {
        self.0.push(Reverse((e.ord(), e.handle, e.time.to_bits())))
    }
    fn pop(&mut self) -> Option<Entry> {
        self.0.pop().map(|Reverse((o, h, _))| Entry { time: f64::from_bits(o.0), age: o.1, tie: o.2, handle: h })
    }
    fn peek(&mut self) -> Option<Key> {
        self.0.peek().map(|Reverse((o, _, _))| Key { time: f64::from_bits(o.0), age: o.1, tie: o.2 })
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}
