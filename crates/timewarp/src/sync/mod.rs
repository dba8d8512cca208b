//! The atomics and rings the lock-free parts are built on: the doorbells
//! and rings between PEs (`transport::ring`) and the GVT round (`gvt`).
//!
//! Every ordinary build takes std's atomics and rtrb's ring from here, so
//! this module costs nothing. Built with `--cfg loom` (`scripts/loom.sh`)
//! it hands out loom's atomics and [`spsc`], a loom model of rtrb's ring,
//! instead: the loom tests then explore the interleavings (and the weak
//! memory orderings) of the very code the kernels run, where a copy of its
//! protocol in a test could drift from it.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicU64, Ordering};

#[cfg(loom)]
pub(crate) mod spsc;
/// The single-producer/single-consumer ring between two PEs.
#[cfg(not(loom))]
pub(crate) use rtrb as spsc;
