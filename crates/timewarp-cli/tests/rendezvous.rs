//! `--eager-limit`: CODES's MPI protocol in the ranks' replay. A message
//! at or above the limit goes by rendezvous (a 64-byte request-to-send, a
//! 64-byte clear-to-send, then the data), each control message a real
//! packet: counted exactly, timed as the analytic sum of three messages,
//! deadlocking where MPI's rendezvous does, and the same digest in every
//! mode. A CODES configuration brings CODES's 8192 bytes.

mod common;
use common::{stats, stderr, timewarp, tmp};

/// A trace directory `name` with these rank programs.
fn traces(name: &str, ranks: &[&str]) -> String {
    let dir = tmp(name);
    std::fs::create_dir_all(&dir).unwrap();
    for (r, text) in ranks.iter().enumerate() {
        std::fs::write(dir.join(format!("rank.{r}.txt")), text).unwrap();
    }
    dir.to_str().unwrap().to_string()
}

/// A ring of 8 routers; rank 0 on node 0, rank 1 on node 3 (three hops).
fn ring(dir: &str, more: &[&str]) -> serde_json::Value {
    let map = tmp("rdv-map.txt");
    std::fs::write(&map, "0\n3\n").unwrap();
    let m = map.to_str().unwrap();
    let base = ["run", "network", "--dims", "8", "--end", "1e15", "--workload", "trace", "--trace-dir", dir];
    stats(&[&base[..], &["--rank-mapping", m], more].concat())
}

/// One message of M(h, b) = (h + 2) L + (h + 1) R + b / B on the ring's
/// defaults (L = R = 8 ns, B = 4 bytes/ns): eager, 256 bytes take
/// M(3, 256) = 136 ns; by rendezvous the request-to-send and the
/// clear-to-send take M(3, 64) = 88 ns each before the data's 136.
#[test]
fn a_rendezvous_message_takes_its_two_control_messages_then_the_data() {
    let d = traces("rdv-one", &["send 1 256 0\n", "recv 0 0\n"]);
    let eager = ring(&d, &[]);
    assert_eq!(eager["model_results"]["app_time_ns"], 136.0);
    assert!(eager["model_results"].get("rendezvous_messages").is_none(), "eager only: no protocol figures");
    let rdv = ring(&d, &["--eager-limit", "256"]);
    let r = &rdv["model_results"];
    assert_eq!(r["app_time_ns"], 88.0 + 88.0 + 136.0);
    // The blocking send completes when the clear-to-send is back and the data handed to the NIC.
    assert_eq!(r["ranks"][0]["finish_ns"], 176.0);
    assert_eq!((r["eager_limit"].as_u64(), r["rendezvous_messages"].as_u64()), (Some(256), Some(2)));
    // One byte below the limit is eager again.
    let below = ring(&d, &["--eager-limit", "257"]);
    assert_eq!(below["model_results"]["app_time_ns"], 136.0);
    assert_eq!(below["model_results"]["rendezvous_messages"].as_u64(), Some(0));
}

/// Messages below and above the limit, blocking and not, each way, the
/// receives posted before and after the requests arrive: two control
/// messages per large message, and every packet accounted for (the data's
/// packets of 256 bytes plus one packet per control message).
#[test]
fn rendezvous_messages_are_counted_exactly_and_every_packet_is_delivered() {
    // Rank 0: 3 small (100 B), 2 large (1000 B, 4 packets; 5000 B, 20 packets).
    let r0 = "send 1 100 1\nisend 1 1000 2\nsend 1 100 3\nsend 1 5000 4\nisend 1 100 5\nwaitall\nrecv 1 6\n";
    // Rank 1 computes first, so some requests wait unexpected; then the large reply (3000 B, 12 packets).
    let r1 = "compute 5000\nirecv 0 2\nrecv 0 1\nrecv 0 3\nirecv 0 5\nirecv 0 4\nwaitall\nsend 0 3000 6\n";
    let d = traces("rdv-count", &[r0, r1]);
    for more in [&["--eager-limit", "1000"][..], &["--eager-limit", "1000", "--sync", "optimistic", "--threads", "2"]] {
        let s = ring(&d, more);
        let r = &s["model_results"];
        assert!(r["app_time_ns"].as_f64().is_some(), "every rank finished: {r}");
        let large = 3;
        assert_eq!(r["rendezvous_messages"].as_u64(), Some(2 * large), "{more:?}");
        let data_packets = 3 + 4 + 20 + 12;
        assert_eq!(r["delivered_packets"].as_u64(), Some(data_packets + 2 * large), "{more:?}");
        assert_eq!(r["in_flight_packets"].as_u64(), Some(0));
    }
}

/// Both ranks send a large message with a blocking send before receiving:
/// eager completes; under rendezvous neither send can complete (no
/// receive is posted to clear it), as in MPI. The run says so.
#[test]
fn head_to_head_blocking_sends_deadlock_under_rendezvous_only() {
    let d = traces("rdv-deadlock", &["send 1 9000 0\nrecv 1 0\n", "send 0 9000 0\nrecv 0 0\n"]);
    assert!(ring(&d, &[])["model_results"]["app_time_ns"].as_f64().is_some());
    let map = tmp("rdv-map.txt");
    std::fs::write(&map, "0\n3\n").unwrap();
    let o = timewarp(&[
        "run",
        "network",
        "--dims",
        "8",
        "--end",
        "1e15",
        "--workload",
        "trace",
        "--trace-dir",
        &d,
        "--rank-mapping",
        map.to_str().unwrap(),
        "--eager-limit",
        "8192",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("deadlock") && err.contains("rendezvous: no clear-to-send yet"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Every mode commits one digest with rendezvous messages (a generated
/// all-reduce over 16 ranks, its 4 KiB chunks by rendezvous, and a 3-D
/// halo of 4 KiB faces on randomly placed ranks).
#[test]
fn rendezvous_runs_commit_the_same_digest_in_every_mode() {
    let runs: [&[&str]; 2] = [
        &["--dims", "4,4", "--workload", "allreduce", "--message-bytes", "65536", "--iterations", "2"],
        &[
            "--dims",
            "4,4,4",
            "--workload",
            "halo3d",
            "--halo-bytes",
            "4096",
            "--iterations",
            "2",
            "--rank-mapping",
            "random",
        ],
    ];
    for run in runs {
        let base = [&["run", "network", "--end", "1e15", "--eager-limit", "2048"][..], run].concat();
        let seq = stats(&base);
        assert!(seq["model_results"]["rendezvous_messages"].as_u64().unwrap() > 0, "{run:?}");
        for sync in [&["--sync", "optimistic", "--threads", "2"][..], &["--sync", "conservative", "--threads", "2"]] {
            let s = stats(&[&base[..], sync].concat());
            assert_eq!(s["digest"], seq["digest"], "{run:?} {sync:?}");
            assert_eq!(s["model_results"]["rendezvous_messages"], seq["model_results"]["rendezvous_messages"]);
        }
        // The protocol changes the run: not the eager digest.
        let eager = stats(&[&["run", "network", "--end", "1e15"][..], run].concat());
        assert_ne!(eager["digest"], seq["digest"], "{run:?}");
    }
}

/// A CODES configuration brings CODES's eager threshold, 8192 bytes,
/// with a row in the table; the command line's `--eager-limit` replaces
/// it (`none`: eager only).
#[test]
fn a_codes_config_runs_with_codes_eager_threshold() {
    let conf = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes/modelnet-mpi-test-torus.conf");
    let c = conf.to_str().unwrap();
    let run = ["run", "network", "--codes-config", c, "--end", "1e15", "--workload", "allreduce"];
    let s = stats(&[&run[..], &["--message-bytes", "524288"]].concat());
    let r = &s["model_results"];
    assert_eq!(r["eager_limit"].as_u64(), Some(8192));
    // The ring all-reduce over 32 ranks: 2 (P − 1) chunks of 16 KiB per rank, each by rendezvous.
    assert_eq!(r["rendezvous_messages"].as_u64(), Some(2 * 2 * 31 * 32), "{r}");
    let off = stats(&[&run[..], &["--message-bytes", "524288", "--eager-limit", "none"]].concat());
    assert!(off["model_results"].get("eager_limit").is_none());
    let o = timewarp(&[&run[..], &["--message-bytes", "524288"]].concat());
    let (out, err) = (String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(o.status.success(), "{err}");
    assert!(err.contains("--eager-limit 8192"), "the import table names the limit: {err}");
    assert!(out.contains("MPI protocol: eager below 8192 bytes, rendezvous from 8192 bytes"), "{out}");
}

/// `--eager-limit` takes bytes or `none`.
#[test]
fn a_bad_eager_limit_is_refused() {
    let o = timewarp(&["run", "network", "--workload", "halo3d", "--eager-limit", "8k"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("or `none`"), "{}", stderr(&o));
}

/// A run checkpointed while rendezvous messages are under way (every
/// 400 ns of a 3-D halo whose faces all go by rendezvous) resumes from any
/// of its checkpoints, in another mode, to the uninterrupted run's digest:
/// the ranks' pending entries and control counts are in the checkpoint.
#[test]
fn a_run_resumed_in_the_middle_of_rendezvous_commits_the_same_digest() {
    let run = [
        "run",
        "network",
        "--dims",
        "4,4",
        "--end",
        "1e15",
        "--workload",
        "halo3d",
        "--halo-bytes",
        "4096",
        "--iterations",
        "3",
        "--compute-ns",
        "200",
        "--eager-limit",
        "1024",
    ];
    let want = stats(&run);
    let ck = tmp("rdv-checkpoints");
    let _ = std::fs::remove_dir_all(&ck);
    std::fs::create_dir_all(&ck).unwrap();
    let c = ck.to_str().unwrap();
    let every = ["--checkpoint-every", "400", "--checkpoint-keep", "1000", "--checkpoint-dir", c];
    let first = stats(&[&run[..], &every[..]].concat());
    assert_eq!(first["digest"], want["digest"]);
    let files = timewarp::checkpoint::list(&ck).unwrap();
    assert!(files.len() >= 5, "checkpoints through the run: {}", files.len());
    // About four of them, spread over the run.
    for (i, f) in files.iter().enumerate().step_by(files.len() / 4 + 1) {
        let again = tmp(&format!("rdv-again-{i}"));
        let a = again.to_str().unwrap();
        let s =
            stats(&["resume", f.to_str().unwrap(), "--sync", "optimistic", "--threads", "2", "--checkpoint-dir", a]);
        assert_eq!(s["digest"], want["digest"], "resumed from {}", f.display());
        assert_eq!(s["model_results"]["rendezvous_messages"], want["model_results"]["rendezvous_messages"]);
    }
}
