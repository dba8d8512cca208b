//! Dragonfly+ routings as CODES's `dragonfly-plus.cxx` does them, end to
//! end: each routing's hops under all-inter-group traffic against the
//! exact count, CODES's routing names and keys imported, the least
//! congested spine keeping a leaf's uplinks even, and every mode
//! committing one digest per routing.

mod common;

use common::{assert_clear_error, stats, stderr, timewarp, tmp};

fn data(name: &str) -> String {
    format!("{}/tests/data/codes/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// CODES's dfp-test (5 groups of 4 leaves of 4 nodes and 4 spines, every
/// spine linked once to every other group) under `--traffic group-shift`
/// (every packet leaves its group; at load 0.01 its global links are a
/// fifth busy).
fn run(routing: &str, extra: &[&str]) -> serde_json::Value {
    let conf = data("dfp-test.conf");
    let base = ["run", "network", "--codes-config", &conf, "--routing", routing, "--traffic", "group-shift"];
    stats(&[&base[..], &["--end", "20000", "--load", "0.01"], extra].concat())
}

/// Between groups: minimal leaf–spine–spine–leaf (3 hops); non-minimal-spine
/// (`valiant`) through a spine of the intermediate group, which on dfp-test
/// always has a link on (4); non-minimal-leaf down to a leaf there and up
/// again (6); prog-adaptive 3 or 6 (CODES's alpha score without a
/// threshold turns non-minimal whenever the minimal global link holds more
/// than the non-minimal one, even at this load), and always 3 with a
/// threshold no queue reaches.
#[test]
fn every_routing_takes_its_exact_hops_between_groups() {
    for (routing, hops) in [("minimal", 3.0), ("non-minimal-spine", 4.0), ("non-minimal-leaf", 6.0)] {
        let r = &run(routing, &[])["model_results"];
        assert!(r["delivered_packets"].as_u64().unwrap() > 100, "{routing}: {r}");
        assert_eq!(r["hops_mean"].as_f64(), Some(hops), "{routing}: every packet {hops} hops: {r}");
        assert_eq!(r["hops_std"].as_f64(), Some(0.0), "{routing}: {r}");
    }
    let r = &run("prog-adaptive", &[])["model_results"];
    let hops = r["hops_mean"].as_f64().unwrap();
    assert!(hops > 3.0 && hops < 6.0, "prog-adaptive: {r}");
    let r = &run("prog-adaptive", &["--ugal-threshold", "1000"])["model_results"];
    assert_eq!((r["hops_mean"].as_f64(), r["hops_std"].as_f64()), (Some(3.0), Some(0.0)), "{r}");
}

/// CODES's names are routings of their own on the command line, and
/// non-minimal-leaf is refused where it means nothing.
#[test]
fn codes_routing_names_are_accepted_and_non_minimal_leaf_needs_a_dragonfly_plus() {
    let a = run("non-minimal-spine", &[]);
    let b = run("valiant", &[]);
    assert_eq!(a["digest"], b["digest"], "non-minimal-spine is valiant");
    let a = run("prog-adaptive", &[]);
    let b = run("par", &[]);
    assert_eq!(a["digest"], b["digest"], "prog-adaptive is par");
    assert_clear_error(
        &["run", "network", "--topology", "dragonfly", "--routing", "non-minimal-leaf", "--end", "1"],
        "dragonfly-plus",
    );
}

/// CODES's keys: each routing imported as itself, the threshold converted
/// to packets, the scoring metric shown, a non-default consider flag refused.
#[test]
fn codes_dragonfly_plus_routing_keys_are_imported() {
    let text = std::fs::read_to_string(data("dfp-test.conf")).unwrap();
    let dir = format!("{}/tests/data/codes", env!("CARGO_MANIFEST_DIR"));
    let conf = |name: &str, edit: &dyn Fn(&str) -> String| {
        let path = tmp(name);
        std::fs::write(&path, edit(&text)).unwrap();
        path.to_str().unwrap().to_string()
    };
    for (codes, ours) in [
        ("non-minimal-leaf", "--routing non-minimal-leaf"),
        ("non-minimal-spine", "--routing valiant"),
        ("minimal", "--routing minimal"),
    ] {
        let path = conf(&format!("dfp-{codes}.conf"), &|t| t.replace("\"prog-adaptive\"", &format!("\"{codes}\"")));
        let o = timewarp(&["run", "network", "--codes-config", &path, "--connections-dir", &dir, "--end", "500"]);
        let err = stderr(&o);
        assert!(o.status.success(), "{err}");
        assert!(err.contains(ours), "{codes} becomes {ours}: {err}");
    }
    let path = conf("dfp-threshold.conf", &|t| {
        t.replace("routing=\"prog-adaptive\";", "routing=\"prog-adaptive\"; adaptive_threshold=\"4096\";")
    });
    let o = timewarp(&["run", "network", "--codes-config", &path, "--connections-dir", &dir, "--end", "500"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("--ugal-threshold 4"), "4096 bytes of 1024-byte packets: {err}");
    assert!(err.contains("route_scoring_metric") && err.contains("--route-scoring delta"), "{err}");
    let path = conf("dfp-consider.conf", &|t| {
        t.replace("routing=\"prog-adaptive\";", "routing=\"prog-adaptive\"; int_spine_consider_min=\"1\";")
    });
    assert_clear_error(
        &["run", "network", "--codes-config", &path, "--connections-dir", &dir, "--end", "1"],
        "int_spine_consider_min",
    );
}

/// A leaf's uplinks under saturating inter-group traffic: every packet of
/// a leaf may take any of its 4 spines, and taking the least congested
/// keeps their loads even (measured: within 10% of each other on every
/// leaf; a uniform draw spreads them by chance, not by queue). Sequential
/// and `--threads 1` runs agree exactly. Measured with the input-buffered
/// switch, named here over the import's `codes`: the subject is the
/// spine choice, not the switch.
#[test]
fn the_least_congested_spine_keeps_a_leafs_uplinks_even() {
    let links = tmp("dfp-links.csv");
    let l = links.to_str().unwrap();
    let conf = data("dfp-test.conf");
    let args = [
        "run",
        "network",
        "--codes-config",
        &conf,
        "--switch",
        "input-buffered",
        "--routing",
        "minimal",
        "--traffic",
        "group-shift",
        "--load",
        "0.9",
        "--end",
        "20000",
    ];
    let s = stats(&[&args[..], &["--sync", "optimistic", "--threads", "1", "--link-stats", l]].concat());
    let seq = stats(&[&args[..], &["--sync", "sequential"]].concat());
    assert_eq!(s["digest"], seq["digest"]);
    let csv = std::fs::read_to_string(&links).unwrap();
    // Per leaf (routers 0..20), the packets on its links to spines (20..40).
    let mut up = vec![Vec::new(); 20];
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (src, dst, packets): (u32, u32, f64) =
            (f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap());
        if src < 20 && (20..40).contains(&dst) {
            up[src as usize].push(packets);
        }
    }
    for (leaf, p) in up.iter().enumerate() {
        assert_eq!(p.len(), 4, "leaf {leaf}: {csv}");
        let (lo, hi) = (p.iter().cloned().fold(f64::MAX, f64::min), p.iter().cloned().fold(0.0, f64::max));
        assert!(lo > 0.0 && hi <= 1.1 * lo, "leaf {leaf}: uplinks {p:?}");
    }
}

/// One digest per routing in every mode: sequential, conservative,
/// optimistic on 1 thread with 4 PEs and on 2 threads.
#[test]
fn every_routing_commits_one_digest_in_every_mode() {
    for routing in ["minimal", "non-minimal-spine", "non-minimal-leaf", "prog-adaptive"] {
        for traffic in ["uniform", "group-shift"] {
            let extra = ["--load", "0.3", "--traffic", traffic];
            let conf = data("dfp-test.conf");
            let base = ["run", "network", "--codes-config", &conf, "--routing", routing, "--end", "10000"];
            let seq = stats(&[&base[..], &extra, &["--sync", "sequential"]].concat());
            assert!(seq["model_results"]["delivered_packets"].as_u64().unwrap() > 0);
            for mode in [
                &["--sync", "conservative", "--threads", "2"][..],
                &["--sync", "optimistic", "--threads", "1", "--pes", "4"],
                &["--sync", "optimistic", "--threads", "2"],
            ] {
                let s = stats(&[&base[..], &extra, mode].concat());
                assert_eq!(s["digest"], seq["digest"], "{routing} {traffic} {mode:?}");
                assert_eq!(s["model_results"], seq["model_results"], "{routing} {traffic} {mode:?}");
            }
        }
    }
}

/// CODES's dragonfly_custom (Theta) decides adaptively with a threshold of
/// `local_vc_size / 8` bytes when its file names none: 1,024 bytes of
/// 2,048-byte packets. The threshold goes with the file's adaptive
/// routing: another routing on the command line drops it.
#[test]
fn a_custom_dragonflys_adaptive_threshold_is_codes_default_and_goes_with_its_routing() {
    let conf = data("modelnet-test-dragonfly-theta.conf");
    let o = timewarp(&["run", "network", "--codes-config", &conf, "--end", "1", "--print-config"]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(o.status.success(), "{err}");
    assert!(out.contains("ugal-threshold = 0.5"), "{out}");
    assert!(err.contains("adaptive_threshold") && err.contains("CODES default"), "{err}");
    for (routing, kept) in [("minimal", false), ("valiant", false), ("par", true)] {
        let o = timewarp(&[
            "run",
            "network",
            "--codes-config",
            &conf,
            "--routing",
            routing,
            "--end",
            "1",
            "--print-config",
        ]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{routing}: {}", stderr(&o));
        assert_eq!(out.contains("ugal-threshold = 0.5"), kept, "{routing}: {out}");
    }
}

/// CODES's `minimal-bias=1` doubles the non-minimal count on a
/// dragonfly_custom (`BIAS_MIN` in `dragonfly-custom.cxx`): taken as
/// `--route-scoring delta`, 0 as alpha; the run commits one digest in
/// every mode. The rule itself: route.rs's
/// `custom_minimal_bias_doubles_the_non_minimal_count`.
#[test]
fn a_custom_dragonflys_minimal_bias_is_delta() {
    let text = std::fs::read_to_string(data("modelnet-test-dragonfly-theta.conf")).unwrap();
    let dir = format!("{}/tests/data/codes", env!("CARGO_MANIFEST_DIR"));
    for (bias, scoring) in [("1", "delta"), ("0", "alpha")] {
        let path = tmp(&format!("theta-bias-{bias}.conf"));
        let body = text.replace("routing=\"adaptive\";", &format!("routing=\"adaptive\"; minimal-bias=\"{bias}\";"));
        std::fs::write(&path, body).unwrap();
        let model =
            ["run", "network", "--codes-config", path.to_str().unwrap(), "--connections-dir", &dir, "--end", "1500"];
        let seq = stats(&model);
        assert_eq!(seq["config"]["model"]["route-scoring"].as_str(), Some(scoring), "minimal-bias {bias}");
        if bias == "1" {
            let opt = stats(&[&model[..], &["--sync", "optimistic", "--threads", "2"]].concat());
            assert_eq!(opt["digest"], seq["digest"], "optimistic on 2 threads");
        }
    }
}

/// Each Dragonfly+ routing under `mpirun -n 2` and `-n 3` commits the
/// sequential digest (built only with `--features mpi`, as tests/mpi.rs).
#[cfg(feature = "mpi")]
#[test]
fn every_routing_matches_sequential_across_processes() {
    let conf = data("dfp-test.conf");
    for routing in ["minimal", "non-minimal-leaf", "prog-adaptive"] {
        let model = ["run", "network", "--codes-config", &conf, "--routing", routing, "--load", "0.4", "--end", "3000"];
        let seq = stats(&[&model[..], &["--sync", "sequential"]].concat());
        for (np, sync, threads) in [(2, "optimistic", "2"), (3, "conservative", "1")] {
            let path = tmp(&format!("mpi-{routing}-{np}.json"));
            let o = common::mpi::mpirun(np)
                .args(model)
                .args(["--quiet", "--sync", sync, "--threads", threads, "--stats-json", path.to_str().unwrap()])
                .output()
                .expect("runs (is OpenMPI installed? see README)");
            assert!(o.status.success(), "{routing} -n {np}: {}", stderr(&o));
            let par: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(par["digest"], seq["digest"], "{routing} mpirun -n {np} --sync {sync}");
            assert_eq!(par["model_results"], seq["model_results"], "{routing} mpirun -n {np}");
        }
    }
}
