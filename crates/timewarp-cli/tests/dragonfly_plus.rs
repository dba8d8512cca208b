//! Dragonfly+ end to end: `--topology dragonfly-plus` (the standard
//! arrangement or CODES's connection files) and CODES's `dragonfly_plus`
//! configuration; one digest in every mode; bad shapes refused in one line.

mod common;

use common::{assert_clear_error, stats, stderr, timewarp};

fn data(name: &str) -> String {
    format!("{}/tests/data/codes/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_standard_dragonfly_plus_puts_nodes_on_leaves_only() {
    let s = stats(&["run", "network", "--topology", "dragonfly-plus", "--end", "2000", "--load", "0.3"]);
    let r = &s["model_results"];
    // Defaults: 4 leaves × 2 nodes, 4 spines × 2 global links: 9 groups.
    assert_eq!((s["lps"].as_u64(), r["nodes"].as_u64()), (Some(72), Some(72)), "{r}");
    // Leaf to leaf: 2 hops in a group, 3 between groups.
    let hops = r["hops_mean"].as_f64().unwrap();
    assert!((2.0..=3.0).contains(&hops), "{r}");
    assert_eq!(r["topology"], "dragonfly-plus", "the topology the run was given");
}

#[test]
fn codes_dfp_test_runs_from_its_configuration_and_files() {
    let conf = data("dfp-test.conf");
    let o =
        timewarp(&["run", "network", "--codes-config", &conf, "--end", "2000", "--load", "0.3", "--stats-json", "-"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    for row in
        ["model dragonfly_plus", "--leaves-per-group 4", "--spines-per-group 4", "--routing par", "--intra-connections"]
    {
        assert!(err.contains(row), "the table shows '{row}': {err}");
    }
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // 5 groups of 8 routers; 16 nodes per group (modelnet_dragonfly_plus).
    assert_eq!((s["lps"].as_u64(), s["model_results"]["nodes"].as_u64()), (Some(40), Some(80)));
}

#[test]
fn a_dragonfly_plus_commits_the_same_digest_in_every_mode() {
    let conf = data("dfp-test.conf");
    for run in [
        vec!["run", "network", "--codes-config", &conf, "--end", "3000", "--load", "0.5"],
        vec!["run", "network", "--codes-config", &conf, "--routing", "valiant", "--end", "3000", "--load", "0.5"],
        vec!["run", "network", "--topology", "dragonfly-plus", "--routing", "ugal", "--end", "3000", "--load", "0.6"],
    ] {
        let seq = stats(&run);
        assert!(seq["model_results"]["delivered_packets"].as_u64().unwrap() > 0, "{run:?}");
        for (sync, threads) in [("optimistic", "1"), ("optimistic", "2"), ("conservative", "2")] {
            let s = stats(&[&run[..], &["--sync", sync, "--threads", threads]].concat());
            assert_eq!(s["digest"], seq["digest"], "{run:?} {sync} {threads}");
        }
    }
}

#[test]
fn bad_dragonfly_plus_shapes_and_files_are_refused_in_one_line() {
    let plus = ["run", "network", "--topology", "dragonfly-plus", "--end", "1"];
    // 4 spines × 3 global links do not split over 5 other groups.
    assert_clear_error(&[&plus[..], &["--global-links", "3", "--groups", "6"]].concat(), "split evenly");
    // A Dally file is not a Dragonfly+'s: its intra records have a third field.
    assert_clear_error(
        &[
            &plus[..],
            &[
                "--leaves-per-group",
                "2",
                "--spines-per-group",
                "2",
                "--groups",
                "9",
                "--intra-connections",
                &data("dfdally-72-intra"),
                "--inter-connections",
                &data("dfdally-72-inter"),
            ],
        ]
        .concat(),
        "dfdally-72",
    );
    let conf = data("dfp-test.conf");
    assert_clear_error(
        &["run", "network", "--codes-config", &conf, "-q", "--routing", "ugal-g", "--end", "1"],
        "ugal-g",
    );
}
