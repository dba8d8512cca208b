//! The mappings' worker loops: fixed (FM), dynamic and adaptive (DM,
//! ADM), locality-aware adaptive (LADM) and its help for orphan PEs.

use std::sync::atomic::Ordering::*;
use std::sync::TryLockError;

use crate::error::Error;
use crate::model::Model;

use super::super::pe::{Iteration, Pe, Runnable};
use super::super::shared_worker::SharedWorker;
use super::{lock, Held, Pool, Worker};

/// LADM: whether a worker whose own PE did (`worked`) or did not do work
/// helps an orphan PE at virtual time `orphan` when its own PE is at
/// `ahead`. An idle worker helps any orphan; a busy one helps orphans
/// behind it, and, while a GVT round is open (`round_open`), every orphan:
/// the round waits for each PE to enter and report, and an orphan that
/// only looks ahead (its latest event, not the stragglers waiting in its
/// inbox) held GVT back until the helper's PE caught up or its worker
/// woke, while every other PE, and under MPI every other process,
#[inline]
fn worth_helping(worked: bool, round_open: bool, orphan: f64, ahead: f64) -> bool {
    !worked || round_open || orphan < ahead
}

impl<'a, M: Model, Q, N, P> Pool<'a, M, Q, N, P>
where
    Pe<'a, M, Q, N, P>: Runnable,
{
    /// FM: the worker's own PEs, locked for the whole run. With several,
    /// every other iteration goes round robin (each PE drains its inbox and
    /// takes its part in GVT rounds), the rest to the one furthest behind
    /// in virtual time of those that processed events last time: PEs that
    /// share a worker then advance together, where round robin alone lets
    /// a sparse PE race ahead of a dense one and be rolled back.
    pub(super) fn fixed(&self, me: &mut Worker) -> Result<(), Error> {
        let mut mine: Vec<(usize, Held<'_, 'a, M, Q, N, P>)> =
            self.own(me.w).map(|p| (p, lock(&self.slots[p].pe))).collect();
        let (n, mut live) = (mine.len(), mine.len());
        // Per own PE: its progress time after its latest iteration, if it processed events.
        let mut at: Vec<Option<f64>> = vec![None; n];
        let (mut i, mut turn) = (0, false);
        let gvt = &self.shared.gvt;
        let mut shared = SharedWorker::new(self.gvt_interval, n, gvt);
        if shared.is_some() {
            for (_, g) in mine.iter_mut() {
                if let Some(pe) = g.as_mut() {
                    pe.rounds_by_worker();
                }
            }
        }
        while live > 0 {
            if let Some(sw) = shared.as_mut().filter(|sw| sw.pass_due(gvt)) {
                // The round waits for each PE: step them all now.
                for (j, (p, guard)) in mine.iter_mut().enumerate() {
                    if self.slots[*p].finished.load(Relaxed) {
                        continue;
                    }
                    let pe = guard.as_mut().ok_or_else(|| Error::Internal(format!("PE {p} was not created")))?;
                    if pe.gvt_turn()? {
                        self.finish(*p);
                        at[j] = None;
                        live -= 1;
                    }
                    sw.holds(j, pe.held_records());
                }
                sw.passed(gvt);
                continue;
            }
            turn = !turn;
            let behind = if n > 1 && turn {
                (0..n).filter_map(|j| at[j].map(|t| (t, j))).min_by(|a, b| a.0.total_cmp(&b.0)).map(|(_, j)| j)
            } else {
                None
            };
            let j = behind.unwrap_or_else(|| {
                let j = i;
                i = (i + 1) % n;
                j
            });
            let (p, guard) = &mut mine[j];
            if self.slots[*p].finished.load(Relaxed) {
                at[j] = None;
                continue;
            }
            let pe = guard.as_mut().ok_or_else(|| Error::Internal(format!("PE {p} was not created")))?;
            let r = self.run_one(me, *p, pe)?;
            if let Some(sw) = &mut shared {
                sw.holds(j, pe.held_records());
                sw.iterated(gvt, !matches!(r, Iteration::Worked(k) if k > 0), live);
            }
            at[j] = match r {
                Iteration::Worked(k) if k > 0 && n > 1 => Some(pe.progress_time()),
                _ => None,
            };
            if r == Iteration::Finished {
                live -= 1;
            }
            self.back_off(me, matches!(r, Iteration::Worked(_)));
        }
        Ok(())
    }

    /// Runs one iteration of PE `p` if no other worker holds it; `None` if
    /// one does (or it is not created yet).
    fn try_run(&self, me: &mut Worker, p: usize) -> Result<Option<Iteration>, Error> {
        match self.slots[p].pe.try_lock() {
            Ok(mut g) => match g.as_mut() {
                Some(pe) => self.run_one(me, p, pe).map(Some),
                None => {
                    // Its creator failed: nobody will ever create it.
                    if self.shared.failure.failed() {
                        self.finish(p);
                    }
                    Ok(None)
                }
            },
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Poisoned(_)) => {
                // A handler panicked outside the PE's own catch: the run has failed.
                self.finish(p);
                Ok(None)
            }
        }
    }

    /// DM and ADM: the next PE no other worker holds, every iteration.
    pub(super) fn dynamic(&self, me: &mut Worker) -> Result<(), Error> {
        let m = self.slots.len();
        while !self.all_finished() {
            if self.policy.adapts() && !self.active[me.w].load(Acquire) {
                self.sleep(me);
                continue;
            }
            let mut ran = None;
            for k in 0..m {
                let p = (me.cursor + k) % m;
                if self.slots[p].finished.load(Acquire) {
                    continue;
                }
                if let Some(r) = self.try_run(me, p)? {
                    ran = Some(r);
                    me.cursor = p + 1;
                    break;
                }
            }
            self.back_off(me, matches!(ran, Some(Iteration::Worked(_))));
            if self.policy.adapts() {
                self.adapt(me);
            }
        }
        Ok(())
    }

    /// LADM: its own PEs, and orphans of inactive workers that fall behind.
    pub(super) fn ladm(&self, me: &mut Worker) -> Result<(), Error> {
        let own: Vec<usize> = self.own(me.w).collect();
        let m = self.slots.len();
        while !self.all_finished() {
            if !self.active[me.w].load(Acquire) {
                self.sleep(me);
                continue;
            }
            let mut worked = false;
            let mut ahead = f64::INFINITY;
            if let Some(&p) = own.get(me.own % own.len().max(1)) {
                me.own += 1;
                if !self.slots[p].finished.load(Acquire) {
                    // A helper may hold it right after this worker woke.
                    if let Some(r) = self.try_run(me, p)? {
                        worked = matches!(r, Iteration::Worked(_));
                    }
                    ahead = f64::from_bits(self.slots[p].lvt.load(Relaxed));
                }
            }
            if self.active_count.load(Relaxed) < self.workers {
                worked |= self.help(me, m, worked, ahead)?;
            }
            self.back_off(me, worked);
            self.adapt(me);
        }
        Ok(())
    }

    /// LADM's help: up to `help` iterations on an orphan PE (of an inactive
    /// worker) behind `ahead`, or on any orphan when the worker's own PE had
    /// nothing to do or a GVT round is open (so a PE no worker owns never
    /// holds GVT back; see [`worth_helping`]); true if
    /// it did work. (Also running other workers' free PEs when idle, not
    /// only orphans, measured no better with a hog on 2 cores.)
    fn help(&self, me: &mut Worker, m: usize, worked: bool, ahead: f64) -> Result<bool, Error> {
        let round_open = self.shared.gvt.round_open();
        for k in 0..m {
            let q = (me.orphan + k) % m;
            let slot = &self.slots[q];
            if self.active[self.primary(q)].load(Relaxed) || slot.finished.load(Acquire) {
                continue;
            }
            if !worth_helping(worked, round_open, f64::from_bits(slot.lvt.load(Relaxed)), ahead) {
                continue;
            }
            let Ok(mut g) = slot.pe.try_lock() else { continue };
            let Some(pe) = g.as_mut() else { continue };
            me.orphan = q + 1;
            let mut did = false;
            for _ in 0..self.adapt.help {
                let r = self.run_one(me, q, pe)?;
                me.stats.help_iterations += 1;
                did |= matches!(r, Iteration::Worked(_));
                if r == Iteration::Finished {
                    break;
                }
            }
            return Ok(did);
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::worth_helping;

    #[test]
    fn ladm_helps_an_orphan_ahead_of_a_busy_worker_only_while_a_gvt_round_waits() {
        let (orphan, own) = (5.0, 3.0);
        // No round: a busy worker keeps to its own PE (locality) ...
        assert!(!worth_helping(true, false, orphan, own));
        // ... but a round needs every PE, orphans ahead included (issue 42).
        assert!(worth_helping(true, true, orphan, own));
        // Behind, or an idle worker: always helped.
        assert!(worth_helping(true, false, own - 1.0, own));
        assert!(worth_helping(false, false, orphan, own));
        assert!(!worth_helping(true, false, f64::INFINITY, f64::INFINITY));
    }
}
