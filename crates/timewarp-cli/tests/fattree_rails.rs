//! Multi-rail fat-trees (`--rails`, `--rail-select`; CODES's `num_rails`,
//! `rail_select`): `dual-plane-fattree.conf` and its YAML twin run as two
//! rails, every mode commits the same digest, a run without the options
//! keeps its digest, and what timewarp does not model (tapering below
//! 1) is refused in one line.

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

#[test]
fn the_dual_plane_fat_tree_runs_as_two_rails_in_either_form() {
    let mut digests = Vec::new();
    for name in ["dual-plane-fattree.conf", "dual-plane-fattree.yaml"] {
        let f = data(name);
        let s = json(&["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "4000", "--load", "0.3"]);
        let m = &s["config"]["model"];
        assert_eq!((m["rails"].as_u64(), m["rail-select"].as_str()), (Some(2), Some("adaptive")), "{name}");
        // 252 leaves of 18 nodes; per rail 252 aggregation and 18 groups of 9 core switches.
        assert_eq!(
            (s["lps"].as_u64(), s["model_results"]["nodes"].as_u64()),
            (Some(252 + 2 * (252 + 162)), Some(4536))
        );
        // Two rail links of 24 bytes/ns per node, as one NIC link.
        assert_eq!(m["terminal-bandwidth"].as_f64(), Some(48.0));
        assert!(s["model_results"]["delivered_packets"].as_u64().unwrap() > 0);
        digests.push(s["digest"].clone());
    }
    assert_eq!(digests[0], digests[1]);
    // The table says what each rail key became.
    let f = data("dual-plane-fattree.conf");
    let o = timewarp(&["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "1"]);
    let words = stderr(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    for row in ["--rails 2", "--rail-select adaptive", "= num_rails", "a node's 2 rail links of 24"] {
        assert!(words.contains(row), "'{row}' in {words}");
    }
}

#[test]
fn every_mode_and_selection_commits_the_sequential_digest() {
    for select in ["dedicated", "adaptive", "random"] {
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
            "--top-uplinks",
            "2",
            "--rails",
            "2",
            "--rail-select",
            select,
            "--load",
            "0.6",
            "--end",
            "3000",
        ];
        let seq = json(&[&base[..], &["--sync", "sequential"]].concat());
        assert!(seq["model_results"]["delivered_packets"].as_u64().unwrap() > 0);
        for sync in ["conservative", "optimistic"] {
            for threads in ["1", "2"] {
                let s = json(&[&base[..], &["--sync", sync, "--threads", threads]].concat());
                assert_eq!(s["digest"], seq["digest"], "{select} {sync} {threads}");
            }
        }
    }
}

#[test]
fn one_rail_is_the_plain_tree_with_its_digest() {
    let base = ["run", "network", "--topology", "fattree", "--load", "0.5", "--end", "3000"];
    let plain = json(&base);
    let one = json(&[&base[..], &["--rails", "1", "--rail-select", "dedicated"]].concat());
    assert_eq!(plain["digest"], one["digest"]);
    assert_eq!(plain["model_results"], one["model_results"]);
}

#[test]
fn rail_mistakes_and_tapering_are_refused_in_one_line() {
    assert_clear_error(
        &["run", "network", "--topology", "torus", "--rails", "2", "--end", "10"],
        "--rails is for --topology fattree",
    );
    assert_clear_error(
        &["run", "network", "--topology", "dragonfly", "--rail-select", "random", "--end", "10"],
        "--rail-select is for --topology fattree",
    );
    assert_clear_error(
        &["run", "network", "--topology", "fattree", "--radix", "36", "--rails", "20", "--end", "10"],
        "--rails 20",
    );
    let text = std::fs::read_to_string(data("dual-plane-fattree.conf")).unwrap();
    let f = tmp("tapered.conf");
    // Tapering is modelled (tests/codes_fattree_slimfly.rs); below 1 it is not.
    std::fs::write(&f, text.replace("tapering=\"1\"", "tapering=\"0.5\"")).unwrap();
    assert_clear_error(
        &["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "10"],
        "tapering=\"0.5\" is not modelled",
    );
    let f = tmp("queues.conf");
    std::fs::write(&f, text.replace("num_injection_queues=\"2\"", "num_injection_queues=\"1\"")).unwrap();
    assert_clear_error(
        &["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "10"],
        "num_injection_queues=\"1\" but num_rails is 2",
    );
}

#[test]
fn a_command_line_rail_selection_drops_the_file_s_adaptive_limit() {
    // The file selects adaptively with rail_select_limit 8192; the limit
    // only weighs adaptive selections, so --rail-select dedicated drops it.
    let f = data("dual-plane-fattree.conf");
    let f = f.to_str().unwrap();
    let base = ["run", "network", "--codes-config", f, "--end", "2000", "--load", "0.3"];
    let s = json(&[&base[..], &["--rail-select", "dedicated"]].concat());
    let m = &s["config"]["model"];
    assert_eq!((m["rail-select"].as_str(), &m["rail-select-limit"]), (Some("dedicated"), &Value::Null), "{m}");
    let o = timewarp(&[&base[..], &["--rail-select", "dedicated"]].concat());
    let table = stderr(&o);
    assert!(o.status.success() && table.contains("dropped"), "{table}");
    // Adaptive from the command line keeps it.
    let s = json(&[&base[..], &["--rail-select", "adaptive"]].concat());
    assert_eq!(s["config"]["model"]["rail-select-limit"].as_u64(), Some(8192));
}
