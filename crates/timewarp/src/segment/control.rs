//! Requests to pause a running simulation from outside its kernels.

use std::sync::atomic::{AtomicBool, Ordering::*};
use std::sync::Arc;

/// Flags that ask a run to pause at its next consistent cut: one for an
/// interruption (a signal handler raises it; the run then stops after
/// writing a checkpoint) and one for a wall-clock checkpoint timer (the
/// run writes a checkpoint and goes on). Kernels poll them where they can
/// cut: between events (sequential), between windows (conservative), at a
/// GVT round (optimistic).
///
/// ```
/// let c = timewarp::checkpoint::Control::default();
/// assert!(!c.interrupted());
/// c.interrupt();
/// assert!(c.interrupted());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Control {
    interrupt: Arc<AtomicBool>,
    timer: Arc<AtomicBool>,
}

impl Control {
    /// The flag a signal handler sets (e.g. with `signal_hook::flag::register`).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// Asks the run to stop at its next cut.
    pub fn interrupt(&self) {
        self.interrupt.store(true, Release);
    }

    /// Whether the run was asked to stop.
    pub fn interrupted(&self) -> bool {
        self.interrupt.load(Acquire)
    }

    /// Asks for a checkpoint at the next cut (the run goes on after it).
    pub(crate) fn ring(&self) {
        self.timer.store(true, Release);
    }

    /// Whether a pause was asked for, either way.
    #[inline]
    pub(crate) fn requested(&self) -> bool {
        self.interrupt.load(Relaxed) || self.timer.load(Relaxed)
    }

    /// Clears the timer's request (after the checkpoint it asked for).
    pub(crate) fn reset_timer(&self) {
        self.timer.store(false, Release);
    }
}
