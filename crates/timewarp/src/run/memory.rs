//! The memory a run needs, estimated before anything is allocated, and the
//! machine's memory: a configuration far too big for the machine is refused
//! with a clear error instead of ending in an allocation failure (an abort).
//!
//! The estimate counts what grows with the configuration — LP records,
//! initial events, KPs, the rings between threads — not what a model's
//! handlers allocate later; it is meant to catch sizes that cannot fit,
//! not to predict the peak. The run hands the kernels what it estimated
//! (the optimistic kernel sizes its rings by the LPs and events of its
//! process): the sizes are computed here, once, and the kernels do not
//! import this module.

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
        let lps = lps.saturating_mul(lp_bytes).saturating_add(model.state_heap_bytes().div_ceil(ranks));
        // Twice: a growing queue holds up to twice its length.
        let events = events.saturating_mul(event_bytes).saturating_mul(2);
        let (kps, rings) = if optimistic {
            let pes = cfg.pes_per_process().saturating_mul(processes.max(1));
            let kps = cfg.kps_in_use(model.num_lps(), pes) as u64;
            crate::kernel::optimistic::fixed_bytes::<M>(cfg.pes_per_process(), kps, lps.saturating_add(events))
        } else {
            (0, 0)
        };
        Estimate { lps, events, kps, rings }
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
///
/// `MemTotal`, not `MemAvailable`: what is available changes from moment to
/// moment with other processes and the page cache, and a check against it
/// would refuse a command at one moment and accept it the next. The total
/// refuses what can never fit; a limit set on the process ([`Limit`]) is
/// exact and is checked too.
pub fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// What bounds the memory of this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Bound {
    /// The machine's physical memory ([`machine_memory`]).
    Machine,
    /// The process's address-space limit (`RLIMIT_AS`, `ulimit -v`).
    AddressSpace,
    /// The process's data-segment limit (`RLIMIT_DATA`, `ulimit -d`).
    Data,
}

/// The most memory this process can have: the smallest of the machine's
/// memory and the limits set on the process (whichever are known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// Bytes.
    pub bytes: u64,
    /// What sets it.
    pub bound: Bound,
}

/// What a process holds beyond its run's data: the program, its libraries
/// and the allocator's first heap (a run of a tiny model peaks at 5-9 MB
/// resident, and more of its address space is mapped than touched), and
/// per worker thread its stack and, under an address-space limit, the
/// allocator's per-thread arena (glibc reserves 64 MiB of address space for
/// each). The machine's memory is compared with the estimate alone: these
/// few MB are within its error.
const RESERVED_BASE: u64 = 64 << 20;
const RESERVED_BASE_ADDRESS_SPACE: u64 = 192 << 20;
const RESERVED_PER_THREAD: u64 = 8 << 20;
const RESERVED_PER_THREAD_ADDRESS_SPACE: u64 = 80 << 20;

impl Limit {
    /// This process's limit now, or `None` where nothing is known (then
    /// nothing is refused up front).
    pub fn current() -> Option<Limit> {
        let machine = machine_memory().map(|bytes| Limit { bytes, bound: Bound::Machine });
        let rlimit = |bound| process_limit(bound).map(|bytes| Limit { bytes, bound });
        [machine, rlimit(Bound::AddressSpace), rlimit(Bound::Data)].into_iter().flatten().min_by_key(|l| l.bytes)
    }

    /// Whether a run whose estimate is `need` bytes, with `threads` worker
    /// threads, fits under this limit.
    pub fn fits(&self, need: u64, threads: usize) -> bool {
        need.saturating_add(self.reserved(threads)) <= self.bytes
    }

    /// What the limit does not leave to the run's data.
    fn reserved(&self, threads: usize) -> u64 {
        let (base, per_thread) = match self.bound {
            Bound::Machine => return 0,
            Bound::AddressSpace => (RESERVED_BASE_ADDRESS_SPACE, RESERVED_PER_THREAD_ADDRESS_SPACE),
            Bound::Data => (RESERVED_BASE, RESERVED_PER_THREAD),
        };
        base.saturating_add(per_thread.saturating_mul(threads as u64))
    }

    /// The limit for people: `this machine has 24.6 GB`, `the process's
    /// address-space limit (ulimit -v) is 8.2 GB`.
    pub fn describe(&self) -> String {
        match self.bound {
            Bound::Machine => format!("this machine has {}", human(self.bytes)),
            Bound::AddressSpace => format!("the process's address-space limit (ulimit -v) is {}", human(self.bytes)),
            Bound::Data => format!("the process's data limit (ulimit -d) is {}", human(self.bytes)),
        }
    }

    /// What else than a smaller model would make room.
    pub fn remedy(&self) -> &'static str {
        match self.bound {
            Bound::Machine => "",
            Bound::AddressSpace => " or raise ulimit -v",
            Bound::Data => " or raise ulimit -d",
        }
    }
}

/// The soft limit `bound` sets on this process, if any.
#[cfg(unix)]
fn process_limit(bound: Bound) -> Option<u64> {
    let resource = match bound {
        Bound::AddressSpace => libc::RLIMIT_AS,
        Bound::Data => libc::RLIMIT_DATA,
        Bound::Machine => return None,
    };
    let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes only into `r`, which lives across the call.
    if unsafe { libc::getrlimit(resource, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    #[allow(clippy::unnecessary_cast)] // rlim_t is u64 on Linux, not on every unix
    Some(r.rlim_cur as u64)
}

#[cfg(not(unix))]
fn process_limit(_: Bound) -> Option<u64> {
    None
}

/// Refuses a configuration whose estimate exceeds the machine's memory or
/// the process's limit (the engine's own check; front ends may check first
/// to name their options).
pub(super) fn check<M: Model>(model: &M, cfg: &Config, processes: usize) -> Result<(), crate::Error> {
    let Some(limit) = Limit::current() else { return Ok(()) };
    let e = Estimate::of(model, cfg, processes);
    if limit.fits(e.total(), cfg.threads) {
        return Ok(());
    }
    Err(crate::Error::Memory(format!(
        "model {} needs about {} of memory per process ({} LPs: {}, {} initial events: {}, KPs: {}, thread rings: {}), \
         but {}; make the model smaller{}",
        model.name(),
        human(e.total()),
        model.num_lps(),
        human(e.lps),
        model.initial_events(),
        human(e.events),
        human(e.kps),
        human(e.rings),
        limit.describe(),
        limit.remedy()
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

    #[test]
    fn an_address_space_limit_leaves_room_for_what_threads_reserve() {
        let l = Limit { bytes: 1 << 30, bound: Bound::AddressSpace };
        assert!(l.fits(512 << 20, 1));
        assert!(!l.fits(1 << 30, 1));
        assert!(l.fits(700 << 20, 1) && !l.fits(700 << 20, 4), "threads reserve address space");
        let m = Limit { bytes: 1 << 30, bound: Bound::Machine };
        assert!(m.fits(1 << 30, 16) && !m.fits((1 << 30) + 1, 1));
        assert!(l.describe().contains("ulimit -v") && m.describe().starts_with("this machine has"));
    }

    #[test]
    fn the_limit_is_the_smallest_known() {
        if let (Some(l), Some(m)) = (Limit::current(), machine_memory()) {
            assert!(l.bytes <= m);
        }
    }
}
