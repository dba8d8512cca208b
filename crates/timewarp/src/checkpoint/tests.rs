//! Checkpoints cut runs exactly: a run that pauses, writes, reads back and
//! goes on — in another mode, on other threads — commits what a run that
//! never stopped commits.

use super::*;
use crate::{Ctx, LpId, Random, Run, SyncMode};
use std::path::{Path, PathBuf};

/// PHOLD-like: delay 1 + Exp(1), half the events to a random LP; with
/// `last` > 0 a chain of events ends when its message reaches `last`.
struct Hop {
    lps: u32,
    last: u32,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct HopState {
    seen: u64,
    hash: u64,
}

impl Model for Hop {
    type State = HopState;
    type Msg = u32;
    type Undo = u64;
    type Results = u64;
    fn name(&self) -> &str {
        "hop"
    }
    fn num_lps(&self) -> u32 {
        self.lps
    }
    fn lookahead(&self) -> f64 {
        1.0
    }
    fn init(&self, lp: LpId, ctx: &mut Ctx<'_, Self>) -> HopState {
        for i in 0..3 {
            let d = ctx.rng(0).exponential(1.0);
            ctx.send(lp, d, lp * 10 + i);
        }
        HopState::default()
    }
    fn forward(&self, s: &mut HopState, m: &u32, undo: &mut u64, ctx: &mut Ctx<'_, Self>) {
        *undo = s.hash;
        s.seen += 1;
        s.hash = crate::digest::fold(s.hash, *m as u64 ^ ctx.now().to_bits());
        let dst = if ctx.rng(0).uniform() < 0.5 { ctx.rng(0).integer(0, self.lps as i64 - 1) as u32 } else { ctx.lp() };
        let d = 1.0 + ctx.rng(0).exponential(1.0);
        if self.last == 0 || *m < self.last {
            ctx.send(dst, d, m.wrapping_add(1));
        }
    }
    fn reverse(&self, s: &mut HopState, _: &u32, undo: &u64, _: LpId, _: f64) {
        s.seen -= 1;
        s.hash = *undo;
    }
    fn finalize(&self, _: LpId, s: &HopState, _: f64, total: &mut u64) {
        *total += s.seen;
    }
}

const MODEL: Hop = Hop { lps: 24, last: 0 };

fn cfg(sync: SyncMode, threads: usize) -> Config {
    Config {
        sync,
        threads,
        end: 30.0,
        seed: 5,
        batch: 4,
        gvt_interval: 2,
        kps_per_pe: 4,
        min_lps_per_kp: 1,
        ..Config::default()
    }
}

fn modes() -> Vec<Config> {
    let mut v = vec![cfg(SyncMode::Sequential, 1)];
    for t in [1, 2, 3] {
        v.push(cfg(SyncMode::Optimistic, t));
        v.push(cfg(SyncMode::Conservative, t));
    }
    v
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tw-ckpt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn reference() -> (String, u64) {
    let r = Run::new(&MODEL, &cfg(SyncMode::Sequential, 1)).execute().unwrap();
    (r.stats.digest, r.stats.committed_events)
}

#[test]
fn a_run_that_checkpoints_commits_what_one_that_does_not_commits() {
    let (digest, committed) = reference();
    for c in modes() {
        let dir = tmp(&format!("marks-{}-{}", c.sync.name(), c.threads));
        let plan = Plan { dir: Some(dir.clone()), every: Some(4.0), keep: 3, ..Plan::default() };
        let r = Run::new(&MODEL, &c).plan(&plan).control(&Control::default()).execute().unwrap();
        assert_eq!(r.stats.digest, digest, "{} x{}", c.sync.name(), c.threads);
        assert_eq!(r.stats.committed_events, committed);
        assert_eq!(r.results, committed);
        assert_eq!(r.stats.checkpoints, 7, "marks 4, 8, ..., 28");
        let files = list(&dir).unwrap();
        assert_eq!(files.len(), 3, "keeps the newest 3");
        assert!(files[2].ends_with("ckpt-28.0000") || files[2].to_string_lossy().contains("ckpt-28"), "{files:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_checkpoint_resumes_in_any_mode_on_any_thread_count() {
    let (digest, committed) = reference();
    let dir = tmp("cross");
    let plan = Plan { dir: Some(dir.clone()), every: Some(7.0), keep: 10, ..Plan::default() };
    Run::new(&MODEL, &cfg(SyncMode::Optimistic, 2)).plan(&plan).control(&Control::default()).execute().unwrap();
    let files = list(&dir).unwrap();
    assert_eq!(files.len(), 4, "{files:?}");
    for (i, f) in files.iter().enumerate() {
        let file = File::open(f).unwrap();
        assert_eq!(file.header.model, "hop");
        assert!(file.header.cut.time >= 7.0 * (i + 1) as f64);
        for c in modes() {
            let snap = file.load(&MODEL, None).unwrap();
            assert!(snap.committed_events() > 0 && snap.committed_events() < committed);
            let r = Run::new(&MODEL, &c).resume(snap).execute().unwrap();
            assert_eq!(r.stats.digest, digest, "{f:?} in {} x{}", c.sync.name(), c.threads);
            assert_eq!(r.stats.committed_events, committed, "the whole run's figures");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_interrupted_run_stops_at_a_cut_and_resumes_exactly() {
    let (digest, _) = reference();
    for c in modes() {
        let dir = tmp(&format!("stop-{}-{}", c.sync.name(), c.threads));
        let plan = Plan { dir: Some(dir.clone()), ..Plan::default() };
        let control = Control::default();
        control.interrupt(); // asked before the first cut: stops at once
        let e = Run::new(&MODEL, &c).plan(&plan).control(&control).execute().unwrap_err();
        let Error::Interrupted { checkpoint: Some(path) } = &e else { panic!("{e}") };
        assert!(e.to_string().contains("timewarp resume"), "{e}");
        let snap = File::open(Path::new(path)).unwrap().load(&MODEL, None).unwrap();
        assert!(snap.time() < 30.0);
        let r = Run::new(&MODEL, &cfg(SyncMode::Sequential, 1)).resume(snap).execute();
        assert_eq!(r.unwrap().stats.digest, digest, "{} x{}", c.sync.name(), c.threads);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn an_interrupt_stops_a_run_with_a_far_end_that_would_end_on_its_own() {
    // `--end 1e15` with a model whose events run out (network --messages):
    // the optimistic gate must not start (or stay) past all of its events.
    let finite = Hop { lps: 24, last: 400 };
    let far = |c: Config| Config { end: 1e15, ..c };
    let whole = Run::new(&finite, &far(cfg(SyncMode::Sequential, 1))).execute().unwrap();
    for c in modes() {
        let c = far(c);
        let dir = tmp(&format!("far-{}-{}", c.sync.name(), c.threads));
        let plan = Plan { dir: Some(dir.clone()), ..Plan::default() };
        let control = Control::default();
        control.interrupt();
        let e = Run::new(&finite, &c).plan(&plan).control(&control).execute().unwrap_err();
        let Error::Interrupted { checkpoint: Some(path) } = &e else { panic!("{} x{}: {e}", c.sync.name(), c.threads) };
        let snap = File::open(Path::new(path)).unwrap().load(&finite, None).unwrap();
        assert!(snap.pending_events() > 0);
        let seq = far(cfg(SyncMode::Sequential, 1));
        let r = Run::new(&finite, &seq).resume(snap).execute().unwrap();
        assert_eq!(r.stats.digest, whole.stats.digest, "{} x{}", c.sync.name(), c.threads);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_timer_checkpoint_lets_the_run_go_on() {
    let (digest, _) = reference();
    for c in modes() {
        let dir = tmp(&format!("timer-{}-{}", c.sync.name(), c.threads));
        let plan = Plan { dir: Some(dir.clone()), ..Plan::default() };
        let control = Control::default();
        control.ring(); // what the wall-clock timer does
        let r = Run::new(&MODEL, &c).plan(&plan).control(&control).execute().unwrap();
        assert_eq!(r.stats.digest, digest, "{} x{}", c.sync.name(), c.threads);
        assert_eq!(r.stats.checkpoints, 1);
        assert_eq!(list(&dir).unwrap().len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn damaged_foreign_and_newer_files_are_refused_clearly() {
    let dir = tmp("bad");
    let plan = Plan { dir: Some(dir.clone()), every: Some(10.0), keep: 1, ..Plan::default() };
    Run::new(&MODEL, &cfg(SyncMode::Sequential, 1)).plan(&plan).control(&Control::default()).execute().unwrap();
    let good = list(&dir).unwrap().pop().unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let try_bytes = |b: &[u8]| {
        let p = dir.join("bad.twc");
        std::fs::write(&p, b).unwrap();
        File::open(&p).and_then(|f| f.load(&MODEL, None)).unwrap_err().to_string()
    };
    assert!(try_bytes(&bytes[..bytes.len() / 2]).contains("checksum"));
    assert!(try_bytes(&bytes[..10]).contains("truncated"));
    assert!(try_bytes(b"").contains("not a timewarp checkpoint"));
    for at in [20, bytes.len() / 2, bytes.len() - 1] {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x10;
        assert!(try_bytes(&flipped).contains("checksum"), "byte {at}");
    }
    let mut newer = bytes.clone();
    newer[8] = 99;
    assert!(try_bytes(&newer).contains("newer than the format"));
    let other = Hop { lps: 25, last: 0 };
    let e = File::open(&good).unwrap().load(&other, None).unwrap_err().to_string();
    assert!(e.contains("holds 24 LPs but the model has 25"), "{e}");
    let e = File::open(&good).unwrap().load(&MODEL, Some(&serde_json::json!({"lps": 1}))).unwrap_err().to_string();
    assert!(e.contains("other model parameters"), "{e}");
    let e = File::open(&good).unwrap().load(&crate::verify::doc_model(), None).unwrap_err().to_string();
    assert!(e.contains("a checkpoint of model hop, not of ring"), "{e}");
    // A later end than the checkpoint's run: refused (its events past the end were never made).
    let snap = File::open(&good).unwrap().load(&MODEL, None).unwrap();
    let later = Config { end: 40.0, ..cfg(SyncMode::Sequential, 1) };
    let e = Run::new(&MODEL, &later).resume(snap).execute().unwrap_err().to_string();
    assert!(e.contains("ends at 30"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_resume_may_end_earlier() {
    let dir = tmp("earlier");
    let plan = Plan { dir: Some(dir.clone()), every: Some(10.0), keep: 1, ..Plan::default() };
    Run::new(&MODEL, &cfg(SyncMode::Sequential, 1)).plan(&plan).control(&Control::default()).execute().unwrap();
    let snap = File::open(&list(&dir).unwrap()[0]).unwrap().load(&MODEL, None).unwrap();
    let short = Config { end: 25.0, ..cfg(SyncMode::Optimistic, 2) };
    let r = Run::new(&MODEL, &short).resume(snap).execute().unwrap();
    // The same events as a run that ends at 25 from the start (not the same
    // digest: that run never numbered its sends past 25, so later keys differ).
    let direct = Run::new(&MODEL, &Config { end: 25.0, ..cfg(SyncMode::Sequential, 1) }).execute().unwrap();
    assert_eq!(r.stats.committed_events, direct.stats.committed_events);
    assert_eq!(r.results, direct.results);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn marks_fall_after_the_time_given() {
    let p = Plan { every: Some(2.5), ..Plan::default() };
    assert_eq!(p.next_mark(0.0), 2.5);
    assert_eq!(p.next_mark(2.5), 5.0);
    assert_eq!(p.next_mark(3.0), 5.0);
    assert_eq!(Plan::default().next_mark(3.0), f64::INFINITY);
    assert!(Plan { keep: 0, ..Plan::default() }.validate().is_err());
    assert!(Plan { every: Some(1.0), ..Plan::default() }.validate().is_err(), "no directory");
}

/// A disk with room for `room` more bytes.
struct SmallDisk {
    file: std::fs::File,
    room: usize,
}

impl std::io::Write for SmallDisk {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.room == 0 {
            return Err(std::io::Error::from_raw_os_error(28)); // ENOSPC
        }
        let n = self.file.write(&b[..b.len().min(self.room)])?;
        self.room -= n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

#[test]
fn a_full_disk_names_the_file_and_the_reason_and_leaves_no_temporary_file() {
    let dir = tmp("full");
    std::fs::create_dir_all(&dir).unwrap();
    let control = Control::default();
    control.interrupt();
    let plan = Plan { dir: Some(dir.clone()), ..Plan::default() };
    let Err(Error::Interrupted { checkpoint: Some(path) }) =
        Run::new(&MODEL, &cfg(SyncMode::Sequential, 1)).plan(&plan).control(&control).execute()
    else {
        panic!("no checkpoint")
    };
    let snap = File::open(Path::new(&path)).unwrap().load(&MODEL, None).unwrap();
    let to = dir.join("ckpt-full.twc");
    let h = header(&plan, &cfg(SyncMode::Sequential, 1), "hop", &snap, 1);
    for room in [0, 10, 1000] {
        let e = file::write_to(&to, &h, &snap, |file| Box::new(SmallDisk { file, room })).unwrap_err().to_string();
        assert!(e.starts_with(&format!("checkpoint {}: cannot write it:", to.display())), "{e}");
        assert!(e.contains("free space in"), "{e}");
        assert!(!e.contains("encode") && !e.contains('\n'), "{e}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "only the good checkpoint is left (room {room})");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_checkpoint_of_another_digest_version_is_refused_naming_both_versions() {
    use crate::digest::DIGEST_VERSION;
    let dir = tmp("digest-version");
    let plan = Plan { dir: Some(dir.clone()), every: Some(10.0), keep: 1, ..Plan::default() };
    let c = cfg(SyncMode::Sequential, 1);
    Run::new(&MODEL, &c).plan(&plan).control(&Control::default()).execute().unwrap();
    let good = list(&dir).unwrap().pop().unwrap();
    let file = File::open(&good).unwrap();
    assert_eq!(file.header.digest_version, DIGEST_VERSION);
    // A header written before the field existed still reads, as version 0.
    let mut old = serde_json::to_value(&file.header).unwrap();
    old.as_object_mut().unwrap().remove("digest_version").unwrap();
    assert_eq!(serde_json::from_value::<Header>(old).unwrap().digest_version, 0);
    let snap = file.load(&MODEL, None).unwrap();
    let forged = dir.join("forged.twc");
    for (theirs, want) in [
        (DIGEST_VERSION + 1, format!("digest version {}, not version {DIGEST_VERSION}", DIGEST_VERSION + 1)),
        (
            0,
            format!("digest version 0 (unknown: written before checkpoints recorded it), not version {DIGEST_VERSION}"),
        ),
    ] {
        let h = Header { digest_version: theirs, ..header(&plan, &c, "hop", &snap, 1) };
        file::write(&forged, &h, &snap).unwrap();
        let e = File::open(&forged).unwrap().load(&MODEL, None).unwrap_err().to_string();
        assert!(e.contains(&want), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_edited_checkpoint_with_a_valid_checksum_is_refused_naming_what_is_wrong() {
    let dir = tmp("forged");
    let plan = Plan { dir: Some(dir.clone()), every: Some(10.0), keep: 1, ..Plan::default() };
    let c = cfg(SyncMode::Sequential, 1);
    Run::new(&MODEL, &c).plan(&plan).control(&Control::default()).execute().unwrap();
    let good = list(&dir).unwrap().pop().unwrap();
    let load = || File::open(&good).unwrap().load(&MODEL, None).unwrap();
    let first = |s: &Snapshot<Hop>| s.events.iter().position(|e| e.key == s.cut).unwrap();
    type Edit = Box<dyn Fn(&mut Header, &mut Snapshot<Hop>)>;
    let cases: Vec<(Edit, &str)> = vec![
        (Box::new(|_, s| s.events[0].key.time = -1.449e54), "not in [0, 30]"),
        (Box::new(|_, s| s.events[0].key.time = f64::NAN), "at time NaN"),
        (Box::new(|_, s| s.events[0].key.time = 1e300), "not in [0, 30]"),
        (Box::new(|_, s| s.events[0].key.tie |= 99 << 32), "beyond its 24 LPs"),
        (Box::new(|_, s| s.events[0].dst = 24), "beyond the model's LPs"),
        (
            Box::new(move |h, s| {
                let e = s.events[first(s)];
                s.events.push(e);
                h.events += 1;
            }),
            "the same key",
        ),
        (Box::new(|h, _| h.cut.time += 0.5), "is not its earliest pending event"),
        (
            Box::new(move |h, s| {
                s.events.remove(first(s));
                h.events -= 1;
            }),
            "is not its earliest pending event",
        ),
        (Box::new(|h, _| h.end = 1e9), "end time 1000000000 and the contents' 30 disagree"),
        (Box::new(|_, s| s.stats.end_time = f64::INFINITY), "not a virtual time > 0"),
        (Box::new(|h, _| h.params = serde_json::json!({"lps": 1})), "do not match their hash"),
        (Box::new(|h, _| h.committed_events += 1), "committed events and the contents'"),
        (Box::new(|_, s| s.lps[3].last_time = 29.0), "LP 3 committed an event at time 29"),
        (Box::new(|_, s| s.lps[3].committed += 1), "its LPs committed"),
        (Box::new(|h, _| h.threads = 0), "0 thread(s)"),
    ];
    let forged = dir.join("forged.twc");
    for (i, (edit, want)) in cases.iter().enumerate() {
        let mut snap = load();
        let mut h = header(&plan, &c, "hop", &snap, 1);
        edit(&mut h, &mut snap);
        // Written by the format's own writer: a valid checksum.
        file::write(&forged, &h, &snap).unwrap();
        let e = File::open(&forged).unwrap().load(&MODEL, None).unwrap_err().to_string();
        assert!(e.contains(want), "case {i}: {e}");
        assert!(!e.contains('\n') && !e.contains("internal error"), "case {i}: {e}");
    }
    // Unedited, the same path loads.
    let snap = load();
    file::write(&forged, &header(&plan, &c, "hop", &snap, 1), &snap).unwrap();
    File::open(&forged).unwrap().load(&MODEL, None).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
