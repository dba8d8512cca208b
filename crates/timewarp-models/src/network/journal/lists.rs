//! A rank's lists, journalled: each change saves what it undoes ([`Logged`]),
//! and [`undo_list`] undoes it.

use std::collections::VecDeque;

use super::super::node::{Journal, ListOp, Saved};
use super::super::workload::{Rank, EXPECT, POSTED, RDV, REQS, UNEXPECTED};

/// An element of a rank's list, as four words in a journal entry.
pub(crate) trait Elem: Copy {
    fn enc(self) -> [u32; 4];
    fn dec(v: [u32; 4]) -> Self;
}

impl Elem for (u32, u32) {
    fn enc(self) -> [u32; 4] {
        [self.0, self.1, 0, 0]
    }
    fn dec(v: [u32; 4]) -> Self {
        (v[0], v[1])
    }
}

impl Elem for (u32, u32, u32, u32) {
    fn enc(self) -> [u32; 4] {
        [self.0, self.1, self.2, self.3]
    }
    fn dec(v: [u32; 4]) -> Self {
        (v[0], v[1], v[2], v[3])
    }
}

impl Elem for (u32, bool, u32) {
    fn enc(self) -> [u32; 4] {
        [self.0, self.1 as u32, self.2, 0]
    }
    fn dec(v: [u32; 4]) -> Self {
        (v[0], v[1] != 0, v[2])
    }
}

/// The list operations a rank's state needs, on `Vec` and `VecDeque` alike.
pub(crate) trait List<T> {
    fn len(&self) -> usize;
    fn at(&mut self, i: usize) -> &mut T;
    fn push(&mut self, v: T);
    fn pop(&mut self) -> Option<T>;
    fn insert(&mut self, i: usize, v: T);
    fn remove(&mut self, i: usize) -> T;
}

impl<T> List<T> for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn at(&mut self, i: usize) -> &mut T {
        &mut self[i]
    }
    fn push(&mut self, v: T) {
        Vec::push(self, v)
    }
    fn pop(&mut self) -> Option<T> {
        Vec::pop(self)
    }
    fn insert(&mut self, i: usize, v: T) {
        Vec::insert(self, i, v)
    }
    fn remove(&mut self, i: usize) -> T {
        Vec::remove(self, i)
    }
}

impl<T> List<T> for VecDeque<T> {
    fn len(&self) -> usize {
        VecDeque::len(self)
    }
    fn at(&mut self, i: usize) -> &mut T {
        &mut self[i]
    }
    fn push(&mut self, v: T) {
        self.push_back(v)
    }
    fn pop(&mut self) -> Option<T> {
        self.pop_back()
    }
    fn insert(&mut self, i: usize, v: T) {
        VecDeque::insert(self, i, v)
    }
    fn remove(&mut self, i: usize) -> T {
        VecDeque::remove(self, i).expect("an element to remove")
    }
}

/// Writes to list `list` of rank `nic`, each saved in the journal first.
pub(crate) struct Logged<'a, T: Elem, L: List<T>> {
    pub(crate) items: &'a mut L,
    pub(crate) log: &'a mut Journal,
    pub(crate) nic: u8,
    pub(crate) list: u8,
    pub(crate) _t: std::marker::PhantomData<T>,
}

impl<T: Elem, L: List<T>> Logged<'_, T, L> {
    fn save(&mut self, op: ListOp, i: usize, v: T) {
        let (nic, list) = (self.nic, self.list);
        self.log.save(|| Saved::RankList { nic, list, op, i: i as u32, v: v.enc() });
    }
    pub(crate) fn push(&mut self, v: T) {
        self.save(ListOp::Push, 0, v);
        self.items.push(v);
    }
    pub(crate) fn remove(&mut self, i: usize) -> T {
        let v = self.items.remove(i);
        self.save(ListOp::Remove, i, v);
        v
    }
    pub(crate) fn swap_remove(&mut self, i: usize) -> T {
        let last = self.items.len() - 1;
        let v = *self.items.at(i);
        self.save(ListOp::SwapRemove, i, v);
        let moved = *self.items.at(last);
        *self.items.at(i) = moved;
        self.items.pop();
        v
    }
    pub(crate) fn set(&mut self, i: usize, v: T) {
        let old = *self.items.at(i);
        self.save(ListOp::Set, i, old);
        *self.items.at(i) = v;
    }
    /// Keeps the elements `keep` says yes to, in order (removed back to front).
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        for i in (0..self.items.len()).rev() {
            if !keep(self.items.at(i)) {
                self.remove(i);
            }
        }
    }
    pub(crate) fn clear(&mut self) {
        self.retain(|_| false);
    }
}

/// Undoes one list change on `items`.
pub(crate) fn undo_list<T: Elem, L: List<T>>(items: &mut L, op: ListOp, i: u32, v: [u32; 4]) {
    let i = i as usize;
    match op {
        ListOp::Push => drop(items.pop()),
        ListOp::Remove => items.insert(i, T::dec(v)),
        ListOp::SwapRemove => {
            items.push(T::dec(v));
            let last = items.len() - 1;
            let moved = *items.at(i);
            *items.at(i) = *items.at(last);
            *items.at(last) = moved;
        }
        ListOp::Set => *items.at(i) = T::dec(v),
    }
}

/// A rank's lists are undone here, with the node's other writes.
impl Rank {
    /// Undoes one saved change to list `list`.
    pub(crate) fn undo_list(&mut self, list: u8, op: ListOp, i: u32, v: [u32; 4]) {
        match list {
            REQS => undo_list(&mut self.reqs, op, i, v),
            POSTED => undo_list(&mut self.posted, op, i, v),
            UNEXPECTED => undo_list(&mut self.unexpected, op, i, v),
            EXPECT => undo_list(&mut self.expect, op, i, v),
            RDV => undo_list(&mut self.rdv, op, i, v),
            _ => undo_list(&mut self.early, op, i, v),
        }
    }
}
