//! `verify`: run a model sequentially and in a parallel configuration and
//! say whether they committed the same history — and if not, where first.

use crate::error::Error;
use crate::key::{Key, LpId};
use crate::model::Model;
use crate::{Config, Run, Stats, SyncMode};

/// The first committed event where two runs part ways.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// The first LP (by id) whose committed history or final state differs.
    pub lp: LpId,
    /// Index of the first differing committed event of that LP (None: the
    /// histories agree and only the final state differs).
    pub index: Option<usize>,
    /// That event in the sequential run (None: the run committed fewer events).
    pub sequential: Option<Key>,
    /// That event in the parallel run.
    pub parallel: Option<Key>,
    /// What `--sync check` (each event run forward, reversed, compared and
    /// re-run) finds wrong with the model, naming the state field a reverse
    /// handler does not restore; None when it finds nothing.
    pub check: Option<String>,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ev = |k: &Option<Key>| match k {
            Some(k) => format!("time {} from LP {} (send #{}, generation {})", k.time, k.src(), k.seq(), k.age),
            None => "no event".to_string(),
        };
        match self.index {
            None => write!(f, "LP {}: same committed events, different final state", self.lp)?,
            Some(i) => write!(
                f,
                "LP {}: committed event #{i} differs: sequential {}, parallel {}",
                self.lp,
                ev(&self.sequential),
                ev(&self.parallel)
            )?,
        }
        match &self.check {
            Some(c) => write!(f, "; --sync check finds the cause: {c}"),
            None => Ok(()),
        }
    }
}

/// What `verify` found.
#[derive(Debug)]
pub struct Verdict {
    /// Statistics of the sequential run.
    pub sequential: Stats,
    /// Statistics of the parallel run.
    pub parallel: Stats,
    /// `None` when both committed the same history and final states.
    pub divergence: Option<Divergence>,
}

/// Runs `model` sequentially and under `parallel`, and compares.
///
/// ```
/// # use timewarp::{Config, SyncMode};
/// # let model = timewarp::verify::doc_model();
/// let par = Config { sync: SyncMode::Optimistic, threads: 2, end: 10.0, ..Config::default() };
/// let v = timewarp::verify::verify(&model, &par).unwrap();
/// assert!(v.divergence.is_none());
/// ```
pub fn verify<M: Model>(model: &M, parallel: &Config) -> Result<Verdict, Error> {
    // The sequential half runs one PE: the PE count and scheduling describe the parallel half only.
    let seq_cfg = Config {
        sync: SyncMode::Sequential,
        threads: 1,
        pes: None,
        scheduling: Default::default(),
        trace_lp: None,
        ..parallel.clone()
    };
    let par_cfg = Config { trace_lp: None, ..parallel.clone() };
    let a = Run::new(model, &seq_cfg).execute()?;
    let b = Run::new(model, &par_cfg).execute()?;
    let mut divergence = None;
    if a.stats.digest != b.stats.digest {
        let lp = a
            .lp_digests
            .iter()
            .zip(&b.lp_digests)
            .position(|(x, y)| x != y)
            .unwrap_or(a.lp_digests.len().min(b.lp_digests.len())) as LpId;
        // Re-run both recording that LP's committed events only.
        let ta = Run::new(model, &Config { trace_lp: Some(lp), ..seq_cfg.clone() }).execute()?.trace;
        let tb = Run::new(model, &Config { trace_lp: Some(lp), ..par_cfg }).execute()?.trace;
        let index = (0..ta.len().max(tb.len())).find(|&i| ta.get(i) != tb.get(i));
        divergence = Some(Divergence {
            lp,
            index,
            sequential: index.and_then(|i| ta.get(i).copied()),
            parallel: index.and_then(|i| tb.get(i).copied()),
            check: check(model, &seq_cfg),
        });
    }
    Ok(Verdict { sequential: a.stats, parallel: b.stats, divergence })
}

/// What a check-mode run of `model` finds wrong with it (a reverse handler
/// that does not restore the state, with the field named; a forward
/// handler that is not repeatable): the usual causes of a divergence.
fn check<M: Model>(model: &M, seq: &Config) -> Option<String> {
    match Run::new(model, &Config { sync: SyncMode::Check, ..seq.clone() }).execute() {
        Err(e @ Error::Check { .. }) => Some(e.to_string()),
        _ => None,
    }
}

/// A tiny model for the doc example above.
#[doc(hidden)]
pub fn doc_model() -> impl Model {
    DocRing
}

struct DocRing;

impl Model for DocRing {
    type State = u64;
    type Msg = ();
    type Undo = ();
    type Results = ();
    fn name(&self) -> &str {
        "ring"
    }
    fn num_lps(&self) -> u32 {
        8
    }
    fn init(&self, lp: LpId, ctx: &mut crate::Ctx<'_, Self>) -> u64 {
        ctx.send(lp, 1.0, ());
        0
    }
    fn forward(&self, s: &mut u64, _: &(), _: &mut (), ctx: &mut crate::Ctx<'_, Self>) {
        *s += 1;
        let next = (ctx.lp() + 1) % 8;
        ctx.send(next, 0.5, ());
    }
    fn reverse(&self, s: &mut u64, _: &(), _: &(), _: LpId, _: f64) {
        *s -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_divergence_names_what_check_mode_finds() {
        let mut d = Divergence { lp: 3, index: None, sequential: None, parallel: None, check: None };
        assert_eq!(d.to_string(), "LP 3: same committed events, different final state");
        d.check = Some("reverse handler did not restore the state: state.n: 1 -> 2".into());
        assert_eq!(
            d.to_string(),
            "LP 3: same committed events, different final state; --sync check finds the cause: reverse handler did \
             not restore the state: state.n: 1 -> 2"
        );
    }

    #[test]
    fn check_mode_names_the_field_a_reverse_handler_forgets() {
        struct Forgets;
        impl Model for Forgets {
            type State = u64;
            type Msg = ();
            type Undo = ();
            type Results = ();
            fn name(&self) -> &str {
                "forgets"
            }
            fn num_lps(&self) -> u32 {
                2
            }
            fn init(&self, lp: LpId, ctx: &mut crate::Ctx<'_, Self>) -> u64 {
                ctx.send(lp, 1.0, ());
                0
            }
            fn forward(&self, s: &mut u64, _: &(), _: &mut (), ctx: &mut crate::Ctx<'_, Self>) {
                *s += 1;
                ctx.send(ctx.lp(), 1.0, ());
            }
            fn reverse(&self, _: &mut u64, _: &(), _: &(), _: LpId, _: f64) {}
        }
        let found = check(&Forgets, &Config { end: 5.0, ..Config::default() }).expect("a fault");
        assert!(found.contains("reverse handler did not restore the state: state: 0 -> 1"), "{found}");
        assert_eq!(check(&DocRing, &Config { end: 5.0, ..Config::default() }), None);
    }
}
