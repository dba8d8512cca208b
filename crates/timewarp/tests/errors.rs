//! Bad models and bad configurations end with a clear error, never a hang,
//! and `verify` pinpoints where a buggy reverse handler makes runs differ.

use timewarp::{Config, Ctx, Error, LpId, Model, Run, SyncMode};

/// Misbehaves in a chosen way once virtual time passes `at`.
struct Bad {
    what: &'static str,
    at: f64,
}

impl Model for Bad {
    type State = u64;
    type Msg = ();
    type Undo = ();
    type Results = ();
    fn name(&self) -> &str {
        "bad"
    }
    fn num_lps(&self) -> u32 {
        16
    }
    fn lookahead(&self) -> f64 {
        0.5
    }
    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> u64 {
        ctx.send(lp, 1.0, ());
        0
    }
    fn forward(&self, s: &mut u64, _: &(), _: &mut (), ctx: &mut Ctx<'_, Self>) {
        *s += 1;
        let late = ctx.now() > self.at && ctx.lp() == 3;
        let next = (ctx.lp() + 1) % 16;
        match self.what {
            "past" if late => ctx.send(next, -1.0, ()),
            "lookahead" if late => ctx.send(next, 0.1, ()),
            "nowhere" if late => ctx.send(99, 1.0, ()),
            "panic" if late => panic!("model bug at LP 3"),
            _ => ctx.send(next, 0.5 + (*s % 3) as f64 * 0.25, ()),
        }
    }
    fn reverse(&self, s: &mut u64, _: &(), _: &(), _: LpId, _: f64) {
        if self.what != "bad-reverse" {
            *s -= 1; // the buggy variant forgets this, so re-execution differs
        }
    }
}

fn configs() -> Vec<Config> {
    vec![
        Config { end: 50.0, ..Config::default() },
        Config { end: 50.0, sync: SyncMode::Optimistic, threads: 3, ..Config::default() },
        Config { end: 50.0, sync: SyncMode::Conservative, threads: 2, ..Config::default() },
    ]
}

#[test]
fn scheduling_into_the_past_is_an_error_naming_lp_and_time() {
    for cfg in configs() {
        let e = Run::new(&Bad { what: "past", at: 10.0 }, &cfg).execute().unwrap_err();
        assert!(matches!(e, Error::BadDelay { lp: 3, .. }), "{e}");
        assert!(e.to_string().contains("into the past"), "{e}");
    }
}

#[test]
fn lookahead_violation_is_an_error() {
    for cfg in configs() {
        let e = Run::new(&Bad { what: "lookahead", at: 10.0 }, &cfg).execute().unwrap_err();
        assert!(matches!(e, Error::Lookahead { lp: 3, .. }), "{e}");
        assert!(e.to_string().contains("below the model's lookahead 0.5"), "{e}");
    }
}

#[test]
fn unknown_destination_is_an_error() {
    for cfg in configs() {
        let e = Run::new(&Bad { what: "nowhere", at: 10.0 }, &cfg).execute().unwrap_err();
        assert!(matches!(e, Error::BadDestination { dst: 99, num_lps: 16, .. }), "{e}");
    }
}

#[test]
fn a_panicking_handler_on_a_worker_stops_the_run_with_an_error() {
    for sync in [SyncMode::Optimistic, SyncMode::Conservative] {
        let cfg = Config { end: 50.0, sync, threads: 4, ..Config::default() };
        let e = Run::new(&Bad { what: "panic", at: 10.0 }, &cfg).execute().unwrap_err();
        assert!(e.to_string().contains("model bug at LP 3"), "{e}");
    }
}

#[test]
fn check_mode_catches_a_reverse_handler_that_does_not_restore_state() {
    let cfg = Config { end: 50.0, sync: SyncMode::Check, ..Config::default() };
    let e = Run::new(&Bad { what: "bad-reverse", at: 0.0 }, &cfg).execute().unwrap_err();
    match e {
        Error::Check { ref detail, .. } => assert!(detail.contains("state: 0 -> 1"), "{e}"),
        other => panic!("expected a check failure, got {other}"),
    }
}

#[test]
fn verify_reports_the_first_lp_and_event_that_differ() {
    let good = Bad { what: "none", at: 0.0 };
    let bad = Bad { what: "bad-reverse", at: 0.0 };
    // Rollbacks are needed for the bug to show: many threads, large batches.
    let cfg =
        Config { end: 60.0, sync: SyncMode::Optimistic, threads: 4, kps_per_pe: 1, batch: 64, ..Config::default() };
    let ok = timewarp::verify::verify(&good, &cfg).unwrap();
    assert!(ok.divergence.is_none(), "{:?}", ok.divergence);
    let mut found = None;
    for seed in 1..20 {
        let v = timewarp::verify::verify(&bad, &Config { seed, ..cfg.clone() }).unwrap();
        if v.parallel.rolled_back_events > 0 {
            found = v.divergence;
            if found.is_some() {
                break;
            }
        }
    }
    let d = found.expect("a reverse handler that forgets state must make some rolled-back run differ");
    assert!(d.lp < 16);
    let text = d.to_string();
    assert!(text.contains(&format!("LP {}", d.lp)), "{text}");
    // The cause, as --sync check names it: the state field the reverse handler leaves changed.
    let check = d.check.as_deref().expect("check mode finds the broken reverse handler");
    assert!(check.contains("reverse handler did not restore the state: state: "), "{check}");
    assert!(text.contains("; --sync check finds the cause: "), "{text}");
}

/// Saves through a journal lent to its state (`Ctx::save_into`); at LP 3
/// past time 10 it replaces the lent vector (`"replace"`), panics with
/// entries pushed (`"panic"`), saves through `Ctx` meanwhile (`"ctx"`) or
/// lends it again (`"nested"`).
struct Lender {
    what: &'static str,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Held {
    x: u64,
    #[serde(skip)]
    log: timewarp::Lent<u64>,
}

impl Model for Lender {
    type State = Held;
    type Msg = ();
    type Undo = u64;
    type Results = ();
    const ROLLBACK: timewarp::Rollback = timewarp::Rollback::Incremental;
    fn name(&self) -> &str {
        "lender"
    }
    fn num_lps(&self) -> u32 {
        16
    }
    fn lookahead(&self) -> f64 {
        0.5
    }
    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> Held {
        ctx.send(lp, 1.0, ());
        Held::default()
    }
    fn forward(&self, s: &mut Held, _: &(), _: &mut u64, ctx: &mut Ctx<'_, Self>) {
        let late = ctx.now() > 10.0 && ctx.lp() == 3;
        let what = self.what;
        ctx.save_into(
            s,
            |s| &mut s.log,
            |s, c| {
                s.log.push(s.x);
                s.x += 1;
                if late && what == "ctx" {
                    c.save(s.x - 1);
                }
                if late && what == "nested" {
                    c.save_into(s, |s| &mut s.log, |s, _| s.log.push(s.x));
                }
                if late && what == "replace" {
                    s.log = timewarp::Lent::default();
                }
                if late && what == "panic" {
                    panic!("model bug at LP 3");
                }
            },
        );
        ctx.send((ctx.lp() + 1) % 16, 0.5 + (s.x % 3) as f64 * 0.25, ());
    }
    fn restore(&self, s: &mut Held, old: &u64) {
        s.x = *old;
    }
}

#[test]
fn a_handler_that_replaces_its_lent_journal_stops_the_run() {
    for threads in [1, 2] {
        // Every event speculative: a safe event, committed as processed,
        // saves nothing, as in a sequential run.
        let cfg = Config { end: 50.0, sync: SyncMode::Optimistic, threads, safe_events: false, ..Config::default() };
        let e = Run::new(&Lender { what: "replace" }, &cfg).execute().unwrap_err();
        assert!(e.to_string().contains("replaced the journal"), "{e}");
    }
    // Where nothing is saved the value is the state's own: no error.
    Run::new(&Lender { what: "replace" }, &Config { end: 50.0, ..Config::default() }).execute().unwrap();
}

#[test]
fn saving_through_ctx_while_the_journal_is_lent_fails_the_run_where_it_saves() {
    // Optimistic runs with every event speculative: a safe event, committed
    // as processed, saves nothing, as in a sequential run.
    let saving = [
        Config { end: 50.0, sync: SyncMode::Optimistic, threads: 1, safe_events: false, ..Config::default() },
        Config { end: 50.0, sync: SyncMode::Optimistic, threads: 3, safe_events: false, ..Config::default() },
        Config { end: 50.0, sync: SyncMode::Check, ..Config::default() },
    ];
    for what in ["ctx", "nested"] {
        for cfg in &saving {
            let e = Run::new(&Lender { what }, cfg).execute().unwrap_err();
            assert!(e.to_string().contains("inside Ctx::save_into"), "{what} {:?}: {e}", cfg.sync);
            assert!(e.to_string().contains("LP 3"), "{e}");
        }
        // Where nothing is saved (sequential, conservative) nothing is lost.
        for cfg in configs().into_iter().filter(|c| c.sync != SyncMode::Optimistic) {
            Run::new(&Lender { what }, &cfg).execute().unwrap();
        }
    }
    // The same handler without the misuse runs in every mode.
    for cfg in configs().into_iter().chain(saving) {
        Run::new(&Lender { what: "none" }, &cfg).execute().unwrap();
    }
}

#[test]
fn a_panic_with_a_lent_journal_is_the_run_s_error_and_the_journal_is_given_back() {
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for cfg in configs() {
        let e = Run::new(&Lender { what: "panic" }, &cfg).execute().unwrap_err();
        assert!(e.to_string().contains("model bug at LP 3"), "{e}");
    }
    std::panic::set_hook(quiet);
}
