//! What was still not CODES's in its fat-trees and Slim Fly (issue 40):
//! tapered fat-trees (`tapering`, `--tapering`), adaptive rail selection
//! only above `rail_select_limit` bytes (`--rail-select-limit`), and the
//! Slim Fly's UGAL over four random intermediates. Each runs in every mode
//! with the sequential digest; a run that names the default keeps the
//! digest of one that does not; bad values are refused in one line.

mod common;
use common::{assert_clear_error, stderr, timewarp, tmp};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes").join(name)
}

/// A quiet run's statistics from stdout.
fn json(args: &[&str]) -> Value {
    let o = timewarp(&[args, &["-q", "--stats-json", "-"]].concat());
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The import table of a CODES file, its words joined by single spaces.
fn table(f: &Path) -> String {
    let o = timewarp(&["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    stderr(&o).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `base` in sequential, conservative, optimistic (one thread on 4 PEs, rolling back) and on 2 threads:
/// every one commits the sequential digest and results.
fn every_mode_agrees(base: &[&str]) -> Value {
    let seq = json(&[base, &["--sync", "sequential"]].concat());
    assert!(seq["model_results"]["delivered_packets"].as_u64().unwrap() > 0, "{base:?}");
    for extra in [
        &["--sync", "conservative", "--threads", "2"][..],
        &["--sync", "optimistic", "--threads", "1", "--pes", "4"],
        &["--sync", "optimistic", "--threads", "2"],
    ] {
        let s = json(&[base, extra].concat());
        assert_eq!(s["digest"], seq["digest"], "{base:?} {extra:?}");
        assert_eq!(s["model_results"], seq["model_results"], "{base:?} {extra:?}");
    }
    seq
}

/// CODES's `dual-plane-fattree-tapered.conf`: the dual-plane tree with tapering 2.
fn tapered_conf() -> PathBuf {
    let text = std::fs::read_to_string(data("dual-plane-fattree.conf")).unwrap();
    let text = text
        .replace("tapering=\"1\"", "tapering=\"2\"")
        .replace("repetitions=\"252\"", "repetitions=\"198\"")
        .replace("switch_count=\"252\"", "switch_count=\"198\"")
        .replace("nw-lp=\"288\"", "nw-lp=\"384\"")
        .replace("modelnet_fattree=\"18\"", "modelnet_fattree=\"24\"");
    let f = tmp("dual-plane-fattree-tapered.conf");
    std::fs::write(&f, text).unwrap();
    f
}

#[test]
fn codes_tapered_dual_plane_tree_runs_as_codes_builds_it() {
    let f = tapered_conf();
    let s = json(&["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "3000", "--load", "0.3"]);
    let m = &s["config"]["model"];
    assert_eq!(m["tapering"].as_f64(), Some(2.0));
    // fattree.c: 198 leaves of 24 nodes and 12 up links; per rail 11 pods × 12
    // aggregation switches and 12 groups of 6 core switches (72, CODES's
    // l1_set_size / link_repetitions × radix / 2).
    assert_eq!((s["lps"].as_u64(), s["model_results"]["nodes"].as_u64()), (Some(198 + 2 * (132 + 72)), Some(4752)));
    assert!(s["model_results"]["delivered_packets"].as_u64().unwrap() > 0);
    let words = table(&f);
    assert!(words.contains("--tapering 2 (24 nodes and 12 up links per leaf)"), "{words}");
    // One rail of the same tree from the options.
    let by_hand = json(&[
        "run",
        "network",
        "--topology",
        "fattree",
        "--radix",
        "36",
        "--levels",
        "3",
        "--tapering",
        "2",
        "--nodes",
        "4752",
        "--end",
        "1",
    ]);
    assert_eq!((by_hand["lps"].as_u64(), by_hand["model_results"]["nodes"].as_u64()), (Some(402), Some(4752)));
}

#[test]
fn the_tapering_option_runs_in_every_mode_and_tapering_1_is_the_plain_tree() {
    let base =
        ["run", "network", "--topology", "fattree", "--radix", "6", "--levels", "3", "--load", "0.5", "--end", "3000"];
    let tapered = every_mode_agrees(&[&base[..], &["--tapering", "2"]].concat());
    // Radix 6, T = 2: 4 nodes and 2 up links a leaf, the full tree of 6 pods of 3 leaves: 72 nodes.
    assert_eq!(tapered["model_results"]["nodes"].as_u64(), Some(72));
    let plain = json(&base);
    let one = json(&[&base[..], &["--tapering", "1"]].concat());
    assert_eq!((&plain["digest"], &plain["model_results"]), (&one["digest"], &one["model_results"]));
    // Two levels and rails with adaptive selection weighing every message.
    every_mode_agrees(&[
        "run",
        "network",
        "--topology",
        "fattree",
        "--radix",
        "8",
        "--levels",
        "2",
        "--tapering",
        "3",
        "--rails",
        "2",
        "--rail-select",
        "adaptive",
        "--rail-select-limit",
        "0",
        "--load",
        "0.6",
        "--end",
        "3000",
    ]);
}

#[test]
fn rail_select_limit_comes_from_the_file_or_codes_default() {
    let f = data("dual-plane-fattree.conf");
    let s = json(&["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "1"]);
    assert_eq!(s["config"]["model"]["rail-select-limit"].as_u64(), Some(8192));
    assert!(table(&f).contains("--rail-select-limit 8192"));
    let text = std::fs::read_to_string(&f).unwrap();
    let g = tmp("no-limit.conf");
    std::fs::write(&g, text.replace("rail_select_limit=\"8192\";", "")).unwrap();
    let s = json(&["run", "network", "--codes-config", g.to_str().unwrap(), "--end", "1"]);
    assert_eq!(s["config"]["model"]["rail-select-limit"].as_u64(), Some(32768));
    assert!(table(&g).contains("CODES default"));
    // Not adaptive: nothing is weighed, the key is listed as ignored.
    let h = tmp("dedicated.conf");
    std::fs::write(&h, text.replace("rail_select=\"adaptive\"", "rail_select=\"dedicated\"")).unwrap();
    assert!(table(&h).contains("rail_select is not adaptive"));
}

#[test]
fn adaptive_rails_weigh_only_messages_above_the_limit() {
    let base = [
        "run",
        "network",
        "--topology",
        "fattree",
        "--radix",
        "8",
        "--levels",
        "2",
        "--nodes",
        "32",
        "--rails",
        "2",
        "--load",
        "0.8",
        "--message-bytes",
        "1024",
        "--end",
        "3000",
    ];
    let dedicated = json(&[&base[..], &["--rail-select", "dedicated"]].concat());
    let run = |limit: &str| json(&[&base[..], &["--rail-select", "adaptive", "--rail-select-limit", limit]].concat());
    // 1 KiB messages: at or under the limit they take their dedicated rail.
    let default = json(&[&base[..], &["--rail-select", "adaptive"]].concat());
    assert_eq!(default["model_results"], dedicated["model_results"]);
    assert_eq!(run("1024")["model_results"], dedicated["model_results"]);
    assert_ne!(run("1023")["model_results"], dedicated["model_results"]);
    // Naming CODES's default changes nothing.
    assert_eq!(run("32768")["digest"], default["digest"]);
}

#[test]
fn codes_sfly_3k_weighs_four_intermediates_in_every_mode() {
    let f = data("sfly_3k.conf");
    let base = ["run", "network", "--codes-config", f.to_str().unwrap(), "--load", "0.5", "--end", "1500"];
    let s = every_mode_agrees(&base);
    assert_eq!(s["config"]["model"]["routing"].as_str(), Some("ugal"));
    // Diameter 2: an intermediate's route is at most 4 router hops.
    let hops = s["model_results"]["hops_mean"].as_f64().unwrap();
    assert!(hops > 0.0 && hops <= 4.0, "{hops}");
    assert!(table(&f).contains("over 4 random intermediates"));
}

#[test]
fn tapering_and_limit_mistakes_are_refused_in_one_line() {
    let ft = ["run", "network", "--topology", "fattree", "--radix", "8", "--end", "10"];
    for (extra, want) in [
        (&["--tapering", "4"][..], "T + 1 must divide the radix"),
        (&["--tapering", "0.5"], "T be at least 1"),
        (&["--tapering", "3", "--nodes", "40"], "multiple of T·radix/(T + 1) = 6"),
        (&["--rail-select-limit", "10"], "--rail-select-limit is for --rail-select adaptive"),
        (&["--rails", "2", "--rail-select-limit", "10"], "--rail-select-limit is for --rail-select adaptive"),
    ] {
        assert_clear_error(&[&ft[..], extra].concat(), want);
    }
    assert_clear_error(
        &["run", "network", "--topology", "torus", "--tapering", "2", "--end", "10"],
        "--tapering is for --topology fattree",
    );
    let text = std::fs::read_to_string(data("dual-plane-fattree.conf")).unwrap();
    let f = tmp("taper5.conf");
    std::fs::write(&f, text.replace("tapering=\"1\"", "tapering=\"4\"")).unwrap();
    assert_clear_error(
        &["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "10"],
        "tapering + 1 must divide switch_radix 36",
    );
    let f = tmp("taper-nodes.conf");
    std::fs::write(&f, text.replace("tapering=\"1\"", "tapering=\"2\"")).unwrap();
    assert_clear_error(
        &["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "10"],
        "modelnet_fattree=\"18\" nodes per leaf, but a leaf of radix 36 has 24",
    );
}

/// `mpirun -n 2` and `-n 3` (built with `--features mpi`): a tapered
/// two-rail tree with adaptive selection commits the sequential digest.
#[cfg(feature = "mpi")]
#[test]
fn a_tapered_tree_matches_sequential_across_processes() {
    use std::process::{Command, Stdio};
    let model = [
        "network",
        "--topology",
        "fattree",
        "--radix",
        "8",
        "--levels",
        "2",
        "--tapering",
        "3",
        "--rails",
        "2",
        "--rail-select",
        "adaptive",
        "--rail-select-limit",
        "0",
        "--load",
        "0.6",
        "--end",
        "3000",
    ];
    let run = |np: usize, extra: &[&str]| {
        let path = tmp(&format!("mpi-taper-{np}.json"));
        let mut c = if np == 0 { Command::new(env!("CARGO_BIN_EXE_timewarp")) } else { common::mpi::mpirun(np) };
        c.arg("run").args(model).args(extra).args(["--quiet", "--stats-json", path.to_str().unwrap()]);
        let o = c.stdout(Stdio::piped()).stderr(Stdio::piped()).output().expect("mpirun starts");
        assert!(o.status.success(), "-n {np}: {}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_str::<Value>(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let seq = run(0, &["--sync", "sequential"]);
    for np in [2, 3] {
        for sync in ["conservative", "optimistic"] {
            let par = run(np, &["--sync", sync, "--threads", "2"]);
            assert_eq!(
                (&par["digest"], &par["model_results"]),
                (&seq["digest"], &seq["model_results"]),
                "-n {np} {sync}"
            );
        }
    }
}
