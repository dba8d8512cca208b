//! Optimism control: how far beyond GVT a PE may process (`--optimism`).
//!
//! A PE processes an event only if its timestamp is at most `GVT + width`
//! (the *horizon*). `auto` adapts the width per PE after every GVT round, in
//! the manner of POSE's speculative window: a round in which the PE rolled
//! back sets the width to the average distance of those rollbacks from GVT
//! (what it processed beyond that was undone anyway); a round without
//! rollbacks in which the window held the PE back doubles it (at least by
//! how far GVT advanced), so a PE that stops being rolled back soon
//! speculates freely again. A round in which the window did not bind (the PE
//! ran out of work, or memory stopped it) leaves it as it is: growing it
//! then would only let the next burst run away.
//!
//! A PE that has its worker to itself (no more PEs than workers) keeps a
//! round's rollbacks from shrinking its window when they undid at most a
//! quarter of what it processed: its worker would only wait while the window
//! holds it back, so speculation that mostly commits is worth its rollbacks
//! (the 1,056-node dragonfly on 16 threads ran 1.7× faster without a window,
//! at 82 % efficiency). With more PEs than workers a held-back PE's worker
//! runs another PE, and every undone event is lost work: the rule above
//! applies to any rollback.
//!
//! When what a PE holds for speculation passes its soft limit, the window
//! (in every mode) is *squeezed*, once a round, to half the distance from GVT to the PE's
//! next event, and stays so until a round passes without memory pressure:
//! the PE goes on, closer to GVT, so GVT advances and frees what it holds
//! (stopping it outright would leave GVT to advance one event per round). A width of 0 still
//! lets the PE process events at GVT's own timestamp, and the event GVT
//! names is always among them, so the run never stalls.

use crate::config::Optimism;

pub(crate) struct Window {
    adaptive: bool,
    /// Whether the PE has a worker to itself (see the module's text).
    spare: bool,
    /// The configured width (infinite for auto and unbounded).
    configured: f64,
    /// Current width in virtual time (infinite: no limit).
    width: f64,
    /// Time of the last GVT this PE knows.
    gvt: f64,
    /// `gvt + width`, kept for the per-event test.
    horizon: f64,
    /// Sum and count of rollback distances from GVT since the last round.
    distance: f64,
    rollbacks: u64,
    /// Whether the window stopped the PE since the last round.
    bound: bool,
    /// Whether memory ran short since the last round.
    squeezed: bool,
    /// Virtual time per event this PE commits (running average), and the
    /// GVT time it was last updated at.
    per_event: f64,
    mark: f64,
}

/// The adaptive window never shrinks below this many of the PE's events:
/// a width of a few events' time would leave GVT rounds, not events, as the
/// cost of the run (one round per event on models with no parallelism).
pub(crate) const MIN_EVENTS: f64 = 4.0;

impl Window {
    /// A window under `o`; `spare`: the PE has a worker to itself.
    pub(crate) fn new(o: Optimism, spare: bool) -> Self {
        let (adaptive, width) = match o {
            Optimism::Auto => (true, f64::INFINITY),
            Optimism::Window(t) => (false, t),
            _ => (false, f64::INFINITY),
        };
        Window {
            adaptive,
            spare,
            configured: width,
            width,
            gvt: 0.0,
            horizon: width,
            distance: 0.0,
            rollbacks: 0,
            bound: false,
            squeezed: false,
            per_event: 0.0,
            mark: 0.0,
        }
    }

    /// The latest timestamp this PE may process now.
    #[inline]
    pub(crate) fn horizon(&self) -> f64 {
        self.horizon
    }

    /// The window stopped the PE at an event beyond the horizon.
    #[inline]
    pub(crate) fn stopped(&mut self) {
        self.bound = true;
    }

    /// Memory for speculation is short and the PE's next event is at `t`:
    /// halve the distance it may go beyond GVT, once a round, down to
    /// [`MIN_EVENTS`] events' time (in every mode: the memory bound comes
    /// first; the hard limit in the PE stops it outright), and do not widen
    /// the window before a round in which memory is not short.
    pub(crate) fn squeeze(&mut self, t: f64) {
        if self.squeezed {
            return; // once a round
        }
        let w = (self.width.min(t - self.gvt) / 2.0).max(MIN_EVENTS * self.per_event);
        if w < self.width {
            self.width = w;
            self.horizon = self.gvt + w;
        }
        self.squeezed = true;
    }

    /// A rollback (primary or secondary) undid events from time `t` on.
    #[inline]
    pub(crate) fn rolled_back(&mut self, t: f64) {
        if self.adaptive {
            self.distance += (t - self.gvt).max(0.0);
            self.rollbacks += 1;
        }
    }

    /// A new GVT (its time) is known, and this PE committed `committed`
    /// events below it; since the last one it processed `processed` events
    /// and undid `undone`: adapt the width.
    pub(crate) fn new_gvt(&mut self, g: f64, committed: u64, processed: u64, undone: u64) {
        if g.is_finite() && committed > 0 {
            let pe = (g - self.mark).max(0.0) / committed as f64;
            self.per_event = if self.per_event == 0.0 { pe } else { 0.875 * self.per_event + 0.125 * pe };
            self.mark = g;
        }
        if self.squeezed {
            // Keep the squeezed width for one more round.
        } else if !self.adaptive {
            // A fixed window narrower than a few of the PE's events would
            // make every GVT round, not every event, the cost of the run
            // (a 2.04 ns window on a dragonfly whose PE commits an event
            // every 33 ns: a round per 1.3 events, 12× the run's time,
            // 10,000× under mpirun): it is widened to auto's floor.
            self.width = self.configured.max(MIN_EVENTS * self.per_event);
        } else {
            let tolerated = self.spare && 4 * undone <= processed;
            if self.rollbacks > 0 && !tolerated {
                self.width = (self.distance / self.rollbacks as f64).max(MIN_EVENTS * self.per_event);
            } else if self.bound && self.width.is_finite() {
                let advance = if g.is_finite() { (g - self.gvt).max(0.0) } else { 0.0 };
                self.width = (2.0 * self.width).max(self.width + advance);
            }
        }
        self.distance = 0.0;
        self.rollbacks = 0;
        self.bound = false;
        self.squeezed = false;
        self.gvt = g;
        self.horizon = g + self.width;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_shrinks_to_the_rollback_distance_and_grows_without_rollbacks() {
        let mut w = Window::new(Optimism::Auto, false);
        assert_eq!(w.horizon(), f64::INFINITY);
        w.new_gvt(10.0, 0, 0, 0);
        w.rolled_back(12.0);
        w.rolled_back(14.0);
        w.new_gvt(11.0, 0, 0, 0);
        assert_eq!(w.horizon(), 11.0 + 3.0); // average distance from GVT 10
        w.new_gvt(11.2, 0, 0, 0);
        assert_eq!(w.horizon(), 11.2 + 3.0); // not binding: unchanged
        w.stopped();
        w.new_gvt(11.5, 0, 0, 0);
        assert_eq!(w.horizon(), 11.5 + 6.0);
        w.rolled_back(11.5);
        w.new_gvt(11.5, 0, 0, 0);
        assert_eq!(w.horizon(), 11.5); // width 0: events at GVT's time only
        w.stopped();
        w.new_gvt(12.0, 0, 0, 0);
        assert_eq!(w.horizon(), 12.0 + 0.5); // grows by at least GVT's advance
    }

    #[test]
    fn auto_keeps_a_few_events_of_room() {
        let mut w = Window::new(Optimism::Auto, false);
        w.new_gvt(10.0, 100, 0, 0); // 0.1 time units per committed event
        w.rolled_back(10.0);
        w.new_gvt(10.0, 0, 0, 0);
        assert_eq!(w.horizon(), 10.0 + MIN_EVENTS * 0.1);
    }

    #[test]
    fn memory_pressure_squeezes_every_mode_for_a_round() {
        let mut w = Window::new(Optimism::Unbounded, false);
        w.new_gvt(1.0, 0, 0, 0);
        w.squeeze(5.0);
        assert_eq!(w.horizon(), 1.0 + 2.0);
        w.new_gvt(2.0, 0, 0, 0);
        assert_eq!(w.horizon(), 2.0 + 2.0);
        w.new_gvt(3.0, 0, 0, 0);
        assert_eq!(w.horizon(), f64::INFINITY);
        let mut a = Window::new(Optimism::Auto, false);
        a.new_gvt(1.0, 0, 0, 0);
        a.squeeze(3.0);
        a.stopped();
        a.new_gvt(1.5, 0, 0, 0);
        assert_eq!(a.horizon(), 1.5 + 1.0); // no growth while squeezed
    }

    #[test]
    fn fixed_and_unbounded_never_adapt() {
        let mut w = Window::new(Optimism::Window(2.0), false);
        w.rolled_back(50.0);
        w.new_gvt(5.0, 0, 0, 0);
        assert_eq!(w.horizon(), 7.0);
        // ... but a fixed window is never narrower than a few events' time.
        w.new_gvt(105.0, 10, 0, 0); // 10.5 time units per committed event since 0
        assert_eq!(w.horizon(), 105.0 + MIN_EVENTS * 10.5);
        w.new_gvt(106.0, 100, 0, 0); // per event 0.875 · 10.5 + 0.125 · 0.01
        assert_eq!(w.horizon(), 106.0 + MIN_EVENTS * (0.875 * 10.5 + 0.125 * 0.01));
        let mut u = Window::new(Optimism::Unbounded, false);
        u.rolled_back(1.0);
        u.new_gvt(5.0, 0, 0, 0);
        assert_eq!(u.horizon(), f64::INFINITY);
    }

    #[test]
    fn a_pe_with_its_own_worker_keeps_growing_through_rollbacks_that_undo_little() {
        let mut w = Window::new(Optimism::Auto, true);
        w.new_gvt(10.0, 0, 0, 0);
        w.rolled_back(12.0);
        w.new_gvt(11.0, 0, 100, 10); // a tenth undone: tolerated, window not bound: unchanged
        assert_eq!(w.horizon(), f64::INFINITY);
        w.squeeze(15.0); // width 2
        w.new_gvt(11.0, 0, 0, 0);
        w.rolled_back(12.0);
        w.stopped();
        w.new_gvt(11.0, 0, 100, 20); // tolerated and bound: doubles
        assert_eq!(w.horizon(), 11.0 + 4.0);
        w.rolled_back(12.0);
        w.new_gvt(11.0, 0, 100, 30); // more than a quarter undone: the rollback distance
        assert_eq!(w.horizon(), 11.0 + 1.0);
        let mut shared = Window::new(Optimism::Auto, false);
        shared.new_gvt(10.0, 0, 0, 0);
        shared.rolled_back(12.0);
        shared.new_gvt(11.0, 0, 100, 10); // sharing its worker: any rollback counts
        assert_eq!(shared.horizon(), 11.0 + 2.0);
    }
}
