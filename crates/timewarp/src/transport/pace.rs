//! How fast a run's virtual time advances in wall-clock time, from GVT's
//! progress: what lets the courier turn the model's lookahead into how
//! long a message may wait to share its trip (PHOLD's records, a time unit
//! ahead, milliseconds; a network's next hop, nanoseconds ahead, hardly
//! at all), whatever the model's time unit.

use std::time::{Duration, Instant};

/// The shortest wall-clock span a sample of the pace covers: GVT moves in
/// rounds, and a span of one or two of them says little.
const SPAN: Duration = Duration::from_micros(500);

/// Virtual time per wall-clock second, as last measured.
#[derive(Default)]
pub(crate) struct Pace {
    /// When and at what GVT the current sample started.
    from: Option<(Instant, f64)>,
    per_second: f64,
}

impl Pace {
    /// GVT was `gvt` at `now`. Each sample spans at least [`SPAN`] in which
    /// GVT moved; the pace is the mean of the latest sample and the pace
    /// before it (a run's pace drifts as its load changes).
    pub(crate) fn observe(&mut self, now: Instant, gvt: f64) {
        if !gvt.is_finite() {
            return;
        }
        match self.from {
            None => self.from = Some((now, gvt)),
            Some((t, g)) => {
                let dt = now.saturating_duration_since(t);
                if dt >= SPAN && gvt > g {
                    let sample = (gvt - g) / dt.as_secs_f64();
                    self.per_second = if self.per_second > 0.0 { 0.5 * (self.per_second + sample) } else { sample };
                    self.from = Some((now, gvt));
                }
            }
        }
    }

    /// Wall-clock time the run takes to cover `virt` of virtual time
    /// (zero until measured).
    pub(crate) fn wall(&self, virt: f64) -> Duration {
        if self.per_second > 0.0 && virt > 0.0 {
            Duration::try_from_secs_f64(virt / self.per_second).unwrap_or(Duration::MAX)
        } else {
            Duration::ZERO
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pace_is_virtual_time_over_wall_time_once_gvt_has_moved() {
        // Within a nanosecond of one millisecond.
        let one_ms = |d: Duration| d.as_nanos().abs_diff(1_000_000) <= 1;
        let mut p = Pace::default();
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        p.observe(t0, 0.0);
        assert_eq!(p.wall(1.0), Duration::ZERO, "nothing measured yet");
        p.observe(ms(1), 0.0);
        assert_eq!(p.wall(1.0), Duration::ZERO, "GVT has not moved");
        p.observe(ms(2), 10.0); // 10 in 2 ms: 5,000 a second
        assert!(one_ms(p.wall(5.0)), "{:?}", p.wall(5.0));
        p.observe(ms(3), 13.0); // 3 in 1 ms: 3,000; the mean 4,000
        assert!(one_ms(p.wall(4.0)), "{:?}", p.wall(4.0));
        p.observe(ms(3) + Duration::from_micros(100), 20.0);
        assert!(one_ms(p.wall(4.0)), "a span shorter than SPAN is not a sample");
        p.observe(ms(4), f64::INFINITY);
        assert!(one_ms(p.wall(4.0)), "the end's infinite GVT is not a pace");
        assert_eq!(p.wall(0.0), Duration::ZERO, "lookahead 0: no wait beyond the least");
        assert_eq!(p.wall(1e300), Duration::MAX, "no overflow");
    }
}
