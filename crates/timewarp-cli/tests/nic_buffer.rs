//! `--nic-buffer`: the NICs' bounded buffer (CODES's `cn_vc_size`). A
//! router's input from a NIC holds that many bytes of whole packets, and
//! the NIC sends a packet only with a credit for a free slot, which comes
//! back one link latency after the packet's tail left the router. Checked
//! against hand-computed send times, CODES's busy time in the LP-IO file,
//! one digest in every mode and across a checkpoint, and the import.

mod common;
use common::{assert_clear_error, stats, stderr, timewarp, tmp};

/// Link latency L, router delay R (ns), bandwidth B (bytes/ns), packet bytes.
const L: f64 = 8.0;
const R: f64 = 8.0;
const B: f64 = 4.0;
const P: u32 = 256;

/// A two-group dragonfly of 2 routers × 2 nodes; rank 0 on node 0 sends
/// `bytes` to rank 1 on node 1, behind the same router (no router-to-router hop).
fn burst(name: &str, bytes: u32, more: &[&str]) -> (serde_json::Value, String) {
    let dir = tmp(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("rank.0.txt"), format!("send 1 {bytes} 0\n")).unwrap();
    std::fs::write(dir.join("rank.1.txt"), "recv 0 0\n").unwrap();
    let map = dir.join("map.txt");
    std::fs::write(&map, "0\n1\n").unwrap();
    let io = dir.join("lp-io");
    let _ = std::fs::remove_dir_all(&io);
    let (d, m, i) = (dir.to_str().unwrap(), map.to_str().unwrap(), io.to_str().unwrap());
    let base = [
        "run",
        "network",
        "--topology",
        "dragonfly",
        "--routers-per-group",
        "2",
        "--terminals-per-router",
        "2",
        "--global-links",
        "1",
        "--link-latency",
        "8",
        "--router-delay",
        "8",
        "--link-bandwidth",
        "4",
        "--packet-bytes",
        "256",
        "--end",
        "1e9",
        "--workload",
        "trace",
        "--trace-dir",
        d,
        "--rank-mapping",
        m,
        "--lp-io-dir",
        i,
    ];
    // Its own statistics file: `stats`'s name from the arguments would be too long.
    let json = dir.join(format!("stats-{}.json", more.join("_")));
    let mut all = [&base[..], more].concat();
    all.extend(["--stats-json", json.to_str().unwrap(), "--quiet"]);
    let o = timewarp(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    let s: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = std::fs::read_to_string(io.join("dragonfly-msg-stats")).unwrap();
    (s, rows)
}

/// Column 7 (Busy Time) of node `t`'s row of `dragonfly-msg-stats`.
fn busy(rows: &str, t: usize) -> String {
    rows.lines().nth(t).unwrap().split(' ').nth(6).unwrap().to_string()
}

/// The send times by hand. Packet `j` starts on the NIC's link at `s_j`
/// and its head reaches the router `L + R` later; it leaves for the
/// ejection link at once (nothing else there), its tail `S = P / B` after,
/// and the credit is back at the NIC `L` after that: `c_j = s_j + L + R +
/// S + L`. With `m` slots `s_j = max(s_{j-1} + S, c_{j-m})`; a packet whose
/// credit came after the link was free waited `c_{j-m} − (s_{j-1} + S)`:
/// CODES's busy time. Returns (the send times, the waits summed, packets that waited).
fn by_hand(k: usize, m: Option<usize>) -> (Vec<f64>, f64, u64) {
    let s = P as f64 / B;
    let mut t: Vec<f64> = Vec::new();
    let (mut busy, mut stalled) = (0.0, 0);
    for j in 0..k {
        let free = if j == 0 { 0.0 } else { t[j - 1] + s };
        let credit = match m {
            Some(m) if j >= m => t[j - m] + L + R + s + L,
            _ => 0.0,
        };
        if credit > free {
            busy += credit - free;
            stalled += 1;
        }
        t.push(free.max(credit));
    }
    (t, busy, stalled)
}

/// A burst of 8 packets into a one-packet buffer: each packet enters the
/// router when the previous one's credit is back (every 88 ns, not every
/// 64), the message arrives when the hand-computed times say, and node 0's
/// busy time is the 7 waits of 24 ns. Two packets' room is never full (the
/// credit is back before the link frees): the unbounded run's times, busy
/// time 0. Without a buffer the column stays `nan`.
#[test]
fn a_burst_enters_the_router_at_the_credit_times() {
    let k = 8;
    // Delivery: the last packet's head reaches the router L + R after it
    // starts, the ejection link adds L and its serialisation.
    let arrive = |t: &[f64]| t[k - 1] + L + R + L + P as f64 / B;
    let (free, _, _) = by_hand(k, None);
    let (none, rows) = burst("nic-none", k as u32 * P, &[]);
    assert_eq!(none["model_results"]["app_time_ns"], arrive(&free));
    assert!(none["model_results"].get("nic_buffer_bytes").is_none());
    assert_eq!(busy(&rows, 0), "nan");

    let (t1, busy1, stalled1) = by_hand(k, Some(1));
    assert_eq!((busy1, stalled1), (7.0 * 24.0, 7), "the hand computation itself");
    let (one, rows) = burst("nic-one", k as u32 * P, &["--nic-buffer", "256"]);
    let r = &one["model_results"];
    assert_eq!(r["app_time_ns"], arrive(&t1));
    assert_eq!((r["nic_buffer_bytes"].as_u64(), r["nic_buffer_packets"].as_u64()), (Some(256), Some(1)));
    assert_eq!(busy(&rows, 0), format!("{busy1:.6}"));
    assert_eq!(busy(&rows, 1), "0.000000", "node 1 sent nothing");
    // Each packet's latency from the message's creation: the mean in column 4.
    let mean: f64 = t1.iter().map(|s| s + L + R + L + P as f64 / B).sum::<f64>() / k as f64;
    assert_eq!(rows.lines().nth(1).unwrap().split(' ').nth(3).unwrap(), format!("{mean:.6}"));

    // 300 bytes: still one whole packet.
    let (odd, _) = burst("nic-odd", k as u32 * P, &["--nic-buffer", "300"]);
    assert_eq!(odd["model_results"]["app_time_ns"], arrive(&t1));
    assert_eq!(odd["model_results"]["nic_buffer_packets"].as_u64(), Some(1));

    let (t2, busy2, _) = by_hand(k, Some(2));
    assert_eq!((t2.clone(), busy2), (free.clone(), 0.0), "two slots never fill");
    let (two, rows) = burst("nic-two", k as u32 * P, &["--nic-buffer", "512"]);
    assert_eq!(two["model_results"]["app_time_ns"], arrive(&t2));
    assert_eq!(busy(&rows, 0), "0.000000");
}

/// A 72-node dragonfly (4 routers a group, 2 terminals each, 2 global
/// links a router), the synthetic runs' network.
const DF72: &[&str] =
    &["--topology", "dragonfly", "--routers-per-group", "4", "--terminals-per-router", "2", "--global-links", "2"];

/// The same burst in every mode, and with the LP-IO counters or not: one
/// digest (the counters are off the digest; the buffer's credits are on it).
#[test]
fn every_mode_commits_one_digest_with_the_buffer_on() {
    let (seq, _) = burst("nic-modes", 8 * P, &["--nic-buffer", "256"]);
    for sync in [&["--sync", "optimistic", "--threads", "2"][..], &["--sync", "conservative", "--threads", "2"]] {
        let (s, _) = burst("nic-modes", 8 * P, &[&["--nic-buffer", "256"][..], sync].concat());
        assert_eq!(s["digest"], seq["digest"], "{sync:?}");
    }
    // Synthetic traffic past saturation on a UGAL dragonfly: NICs wait for credits all the time.
    let run = [&["run", "network"][..], DF72, &["--routing", "ugal", "--vcs", "5", "--load", "0.8"]].concat();
    let run = [&run[..], &["--message-bytes", "1024", "--end", "20000", "--nic-buffer", "512"]].concat();
    let seq = stats(&run);
    let io = tmp("nic-modes-io");
    let with_io = stats(&[&run[..], &["--lp-io-dir", io.to_str().unwrap()]].concat());
    assert_eq!(with_io["digest"], seq["digest"]);
    for sync in [&["--sync", "optimistic", "--threads", "2"][..], &["--sync", "conservative", "--threads", "2"]] {
        let s = stats(&[&run[..], sync].concat());
        assert_eq!(s["digest"], seq["digest"], "{sync:?}");
        assert_eq!(s["model_results"]["delivered_packets"], seq["model_results"]["delivered_packets"]);
    }
    // The buffer changes the run.
    let unbounded = stats(&run[..run.len() - 2]);
    assert_ne!(unbounded["digest"], seq["digest"]);
}

/// Checkpoints taken while NICs wait for credits resume, in another mode,
/// to the uninterrupted run's digest: the credits and the packets that
/// hold a slot are in the checkpoint.
#[test]
fn a_run_resumed_while_nics_wait_for_credits_commits_the_same_digest() {
    let run = [&["run", "network"][..], DF72, &["--load", "0.9", "--message-bytes", "1024"]].concat();
    let run = [&run[..], &["--end", "6000", "--nic-buffer", "512"]].concat();
    let want = stats(&run);
    let ck = tmp("nic-checkpoints");
    let _ = std::fs::remove_dir_all(&ck);
    std::fs::create_dir_all(&ck).unwrap();
    let c = ck.to_str().unwrap();
    let every = ["--checkpoint-every", "1000", "--checkpoint-keep", "1000", "--checkpoint-dir", c];
    let first = stats(&[&run[..], &every[..]].concat());
    assert_eq!(first["digest"], want["digest"]);
    let files = timewarp::checkpoint::list(&ck).unwrap();
    assert!(files.len() >= 4, "checkpoints through the run: {}", files.len());
    for (i, f) in files.iter().enumerate().step_by(2) {
        let again = tmp(&format!("nic-again-{i}"));
        let a = again.to_str().unwrap();
        let s =
            stats(&["resume", f.to_str().unwrap(), "--sync", "optimistic", "--threads", "2", "--checkpoint-dir", a]);
        assert_eq!(s["digest"], want["digest"], "resumed from {}", f.display());
    }
}

/// A buffer smaller than one packet is refused in one line, from the
/// command line and from a CODES file's `cn_vc_size`; a size that is not
/// a number by clap.
#[test]
fn a_buffer_smaller_than_a_packet_is_refused() {
    assert_clear_error(
        &["run", "network", "--topology", "dragonfly", "--packet-bytes", "256", "--nic-buffer", "255"],
        "holds no packet of 256 bytes",
    );
    let o = timewarp(&["run", "network", "--nic-buffer", "8k"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("or `none`"), "{}", stderr(&o));
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes/dfdally_72.conf");
    let text = std::fs::read_to_string(&src).unwrap().replace("cn_vc_size=\"32768\"", "cn_vc_size=\"2048\"");
    assert!(text.contains("cn_vc_size=\"2048\""), "the test edits the key");
    let conf = tmp("nic-small.conf");
    std::fs::write(&conf, text).unwrap();
    let o = timewarp(&["run", "network", "--codes-config", conf.to_str().unwrap(), "--end", "1000"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("cn_vc_size 2048 bytes holds no packet of packet_size 4096"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A CODES configuration brings its `cn_vc_size` as `--nic-buffer` (a row
/// in the import table; the summary names the buffer), and the command
/// line's `--nic-buffer none` replaces it.
#[test]
fn a_codes_config_brings_its_nic_buffer() {
    let conf =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes/modelnet-test-dragonfly-theta.conf");
    let c = conf.to_str().unwrap();
    let run = ["run", "network", "--codes-config", c, "--end", "3000", "--load", "0.3"];
    let s = stats(&run);
    let r = &s["model_results"];
    assert_eq!((r["nic_buffer_bytes"].as_u64(), r["nic_buffer_packets"].as_u64()), (Some(8192), Some(4)));
    let off = stats(&[&run[..], &["--nic-buffer", "none"]].concat());
    assert!(off["model_results"].get("nic_buffer_bytes").is_none());
    let o = timewarp(&run);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(o.status.success(), "{err}");
    assert!(err.contains("--nic-buffer 8192"), "the import table names the buffer: {err}");
    assert!(out.contains("NIC buffer: 8,192 bytes (4 packets)"), "{out}");
    // Without the key, CODES's default: 1024 bytes (dragonfly.c), two 512-byte packets.
    let src =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes/synthetic-dragonfly-minimal.conf");
    let text: String = std::fs::read_to_string(&src)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("cn_vc_size"))
        .map(|l| l.to_string() + "\n")
        .collect();
    let conf = tmp("nic-absent.conf");
    std::fs::write(&conf, text).unwrap();
    let s = stats(&["run", "network", "--codes-config", conf.to_str().unwrap(), "--end", "1000"]);
    let r = &s["model_results"];
    assert_eq!((r["nic_buffer_bytes"].as_u64(), r["nic_buffer_packets"].as_u64()), (Some(1024), Some(2)));
}
