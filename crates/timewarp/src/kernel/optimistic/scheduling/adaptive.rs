//! ADM and LADM's adaptivity: a worker measures its time per event, and
//! deactivates when it is the slow one; inactive workers sleep until one
//! is woken to try again.

use std::sync::atomic::Ordering::*;
use std::time::{Duration, Instant};

use crate::model::Model;

use super::super::pe::{Pe, Runnable};
use super::idle::NAP_MIN;
use super::{Pool, Worker};

/// Measurements in a row in which a worker must be the slow one before it
/// deactivates: one slow period (a page fault storm, a timer tick on its
/// core) is not interference; a hog on its core shows in every period.
const STRIKES: u32 = 2;

/// Most doublings of the reactivation period (2^10 = 1,024 times `reactivate`).
const MAX_BACKOFF: u32 = 10;

/// Measurement periods a worker skips after it starts or wakes: its first
/// events run on caches the other workers filled (and, at the start, on
/// memory touched for the first time), which looks like interference.
pub(super) const WARMUP: u32 = 1;

/// speculated on (issue 42: 15 times slower than `fixed`).
/// ADM and LADM: whether a worker of APTE `mine` is the slow one among
/// the active workers, whose other APTEs are `others` (reordered): the
/// largest of all, and more than `threshold` times the median of the
/// others. The median, not the smallest: among 16 workers one is always
/// lucky, and measured against it any other looked descheduled.
fn slowest_by(mine: f64, others: &mut [f64], threshold: f64) -> bool {
    if others.is_empty() || others.iter().any(|&a| a > mine) {
        return false;
    }
    let mid = others.len() / 2;
    let (_, &mut median, _) = others.select_nth_unstable_by(mid, f64::total_cmp);
    mine > threshold * median
}

impl<'a, M: Model, Q, N, P> Pool<'a, M, Q, N, P>
where
    Pe<'a, M, Q, N, P>: Runnable,
{
    /// ADM and LADM: measures APTE every `detect` iterations, deactivates
    /// this worker if it is the slow one, and reactivates one inactive
    /// worker every `reactivate` iterations of each active worker.
    pub(super) fn adapt(&self, me: &mut Worker) {
        if let Some((w, at)) = self.adapt.force_deactivate {
            // The hook's deactivation is the only one (no measurement races it).
            if w == me.w && me.iter >= at && !self.forced[w].load(Relaxed) && self.deactivate(me.w) {
                self.forced[w].store(true, Relaxed);
                me.stats.deactivations += 1;
            }
            return;
        }
        me.period_iters += 1;
        if me.period_iters < self.detect {
            return;
        }
        me.period_iters = 0;
        if me.warmup > 0 {
            // The first periods after starting or waking are slow for
            // reasons of their own (first touch, caches another worker
            // filled): not a sign of interference.
            me.warmup -= 1;
        } else if me.period_events > 0 {
            let apte = me.period_seconds / me.period_events as f64;
            self.apte[me.w].store(apte.to_bits(), Relaxed);
            me.others.clear();
            for v in (0..self.workers).filter(|&v| v != me.w) {
                let a = f64::from_bits(self.apte[v].load(Relaxed));
                if a > 0.0 && self.active[v].load(Relaxed) {
                    me.others.push(a);
                }
            }
            me.strikes = if slowest_by(apte, &mut me.others, self.adapt.threshold) { me.strikes + 1 } else { 0 };
            if me.strikes >= STRIKES && self.deactivate(me.w) {
                me.strikes = 0;
                me.stats.deactivations += 1;
                me.period_seconds = 0.0;
                me.period_events = 0;
                if me.probation > 0 {
                    // Woken too early: the other process is still there.
                    me.probation = 0;
                    let b = self.backoff.load(Relaxed);
                    self.backoff.store((b + 1).min(MAX_BACKOFF), Relaxed);
                }
                return;
            }
        }
        if me.probation > 0 {
            me.probation = me.probation.saturating_sub(self.detect);
            if me.probation == 0 {
                // It stayed: the cores are free again; wake others promptly.
                self.backoff.store(0, Relaxed);
            }
        }
        me.period_seconds = 0.0;
        me.period_events = 0;
        let since = self.since.fetch_add(self.detect, Relaxed) + self.detect;
        let active = self.active_count.load(Relaxed);
        let due = (self.reactivate << self.backoff.load(Relaxed)).saturating_mul(active as u64);
        if active < self.workers && since >= due && self.since.swap(0, AcqRel) >= due {
            self.reactivate_one();
        }
    }

    /// Deactivates worker `w` unless it is the last active one.
    fn deactivate(&self, w: usize) -> bool {
        let mut n = self.active_count.load(Acquire);
        while n > 1 {
            match self.active_count.compare_exchange(n, n - 1, AcqRel, Acquire) {
                Ok(_) => {
                    self.forget_aptes();
                    self.active[w].store(false, Release);
                    self.since.store(0, Relaxed);
                    return true;
                }
                Err(now) => n = now,
            }
        }
        false
    }

    /// After the active workers changed, times per event measured before
    /// do not compare with those measured after (fewer workers share the
    /// cores and memory, a woken one runs on cold caches): each worker
    /// measures anew.
    fn forget_aptes(&self) {
        for a in &self.apte {
            a.store(0, Relaxed);
        }
    }

    /// Wakes one inactive worker (not one the test hook deactivated).
    fn reactivate_one(&self) {
        for v in 0..self.workers {
            if !self.active[v].load(Acquire) && !self.forced[v].load(Relaxed) {
                self.active_count.fetch_add(1, AcqRel);
                self.forget_aptes();
                self.active[v].store(true, Release);
                if let Some(t) = self.threads[v].get() {
                    t.unpark();
                }
                return;
            }
        }
    }

    /// An inactive worker sleeps until reactivated or the run ends.
    pub(super) fn sleep(&self, me: &mut Worker) {
        me.stats.active_seconds += me.active_since.elapsed().as_secs_f64();
        let asleep = Instant::now();
        // An idle stretch that ends in sleep counts once, as sleep.
        if let Some(t) = me.waiting.take() {
            me.stats.wait_seconds += asleep.duration_since(t).as_secs_f64();
        }
        (me.idle, me.nap, me.contended) = (0, NAP_MIN, false);
        while !self.active[me.w].load(Acquire) && !self.all_finished() {
            std::thread::park_timeout(Duration::from_millis(1));
        }
        if self.active[me.w].load(Acquire) {
            me.stats.reactivations += 1;
            me.probation = self.reactivate;
        }
        me.warmup = WARMUP;
        me.strikes = 0;
        let now = Instant::now();
        me.stats.wait_seconds += now.duration_since(asleep).as_secs_f64();
        me.active_since = now;
        me.period_iters = 0;
        me.period_seconds = 0.0;
        me.period_events = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::slowest_by;

    #[test]
    fn the_slow_worker_is_measured_against_the_median_of_the_others() {
        // A hog on one core: its worker takes about twice as long per event.
        assert!(slowest_by(2.0, &mut [1.0], 1.8), "two workers: the other is the median");
        assert!(slowest_by(2.0, &mut [1.0, 1.1, 0.9, 1.05, 0.95], 1.8));
        // Sixteen workers alone: one lucky period is no yardstick.
        let mut alone = [1.0, 1.1, 0.5, 1.2, 0.9, 1.05, 0.95, 1.15, 1.0, 1.1, 0.98, 1.02, 1.1, 0.97, 1.0];
        assert!(!slowest_by(1.3, &mut alone, 1.8), "1.3 is 2.6 × the smallest but 1.3 × the median");
        assert!(!slowest_by(2.0, &mut [1.0, 2.5], 1.8), "not the slowest");
        assert!(!slowest_by(5.0, &mut [], 1.8), "alone: nobody to compare with");
        assert!(!slowest_by(1.7, &mut [1.0, 1.0, 1.0], 1.8), "within the threshold");
    }
}
