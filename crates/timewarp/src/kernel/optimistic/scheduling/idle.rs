//! What a worker does when a pass found nothing to do: spin, yield, park;
//! and waking parked workers once the GVT rounds move.

use std::sync::atomic::Ordering::*;
use std::time::{Duration, Instant};

use crate::model::Model;

use super::super::super::workers::CONTENDED;
use super::super::pe::{Pe, Runnable};
use super::{Pool, Worker};

/// Passes an idle worker spins before it gives its core away.
const SPINS: u32 = 16;

/// How long an idle worker yields its core before it parks: long enough
/// for a GVT round among running workers, short beside a time slice.
const YIELD_FOR: Duration = Duration::from_micros(50);

/// An idle worker's first and longest park. Under load it frees the core
/// for the worker the OS descheduled (whose PE holds GVT back) or for the
/// other program, rather than competing with both for time slices; a
/// change in the GVT rounds wakes it sooner (see [`Pool::wake_parked`]).
pub(super) const NAP_MIN: Duration = Duration::from_micros(50);
pub(super) const NAP_MAX: Duration = Duration::from_millis(1);

impl<'a, M: Model, Q, N, P> Pool<'a, M, Q, N, P>
where
    Pe<'a, M, Q, N, P>: Runnable,
{
    /// After a pass: spin, yield, then park when there was nothing to do.
    /// (Not "pause", which names a checkpoint cut.)
    #[inline]
    pub(super) fn back_off(&self, me: &mut Worker, worked: bool) {
        if self.parked_count.load(Relaxed) > 0 {
            self.wake_parked(me);
        }
        if worked {
            if me.idle > 0 {
                me.idle = 0;
                me.nap = NAP_MIN;
                me.contended = false;
                if let Some(t) = me.waiting.take() {
                    me.stats.wait_seconds += t.elapsed().as_secs_f64();
                }
            }
            return;
        }
        // Nothing to do until GVT moves or a message comes: with more
        // workers than cores, give the core to one that has work (a
        // descheduled PE holds GVT back for a whole time slice).
        me.idle += 1;
        if me.idle <= SPINS && !self.oversubscribed {
            std::hint::spin_loop();
            return;
        }
        let now = Instant::now();
        if !me.contended || now.duration_since(*me.waiting.get_or_insert(now)) < YIELD_FOR {
            me.waiting.get_or_insert(now);
            std::thread::yield_now();
            me.contended |= now.elapsed() >= CONTENDED;
            return;
        }
        // Still nothing: a yield would hand the core back and forth with
        // every other runnable thread (the other program, and workers the
        // OS descheduled) for as long as the wait lasts.
        me.stats.parks += 1;
        self.parked[me.w].store(true, Relaxed);
        self.parked_count.fetch_add(1, AcqRel);
        std::thread::park_timeout(me.nap);
        self.parked_count.fetch_sub(1, AcqRel);
        self.parked[me.w].store(false, Relaxed);
        me.nap = (me.nap * 2).min(NAP_MAX);
    }

    /// While some worker is parked: once the GVT rounds moved (a round
    /// was asked for, or one ended), wakes the parked workers, whose PEs
    /// must step through the round (or may run again under the new GVT).
    #[cold]
    fn wake_parked(&self, me: &mut Worker) {
        let gvt = &self.shared.gvt;
        let seen = 2 * gvt.rounds() + gvt.round_open() as u64;
        if seen == me.seen_rounds {
            return;
        }
        me.seen_rounds = seen;
        for (v, t) in self.threads.iter().enumerate() {
            if v != me.w && self.parked[v].load(Relaxed) {
                if let Some(t) = t.get() {
                    t.unpark();
                }
            }
        }
    }
}
