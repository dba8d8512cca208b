//! The memory a run needs, estimated before anything is allocated, and the
//! machine's memory: a configuration far too big for the machine is refused
//! with a clear error instead of ending in an allocation failure (an abort).
//!
//! The estimate counts what grows with the configuration — LP records,
//! initial events, KPs, the rings between threads — not what a model's
//! handlers allocate later; it is meant to catch sizes that cannot fit,
//! not to predict the peak.

use crate::config::{Config, SyncMode};
use crate::event::{Event, Inline, Queued};
use crate::lp::Lp;
use crate::model::Model;
use crate::queue::Entry;

// Below the kernels (which report allocation failures with it); shown here
// with the estimate it formats.
pub use crate::bytes::human;

/// The memory of one process of a run, by part (bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Estimate {
    /// LP records (engine fields and the model's state), what the states
    /// hold on the heap ([`Model::state_heap_bytes`]) and per-LP tables.
    pub lps: u64,
    /// The initial events ([`Model::initial_events`]), with room for the
    /// pending queue to grow.
    pub events: u64,
    /// Kernel processes of the optimistic kernel.
    pub kps: u64,
    /// Rings between the worker threads of the process (optimistic).
    pub rings: u64,
}

impl Estimate {
    /// The memory one of `processes` processes needs to run `model` under
    /// `cfg` (LPs and events are shared out evenly among processes).
    pub fn of<M: Model>(model: &M, cfg: &Config, processes: usize) -> Estimate {
        let ranks = processes.max(1) as u64;
        let lps = (model.num_lps() as u64).div_ceil(ranks);
        let events = model.initial_events().div_ceil(ranks);
        let optimistic = cfg.sync == SyncMode::Optimistic;
        let event_bytes = if optimistic {
            size::<Event<M::Msg, M::Undo>>() + size::<Entry<Queued<M::Msg>>>()
        } else {
            size::<Entry<Inline<M::Msg>>>()
        };
        // Per LP: its record, its digest and place in the final report, and
        // the mapping's tables (a few u32s).
        let lp_bytes = size::<Lp<M::State>>() + size::<crate::digest::LpDigest>() + 32;
        let (kps, rings) = if optimistic {
            let pes = cfg.pes_per_process().saturating_mul(processes.max(1));
            let kps = cfg.kps_in_use(model.num_lps(), pes) as u64;
            crate::kernel::optimistic::fixed_bytes::<M>(cfg.pes_per_process(), kps)
        } else {
            (0, 0)
        };
        Estimate {
            lps: lps.saturating_mul(lp_bytes).saturating_add(model.state_heap_bytes().div_ceil(ranks)),
            // Twice: a growing queue holds up to twice its length.
            events: events.saturating_mul(event_bytes).saturating_mul(2),
            kps,
            rings,
        }
    }

    /// All parts together.
    pub fn total(&self) -> u64 {
        self.lps.saturating_add(self.events).saturating_add(self.kps).saturating_add(self.rings)
    }
}

fn size<T>() -> u64 {
    std::mem::size_of::<T>() as u64
}

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`),
/// or `None` where that cannot be read (then nothing is refused up front).
pub fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Refuses a configuration whose estimate exceeds the machine's memory (the
/// engine's own check; front ends may check first to name their options).
pub(crate) fn check<M: Model>(model: &M, cfg: &Config, processes: usize) -> Result<(), crate::Error> {
    let Some(have) = machine_memory() else { return Ok(()) };
    let e = Estimate::of(model, cfg, processes);
    if e.total() <= have {
        return Ok(());
    }
    Err(crate::Error::Memory(format!(
        "model {} needs about {} of memory per process ({} LPs: {}, {} initial events: {}, KPs: {}, thread rings: {}), \
         but this machine has {}; make the model smaller",
        model.name(),
        human(e.total()),
        model.num_lps(),
        human(e.lps),
        model.initial_events(),
        human(e.events),
        human(e.kps),
        human(e.rings),
        human(have)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_has_some_memory() {
        if std::path::Path::new("/proc/meminfo").exists() {
            assert!(machine_memory().is_some_and(|m| m > 1 << 20));
        }
    }
}
