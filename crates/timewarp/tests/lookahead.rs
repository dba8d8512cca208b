//! Lookahead between LPs: sends to the LP itself may have any delay >= 0,
//! a model may declare a lookahead per pair of LPs, and conservative windows
//! take the smallest one that crosses PEs in the actual placement.

use timewarp::{Config, Ctx, Error, LpId, Model, Random, Rollback, Run, Stats, SyncMode};

/// Tokens walk on a line of LPs. The link between LPs `slow` and `slow + 1`
/// takes `far`; every other link `near`. With two PEs the block placement
/// cuts the line exactly at the slow link, so conservative windows may be
/// `far` wide. `stray` makes LP 0 send once straight to the last LP (not a
/// declared neighbour) to test that error.
struct Line {
    lps: u32,
    near: f64,
    far: f64,
    declare: bool,
    stray: bool,
}

impl Line {
    fn slow(&self) -> LpId {
        self.lps / 2 - 1
    }
}

impl Model for Line {
    type State = u64;
    type Msg = u8;
    type Undo = ();
    type Results = u64;
    const ROLLBACK: Rollback = Rollback::StateSaving;
    fn name(&self) -> &str {
        "line"
    }
    fn num_lps(&self) -> u32 {
        self.lps
    }
    fn lookahead(&self) -> f64 {
        self.near
    }
    fn lookahead_between(&self, src: LpId, dst: LpId) -> f64 {
        if src.min(dst) == self.slow() && src.abs_diff(dst) == 1 {
            self.far
        } else {
            self.near
        }
    }
    fn neighbours(&self, lp: LpId) -> Option<Vec<LpId>> {
        self.declare.then(|| [lp.checked_sub(1), (lp + 1 < self.lps).then_some(lp + 1)].into_iter().flatten().collect())
    }
    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> u64 {
        ctx.send(lp, 0.0, 0);
        ctx.send(lp, 0.5, 0);
        0
    }
    fn forward(&self, s: &mut u64, msg: &u8, _: &mut (), ctx: &mut Ctx<'_, Self>) {
        *s += 1;
        let lp = ctx.lp();
        if *msg == 1 {
            return; // a zero-delay echo: absorbed
        }
        if self.stray && lp == 0 && *s == 3 {
            ctx.send(self.lps - 1, self.near, 0);
            return;
        }
        let right = lp + 1 < self.lps && (lp == 0 || ctx.rng(0).bernoulli(0.5));
        let dst = if right { lp + 1 } else { lp - 1 };
        let delay = self.lookahead_between(lp, dst) + ctx.rng(0).exponential(1.0);
        ctx.send(dst, delay, 0);
        if ctx.rng(0).bernoulli(0.25) {
            ctx.send(lp, 0.0, 1); // zero delay to itself: fine whatever the lookahead
        }
    }
    fn finalize(&self, _: LpId, s: &u64, _: f64, total: &mut u64) {
        *total += s;
    }
}

fn line(declare: bool) -> Line {
    Line { lps: 16, near: 0.05, far: 2.0, declare, stray: false }
}

fn same(a: &Stats, b: &Stats, what: &str) {
    assert_eq!(a.committed_events, b.committed_events, "{what}");
    assert_eq!(a.digest, b.digest, "{what}");
}

#[test]
fn conservative_windows_use_the_lookahead_that_crosses_pes() {
    let end = 60.0;
    let seq = Run::new(&line(true), &Config { end, ..Config::default() }).execute().unwrap().stats;
    let cons = |declare: bool, threads: usize| {
        let cfg = Config { end, sync: SyncMode::Conservative, threads, ..Config::default() };
        Run::new(&line(declare), &cfg).execute().unwrap().stats
    };
    let declared = cons(true, 2);
    let global = cons(false, 2);
    same(&seq, &declared, "declared neighbours, 2 PEs");
    same(&seq, &global, "global lookahead, 2 PEs");
    same(&seq, &cons(true, 3), "declared neighbours, 3 PEs");
    // Windows of 2.0 instead of 0.05 time units: far fewer of them.
    assert!(
        declared.gvt_rounds * 10 < global.gvt_rounds,
        "windows: {} with declared neighbours, {} without",
        declared.gvt_rounds,
        global.gvt_rounds
    );
    // Optimistic runs need no lookahead at all.
    let cfg = Config { end, sync: SyncMode::Optimistic, threads: 3, ..Config::default() };
    same(&seq, &Run::new(&line(true), &cfg).execute().unwrap().stats, "optimistic");
}

#[test]
fn a_send_below_the_pair_lookahead_names_both_lps_and_the_lookahead() {
    struct Short(Line);
    impl Model for Short {
        type State = u64;
        type Msg = u8;
        type Undo = ();
        type Results = ();
        const ROLLBACK: Rollback = Rollback::StateSaving;
        fn name(&self) -> &str {
            "short"
        }
        fn num_lps(&self) -> u32 {
            self.0.lps
        }
        fn lookahead_between(&self, src: LpId, dst: LpId) -> f64 {
            self.0.lookahead_between(src, dst)
        }
        fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> u64 {
            ctx.send(lp, 1.0, 0);
            0
        }
        fn forward(&self, _: &mut u64, _: &u8, _: &mut (), ctx: &mut Ctx<'_, Self>) {
            // Across the slow link with the near latency: too early.
            let lp = ctx.lp();
            if lp == self.0.slow() {
                ctx.send(lp + 1, 1.0, 0);
            }
        }
    }
    for cfg in [
        Config::default(),
        Config { sync: SyncMode::Check, ..Config::default() },
        Config { sync: SyncMode::Optimistic, threads: 2, ..Config::default() },
    ] {
        let e = Run::new(&Short(line(true)), &cfg).execute().unwrap_err();
        assert!(matches!(e, Error::Lookahead { lp: 7, dst: 8, lookahead: 2.0, .. }), "{e}");
        assert!(e.to_string().contains("LP 7 at time 1: event to LP 8 sent with delay 1"), "{e}");
    }
}

#[test]
fn a_conservative_send_to_an_undeclared_lp_across_pes_is_an_error() {
    let m = Line { stray: true, ..line(true) };
    // Fine where it cannot break a window: sequential, optimistic, one PE.
    let seq = Run::new(&m, &Config { end: 20.0, ..Config::default() }).execute().unwrap().stats;
    let one =
        Run::new(&m, &Config { end: 20.0, sync: SyncMode::Conservative, ..Config::default() }).execute().unwrap().stats;
    same(&seq, &one, "one PE");
    let e = Run::new(&m, &Config { end: 20.0, sync: SyncMode::Conservative, threads: 2, ..Config::default() })
        .execute()
        .unwrap_err();
    assert!(matches!(e, Error::Neighbours { lp: 0, dst: 15, lookahead: 2.0, .. }), "{e}");
    assert!(e.to_string().contains("Model::neighbours(0)"), "{e}");
}

#[test]
fn conservative_refuses_neighbours_out_of_range_and_zero_lookahead_across_pes() {
    let m = Line { near: 0.0, ..line(true) };
    let cfg = Config { sync: SyncMode::Conservative, threads: 4, ..Config::default() };
    let e = Run::new(&m, &cfg).execute().unwrap_err().to_string();
    assert!(e.contains("lookahead 0 between LPs on different PEs"), "{e}");
    // With 2 PEs only the slow link crosses: the zero-latency links stay inside.
    let cfg2 = Config { end: 20.0, sync: SyncMode::Conservative, threads: 2, ..Config::default() };
    let seq = Run::new(&m, &Config { end: 20.0, ..Config::default() }).execute().unwrap().stats;
    same(&seq, &Run::new(&m, &cfg2).execute().unwrap().stats, "zero-latency links inside PEs");
}
