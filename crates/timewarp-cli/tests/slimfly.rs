//! The Slim Fly from the command line (`--topology slimfly`) and from
//! CODES's `sfly_3k.conf`: its shape, its routings, every mode committing
//! the sequential digest, and its mistakes refused in one line.

mod common;
use common::{assert_clear_error, stats, stderr, timewarp};
use std::path::Path;

fn sfly_3k() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes/sfly_3k.conf").to_str().unwrap().to_string()
}

/// A quiet run's statistics from stdout (for long command lines).
fn json(args: &[&str]) -> serde_json::Value {
    let o = timewarp(&[args, &["-q", "--stats-json", "-"]].concat());
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn a_slim_fly_has_2q2_routers_and_delivers_under_every_routing() {
    for routing in ["minimal", "valiant", "ugal"] {
        let s = stats(&[
            "run",
            "network",
            "--topology",
            "slimfly",
            "--slimfly-q",
            "5",
            "--terminals-per-router",
            "3",
            "--routing",
            routing,
            "--load",
            "0.3",
            "--end",
            "3000",
        ]);
        let r = &s["model_results"];
        assert_eq!(
            (r["topology"].as_str(), r["nodes"].as_u64(), s["lps"].as_u64()),
            (Some("slimfly"), Some(150), Some(50))
        );
        let (inj, del, fly) = (
            r["injected_packets"].as_u64().unwrap(),
            r["delivered_packets"].as_u64().unwrap(),
            r["in_flight_packets"].as_u64().unwrap(),
        );
        assert!(del > 0 && inj == del + fly, "{routing}: {r}");
        // Diameter 2: a minimal route is at most 2 router hops, a Valiant one 4.
        let most = if routing == "minimal" { 2.0 } else { 4.0 };
        assert!(r["hops_mean"].as_f64().unwrap() <= most, "{routing}: {r}");
    }
}

#[test]
fn every_mode_commits_the_sequential_digest() {
    let base = ["run", "network", "--topology", "slimfly", "--slimfly-q", "5", "--load", "0.6", "--end", "3000"];
    for routing in ["minimal", "ugal", "valiant"] {
        let run = |extra: &[&str]| {
            let mut all = base.to_vec();
            all.extend(["--routing", routing]);
            all.extend(extra);
            stats(&all)
        };
        let seq = run(&["--sync", "sequential"]);
        assert!(seq["model_results"]["delivered_packets"].as_u64().unwrap() > 0);
        for sync in ["conservative", "optimistic"] {
            for threads in ["1", "2"] {
                let s = run(&["--sync", sync, "--threads", threads]);
                assert_eq!(s["digest"], seq["digest"], "{routing} {sync} {threads}");
                assert_eq!(s["model_results"], seq["model_results"], "{routing} {sync} {threads}");
            }
        }
    }
}

#[test]
fn codes_sfly_3k_runs_as_the_same_slim_fly_as_the_options() {
    let s = stats(&["run", "network", "--codes-config", &sfly_3k(), "--end", "2000", "--load", "0.2"]);
    let m = &s["config"]["model"];
    assert_eq!(
        (m["topology"].as_str(), m["slimfly-q"].as_u64(), m["terminals-per-router"].as_u64()),
        (Some("slimfly"), Some(13), Some(9))
    );
    assert_eq!(
        (m["routing"].as_str(), m["vcs"].as_u64(), m["router-delay"].as_f64()),
        (Some("ugal"), Some(4), Some(90.0))
    );
    assert_eq!((s["lps"].as_u64(), s["model_results"]["nodes"].as_u64()), (Some(338), Some(3042)));
    // The generator sets the file gives are MMS's for q = 13: the options alone build the same network.
    let by_hand = json(&[
        "run",
        "network",
        "--topology",
        "slimfly",
        "--slimfly-q",
        "13",
        "--terminals-per-router",
        "9",
        "--routing",
        "ugal",
        "--vcs",
        "4",
        "--router-delay",
        "90",
        "--packet-bytes",
        "4096",
        "--message-bytes",
        "4096",
        "--local-bandwidth",
        "13.4217728",
        "--global-bandwidth",
        "13.4217728",
        "--terminal-bandwidth",
        "13.4217728",
        "--local-buffer-packets",
        "16",
        "--global-buffer-packets",
        "16",
        "--terminal-latency",
        "305.17578125",
        "--local-latency",
        "305.17578125",
        "--global-link-latency",
        "305.17578125",
        // cn_vc_size = 65536 bytes: 16 packets.
        "--nic-buffer",
        "65536",
        // CODES's routers.
        "--switch",
        "codes",
        "--end",
        "2000",
        "--load",
        "0.2",
    ]);
    assert_eq!((&by_hand["model_results"], &by_hand["digest"]), (&s["model_results"], &s["digest"]));
}

#[test]
fn slim_fly_mistakes_are_refused_in_one_line() {
    let sf = ["run", "network", "--topology", "slimfly", "--end", "10"];
    fn with<'a>(sf: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [sf, extra].concat()
    }
    assert_clear_error(&with(&sf, &["--slimfly-q", "9"]), "--slimfly-q must be a prime of the form 4w ± 1");
    assert_clear_error(&with(&sf, &["--slimfly-q", "191"]), "too large");
    assert_clear_error(&with(&sf, &["--routing", "par"]), "a slimfly routes minimal, valiant or ugal");
    assert_clear_error(&with(&sf, &["--routing", "valiant", "--vcs", "3"]), "needs --vcs 4");
    assert_clear_error(&with(&sf, &["--level-bandwidth", "3"]), "--level-bandwidth is for --topology fattree");
    assert_clear_error(
        &with(&sf, &["--slimfly-q", "5", "--generator-set-x", "1,2", "--generator-set-x-prime", "1,3"]),
        "closed under negation",
    );
    let o = timewarp(&with(&sf, &["--generator-set-x", "1,4"]));
    assert!(!o.status.success() && stderr(&o).contains("--generator-set-x-prime"), "{}", stderr(&o));
}

#[test]
fn a_codes_slim_fly_that_timewarp_cannot_build_is_refused_in_one_line() {
    let text = std::fs::read_to_string(sfly_3k()).unwrap();
    let dir = std::env::temp_dir().join(format!("timewarp-sfly-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (text.replace("num_rails=\"1\"", "num_rails=\"2\""), "num_rails=\"2\" is not modelled"),
        (text.replace("sf_type=\"0\"", "sf_type=\"1\""), "sf_type=\"1\" is not modelled"),
        (text.replace("repetitions=\"338\"", "repetitions=\"300\""), "2q² = 338 routers"),
        (text.replace("global_channels=\"13\"", "global_channels=\"12\""), "global_channels=\"12\" but q is 13"),
        (text.replace("routing=\"adaptive\"", "routing=\"prog-adaptive\""), "not a Slim Fly routing timewarp has"),
        (text.replace("generator_set_X=(\"1\",\"10\",\"9\",\"12\",\"3\",\"4\");", ""), "needs both generator sets"),
    ];
    for (i, (t, says)) in cases.iter().enumerate() {
        let f = dir.join(format!("case{i}.conf"));
        std::fs::write(&f, t).unwrap();
        assert_clear_error(&["run", "network", "--codes-config", f.to_str().unwrap(), "--end", "10"], says);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
