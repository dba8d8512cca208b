//! Checkpoint and restart from the command line: a run killed (`kill -9`)
//! or interrupted (SIGINT, SIGTERM) after a checkpoint resumes, in another
//! mode and thread count, to the digest of a run that never stopped; bad
//! checkpoint files and forbidden changes get a clear error.

mod common;
use common::skip;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_timewarp")
}

fn timewarp(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("timewarp-ckpt-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn digest(path: &Path) -> (String, u64) {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    (v["digest"].as_str().unwrap().to_string(), v["committed_events"].as_u64().unwrap())
}

/// `timewarp <args> --quiet --stats-json FILE`: the digest and committed events.
fn run_stats(args: &[&str], out: &Path) -> (String, u64) {
    let o = Command::new(bin()).args(args).args(["--quiet", "--stats-json", out.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    digest(out)
}

/// A PHOLD run long enough to be stopped in the middle (several seconds in a debug build).
const LONG: &[&str] = &["run", "phold", "--lps", "2048", "--end", "300", "--remote", "0.3"];

fn spawn(args: &[&str]) -> Child {
    Command::new(bin()).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

/// Waits until `dir` holds a checkpoint (or the child ends).
fn wait_for_checkpoint(dir: &Path, child: &mut Child) -> bool {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(120) {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if !timewarp::checkpoint::list(dir).unwrap().is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The checkpoint with the latest cut in `dir`.
fn newest(dir: &Path) -> PathBuf {
    timewarp::checkpoint::list(dir).unwrap().pop().expect("a checkpoint")
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap().success();
    assert!(ok, "kill {sig}");
}

#[test]
fn a_killed_run_resumes_in_another_mode_to_the_same_digest() {
    let d = dir("kill9");
    let want = run_stats(LONG, &d.join("ref.json"));
    let ck = d.join("ck");
    let mut args = LONG.to_vec();
    args.extend(["--sync", "optimistic", "--threads", "2", "--checkpoint-every", "20", "--checkpoint-dir"]);
    args.push(ck.to_str().unwrap());
    std::fs::create_dir_all(&ck).unwrap();
    let mut child = spawn(&args);
    assert!(wait_for_checkpoint(&ck, &mut child), "no checkpoint before the run ended");
    signal(&child, "-KILL");
    let _ = child.wait();
    let file = newest(&ck);
    let f = file.to_str().unwrap();
    // Options not given stay as they were (--threads 2 here).
    for extra in [&["--sync", "sequential", "--threads", "1"][..], &["--sync", "conservative", "--threads", "3"], &[]] {
        let mut r = vec!["resume", f];
        r.extend(extra);
        // The resumed run keeps writing checkpoints like the original: into its own directory.
        let own = d.join(format!("again-{}", extra.join("")));
        r.extend(["--checkpoint-dir", own.to_str().unwrap()]);
        assert_eq!(run_stats(&r, &d.join("resumed.json")), want, "resume {extra:?}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_interrupted_run_writes_a_checkpoint_says_how_to_resume_and_exits_3() {
    let d = dir("sigint");
    let want = run_stats(LONG, &d.join("ref.json"));
    for (sig, sync) in [("-INT", "optimistic"), ("-TERM", "conservative"), ("-INT", "sequential")] {
        let ck = d.join(format!("ck{sig}{sync}"));
        let stats = d.join(format!("never{sig}{sync}.json"));
        let threads = if sync == "sequential" { "1" } else { "2" };
        let mut args = LONG.to_vec();
        args.extend(["--sync", sync, "--threads", threads, "--checkpoint-dir", ck.to_str().unwrap()]);
        args.extend(["--checkpoint-every", "10", "--checkpoint-keep", "100"]);
        args.extend(["--stats-json", stats.to_str().unwrap()]);
        std::fs::create_dir_all(&ck).unwrap();
        let mut child = spawn(&args);
        // A first checkpoint (at time 10 of 300) shows the run under way, its
        // handler installed: no sleep that a loaded machine could outlast.
        if !wait_for_checkpoint(&ck, &mut child) {
            let o = child.wait_with_output().unwrap();
            panic!("{sig} {sync}: the run ended before its first checkpoint: {}", text(&o.stderr));
        }
        signal(&child, sig);
        let t = Instant::now();
        let o = loop {
            if child.try_wait().unwrap().is_some() {
                break child.wait_with_output().unwrap();
            }
            assert!(t.elapsed() < Duration::from_secs(180), "{sig} {sync}: still running");
            std::thread::sleep(Duration::from_millis(20));
        };
        let err = text(&o.stderr);
        if o.status.code() == Some(0) {
            // Only if this test was descheduled for the rest of the run: nothing to check.
            eprintln!("note: {sig} {sync}: the run finished before the signal arrived");
            continue;
        }
        assert_eq!(o.status.code(), Some(3), "{sig} {sync}: {err}");
        assert!(err.contains("timewarp resume"), "{err}");
        assert!(!stats.exists(), "no statistics file for an interrupted run");
        assert_eq!(hidden(&d), Vec::<String>::new(), "no temporary statistics file");
        let file = newest(&ck);
        let r = ["resume", file.to_str().unwrap(), "--sync", "optimistic", "--threads", "3"];
        assert_eq!(run_stats(&r, &d.join("resumed.json")), want, "{sig} {sync}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// The files in `dir` whose names start with a dot (temporary files).
fn hidden(dir: &Path) -> Vec<String> {
    let names = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
    names.filter(|n| n.starts_with('.')).collect()
}

/// Waits until the run writing `--stats-csv` to the FIFO `fifo` opens it
/// (outputs are opened after the signal handler is installed, before the
/// run starts), or until the child ends; reads it to its end meanwhile.
fn wait_for_fifo(fifo: &Path, child: &mut Child) -> bool {
    let (tx, rx) = std::sync::mpsc::channel();
    let f = fifo.to_path_buf();
    // Opening a FIFO to read blocks until its writer opens it.
    std::thread::spawn(move || {
        let opened = std::fs::File::open(&f);
        let _ = tx.send(());
        if let Ok(mut r) = opened {
            let _ = std::io::copy(&mut r, &mut std::io::sink());
        }
    });
    loop {
        if rx.try_recv().is_ok() {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_interrupted_run_without_a_checkpoint_directory_stops_at_once_and_leaves_no_temporary_file() {
    let d = dir("sigint-plain");
    let stats = d.join("never.json");
    // The run is under way once it has opened this FIFO (its temporary
    // statistics file, made only at the end, tells nothing any more).
    let fifo = std::env::temp_dir().join(format!("timewarp-ckpt-test-fifo-{}", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo");
    let mut args = LONG[..LONG.len() - 4].to_vec();
    args.extend(["--end", "100000", "--stats-json", stats.to_str().unwrap(), "--stats-csv", fifo.to_str().unwrap()]);
    let mut child = spawn(&args);
    assert!(wait_for_fifo(&fifo, &mut child), "the run ended before it opened its outputs");
    signal(&child, "-INT");
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("give --checkpoint-dir"), "{}", text(&o.stderr));
    assert!(!stats.exists());
    assert_eq!(hidden(&d), Vec::<String>::new(), "no temporary statistics file");
    std::fs::remove_dir_all(&d).unwrap();
    let _ = std::fs::remove_file(&fifo);
}

#[test]
fn an_interrupt_stops_an_optimistic_run_with_a_far_end() {
    // Docs recommend `--end 1e15` for runs that end on their own (network
    // --messages): the optimistic kernel must still pause on request. A
    // wall-clock checkpoint (the same request, from a timer) shows it does
    // and that the run is under way; then SIGINT stops it with a checkpoint.
    let d = dir("far-end");
    let ck = d.join("ck");
    let run: &[&str] = &["run", "network", "--dims", "8,8", "--messages", "400", "--load", "0.5", "--end", "1e15"];
    let want = run_stats(&[run, &["--sync", "sequential"]].concat(), &d.join("ref.json"));
    let mut args = run.to_vec();
    args.extend(["--sync", "optimistic", "--threads", "2", "--checkpoint-wall", "0.1", "--checkpoint-keep", "100"]);
    args.extend(["--checkpoint-dir", ck.to_str().unwrap()]);
    std::fs::create_dir_all(&ck).unwrap();
    let mut child = spawn(&args);
    assert!(wait_for_checkpoint(&ck, &mut child), "no wall-clock checkpoint before the run ended");
    signal(&child, "-INT");
    let o = child.wait_with_output().unwrap();
    let err = text(&o.stderr);
    match o.status.code() {
        Some(3) => assert!(err.contains("timewarp resume"), "{err}"),
        // The signal came after the last cut: the run finished, and says so.
        Some(0) => assert!(err.contains("the run ended before its next cut"), "{err}"),
        c => panic!("exit {c:?}: {err}"),
    }
    // Every checkpoint, the wall clock's and the stop's, resumes exactly.
    for file in timewarp::checkpoint::list(&ck).unwrap() {
        let r = ["resume", file.to_str().unwrap(), "--sync", "conservative", "--threads", "2"];
        assert_eq!(run_stats(&r, &d.join("resumed.json")), want, "{file:?}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// A 64 KiB tmpfs at a fresh directory, unmounted when dropped.
struct SmallDisk(PathBuf);

impl SmallDisk {
    /// `None` where mounting is not permitted (not root, a sandbox).
    fn mount(name: &str) -> Option<SmallDisk> {
        let d = dir(name);
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs", d.to_str().unwrap()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = std::fs::remove_dir_all(&d);
        }
        ok.then_some(SmallDisk(d))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_full_disk_fails_its_checkpoints_with_a_warning_and_the_run_finishes() {
    let Some(disk) = SmallDisk::mount("full") else {
        let test = "checkpoint::a_full_disk_fails_its_checkpoints_with_a_warning_and_the_run_finishes";
        skip(test, "cannot mount a small tmpfs here (needs root outside a sandbox)", Some("TIMEWARP_REQUIRE_MOUNT"));
        return;
    };
    let d = dir("full-out");
    let stats = d.join("s.json");
    let mut args = LONG[..LONG.len() - 4].to_vec();
    args.extend(["--end", "10", "--checkpoint-every", "3", "--checkpoint-dir", disk.0.to_str().unwrap()]);
    args.extend(["--stats-json", stats.to_str().unwrap()]);
    let o = timewarp(&args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let warning = err.lines().find(|l| l.starts_with("warning: checkpoint")).unwrap_or_else(|| panic!("{err}"));
    assert!(warning.contains("No space left on device") && warning.contains("free space in"), "{warning}");
    assert!(!err.contains("encode") && !err.contains("panicked"), "{err}");
    assert!(text(&o.stdout).contains("LPs"), "the summary: {}", text(&o.stdout));
    assert!(stats.exists(), "the statistics");
    assert_eq!(std::fs::read_dir(&disk.0).unwrap().count(), 0, "no checkpoint and no temporary file on the full disk");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_checkpoints_and_forbidden_changes_get_one_clear_line() {
    let d = dir("bad");
    let ck = d.join("ck");
    let c = ck.to_str().unwrap();
    let o = timewarp(&[
        "run",
        "phold",
        "--lps",
        "64",
        "--end",
        "20",
        "-q",
        "--checkpoint-dir",
        c,
        "--checkpoint-every",
        "5",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let good = newest(&ck);
    let bytes = std::fs::read(&good).unwrap();
    let bad = |name: &str, b: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, b).unwrap();
        p
    };
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 1;
    let mut newer = bytes.clone();
    newer[8] = 200;
    let cases: Vec<(PathBuf, &str)> = vec![
        (bad("half.twc", &bytes[..bytes.len() / 2]), "checksum"),
        (bad("flipped.twc", &flipped), "checksum"),
        (bad("newer.twc", &newer), "newer than the format"),
        (bad("text.twc", b"phold\n"), "not a timewarp checkpoint"),
        (d.join("missing.twc"), "cannot read it"),
    ];
    for (path, want) in cases {
        let o = timewarp(&["resume", path.to_str().unwrap()]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{path:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.starts_with("error: checkpoint") && err.contains(want), "{path:?}: {err}");
        assert!(!err.contains("panicked"));
    }
    let g = good.to_str().unwrap();
    for (args, want) in [
        (vec!["resume", g, "--lps", "65"], "come from the checkpoint"),
        (vec!["resume", g, "--seed", "2"], "come from the checkpoint"),
        (vec!["resume", g, "--end", "30"], "a resume can end there or earlier"),
        (vec!["resume", g, "--threads", "2"], "--threads"),
    ] {
        let o = timewarp(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let o = timewarp(&["run", "phold", "--checkpoint-every", "5"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("--checkpoint-dir"), "{}", text(&o.stderr));
    std::fs::remove_dir_all(&d).unwrap();
}

/// A checkpoint file taken apart: its header (JSON) and body.
struct Parts {
    header: serde_json::Value,
    body: Vec<u8>,
}

impl Parts {
    fn of(bytes: &[u8]) -> Parts {
        let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        let header = serde_json::from_slice(&bytes[16..16 + len]).unwrap();
        Parts { header, body: bytes[16 + len..bytes.len() - 4].to_vec() }
    }

    /// The file again, its checksum recomputed as the format does.
    fn bytes(&self) -> Vec<u8> {
        let head = serde_json::to_vec(&self.header).unwrap();
        let mut out = b"TWCKPT\r\n".to_vec();
        out.extend(1u32.to_le_bytes());
        out.extend((head.len() as u32).to_le_bytes());
        out.extend(head);
        out.extend(&self.body);
        let crc = crc32fast::hash(&out); // the checkpoint trailer's CRC-32
        out.extend(crc.to_le_bytes());
        out
    }
}

#[test]
fn an_edited_checkpoint_with_a_recomputed_checksum_gets_one_clear_line() {
    let d = dir("forged");
    let ck = d.join("ck");
    let run = ["run", "phold", "--lps", "64", "--end", "20", "-q", "--checkpoint-every", "5", "--checkpoint-keep", "1"];
    let o = timewarp(&[&run[..], &["--checkpoint-dir", ck.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let bytes = std::fs::read(newest(&ck)).unwrap();
    // Rebuilt unedited (its header's keys in another order), it resumes.
    let same = d.join("same.twc");
    std::fs::write(&same, Parts::of(&bytes).bytes()).unwrap();
    let o = timewarp(&["resume", same.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "the test rebuilds files as the format writes them: {}", text(&o.stderr));
    type Edit = Box<dyn Fn(&mut Parts)>;
    // The pending event at the cut, in the body: its time's bytes.
    let cut = |p: &Parts| p.header["cut"]["time"].as_f64().unwrap().to_le_bytes();
    let set_time = move |p: &mut Parts, t: f64| {
        let at = p.body.windows(8).position(|w| w == cut(p)).expect("the cut's event");
        p.body[at..at + 8].copy_from_slice(&t.to_le_bytes());
    };
    // Params and their hash edited together (what the header's checks alone would accept).
    let params = |p: &mut Parts, v: serde_json::Value| {
        p.header["params_hash"] = timewarp::checkpoint::params_hash(&v).into();
        p.header["params"] = v;
    };
    use timewarp::digest::DIGEST_VERSION;
    let other_version = format!("digest version {}, not version {DIGEST_VERSION}", DIGEST_VERSION + 1);
    let cases: Vec<(Edit, &str)> = vec![
        (Box::new(move |p| set_time(p, -1.449e54)), "not in [0, 20]"),
        (Box::new(move |p| set_time(p, f64::NAN)), "at time NaN"),
        (Box::new(move |p| set_time(p, 1e300)), "not in [0, 20]"),
        (Box::new(|p| p.header["end"] = 1e15.into()), "end time 1000000000000000 and the contents' 20 disagree"),
        (Box::new(|p| p.header["cut"]["time"] = 19.5.into()), "is not its earliest pending event"),
        (Box::new(|p| p.header["params"]["seed"] = 7.into()), "do not match their hash"),
        (
            Box::new(move |p| {
                let mut v = p.header["params"].clone();
                v["command"][2] = "65".into();
                params(p, v);
            }),
            "other model parameters",
        ),
        // The command line is parsed and checked again, as given to `run`.
        (Box::new(|p| p.header["command"][2] = "0".into()), "must be a whole number from 1"),
        (Box::new(|p| p.header["command"][4] = "1e15".into()), "more than the 1e14 a run can process"),
        (Box::new(|p| p.header["command"][4] = "30".into()), "a resume can end there or earlier"),
        (Box::new(|p| p.header["committed_events"] = 1.into()), "committed events and the contents'"),
        // Its LP records carry partial digests of another definition.
        (Box::new(|p| p.header["digest_version"] = (DIGEST_VERSION + 1).into()), &other_version),
        (
            Box::new(|p| {
                p.header.as_object_mut().unwrap().remove("digest_version");
            }),
            "digest version 0 (unknown",
        ),
    ];
    for (i, (edit, want)) in cases.iter().enumerate() {
        let mut p = Parts::of(&bytes);
        edit(&mut p);
        let f = d.join(format!("forged-{i}.twc"));
        std::fs::write(&f, p.bytes()).unwrap();
        let o = timewarp(&["resume", f.to_str().unwrap(), "-q"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "case {i}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "case {i}: {err}");
        assert!(err.starts_with("error: ") && err.contains(want), "case {i}: {err}");
        assert!(!err.contains("panicked") && !err.contains("internal error"), "case {i}: {err}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}
