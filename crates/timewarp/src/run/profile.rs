//! A sequential run that profiles the model (the input of
//! [`partition`](crate::partition)).

use super::memory;
use crate::config::{Config, SyncMode};
use crate::error::Error;
use crate::event::Inline;
use crate::kernel;
use crate::model::Model;
use crate::partition;
use crate::queue::{heap::QuadHeap, ladder::LadderQueue, QueueKind};
use crate::report::Report;

/// Runs `model` sequentially and profiles it: per LP committed events and
/// handler time, per LP pair committed messages (the input of
/// [`partition`]). Profiles are collected by the sequential kernel, which
/// commits every event it processes, so nothing is counted twice; `cfg.sync`
/// must be `Sequential`. The header's `model`, `lps`, `seed`, `end` and
/// `committed_events` are filled in; `params` is the caller's.
///
/// ```
/// use timewarp::{Config, Model};
/// # use timewarp::{Ctx, LpId};
/// # struct Ring;
/// # impl Model for Ring {
/// #     type State = (); type Msg = (); type Undo = (); type Results = ();
/// #     fn name(&self) -> &str { "ring" }
/// #     fn num_lps(&self) -> u32 { 4 }
/// #     fn lookahead(&self) -> f64 { 1.0 }
/// #     fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) { if lp == 0 { ctx.send(0, 1.0, ()) } }
/// #     fn forward(&self, _: &mut (), _: &(), _: &mut (), ctx: &mut Ctx<'_, Self>) {
/// #         ctx.send((ctx.lp() + 1) % 4, 1.0, ());
/// #     }
/// #     fn reverse(&self, _: &mut (), _: &(), _: &(), _: LpId, _: f64) {}
/// # }
/// let (report, profile) = timewarp::profile(&Ring, &Config { end: 9.0, ..Config::default() }).unwrap();
/// let g = profile.graph();
/// assert_eq!(g.total_events(), report.stats.committed_events);
/// assert_eq!(g.edge_weight(0, 1), Some(2)); // 0 -> 1 at times 2 and 6
/// ```
pub fn profile<M: Model>(model: &M, cfg: &Config) -> Result<(Report<M::Results>, partition::Profile), Error> {
    if cfg.sync != SyncMode::Sequential {
        return Err(Error::Config(format!(
            "profiles are collected by the sequential kernel (it commits every event it processes); \
             run with --sync sequential, not {}",
            cfg.sync.name()
        )));
    }
    cfg.validate()?;
    memory::check(model, cfg, 1)?;
    let mut p = partition::Profile::new(model.num_lps());
    let report = match cfg.queue {
        QueueKind::Ladder => {
            kernel::sequential::run_profiled::<M, LadderQueue<Inline<M::Msg>>, true>(model, cfg, Some(&mut p))?
        }
        QueueKind::Heap => {
            kernel::sequential::run_profiled::<M, QuadHeap<Inline<M::Msg>>, true>(model, cfg, Some(&mut p))?
        }
    };
    p.header.model = model.name().to_string();
    p.header.seed = cfg.seed;
    p.header.end = cfg.end;
    p.header.committed_events = report.stats.committed_events;
    Ok((report, p))
}
