//! Safe events (`Config::safe_events`): an optimistic PE commits at once the
//! events no other PE can reach any more. Whether it does, on how many PEs
//! and threads, and however the model is undone, the run commits the
//! sequential history; and where a run's schedule is fixed (one worker) the
//! counts say it did.

use serde::{Deserialize, Serialize};
use timewarp::{Config, Ctx, LpId, Model, Random, Rollback, Run, Stats, SyncMode};

/// How [`Hops`] is undone.
const REVERSE: u8 = 0;
const SAVING: u8 = 1;
const INCREMENTAL: u8 = 2;

/// LPs pass tokens to random LPs at least the lookahead (1) later, ties at
/// exactly 1 included, and now and then to themselves with no delay. Each LP
/// folds what it receives, in order, into a hash: any difference in the
/// order of its events changes its final state.
struct Hops<const R: u8> {
    lps: u32,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
struct State {
    hash: u64,
    seen: u64,
}

impl<const R: u8> Model for Hops<R> {
    type State = State;
    type Msg = u32;
    type Undo = u64;
    type Results = ();
    const ROLLBACK: Rollback = match R {
        REVERSE => Rollback::Reverse,
        SAVING => Rollback::StateSaving,
        _ => Rollback::Incremental,
    };

    fn name(&self) -> &str {
        "hops"
    }
    fn num_lps(&self) -> u32 {
        self.lps
    }
    fn lookahead(&self) -> f64 {
        1.0
    }
    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> State {
        for i in 0..3 {
            ctx.send(lp, i as f64 * 0.5, i);
        }
        State { hash: lp as u64, seen: 0 }
    }
    fn forward(&self, s: &mut State, msg: &u32, undo: &mut u64, ctx: &mut Ctx<'_, Self>) {
        *undo = s.hash;
        if R == INCREMENTAL {
            ctx.save(s.hash);
        }
        s.hash = timewarp::digest::fold(s.hash, ((*msg as u64) << 32) ^ ctx.now().to_bits());
        s.seen += 1;
        let dst = ctx.rng(0).below(self.lps as u64) as LpId;
        let delay = if ctx.rng(0).bernoulli(0.3) { 1.0 } else { 1.0 + ctx.rng(0).exponential(1.0) };
        ctx.send(dst, delay, msg.wrapping_add(1));
        if ctx.rng(0).bernoulli(0.05) {
            ctx.send(ctx.lp(), 0.0, msg.wrapping_add(7));
        }
    }
    fn reverse(&self, s: &mut State, _: &u32, undo: &u64, _: LpId, _: f64) {
        s.hash = *undo;
        s.seen -= 1;
    }
    fn restore(&self, s: &mut State, old: &u64) {
        s.hash = *old;
        s.seen -= 1;
    }
}

fn stats<M: Model>(m: &M, cfg: Config) -> Stats {
    let label = format!("{cfg:?}");
    Run::new(m, &cfg).execute().unwrap_or_else(|e| panic!("{label}: {e}")).stats
}

fn same_history<const R: u8>() {
    let m = Hops::<R> { lps: 24 };
    let end = 25.0;
    let seq = stats(&m, Config { end, ..Config::default() });
    for threads in [1, 2, 3] {
        for pes in [None, Some(4), Some(7)] {
            for kps_per_pe in [1, 16] {
                for safe_events in [true, false] {
                    let cfg = Config {
                        sync: SyncMode::Optimistic,
                        end,
                        threads,
                        pes,
                        kps_per_pe,
                        min_lps_per_kp: 1,
                        safe_events,
                        ..Config::default()
                    };
                    let what =
                        format!("rollback {R} threads {threads} pes {pes:?} kps {kps_per_pe} safe {safe_events}");
                    let par = stats(&m, cfg);
                    assert_eq!(par.committed_events, seq.committed_events, "{what}: committed events");
                    assert_eq!(par.timestamp_ties, seq.timestamp_ties, "{what}: ties");
                    assert_eq!(par.digest, seq.digest, "{what}: digest");
                    assert!(par.safe_events <= par.committed_events, "{what}");
                    if !safe_events {
                        assert_eq!(par.safe_events, 0, "{what}: safe events when off");
                    }
                }
            }
        }
    }
}

#[test]
fn safe_events_commit_the_sequential_history_under_reverse_computation() {
    same_history::<REVERSE>();
}

#[test]
fn safe_events_commit_the_sequential_history_under_state_saving() {
    same_history::<SAVING>();
}

#[test]
fn safe_events_commit_the_sequential_history_under_incremental_saving() {
    same_history::<INCREMENTAL>();
}

#[test]
fn one_worker_commits_safe_events_and_a_lone_pe_commits_all_of_them_so() {
    let m = Hops::<REVERSE> { lps: 32 };
    let opt =
        |pes, safe_events| Config { sync: SyncMode::Optimistic, end: 25.0, pes, safe_events, ..Config::default() };
    // One PE: nothing can ever reach it, so every event is final as it is processed.
    let alone = stats(&m, opt(None, true));
    assert_eq!(alone.safe_events, alone.committed_events);
    assert_eq!(alone.processed_events, alone.committed_events);
    // Four PEs on one worker (the same schedule every run): the PEs advance
    // together, well within the lookahead of each other, so some events are safe.
    let four = stats(&m, opt(Some(4), true));
    assert!(four.safe_events > 0, "{four:?}");
    assert_eq!(four.digest, alone.digest);
    let speculative = stats(&m, opt(Some(4), false));
    assert_eq!(speculative.safe_events, 0);
    assert_eq!(speculative.digest, alone.digest);
    // The summary says how many.
    assert!(four.table().contains("safe events"), "{}", four.table());
}

/// LP 0 ticks by itself every 0.25 and now and then throws a ball to LP 1,
/// which throws it straight back, each throw the lookahead (1) late; LP 1
/// has nothing else to do. On two PEs, PE 1 is idle when a round starts,
/// so nothing of its own bounds PE 0: only what PE 0 sends may come back.
struct Catch;

impl Model for Catch {
    type State = State;
    /// true: the ball; false: a tick.
    type Msg = bool;
    type Undo = u64;
    type Results = ();

    fn name(&self) -> &str {
        "catch"
    }
    fn num_lps(&self) -> u32 {
        2
    }
    fn lookahead(&self) -> f64 {
        1.0
    }
    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> State {
        if lp == 0 {
            ctx.send(0, 0.0, false);
        }
        State::default()
    }
    fn forward(&self, s: &mut State, ball: &bool, undo: &mut u64, ctx: &mut Ctx<'_, Self>) {
        *undo = s.hash;
        s.hash = timewarp::digest::fold(s.hash, ((*ball as u64) << 63) ^ ctx.now().to_bits());
        s.seen += 1;
        match (ctx.lp(), ball) {
            (0, false) => {
                ctx.send(0, 0.25, false);
                if s.seen % 8 == 1 {
                    ctx.send(1, 1.0, true);
                }
            }
            (1, true) => ctx.send(0, 1.0, true),
            _ => {}
        }
    }
    fn reverse(&self, s: &mut State, _: &bool, undo: &u64, _: LpId, _: f64) {
        s.hash = *undo;
        s.seen -= 1;
    }
}

#[test]
fn a_pe_with_an_idle_neighbour_still_waits_for_what_it_sent_to_come_back() {
    let seq = stats(&Catch, Config { end: 40.0, ..Config::default() });
    for threads in [1, 2] {
        let cfg = Config { sync: SyncMode::Optimistic, end: 40.0, threads, pes: Some(2), ..Config::default() };
        let par = stats(&Catch, cfg);
        assert_eq!(par.digest, seq.digest, "{threads} threads");
        assert_eq!(par.committed_events, seq.committed_events, "{threads} threads");
    }
}

/// A conservative run's [`ProgressSink`](timewarp::ProgressSink) reaches its
/// end time (the other modes: `modes.rs`).
#[test]
fn a_conservative_runs_progress_sink_reaches_the_end_time() {
    let end = 12.0;
    let m = Hops::<REVERSE> { lps: 24 };
    for threads in [1, 2] {
        let sink = timewarp::ProgressSink::default();
        let cfg = Config {
            end,
            sync: SyncMode::Conservative,
            threads,
            progress_sink: Some(sink.clone()),
            ..Config::default()
        };
        Run::new(&m, &cfg).execute().unwrap();
        assert_eq!((sink.now(), sink.end()), (end, end), "conservative on {threads} thread(s)");
    }
}
