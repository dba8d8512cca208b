//! `--sync auto`: the synchronisation mode picked from what the model
//! declares and the run's resources, resolved before anything else reads
//! `--sync` (every later layer sees a concrete mode).
//!
//! The rule, from the measurements in docs/performance.md and issue 38's
//! 16-core table:
//! 0. `--pes` above `--threads`: **optimistic**, the only mode that runs
//!    more PEs than worker threads (an explicit option is honoured, not
//!    dropped);
//! 1. one worker thread in one process: **sequential** (no parallel mode
//!    beats the sequential kernel on one core);
//! 2. otherwise, a positive lookahead between LPs (the model's
//!    `lookahead`, or the smallest per-pair `lookahead_between` over the
//!    neighbours it declares): **conservative** (it beat optimistic on
//!    every workload measured with one: networks, TLM, PHOLD
//!    `--lookahead > 0`);
//! 3. otherwise (lookahead 0 or unknown: PCS, PHOLD `--lookahead 0`):
//!    **optimistic**, the only parallel mode that runs such a model.
//!
//! The rule reads only the options and the model's declarations, never a
//! clock: every MPI process makes the same choice, a resume makes it again
//! from the same command line, and every choice commits the digest of
//! `--sync sequential` (as every mode does).

use serde_json::Value;
use timewarp::{LpId, Model, SyncMode};

/// The mode `--sync auto` picked, and why (one line).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Choice {
    /// A concrete mode: sequential, conservative or optimistic.
    pub mode: SyncMode,
    /// Why, for the stderr line and the statistics' `sync_reason`.
    pub reason: String,
}

impl Choice {
    /// The line printed on stderr.
    pub(crate) fn line(&self) -> String {
        format!("sync auto: {} ({})", self.mode.name(), self.reason)
    }
}

/// The options the rule reads besides the model.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resources {
    /// `--threads`, per process.
    pub threads: u32,
    /// `--pes`, per process.
    pub pes: Option<u32>,
    /// MPI processes.
    pub processes: usize,
    /// `--end`.
    pub end: f64,
    /// Verify's parallel run (its `--sync` names it): never sequential.
    pub parallel: bool,
}

/// The mode for `model` run with `r`.
pub(crate) fn choose<M: Model>(model: &M, r: Resources) -> Choice {
    let Resources { threads, pes, processes, end, parallel } = r;
    if let Some(pes) = pes.filter(|&p| p > threads) {
        return Choice {
            mode: SyncMode::Optimistic,
            reason: format!("--pes {pes} is more than --threads {threads}: only optimistic runs more PEs than threads"),
        };
    }
    if !parallel && threads == 1 && processes == 1 {
        return Choice {
            mode: SyncMode::Sequential,
            reason: "one worker thread in one process: no parallel mode beats the sequential kernel on one core; \
                     give --threads N for a parallel run"
                .into(),
        };
    }
    let la = cross_lookahead(model);
    // Conservative windows need a lookahead that moves virtual time at the
    // end time (the conservative kernel refuses one that does not); `la` is
    // at most the windows' own lookahead, so it is a safe test.
    if la > 0.0 && end + la > end {
        let la = if la.is_finite() { crate::readable::sig(la) } else { "infinite (no event crosses LPs)".into() };
        Choice {
            mode: SyncMode::Conservative,
            reason: format!(
                "model {} declares lookahead {la} between LPs: conservative beat optimistic on every measured \
                 workload with a positive lookahead",
                model.name()
            ),
        }
    } else {
        Choice {
            mode: SyncMode::Optimistic,
            reason: format!(
                "model {} declares no usable lookahead between LPs (0 or unknown): only optimistic runs it in \
                 parallel",
                model.name()
            ),
        }
    }
}

/// The smallest delay the model declares for an event from one LP to
/// another, whatever the placement: its global lookahead when positive (a
/// per-pair one is never below it, `Model::lookahead_between`), else the
/// smallest per-pair lookahead over the neighbours it declares (a network
/// whose links all have a latency). A lower bound of the conservative
/// kernel's window lookahead, which counts only pairs on different PEs.
/// 0 for anything malformed (not finite, < 0, a neighbour out of range):
/// then conservative is not chosen. Constant time unless the global
/// lookahead is 0 and every LP declares its neighbours, where it costs what
/// the conservative kernel's start costs anyway.
fn cross_lookahead<M: Model>(model: &M) -> f64 {
    let global = model.lookahead();
    if !(global.is_finite() && global >= 0.0) {
        return 0.0;
    }
    if global > 0.0 {
        return global;
    }
    let n = model.num_lps();
    let mut la = f64::INFINITY;
    for lp in 0..n {
        // Any LP: only the global lookahead, 0, bounds its sends.
        let Some(list) = model.neighbours(lp) else { return 0.0 };
        for d in list.into_iter().filter(|&d: &LpId| d != lp) {
            let l = model.lookahead_between(lp, d);
            if d >= n || !(l.is_finite() && l > 0.0) {
                return 0.0;
            }
            la = la.min(l);
        }
    }
    la
}

/// `sync_chosen` and `sync_reason` in a statistics file, when `--sync auto` chose.
pub(crate) fn keys(json: &mut Value, choice: Option<&Choice>) {
    if let Some(c) = choice {
        json["sync_chosen"] = c.mode.name().into();
        json["sync_reason"] = c.reason.clone().into();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use timewarp::Ctx;

    /// A model with a given global lookahead and, optionally, a ring of
    /// neighbours whose per-pair lookahead is `pair`.
    struct M {
        la: f64,
        pair: Option<f64>,
    }
    impl Model for M {
        type State = ();
        type Msg = ();
        type Undo = ();
        type Results = ();
        fn name(&self) -> &str {
            "m"
        }
        fn num_lps(&self) -> u32 {
            4
        }
        fn lookahead(&self) -> f64 {
            self.la
        }
        fn lookahead_between(&self, _: LpId, _: LpId) -> f64 {
            self.pair.unwrap_or(self.la)
        }
        fn neighbours(&self, lp: LpId) -> Option<Vec<LpId>> {
            self.pair.map(|_| vec![(lp + 1) % 4, lp])
        }
        fn init(&self, _: LpId, _: &mut Ctx<'_, Self>) {}
        fn forward(&self, _: &mut (), _: &(), _: &mut (), _: &mut Ctx<'_, Self>) {}
    }

    fn res(threads: u32, processes: usize, end: f64, parallel: bool) -> Resources {
        Resources { threads, pes: None, processes, end, parallel }
    }

    fn mode(la: f64, pair: Option<f64>, threads: u32, processes: usize, parallel: bool) -> SyncMode {
        choose(&M { la, pair }, res(threads, processes, 100.0, parallel)).mode
    }

    #[test]
    fn more_pes_than_threads_is_optimistic() {
        for (la, threads, pes) in [(1.0, 1, 4), (0.0, 1, 2), (1.0, 2, 4)] {
            let r = Resources { pes: Some(pes), ..res(threads, 1, 100.0, false) };
            assert_eq!(choose(&M { la, pair: None }, r).mode, SyncMode::Optimistic);
        }
        // As many PEs as threads: the rule as without --pes.
        let r = Resources { pes: Some(2), ..res(2, 1, 100.0, false) };
        assert_eq!(choose(&M { la: 1.0, pair: None }, r).mode, SyncMode::Conservative);
        let r = Resources { pes: Some(1), ..res(1, 1, 100.0, false) };
        assert_eq!(choose(&M { la: 1.0, pair: None }, r).mode, SyncMode::Sequential);
    }

    #[test]
    fn one_thread_in_one_process_is_sequential() {
        assert_eq!(mode(1.0, None, 1, 1, false), SyncMode::Sequential);
        assert_eq!(mode(0.0, None, 1, 1, false), SyncMode::Sequential);
    }

    #[test]
    fn a_positive_lookahead_is_conservative_else_optimistic() {
        for (threads, processes) in [(2, 1), (1, 2), (16, 4)] {
            assert_eq!(mode(0.5, None, threads, processes, false), SyncMode::Conservative);
            assert_eq!(mode(0.0, None, threads, processes, false), SyncMode::Optimistic);
        }
        // Per-pair lookaheads count where the model declares its neighbours.
        assert_eq!(mode(0.0, Some(2.0), 2, 1, false), SyncMode::Conservative);
        assert_eq!(mode(0.0, Some(0.0), 2, 1, false), SyncMode::Optimistic);
    }

    #[test]
    fn verify_never_gets_sequential() {
        assert_eq!(mode(1.0, None, 1, 1, true), SyncMode::Conservative);
        assert_eq!(mode(0.0, None, 1, 1, true), SyncMode::Optimistic);
    }

    #[test]
    fn malformed_or_useless_lookaheads_are_optimistic() {
        for la in [f64::NAN, -1.0, f64::INFINITY] {
            assert_eq!(mode(la, None, 2, 1, false), SyncMode::Optimistic, "{la}");
        }
        assert_eq!(mode(0.0, Some(f64::NAN), 2, 1, false), SyncMode::Optimistic);
        // A lookahead that does not move virtual time at the end time.
        let c = choose(&M { la: 1e-300, pair: None }, res(2, 1, 1e10, false));
        assert_eq!(c.mode, SyncMode::Optimistic);
    }

    #[test]
    fn the_line_names_the_mode_and_the_reason() {
        let c = choose(&M { la: 0.5, pair: None }, res(2, 1, 100.0, false));
        assert!(c.line().starts_with("sync auto: conservative ("), "{}", c.line());
        assert!(c.line().contains("lookahead 0.5"), "{}", c.line());
        let mut json = serde_json::json!({});
        keys(&mut json, None);
        assert_eq!(json, serde_json::json!({}));
        keys(&mut json, Some(&c));
        assert_eq!(json["sync_chosen"], "conservative");
        assert_eq!(json["sync_reason"], c.reason.as_str());
    }
}
