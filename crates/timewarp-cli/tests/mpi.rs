//! End-to-end runs across MPI processes: `mpirun -n 2` and `-n 3` (OpenMPI,
//! oversubscribed on a small machine) must commit exactly what one
//! sequential process commits, for every model, mode and thread count, and a
//! failure on one process must end the whole job with a clear message.
//!
//! Built only with `--features mpi`; `.ci/run` installs OpenMPI and runs
//! `cargo test -p timewarp-cli --features mpi --test mpi`. A missing
//! `mpirun` fails these tests rather than skipping them.
#![cfg(feature = "mpi")]

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::mpi::{bin, finish, fresh as tmp, mpirun, LIMIT};
use serde_json::Value;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Statistics of `timewarp run <args>` in one process.
fn single(args: &[&str]) -> Value {
    common::mpi::stats(0, args)
}

/// Statistics of `mpirun -n np timewarp run <args>`.
fn distributed(np: usize, args: &[&str]) -> Value {
    common::mpi::stats(np, args)
}

/// Every process count and thread count commits the sequential digest
/// (each of `syncs` on each of `threads`, with `extra`).
fn assert_same_as_sequential(model: &[&str], syncs: &[&str], threads: &[usize], extra: &[&str]) {
    let counts: Vec<String> = threads.iter().map(|t| t.to_string()).collect();
    let variants: Vec<Vec<&str>> = syncs
        .iter()
        .flat_map(|&sync| counts.iter().map(move |t| [&["--sync", sync, "--threads", t.as_str()], extra].concat()))
        .collect();
    let variants: Vec<&[&str]> = variants.iter().map(Vec::as_slice).collect();
    common::mpi::assert_same_as_sequential(model, &variants);
}

#[test]
fn phold_remote_01_matches_sequential() {
    let m = ["phold", "--lps", "2048", "--end", "15", "--remote", "0.1"];
    assert_same_as_sequential(&m, &["optimistic", "conservative"], &[1, 2], &[]);
}

#[test]
fn phold_remote_1_matches_sequential() {
    let m = ["phold", "--lps", "1024", "--end", "15", "--remote", "1.0"];
    assert_same_as_sequential(&m, &["optimistic", "conservative"], &[1, 2], &[]);
}

#[test]
fn phold_heavy_rollback_matches_sequential() {
    // One event per LP, all remote, few LPs: stragglers everywhere.
    let m = ["phold", "--lps", "64", "--population", "1", "--remote", "1.0", "--end", "100"];
    assert_same_as_sequential(&m, &["optimistic"], &[1, 2], &[]);
    // The same with tiny batches, one KP per PE and almost no optimistic memory.
    assert_same_as_sequential(&m, &["optimistic"], &[2], &["--batch", "1", "--kps-per-pe", "1", "--event-memory", "3"]);
}

#[test]
fn phold_zero_lookahead_matches_sequential() {
    let m = ["phold", "--lps", "300", "--population", "2", "--remote", "0.5", "--lookahead", "0", "--end", "30"];
    assert_same_as_sequential(&m, &["optimistic"], &[1, 3], &[]);
}

#[test]
fn pcs_matches_sequential() {
    let m = ["pcs", "--end", "4"];
    assert_same_as_sequential(&m, &["optimistic"], &[1, 2], &[]);
    assert_same_as_sequential(&m, &["optimistic"], &[1], &["--rollback", "incremental"]);
}

#[test]
fn network_matches_sequential() {
    let m = ["network", "--dims", "6,6", "--load", "0.5", "--end", "4000"];
    assert_same_as_sequential(&m, &["optimistic", "conservative"], &[1, 2], &[]);
    let m = ["network", "--topology", "hypercube", "--nodes", "32", "--switch", "output-buffered", "--end", "3000"];
    assert_same_as_sequential(&m, &["optimistic"], &[2], &["--mapping", "random"]);
    // High-radix routers (incremental state saving across processes), and
    // the whole-state path kept to measure against.
    let m = ["network", "--topology", "dragonfly", "--routing", "ugal", "--load", "0.7", "--end", "3000"];
    assert_same_as_sequential(&m, &["optimistic"], &[2], &[]);
    let m = ["network", "--topology", "fattree", "--routing", "updown-adaptive", "--load", "0.8", "--end", "3000"];
    assert_same_as_sequential(&m, &["optimistic"], &[1], &[]);
    assert_same_as_sequential(&m, &["optimistic"], &[1], &["--rollback", "state-saving"]);
}

/// A CODES user's inputs across processes: a real DUMPI trace and a stock
/// CODES configuration commit the sequential digest.
#[test]
fn dumpi_traces_and_codes_configs_match_sequential() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let halo = root.join("../timewarp-models/tests/data/dumpi/halo3d");
    let m = ["network", "--dims", "4,4", "--end", "1e15", "--workload", "dumpi", "--dumpi-time", "cpu", "--trace-dir"];
    let m: Vec<&str> = m.iter().copied().chain([halo.to_str().unwrap()]).collect();
    assert_same_as_sequential(&m, &["optimistic", "conservative"], &[1], &[]);
    let torus = root.join("tests/data/codes/modelnet-test-torus.conf");
    let m = ["network", "--end", "20000", "--codes-config", torus.to_str().unwrap()];
    assert_same_as_sequential(&m, &["optimistic"], &[2], &[]);
}

#[test]
fn tlm_matches_sequential() {
    let m = [
        "tlm",
        "--size",
        "30x24",
        "--obstacles",
        "urban",
        "--block-size",
        "4",
        "--street-width",
        "3",
        "--sources",
        "3",
        "--receivers",
        "2",
        "--end",
        "40",
    ];
    assert_same_as_sequential(&m, &["optimistic", "conservative"], &[1, 2], &[]);
    let m = ["tlm", "--size", "10x9x3", "--waveform", "sine", "--boundary-reflection", "-1", "--end", "30"];
    assert_same_as_sequential(&m, &["optimistic"], &[2], &["--mapping", "random"]);
}

#[test]
fn random_configurations_match_sequential() {
    // A seeded list of configurations (the same every run): process and
    // thread counts, batch, KPs, GVT interval, queue, mode and model
    // parameters drawn together, so combinations no fixed test names are
    // covered too.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for _ in 0..10 {
        let np = 2 + next(3) as usize;
        let lookahead = ["0", "0.01", "0.5", "1.0"][next(4) as usize];
        let conservative = lookahead != "0" && next(3) == 0;
        let end = (5 + next(30)).to_string();
        let seed = next(100_000).to_string();
        let (lps, population) = ((16 << next(6)).to_string(), (1 + next(4)).to_string());
        let (cx, cy) = ((2 + next(5)).to_string(), (2 + next(5)).to_string());
        let model: Vec<&str> = if !conservative && next(5) == 0 {
            vec!["pcs", "--cells-x", &cx, "--cells-y", &cy, "--end", &end, "--seed", &seed]
        } else {
            let remote = ["0", "0.1", "0.5", "1.0"][next(4) as usize];
            vec![
                "phold",
                "--lps",
                &lps,
                "--population",
                &population,
                "--remote",
                remote,
                "--lookahead",
                lookahead,
                "--end",
                &end,
                "--seed",
                &seed,
            ]
        };
        let (threads, batch) = ((1 + next(3)).to_string(), (1u64 << next(6)).to_string());
        let (kps, interval) = ((1 + next(16)).to_string(), (1 + next(32)).to_string());
        let mut args = model.clone();
        args.extend(["--sync", if conservative { "conservative" } else { "optimistic" }, "--threads", &threads]);
        args.extend(["--batch", &batch, "--kps-per-pe", &kps, "--gvt-interval", &interval]);
        args.extend(["--queue", ["ladder", "heap"][next(2) as usize]]);
        args.extend(["--mapping", ["block", "random"][next(2) as usize]]);
        let seq = single(&[model.as_slice(), &["--sync", "sequential"]].concat());
        let par = distributed(np, &args);
        let what = format!("mpirun -n {np} {args:?}");
        assert_eq!(par["digest"], seq["digest"], "{what}: digest differs from sequential");
        assert_eq!(par["model_results"], seq["model_results"], "{what}: model results differ");
    }
}

/// Workers are not PEs under MPI either: more PEs than threads per
/// process, under each policy, commit the sequential digest.
#[test]
fn more_pes_than_workers_under_every_policy_match_sequential() {
    let model = ["phold", "--lps", "512", "--remote", "0.5", "--end", "15"];
    let seq = single(&[&model[..], &["--sync", "sequential"]].concat());
    for (policy, pes) in [("fixed", "3"), ("dynamic", "4"), ("adaptive", "3"), ("ladm", "5")] {
        let args =
            [&model[..], &["--sync", "optimistic", "--threads", "2", "--pes", pes, "--scheduling", policy]].concat();
        let par = distributed(2, &args);
        assert_eq!(par["digest"], seq["digest"], "mpirun -n 2 {args:?}");
        assert_eq!(par["workers"].as_array().map(Vec::len), Some(4), "{args:?}: two workers per process");
        assert_eq!(par["pes"].as_array().map(Vec::len), Some(2 * pes.parse::<usize>().unwrap()), "{args:?}");
    }
}

#[test]
fn statistics_describe_the_traffic_between_processes() {
    let s = distributed(2, &["phold", "--lps", "4096", "--end", "10", "--sync", "optimistic"]);
    let f = |k: &str| s[k].as_f64().unwrap_or_else(|| panic!("key {k} missing: {s}"));
    // Half of the remote draws land in the other process.
    assert!(f("remote_process_fraction") > 0.03 && f("remote_process_fraction") < 0.07, "{s}");
    assert!(f("mpi_messages") > 0.0 && f("mpi_events_per_message") >= 1.0, "{s}");
    assert!(f("polls") >= f("successful_polls") && f("successful_polls") > 0.0, "{s}");
    assert!(f("gvt_rounds") > 0.0 && f("mpi_seconds") >= 0.0, "{s}");
    for (i, r) in s["rank_stats"].as_array().unwrap().iter().enumerate() {
        assert_eq!(r["rank"], i);
        assert!(r["mpi_messages"].as_u64().unwrap() > 0, "rank {i} sent messages: {r}");
    }
    // The per-PE list covers every PE of every process.
    assert_eq!(s["pes"].as_array().unwrap().len(), 2);
}

#[test]
fn one_trace_file_holds_every_rank_and_changes_nothing() {
    for sync in ["optimistic", "conservative"] {
        let args = ["phold", "--lps", "1024", "--end", "10", "--sync", sync, "--threads", "2"];
        let plain = distributed(2, &args);
        let trace = tmp(&format!("trace-{sync}"));
        let mut traced: Vec<&str> = args.to_vec();
        traced.extend(["--trace-out", trace.to_str().unwrap()]);
        let stats = distributed(2, &traced);
        assert_eq!(stats["digest"], plain["digest"], "{sync}: tracing changed the digest");
        let t: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).expect("valid JSON");
        let spans: Vec<&Value> = t["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X").collect();
        // Rank r's PEs are r * 2 and r * 2 + 1: every one has spans in rank r's process.
        let tracks: std::collections::BTreeSet<(u64, u64)> =
            spans.iter().map(|e| (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap())).collect();
        assert_eq!(tracks.into_iter().collect::<Vec<_>>(), [(0, 0), (0, 1), (1, 2), (1, 3)], "{sync}");
        assert!(spans.iter().any(|e| e["name"] == "exchange"), "{sync}: exchanges between ranks are shown");
        assert_eq!(t["otherData"]["about"]["ranks"], 2, "{sync}");
    }
}

#[test]
fn the_summary_is_printed_once() {
    let mut c = mpirun(3);
    c.args(["run", "phold", "--lps", "1024", "--end", "5", "--sync", "optimistic"]);
    let o = finish(c);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert_eq!(out.matches("digest").count(), 1, "one summary, from rank 0:\n{out}");
    assert!(out.contains("MPI messages") && out.contains("simulator processes"), "{out}");
}

#[test]
fn sequential_under_mpirun_is_refused_once() {
    let mut c = mpirun(2);
    c.args(["run", "phold", "--lps", "64", "--end", "2"]);
    let o = finish(c);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert_eq!(err.matches("error: invalid configuration").count(), 1, "rank 0 alone says it: {err}");
    assert!(err.contains("--sync: the sequential mode runs in one process") && err.contains("optimistic"), "{err}");
}

#[test]
fn a_run_too_big_for_memory_is_refused_once() {
    let mut c = mpirun(2);
    c.args(["run", "phold", "--lps", "4294967295", "--sync", "optimistic"]);
    let o = finish(c);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert_eq!(err.matches("needs about").count(), 1, "rank 0 alone says it: {err}");
    assert!(err.contains("error: --lps 4294967295 with --population 10 needs about"), "{err}");
}

#[test]
fn a_failure_on_one_process_ends_the_job() {
    // Rank 0 cannot write its statistics while rank 1 is already running:
    // rank 0 must say so and take rank 1 down with it, not leave it waiting.
    let mut c = mpirun(2);
    c.args(["run", "phold", "--end", "1000000", "--sync", "optimistic", "--stats-json", "/nonexistent-dir/s.json"]);
    let o = finish(c);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("error (rank 0): cannot write statistics to /nonexistent-dir/s.json"), "{err}");
}

#[test]
fn a_process_that_dies_ends_the_job() {
    let mut c = mpirun(2);
    c.args(["run", "phold", "--end", "1000000", "--sync", "optimistic", "--quiet"]);
    let mut child = c.spawn().expect("mpirun starts");
    // Wait until both processes run, then kill one of them.
    let t0 = Instant::now();
    let victim = loop {
        let kids = Command::new("pgrep").args(["-P", &child.id().to_string()]).output().expect("pgrep runs");
        let pids: Vec<String> = text(&kids.stdout).split_whitespace().map(String::from).collect();
        if pids.len() >= 2 {
            break pids[1].clone();
        }
        assert!(t0.elapsed() < LIMIT, "the processes never started");
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_millis(500));
    assert!(Command::new("kill").args(["-9", &victim]).status().unwrap().success());
    let t1 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(!status.success(), "the job must fail when a process dies");
            break;
        }
        assert!(t1.elapsed() < Duration::from_secs(60), "the job hangs after a process died");
        std::thread::sleep(Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    let err = text(&o.stderr);
    assert!(err.contains("signal 9") || err.contains("Killed"), "mpirun names the dead process: {err}");
}

/// A checkpoint written by 2 optimistic processes of 2 threads resumes on 3
/// conservative processes, on 2 processes of 1 thread and in one sequential
/// process, each time to the sequential digest.
#[test]
fn checkpoints_resume_on_another_process_count() {
    let model = ["phold", "--lps", "300", "--end", "40", "--remote", "0.4"];
    let want = single(&model);
    let dir = tmp("ckpt").with_extension("d");
    let ck = dir.to_str().unwrap();
    let mut args = model.to_vec();
    args.extend(["--sync", "optimistic", "--threads", "2", "--checkpoint-every", "12", "--checkpoint-keep", "5"]);
    args.extend(["--checkpoint-dir", ck]);
    let wrote = distributed(2, &args);
    assert_eq!(wrote["digest"], want["digest"]);
    assert_eq!(wrote["checkpoints"], 3);
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    for f in &files {
        let f = f.to_str().unwrap();
        for (np, sync, threads) in [(3, "conservative", "1"), (2, "optimistic", "1")] {
            let path = tmp("resumed");
            let mut c = mpirun(np);
            c.args(["resume", f, "--sync", sync, "--threads", threads, "--quiet", "--checkpoint-dir"]);
            c.args([tmp("again").to_str().unwrap(), "--stats-json", path.to_str().unwrap()]);
            let o = finish(c);
            assert!(o.status.success(), "resume {f} on {np}: {}", text(&o.stderr));
            let r: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            assert_eq!(r["digest"], want["digest"], "{f} on {np} processes, {sync}");
            assert_eq!(r["committed_events"], want["committed_events"]);
        }
        let path = tmp("resumed1");
        let mut c = Command::new(bin());
        c.args(["resume", f, "--threads", "1", "--sync", "sequential", "--quiet", "--checkpoint-dir"]);
        c.args([tmp("again1").to_str().unwrap(), "--stats-json", path.to_str().unwrap()]);
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        let o = finish(c);
        assert!(o.status.success(), "resume {f} in one process: {}", text(&o.stderr));
        let r: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(r["digest"], want["digest"], "{f} in one process");
    }
}

/// A signal under mpirun cannot pause the run (the processes would have to
/// agree on the moment): it stops without a checkpoint and says so, not
/// that --checkpoint-dir is missing; no temporary statistics file stays.
#[test]
fn a_signal_under_mpirun_says_why_it_stops_without_a_checkpoint() {
    let dir = tmp("signal").with_extension("d");
    std::fs::create_dir_all(&dir).unwrap();
    let stats = dir.join("s.json");
    // Rank 0 opens its outputs once its signal handler is in place: a FIFO
    // as --stats-csv tells when (its opening unblocks our reader).
    let fifo = dir.join("pe.csv");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success(), "mkfifo");
    let mut c = mpirun(2);
    c.args(["run", "phold", "--lps", "256", "--end", "1e6", "--sync", "optimistic", "--checkpoint-dir"]);
    c.args([dir.join("ck").to_str().unwrap(), "--stats-json", stats.to_str().unwrap()]);
    c.args(["--stats-csv", fifo.to_str().unwrap()]);
    let mut child = c.spawn().expect("mpirun starts");
    let hidden =
        || std::fs::read_dir(&dir).unwrap().flatten().any(|e| e.file_name().to_string_lossy().starts_with('.'));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // Opening a FIFO to read blocks until its writer opens it.
        let opened = std::fs::File::open(&fifo);
        let _ = tx.send(());
        if let Ok(mut r) = opened {
            let _ = std::io::copy(&mut r, &mut std::io::sink());
        }
    });
    let t = Instant::now();
    while rx.try_recv().is_err() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it opened its outputs");
        assert!(t.elapsed() < LIMIT, "no output opened: a hang");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGINT to rank 0 alone (a user's Ctrl-C reaches every process, but a
    // process whose handler is not in place yet would die of it, and mpirun
    // could end rank 0 before it speaks): it speaks, then ends the job.
    let rank0 = rank_zero(child.id());
    assert!(Command::new("kill").args(["-INT", &rank0]).status().unwrap().success());
    let o = child.wait_with_output().unwrap();
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("under MPI a signal cannot pause the run"), "{err}");
    assert!(!err.contains("give --checkpoint-dir"), "{err}");
    assert!(!stats.exists() && !hidden(), "no statistics, no temporary file: {err}");
}

/// The process id of rank 0 among `mpirun`'s children (by its environment).
fn rank_zero(mpirun: u32) -> String {
    let kids = Command::new("pgrep").args(["-P", &mpirun.to_string()]).output().expect("pgrep runs");
    let pids: Vec<String> = text(&kids.stdout).split_whitespace().map(String::from).collect();
    let is_rank0 = |pid: &String| {
        std::fs::read(format!("/proc/{pid}/environ"))
            .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == b"OMPI_COMM_WORLD_RANK=0" || v == b"PMI_RANK=0"))
    };
    pids.iter().find(|p| is_rank0(p)).cloned().unwrap_or_else(|| panic!("no rank 0 among {pids:?}"))
}

/// Pausing on request needs the processes to agree on a moment: refused once, clearly.
#[test]
fn wall_clock_checkpoints_are_refused_across_processes() {
    let dir = tmp("wall").with_extension("d");
    let mut c = mpirun(2);
    c.args(["run", "phold", "--lps", "64", "--sync", "optimistic", "--checkpoint-wall", "5", "--checkpoint-dir"]);
    c.arg(dir.to_str().unwrap());
    let o = finish(c);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("--checkpoint-wall") && err.contains("--checkpoint-every"), "{err}");
    assert_eq!(err.matches("error").count(), 1, "said once: {err}");
}

#[test]
fn partition_mappings_commit_the_sequential_digest_across_processes() {
    // Profile in one process, partition for 2 processes (× 1 and × 2
    // threads, flat and latency-sensitive), run under mpirun -n 2 in both
    // parallel modes.
    let model = ["phold", "--hierarchy", "4,32,3", "--remote", "1", "--interleave", "--end", "8"];
    let profile = tmp("profile");
    let p = profile.to_str().unwrap();
    let seq = single(&[&model[..], &["--sync", "sequential", "--profile-out", p]].concat());
    let mut remote = Vec::new();
    for (scheme, layout) in [("random", "2,1"), ("activity", "2,1"), ("object-activity", "2,2"), ("static", "2,2")] {
        for flat in [false, true] {
            let map = tmp(&format!("{scheme}-{layout}-{flat}"));
            let m = map.to_str().unwrap();
            let mut c = Command::new(bin());
            c.args(["partition", p, "--scheme", scheme, "--hierarchy", layout, "-q", "-o", m]);
            if flat {
                c.arg("--flat");
            }
            let o = finish(c);
            assert!(o.status.success(), "partition {scheme}: {}", text(&o.stderr));
            let threads = &layout[2..];
            for sync in ["optimistic", "conservative"] {
                let args = [&model[..], &["--sync", sync, "--threads", threads, "--mapping", m]].concat();
                let par = distributed(2, &args);
                let what = format!("{scheme} on {layout} (flat: {flat}), {sync}");
                assert_eq!(par["digest"], seq["digest"], "{what}: digest differs from sequential");
                assert_eq!(par["model_results"], seq["model_results"], "{what}");
                remote.push((scheme, par["remote_process_fraction"].as_f64().unwrap()));
            }
        }
    }
    // The measured traffic between processes follows the partition.
    let of = |s: &str| remote.iter().find(|r| r.0 == s).unwrap().1;
    assert!(3.0 * of("activity") < of("random"), "{remote:?}");
}

/// `--sync auto` under `mpirun`: every process picks the same mode (the rule
/// reads only the options and the model), more than one process is parallel
/// even with `--threads 1`, rank 0 alone says so, and the job commits the
/// sequential digest.
#[test]
fn every_process_picks_the_same_mode_under_sync_auto() {
    for (lookahead, mode) in [("0", "optimistic"), ("1", "conservative")] {
        let model = ["phold", "--lps", "64", "--end", "20", "--remote", "0.5", "--lookahead", lookahead];
        let mut seq = model.to_vec();
        seq.extend(["--sync", "sequential"]);
        let want = single(&seq);
        let json = tmp(&format!("auto-{lookahead}"));
        let mut c = mpirun(2);
        c.args(["run"]).args(model).args(["--sync", "auto", "--threads", "1", "--stats-json", json.to_str().unwrap()]);
        let o = finish(c);
        let err = text(&o.stderr);
        assert!(o.status.success(), "{err}");
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("sync auto:")).collect();
        assert_eq!(lines.len(), 1, "{err}");
        assert!(lines[0].starts_with(&format!("sync auto: {mode} (")), "{err}");
        let got: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!((&got["sync_chosen"], &got["sync"]), (&serde_json::json!(mode), &serde_json::json!(mode)));
        assert_eq!(got["digest"], want["digest"], "lookahead {lookahead}");
    }
}
