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

/// CODES's `dragonfly_plus` numbers routers and terminals across the LP
/// group's repetitions and checks only their totals (`dragonfly-plus.cxx`,
/// `router_plus_setup`): one router per repetition is the same network
/// as one group per repetition, so the same run (issue 61).
#[test]
fn a_dragonfly_plus_with_one_router_per_repetition_is_the_one_group_per_repetition_network() {
    let run = |conf: &str, extra: &[&str]| {
        let c = data(conf);
        stats(&[&["run", "network", "--codes-config", &c, "--end", "3000", "--load", "0.5"][..], extra].concat())
    };
    let groups = run("dfp-test.conf", &[]);
    let routers = run("dfp-test-per-router.conf", &[]);
    assert!(groups["model_results"]["delivered_packets"].as_u64().unwrap() > 0);
    assert_eq!((routers["lps"].as_u64(), routers["model_results"]["nodes"].as_u64()), (Some(40), Some(80)));
    assert_eq!(routers["digest"], groups["digest"], "the same network, the same run");
    let opt = run("dfp-test-per-router.conf", &["--sync", "optimistic", "--threads", "2"]);
    assert_eq!(opt["digest"], groups["digest"], "optimistic on 2 threads");
}

#[test]
fn dragonfly_plus_repetitions_whose_totals_disagree_are_refused_in_one_line() {
    let text = std::fs::read_to_string(data("dfp-test-per-router.conf")).unwrap();
    let dir = common::tmp("dfp-forms");
    std::fs::create_dir_all(&dir).unwrap();
    let try_conf = |name: &str, from: &str, to: &str, must: &str| {
        let path = dir.join(name);
        assert!(text.contains(from), "{from}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        let p = path.to_str().unwrap();
        assert_clear_error(
            &["run", "network", "--codes-config", p, "--connections-dir", &data(""), "--end", "1"],
            must,
        );
    };
    // 39 routers for 5 groups of 8.
    try_conf("routers.conf", "repetitions=\"40\"", "repetitions=\"39\"", "39 × modelnet_dragonfly_plus_router 1 = 39");
    // One router per repetition says nothing of the groups: num_groups is needed.
    try_conf("groups.conf", "num_groups=\"5\";", "", "give num_groups");
    // 3 terminals per repetition: 120 nodes, where 5 groups of 4 leaves of 4 have 80.
    try_conf("nodes.conf", "modelnet_dragonfly_plus=\"2\"", "modelnet_dragonfly_plus=\"3\"", "= 80 nodes but");
}
