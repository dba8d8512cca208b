//! Runs that could not end, or could not fit, end with a clear error: a
//! model whose virtual time stops advancing is stopped by the limit of
//! events in a row at one time (in every kernel that can run it), and a
//! model too big for the machine is refused before anything is allocated.

use timewarp::{Config, Ctx, Error, LpId, Model, Run, SyncMode};

#[path = "support/skip.rs"]
mod support;
use support::skip;

/// Every event sends the next one to a neighbour with delay 0 after a
/// chosen time: virtual time stops there.
struct Stuck {
    lps: u32,
    from: f64,
}

impl Model for Stuck {
    type State = u64;
    type Msg = ();
    type Undo = ();
    type Results = ();
    fn name(&self) -> &str {
        "stuck"
    }
    fn num_lps(&self) -> u32 {
        self.lps
    }
    fn lookahead(&self) -> f64 {
        0.0
    }
    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> u64 {
        ctx.send(lp, 1.0, ());
        0
    }
    fn forward(&self, s: &mut u64, _: &(), _: &mut (), ctx: &mut Ctx<'_, Self>) {
        *s += 1;
        let delay = if ctx.now() >= self.from { 0.0 } else { 1.0 };
        ctx.send((ctx.lp() + 1) % self.lps, delay, ());
    }
    fn reverse(&self, s: &mut u64, _: &(), _: &(), _: LpId, _: f64) {
        *s -= 1;
    }
}

#[test]
fn a_run_whose_time_stops_is_stopped_with_the_lp_and_time() {
    let m = Stuck { lps: 8, from: 3.0 };
    for (sync, threads) in [(SyncMode::Sequential, 1), (SyncMode::Check, 1), (SyncMode::Optimistic, 2)] {
        let cfg = Config { sync, threads, end: 10.0, max_events_at_one_time: 1000, ..Config::default() };
        match Run::new(&m, &cfg).execute() {
            Err(Error::Stalled { time, events, .. }) => {
                assert_eq!(time, 3.0, "{sync:?}");
                assert_eq!(events, 1000, "{sync:?}");
            }
            other => panic!("{sync:?}: expected Error::Stalled, got {other:?}"),
        }
    }
    // Without the limit's trigger the same model runs to its end.
    let fine = Stuck { lps: 8, from: 1e9 };
    let r =
        Run::new(&fine, &Config { end: 10.0, max_events_at_one_time: 1000, ..Config::default() }).execute().unwrap();
    assert!(r.stats.committed_events > 0);
}

#[test]
fn a_model_too_big_for_the_machine_is_refused_before_allocating() {
    if timewarp::memory::machine_memory().is_none() {
        let test = "limits::a_model_too_big_for_the_machine_is_refused_before_allocating";
        skip(test, "this system does not tell the machine's memory: nothing to compare with", None);
        return;
    }
    let m = Stuck { lps: u32::MAX, from: 1e9 };
    for sync in [SyncMode::Sequential, SyncMode::Optimistic] {
        let threads = if sync == SyncMode::Optimistic { 2 } else { 1 };
        match Run::new(&m, &Config { sync, threads, ..Config::default() }).execute() {
            Err(e @ Error::Memory(_)) => assert!(e.to_string().contains("this machine has"), "{e}"),
            other => panic!("{sync:?}: expected Error::Memory, got {other:?}"),
        }
    }
    let e = timewarp::memory::Estimate::of(&m, &Config::default(), 1);
    assert!(e.lps >= u32::MAX as u64 * 8 && e.events >= u32::MAX as u64, "{e:?}");
}
