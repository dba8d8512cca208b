//! Cache prefetch hints for the memory-bound loops: the LP record of an
//! event a few places ahead in the pending queue, the next node of a
//! ladder bucket.

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
