//! Worker threads of the parallel kernels: spawning, failure, and merging
//! their figures. A worker that fails (an error or a panic in a handler) stops
//! all the others through [`Failure`], so no worker waits forever on one that
//! is gone.

use std::sync::atomic::{AtomicBool, Ordering::*};
use std::sync::Mutex;

use crate::error::Error;
use crate::key::Key;
use crate::stats::{PeStats, Stats};

/// The error that ends a run, and a flag every worker polls.
///
/// A model's error is kept with the key of the event that raised it, and the
/// smallest key wins: workers that see the flag report their own committed
/// errors below it (`Pe::iterate` calls `Pe::report_earlier_error`), so an
/// optimistic run reports the error a sequential run meets first. Any other
/// error wins outright.
#[derive(Default)]
pub(crate) struct Failure {
    failed: AtomicBool,
    /// The error, with the key of its event (None: not an event's error).
    error: Mutex<Option<(Option<Key>, Error)>>,
}

impl Failure {
    /// Records `e` (unless an error is recorded already) and tells every worker to stop.
    pub(crate) fn fail(&self, e: Error) {
        self.record(None, e);
    }

    /// Records the error `e` of the event `key` unless one of a smaller key
    /// is recorded, and tells every worker to stop.
    pub(crate) fn fail_at(&self, key: Key, e: Error) {
        self.record(Some(key), e);
    }

    fn record(&self, key: Option<Key>, e: Error) {
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        let wins = match (&*slot, key) {
            (None, _) => true,
            (Some((Some(old), _)), Some(new)) => new < *old,
            (Some((Some(_), _)), None) => true,
            (Some((None, _)), _) => false,
        };
        if wins {
            *slot = Some((key, e));
        }
        self.failed.store(true, Release);
    }

    /// The key of the recorded error (None: no error, or not an event's).
    pub(crate) fn key(&self) -> Option<Key> {
        let slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        slot.as_ref().and_then(|(k, _)| *k)
    }

    /// True once some worker failed.
    #[inline]
    pub(crate) fn failed(&self) -> bool {
        self.failed.load(Relaxed)
    }

    /// The flag itself (for barriers that poll it).
    pub(crate) fn flag(&self) -> &AtomicBool {
        &self.failed
    }

    fn take(&self) -> Option<Error> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take().map(|(_, e)| e)
    }
}

/// Runs `work(id, input)` for every input on its own scoped thread and
/// returns the results in id order, or the first failure.
pub(crate) fn run_workers<I: Send, T: Send>(
    inputs: Vec<I>,
    failure: &Failure,
    work: impl Fn(usize, I) -> Result<T, Error> + std::marker::Sync,
) -> Result<Vec<T>, Error> {
    let n = inputs.len();
    let done: Vec<Option<T>> = std::thread::scope(|sc| {
        let work = &work;
        let mut handles = Vec::with_capacity(n);
        for (id, input) in inputs.into_iter().enumerate() {
            let spawned =
                std::thread::Builder::new().name(format!("timewarp worker {id}")).spawn_scoped(sc, move || {
                    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(id, input))) {
                        Ok(Ok(v)) => Some(v),
                        Ok(Err(e)) => {
                            failure.fail(e);
                            None
                        }
                        Err(p) => {
                            failure.fail(Error::WorkerPanic(format!("worker {id}: {}", super::panic_text(p.as_ref()))));
                            None
                        }
                    }
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // The workers already started see the failure and stop
                    // (they poll it wherever they wait for each other).
                    failure.fail(Error::Threads(format!(
                        "cannot start worker thread {} of {n}: {e}; use fewer --threads, or raise the limit on \
                         processes or memory (ulimit -u, ulimit -v)",
                        id + 1
                    )));
                    break;
                }
            }
        }
        handles.into_iter().map(|h| h.join().ok().flatten()).collect()
    });
    if let Some(e) = failure.take() {
        return Err(e);
    }
    let done: Vec<T> = done.into_iter().flatten().collect();
    if done.len() != n {
        return Err(Error::Internal("a worker thread ended without a result".into()));
    }
    Ok(done)
}

/// The statistics every parallel kernel fills the same way: start-up is the
/// slowest worker's initialisation, wall time the rest of `total`, and the
/// per-PE figures are summed.
pub(crate) fn parallel_stats<'a>(
    mut stats: Stats,
    total: f64,
    inits: impl Iterator<Item = f64>,
    pes: impl Iterator<Item = &'a PeStats>,
) -> Stats {
    stats.init_seconds = inits.fold(0.0, f64::max);
    stats.wall_seconds = total - stats.init_seconds;
    merge_pe_stats(&mut stats, pes);
    stats
}

/// Adds the per-PE figures into the run statistics (and keeps them per PE).
pub(crate) fn merge_pe_stats<'a>(stats: &mut Stats, pes: impl Iterator<Item = &'a PeStats>) -> u64 {
    let mut remote = 0;
    let mut remote_process = 0;
    for p in pes {
        remote_process += p.remote_process;
        stats.committed_events += p.committed;
        stats.processed_events += p.processed;
        stats.rolled_back_events += p.rolled_back;
        stats.saved_entries += p.saved_entries;
        stats.primary_rollbacks += p.primary_rollbacks;
        stats.secondary_rollbacks += p.secondary_rollbacks;
        stats.anti_messages += p.anti_messages;
        stats.timestamp_ties += p.ties;
        stats.events_past_end += p.past_end;
        stats.peak_events += p.peak_events;
        stats.peak_speculative += p.peak_speculative;
        remote += p.remote;
        stats.pes.push(p.clone());
    }
    let c = stats.committed_events.max(1) as f64;
    stats.efficiency = stats.committed_events as f64 / stats.processed_events.max(1) as f64;
    stats.rollback_efficiency = 1.0 - stats.rolled_back_events as f64 / c;
    stats.remote_fraction = remote as f64 / c;
    stats.remote_process_fraction = remote_process as f64 / c;
    remote
}
