//! Optimism control: how far beyond GVT a PE may process (`--optimism`).
//!
//! A PE processes an event only if its timestamp is at most `GVT + width`
//! (the *horizon*). `auto` adapts the width per PE after every GVT round, in
//! the manner of POSE's speculative window: a round in which the PE rolled
//! back sets the width to the average distance of those rollbacks from GVT
//! (what it processed beyond that was undone anyway); a round without
//! rollbacks doubles it (at least by how far GVT advanced), so a PE that
//! stops being rolled back soon speculates freely again. A width of 0 still
//! lets the PE process events at GVT's own timestamp, and the event GVT
//! names is always among them, so the run never stalls.

use crate::config::Optimism;

pub(crate) struct Window {
    adaptive: bool,
    /// Current width in virtual time (infinite: no limit).
    width: f64,
    /// Time of the last GVT this PE knows.
    gvt: f64,
    /// `gvt + width`, kept for the per-event test.
    horizon: f64,
    /// Sum and count of rollback distances from GVT since the last round.
    distance: f64,
    rollbacks: u64,
}

impl Window {
    pub(crate) fn new(o: Optimism) -> Self {
        let (adaptive, width) = match o {
            Optimism::Auto => (true, f64::INFINITY),
            Optimism::Window(t) => (false, t),
            _ => (false, f64::INFINITY),
        };
        Window { adaptive, width, gvt: 0.0, horizon: width, distance: 0.0, rollbacks: 0 }
    }

    /// The latest timestamp this PE may process now.
    #[inline]
    pub(crate) fn horizon(&self) -> f64 {
        self.horizon
    }

    /// A rollback (primary or secondary) undid events from time `t` on.
    #[inline]
    pub(crate) fn rolled_back(&mut self, t: f64) {
        if self.adaptive {
            self.distance += (t - self.gvt).max(0.0);
            self.rollbacks += 1;
        }
    }

    /// A new GVT (its time) is known: adapt the width.
    pub(crate) fn new_gvt(&mut self, g: f64) {
        if self.adaptive {
            if self.rollbacks > 0 {
                self.width = self.distance / self.rollbacks as f64;
            } else if self.width.is_finite() {
                let advance = if g.is_finite() { (g - self.gvt).max(0.0) } else { 0.0 };
                self.width = (2.0 * self.width).max(self.width + advance);
            }
            self.distance = 0.0;
            self.rollbacks = 0;
        }
        self.gvt = g;
        self.horizon = g + self.width;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_shrinks_to_the_rollback_distance_and_grows_without_rollbacks() {
        let mut w = Window::new(Optimism::Auto);
        assert_eq!(w.horizon(), f64::INFINITY);
        w.new_gvt(10.0);
        w.rolled_back(12.0);
        w.rolled_back(14.0);
        w.new_gvt(11.0);
        assert_eq!(w.horizon(), 11.0 + 3.0); // average distance from GVT 10
        w.new_gvt(11.5);
        assert_eq!(w.horizon(), 11.5 + 6.0);
        w.rolled_back(11.5);
        w.new_gvt(11.5);
        assert_eq!(w.horizon(), 11.5); // width 0: events at GVT's time only
        w.new_gvt(12.0);
        assert_eq!(w.horizon(), 12.0 + 0.5); // grows by at least GVT's advance
    }

    #[test]
    fn fixed_and_unbounded_never_adapt() {
        let mut w = Window::new(Optimism::Window(2.0));
        w.rolled_back(50.0);
        w.new_gvt(5.0);
        assert_eq!(w.horizon(), 7.0);
        let mut u = Window::new(Optimism::Unbounded);
        u.rolled_back(1.0);
        u.new_gvt(5.0);
        assert_eq!(u.horizon(), f64::INFINITY);
    }
}
