//! Event arena: a slab of fixed-size records addressed by `u32` handles.
//!
//! Freed slots go on a LIFO free list so the most recently freed (warmest in
//! cache) record is reused first. The arena grows only up to its capacity;
//! past that `alloc` returns `None` and the kernel decides what to do (force a
//! GVT round, stop speculating, or report that memory is too small).

/// Slab of `T` records with a LIFO free list: `alloc` returns a `u32`
/// handle (the most recently freed one first), `arena[h]` the record.
#[derive(Debug)]
pub(crate) struct Arena<T> {
    slots: Vec<T>,
    free: Vec<u32>,
    cap: usize,
}

impl<T: Copy> Arena<T> {
    /// An arena holding at most `cap` records (memory is taken as needed).
    pub(crate) fn with_capacity(cap: usize) -> Self {
        let cap = cap.min(u32::MAX as usize);
        Arena { slots: Vec::new(), free: Vec::new(), cap }
    }

    /// Stores `v` and returns its handle, or `None` when the arena is full.
    #[inline]
    pub(crate) fn alloc(&mut self, v: T) -> Option<u32> {
        if let Some(h) = self.free.pop() {
            self.slots[h as usize] = v;
            Some(h)
        } else if self.slots.len() < self.cap {
            self.slots.push(v);
            Some((self.slots.len() - 1) as u32)
        } else {
            None
        }
    }

    /// Returns the slot of `h` to the free list.
    #[inline]
    pub(crate) fn free(&mut self, h: u32) {
        debug_assert!((h as usize) < self.slots.len());
        self.free.push(h);
    }

    /// Records currently allocated.
    #[inline]
    pub(crate) fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Records that can still be allocated.
    #[cfg(test)]
    #[inline]
    pub(crate) fn available(&self) -> usize {
        self.cap - self.live()
    }

    /// Most records ever allocated at once (the slab's size).
    #[cfg(test)]
    pub(crate) fn high_water(&self) -> usize {
        self.slots.len()
    }
}

/// Prefetches the cache line holding `r` (a hint; never faults).
#[inline]
pub(crate) fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch of a valid reference's address has no memory effects.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((r as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// Prefetches every cache line of `*r` (its first and last byte's lines: a
/// record of up to 128 bytes).
#[inline]
pub(crate) fn prefetch_all<T>(r: &T) {
    prefetch(r);
    if size_of::<T>() > 1 {
        let last = (r as *const T).cast::<u8>().wrapping_add(size_of::<T>() - 1);
        // SAFETY: as above; `last` is inside `*r`.
        prefetch(unsafe { &*last });
    }
}

impl<T> std::ops::Index<u32> for Arena<T> {
    type Output = T;
    #[inline]
    fn index(&self, h: u32) -> &T {
        &self.slots[h as usize]
    }
}

impl<T> std::ops::IndexMut<u32> for Arena<T> {
    #[inline]
    fn index_mut(&mut self, h: u32) -> &mut T {
        &mut self.slots[h as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_is_a_hard_bound_and_free_slots_are_reused_lifo() {
        let mut a = Arena::with_capacity(3);
        let h: Vec<u32> = (0..3).map(|i| a.alloc(i).unwrap()).collect();
        assert_eq!(a.alloc(9), None);
        assert_eq!(a.available(), 0);
        a.free(h[0]);
        a.free(h[2]);
        assert_eq!(a.live(), 1);
        assert_eq!(a.alloc(5), Some(h[2]));
        assert_eq!(a.alloc(6), Some(h[0]));
        assert_eq!(a[h[0]], 6);
        assert_eq!(a.high_water(), 3);
    }
}
