//! CODES connection files end to end: a `dragonfly_custom` or
//! `dragonfly_dally` configuration wires its routers from its
//! `intra-group-connections` and `inter-group-connections` files (found
//! where named, else beside the configuration, or in --connections-dir),
//! and the wired network commits one digest in every mode.

mod common;

use common::{assert_clear_error, stats, stderr, timewarp, tmp};

/// The test copies of CODES's configurations and connection files.
fn data(name: &str) -> String {
    format!("{}/tests/data/codes/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn theta_reads_its_connection_files_from_beside_its_configuration() {
    let conf = data("modelnet-test-dragonfly-theta.conf");
    let o = timewarp(&["run", "network", "--codes-config", &conf, "--end", "1", "--stats-json", "-"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    // (The table wraps long notes: compare its words.)
    let words = err.split_whitespace().collect::<Vec<_>>().join(" ");
    for row in ["--intra-connections ../src/network-workloads", "beside the configuration", "--connections-model"] {
        assert!(words.contains(row), "the table shows '{row}': {err}");
    }
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &s["config"]["model"];
    assert_eq!(m["connections-dir"].as_str(), Some(data("").trim_end_matches('/')));
    assert_eq!((s["lps"].as_u64(), s["model_results"]["nodes"].as_u64()), (Some(864), Some(3456)));
    // CODES's "adaptive" is UGAL: its Valiant routes, with Aries' two
    // local hops per group, get the 3·2 + 2 channels they need by default.
    assert_eq!(m["routing"].as_str(), Some("ugal"));
    // The buffers in use, by class (terminal, local 8,192 B, global 16,384 B
    // of 2,048-byte packets), and the largest: not the unused default.
    let r = &s["model_results"];
    assert_eq!(r["class_buffer_packets"], serde_json::json!([4, 4, 8]));
    assert_eq!(r["buffer_packets"], 8);
}

/// The table says what the connection files overrule (issue 61): Theta's
/// `num_global_channels="4"` changes nothing once the files give each
/// router its 2 to 4 global links, and the connections model is a choice
/// of ours, not a key of the file.
#[test]
fn the_table_says_the_connection_files_rule_the_global_links() {
    let conf = data("modelnet-test-dragonfly-theta.conf");
    let o = timewarp(&["run", "network", "--codes-config", &conf, "--end", "1"]);
    let err = String::from_utf8_lossy(&o.stdout).into_owned() + &stderr(&o);
    assert!(o.status.success(), "{err}");
    let rows: Vec<Vec<&str>> = err.lines().map(|l| l.split_whitespace().collect()).collect();
    let row = |first: &str| rows.iter().find(|r| r.first() == Some(&first)).unwrap_or_else(|| panic!("{first}: {err}"));
    let global = row("num_global_channels").join(" ");
    assert!(global.starts_with("num_global_channels 4 file ignored each router's global links"), "{global}");
    let model = rows.iter().find(|r| r.contains(&"--connections-model")).expect("the connections model's row");
    assert_eq!(model[..2], ["timewarp", "ours"], "not a key of the file: {}", model.join(" "));
    // Only the files decide: another count commits the same run.
    let digest = |extra: &[&str]| {
        stats(&[&["run", "network", "--codes-config", &conf, "--end", "2000"][..], extra].concat())["digest"].clone()
    };
    assert_eq!(digest(&[]), digest(&["--global-links", "2"]));
}

#[test]
fn a_missing_connection_file_is_one_line_naming_both_places() {
    let conf = tmp("theta-alone.conf");
    std::fs::copy(data("modelnet-test-dragonfly-theta.conf"), &conf).unwrap();
    let c = conf.to_str().unwrap();
    let beside = conf.with_file_name("intra-theta");
    assert_clear_error(
        &["run", "network", "--codes-config", c, "--end", "1", "-q"],
        "../src/network-workloads/conf/dragonfly-custom/intra-theta",
    );
    assert_clear_error(&["run", "network", "--codes-config", c, "--end", "1", "-q"], beside.to_str().unwrap());
    // --connections-dir replaces the folder the import chose.
    let s = stats(&["run", "network", "--codes-config", c, "--end", "1", "--connections-dir", &data("")]);
    assert_eq!(s["model_results"]["nodes"].as_u64(), Some(3456));
    let empty = tmp("no-files-here");
    std::fs::create_dir_all(&empty).unwrap();
    assert_clear_error(
        &["run", "network", "--codes-config", c, "--end", "1", "-q", "--connections-dir", empty.to_str().unwrap()],
        "--connections-dir",
    );
}

/// Theta's rows and columns (its intra file) with `g` groups whose routers
/// have `h` global links each, dealt round-robin over the other groups
/// (unevenly when `(g − 1)` does not divide `96 h`), written as CODES's
/// inter file.
fn inter_file(g: u32, h: u32) -> std::path::PathBuf {
    let a = 96u32;
    let mut recs: Vec<(u32, u32)> = Vec::new();
    // Link k of group x (k < a·h) goes to the group (x + 1 + k mod (g − 1)) mod g, in pairs made once.
    let mut used = vec![0u32; (a * g) as usize];
    for x in 0..g {
        for y in x + 1..g {
            for m in 0..(a * h) / (g - 1) + 1 {
                let (s, d) = (x * a + (m * 7 + y) % a, y * a + (m * 5 + x) % a);
                if used[s as usize] < h && used[d as usize] < h {
                    used[s as usize] += 1;
                    used[d as usize] += 1;
                    recs.push((s, d));
                    recs.push((d, s));
                }
            }
        }
    }
    let path = tmp(&format!("inter-{g}-{h}"));
    let bytes: Vec<u8> =
        recs.iter().flat_map(|&(s, d)| [(s as i32).to_le_bytes(), (d as i32).to_le_bytes()]).flatten().collect();
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn fifteen_groups_of_aries_routers_run_where_the_standard_arrangement_is_refused() {
    // Edison: 15 groups; its a·h = 960 links do not split evenly over 14 other groups.
    let base =
        ["run", "network", "--topology", "dragonfly", "--routers-per-group", "96", "--terminals-per-router", "4"];
    let o = timewarp(&[&base[..], &["--global-links", "10", "--groups", "15", "--end", "1"]].concat());
    assert!(stderr(&o).contains("split evenly"), "{}", stderr(&o));
    let inter = inter_file(15, 10);
    let wired = [
        "--groups",
        "15",
        "--intra-connections",
        &data("intra-theta"),
        "--inter-connections",
        inter.to_str().unwrap(),
        "--end",
        "3000",
        "--load",
        "0.1",
    ];
    let s = stats(&[&base[..], &wired[..]].concat());
    let r = &s["model_results"];
    assert_eq!(r["nodes"].as_u64(), Some(15 * 96 * 4));
    assert!(r["delivered_packets"].as_u64().unwrap() > 1000, "{r}");
    // Minimal routes: at most 2 local hops, the global one, 2 local hops.
    assert!((1.0..=5.0).contains(&r["hops_mean"].as_f64().unwrap()), "{r}");
}

#[test]
fn a_wired_dragonfly_commits_the_same_digest_in_every_mode() {
    // (dfdally_72's links take CODES's time of a 4 KiB chunk at 2 GiB/s
    // twice, on the link and as propagation: its first packets arrive after
    // about 10 µs.)
    for (file, routing, end) in [
        ("modelnet-test-dragonfly-theta.conf", "ugal", "2000"),
        ("modelnet-test-dragonfly-theta.conf", "minimal", "2000"),
        ("modelnet-test-dragonfly-theta.conf", "valiant", "2000"),
        ("modelnet-test-dragonfly-theta.conf", "par", "2000"),
        ("dfdally_72.conf", "par", "30000"),
    ] {
        let conf = data(file);
        let run = ["run", "network", "--codes-config", &conf, "--routing", routing, "--end", end, "--load", "0.4"];
        let seq = stats(&run);
        assert!(seq["model_results"]["delivered_packets"].as_u64().unwrap() > 0, "{file} {routing}");
        for (sync, threads) in [("optimistic", "1"), ("optimistic", "2"), ("conservative", "2")] {
            let s = stats(&[&run[..], &["--sync", sync, "--threads", threads]].concat());
            assert_eq!(s["digest"], seq["digest"], "{file} {routing} {sync} {threads}");
        }
    }
}

#[test]
fn bad_connection_files_and_options_are_refused_in_one_line() {
    let short = tmp("short-intra");
    std::fs::write(&short, [1u8; 13]).unwrap();
    let base =
        ["run", "network", "--topology", "dragonfly", "--routers-per-group", "96", "--groups", "9", "--end", "1"];
    let inter = data("inter-theta");
    assert_clear_error(
        &[&base[..], &["--intra-connections", short.to_str().unwrap(), "--inter-connections", &inter]].concat(),
        "not a whole number of 12-byte records",
    );
    // The files of 9 groups read as 8: a router number past the network.
    assert_clear_error(
        &[
            "run",
            "network",
            "--topology",
            "dragonfly",
            "--routers-per-group",
            "96",
            "--groups",
            "8",
            "--end",
            "1",
            "--intra-connections",
            &data("intra-theta"),
            "--inter-connections",
            &inter,
        ],
        "not between routers of two different groups",
    );
    // One file without the other.
    assert_clear_error(&[&base[..], &["--inter-connections", &inter]].concat(), "give both");
    assert_clear_error(
        &[
            &base[..],
            &["--intra-connections", &data("intra-theta"), "--inter-connections", &inter, "--routing", "ugal-g"],
        ]
        .concat(),
        "ugal-g",
    );
    assert_clear_error(
        &[
            &base[..],
            &[
                "--intra-connections",
                &data("intra-theta"),
                "--inter-connections",
                &inter,
                "--routing",
                "minimal",
                "--vcs",
                "3",
            ],
        ]
        .concat(),
        "--vcs 5",
    );
}

#[test]
fn the_dally_3k_network_accepts_load_0_3_wired_by_its_files() {
    // 3,078 nodes; with the standard arrangement's fixed parallel link and
    // the slowest-link tail rule it accepted 0.22 (minimal) to 0.25 (UGAL).
    let conf = data("dfdally_3k.conf");
    for routing in ["minimal", "par"] {
        let run = ["run", "network", "--codes-config", &conf, "--routing", routing, "--load", "0.3"];
        let s = stats(&[&run[..], &["--end", "20000", "--warmup", "8000"]].concat());
        let r = &s["model_results"];
        let (offered, accepted) =
            (r["measured_offered_load"].as_f64().unwrap(), r["accepted_throughput"].as_f64().unwrap());
        assert!((accepted - offered).abs() <= 0.05 * offered, "{routing}: accepted {accepted} of {offered}: {r}");
    }
}

/// A CODES configuration named relative to the working directory records
/// its connection files' folder as an absolute path, so the run file that
/// `--print-config` writes runs from any other folder (it once wrote
/// `connections-dir = "."`).
#[test]
fn a_printed_run_file_finds_the_connection_files_from_another_folder() {
    let dir = data("");
    let here = std::path::Path::new(&dir);
    let bin = env!("CARGO_BIN_EXE_timewarp");
    let print = std::process::Command::new(bin)
        .current_dir(here)
        .args(["run", "network", "--codes-config", "dfdally_72.conf", "--end", "1000", "-q", "--print-config"])
        .output()
        .unwrap();
    assert!(print.status.success(), "{}", stderr(&print));
    let text = String::from_utf8(print.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("connections-dir")).unwrap_or_else(|| panic!("{text}"));
    assert!(!line.contains("\".\"") && line.contains(dir.trim_end_matches('/')), "{line}");
    let file = tmp("dally-from-elsewhere.toml");
    std::fs::write(&file, &text).unwrap();
    let elsewhere = file.parent().unwrap();
    let run = |cwd: &std::path::Path, args: &[&str]| {
        let o = std::process::Command::new(bin).current_dir(cwd).args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let replayed = run(elsewhere, &["run", "--config", file.to_str().unwrap(), "-q", "--stats-json", "-"]);
    let first =
        run(here, &["run", "network", "--codes-config", "dfdally_72.conf", "--end", "1000", "-q", "--stats-json", "-"]);
    assert_eq!(replayed["digest"], first["digest"]);
}

/// `dragonfly_dally`'s `adaptive_threshold` (bytes) and
/// `route_scoring_metric` are taken under prog-adaptive, as
/// `dragonfly-dally.cxx` reads them (absent: 0 and delta; beta stops
/// CODES, so it is refused), and the run commits one digest in every mode.
/// That the threshold and delta change the choice as CODES's rule says:
/// route.rs's `dally_decides_by_codes_threshold_and_scoring`.
#[test]
fn dally_prog_adaptive_takes_codes_threshold_and_scoring() {
    let text = std::fs::read_to_string(data("dfdally_72.conf")).unwrap();
    let adaptive =
        |extra: &str| text.replacen("routing=\"minimal\";", &format!("routing=\"prog-adaptive\";{extra}"), 1);
    let write = |name: &str, body: String| {
        let f = tmp(name);
        std::fs::write(&f, body).unwrap();
        f.to_str().unwrap().to_string()
    };
    let dir = data("");
    let run = |conf: &str, extra: &[&str]| {
        let base = ["run", "network", "--codes-config", conf, "--connections-dir", &dir, "--load", "0.7"];
        stats(&[&base[..], extra].concat())
    };
    // 8,192 bytes of 4,096-byte packets: 2 packets; alpha as written.
    let given =
        write("dally-t.conf", adaptive("\n   adaptive_threshold=\"8192\";\n   route_scoring_metric=\"alpha\";"));
    let s = run(&given, &["--end", "6000"]);
    let m = &s["config"]["model"];
    assert_eq!((m["routing"].as_str(), m["ugal-threshold"].as_f64()), (Some("par"), Some(2.0)), "{m}");
    assert_eq!(m["route-scoring"].as_str(), Some("alpha"));
    for (sync, threads) in [("optimistic", "2"), ("conservative", "2")] {
        let o = run(&given, &["--end", "6000", "--sync", sync, "--threads", threads]);
        assert_eq!(o["digest"], s["digest"], "{sync} {threads}");
    }
    // Neither given: CODES's defaults, 0 and delta.
    let m = run(&write("dally-d.conf", adaptive("")), &["--end", "1"])["config"]["model"].clone();
    assert_eq!((m["ugal-threshold"].as_f64(), m["route-scoring"].as_str()), (Some(0.0), Some("delta")), "{m}");
    let beta = write("dally-b.conf", adaptive("\n   route_scoring_metric=\"beta\";"));
    assert_clear_error(&["run", "network", "--codes-config", &beta, "--connections-dir", &dir, "--end", "1"], "beta");
}
