//! The end of a segment in a parallel kernel: what this process' PEs hold
//! ([`ProcessEnd`], gathered by [`process_end`]) and the kernel's view of
//! the processes it hands that to ([`Reach`]). Kept apart from the kernels
//! and from `processes.rs` (which names the kernels'
//! networks), so that each kernel names only this file.

use crate::config::Config;
use crate::error::Error;
use crate::key::{Key, LpId};
use crate::lp::Lp;
use crate::model::Model;
use crate::report::{by_id, finish};
use crate::segment::{Outcome, Pending, Snapshot};
use crate::stats::Stats;
use crate::timeline::{Recorder, Timeline};

/// Where this process stands among the processes of the run.
pub(crate) trait Ranks {
    /// This process' rank, `0..count`.
    fn rank(&self) -> usize;
    /// Number of processes.
    fn count(&self) -> usize;
}

/// How a kernel whose network is `N` reaches the other processes of the
/// run: it connects, runs its PEs, and hands what they hold to [`Reach::end`].
pub(crate) trait Reach<N>: Ranks {
    /// The network for `pes` PEs per process, as `cfg` sets it up.
    fn connect(&self, cfg: &Config, pes: usize) -> N;
    /// The segment's outcome from what this process holds at its end
    /// (`stats`: its statistics, no digest yet; `sent`: events it sent to
    /// other processes where the network does not count them itself).
    /// Every process calls it.
    fn end<M: Model>(
        &self,
        model: &M,
        cfg: &Config,
        stats: Stats,
        net: &N,
        sent: u64,
        end: ProcessEnd<'_, M>,
    ) -> Result<Outcome<M>, Error>;
}

/// What one process holds at the end of a segment.
pub(crate) enum ProcessEnd<'a, M: Model> {
    /// Paused at a cut: its LP records and pending events (and, should the
    /// cut turn out to be the end, its trace and timeline).
    Cut { lps: Vec<(LpId, Lp<M::State>)>, events: Vec<Pending<M::Msg>>, trace: Vec<Key>, timeline: Option<Timeline> },
    /// At the end of the run: its LPs in id order, trace and timeline.
    End { lps: Vec<(LpId, &'a Lp<M::State>)>, trace: Vec<Key>, timeline: Option<Timeline> },
}

/// The outcome of a segment run in this process alone.
pub(crate) fn alone<M: Model>(model: &M, stats: Stats, end: ProcessEnd<'_, M>) -> Outcome<M> {
    let (lps, trace, timeline) = match end {
        ProcessEnd::Cut { mut lps, events, trace, timeline } => {
            if !events.is_empty() {
                return Outcome::Paused(Some(Snapshot::assemble(lps, events, stats)));
            }
            // Nothing pending: the cut is the end.
            lps.sort_by_key(|x| x.0);
            let mut report = finish(model, lps.iter().map(|(i, l)| (*i, l)), stats);
            (report.trace, report.timeline) = (trace, timeline);
            return Outcome::Done(Some(report));
        }
        ProcessEnd::End { lps, trace, timeline } => (lps, trace, timeline),
    };
    let mut report = finish(model, lps.into_iter(), stats);
    (report.trace, report.timeline) = (trace, timeline);
    Outcome::Done(Some(report))
}

/// What the end of a segment reads of a PE, which both parallel kernels'
/// PEs hold alike: borrowed at once, so the reading is written once
/// ([`process_end`]) and a PE says only where its parts are.
pub(crate) struct Parts<'p, S> {
    /// Whether it paused at a cut rather than reached the end.
    pub(crate) paused: bool,
    /// Its LPs: ids (in id order) and records, index for index.
    pub(crate) ids: &'p mut Vec<LpId>,
    pub(crate) lps: &'p mut Vec<Lp<S>>,
    /// Its committed trace.
    pub(crate) trace: &'p [Key],
    /// Its timeline track (`None`: not recording).
    pub(crate) timeline: &'p mut Option<Box<Recorder>>,
}

/// A PE of a parallel kernel after its segment.
pub(crate) trait Finished<M: Model> {
    /// What the end reads of it.
    fn parts(&mut self) -> Parts<'_, M::State>;
    /// Takes its pending events (at a cut): the one thing each kernel keeps its own way.
    fn take_pending(&mut self) -> Result<Vec<Pending<M::Msg>>, Error>;
}

/// What this process' PEs (each with its initialisation seconds) hold at
/// the end of their segment.
pub(crate) fn process_end<'a, M: Model, F: Finished<M>>(
    cfg: &Config,
    done: &'a mut [(F, f64)],
) -> Result<ProcessEnd<'a, M>, Error> {
    let trace: Vec<Key> = done.iter_mut().flat_map(|d| d.0.parts().trace.iter().copied()).collect();
    let timeline = Timeline::gather(cfg, done.iter_mut().map(|d| d.0.parts().timeline.take()));
    if done.first_mut().is_some_and(|d| d.0.parts().paused) {
        let mut lps = Vec::new();
        let mut events = Vec::new();
        for (pe, _) in done.iter_mut() {
            events.extend(pe.take_pending()?);
            let p = pe.parts();
            lps.extend(std::mem::take(p.ids).into_iter().zip(std::mem::take(p.lps)));
        }
        return Ok(ProcessEnd::Cut { lps, events, trace, timeline });
    }
    let lps = by_id(done.iter_mut().map(|(pe, _)| {
        let Parts { ids, lps, .. } = pe.parts();
        let (ids, lps): (&'a Vec<LpId>, &'a Vec<Lp<M::State>>) = (ids, lps);
        (ids.as_slice(), lps.as_slice())
    }));
    Ok(ProcessEnd::End { lps, trace, timeline })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{init_lp, Setup};

    #[test]
    fn a_cut_with_nothing_pending_is_the_end_and_one_with_events_a_snapshot() {
        let model = crate::verify::doc_model();
        let s = Setup::new(&model, &crate::Config::default()).unwrap();
        let mut out = Vec::new();
        // Out of id order, as a random placement hands them over.
        let lps: Vec<_> = (0..s.num_lps).rev().map(|lp| (lp, init_lp(&model, &s, lp, &mut out).unwrap().0)).collect();
        let in_order: Vec<_> = lps.iter().rev().map(|(i, l)| (*i, l)).collect();
        let end = ProcessEnd::End { lps: in_order, trace: Vec::new(), timeline: None };
        let Outcome::Done(Some(whole)) = alone(&model, Stats::default(), end) else { panic!("the end is done") };
        let cut = |events| ProcessEnd::Cut { lps: lps.clone(), events, trace: Vec::new(), timeline: None };
        match alone(&model, Stats::default(), cut(Vec::new())) {
            Outcome::Done(Some(r)) => assert_eq!(r.stats.digest, whole.stats.digest),
            _ => panic!("a cut with nothing pending ends the run"),
        }
        let events: Vec<_> = out.iter().map(|o| Pending { dst: o.dst, key: o.key, msg: o.msg }).collect();
        assert!(!events.is_empty());
        match alone(&model, Stats::default(), cut(events)) {
            Outcome::Paused(Some(snap)) => assert_eq!(snap.pending_events(), out.len()),
            _ => panic!("a cut with events pending is a snapshot"),
        }
    }
}
