//! Bad input, round 4 (issue 42's smaller findings): a CODES key of 65,536
//! characters, a DUMPI `.bin` file as `--trace-dir`, options of another
//! workload, control and bidi characters quoted from files, a deadlock of
//! many ranks, a CODES configuration beside another `--topology`, and the
//! statistics file's temporary left by `kill -9`.

mod common;
use common::{assert_clear_error, stderr, timewarp};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("timewarp-round4-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn codes(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes").join(name)).unwrap()
}

fn dumpi(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../timewarp-models/tests/data/dumpi").join(name)
}

/// Characters that must never reach a terminal from a file: controls other
/// than the message's own line break, bidi embeddings, overrides, isolates
/// and marks.
fn raw_controls(text: &str) -> Vec<char> {
    text.trim_end_matches('\n')
        .chars()
        .filter(|&c| {
            c.is_control()
                || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

#[test]
fn a_codes_key_of_65536_characters_prints_a_bounded_table() {
    let d = dir("longkey");
    let conf = d.join("long.conf");
    let extra = format!("chunk_size=\"256\";\n   {}=\"1\";\n   other=\"{}\";", "k".repeat(65_536), "v".repeat(70_000));
    std::fs::write(&conf, codes("modelnet-test-torus.conf").replace("chunk_size=\"256\";", &extra)).unwrap();
    // Not --quiet: the table is printed (it panicked in format! on the key's width).
    let o = timewarp(&["run", "network", "--codes-config", s(&conf), "--end", "1"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let table: Vec<&str> = err.lines().collect();
    assert!(table.iter().all(|l| l.chars().count() < 160), "every row is bounded: {}", &err[..err.len().min(2000)]);
    assert!(table.iter().any(|l| l.contains("kkkkkkkk…") && l.contains("not a parameter")), "{err}");
    assert!(table.iter().any(|l| l.trim_start().starts_with("other") && l.contains("vvvv…")), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_dumpi_bin_file_as_trace_dir_asks_for_the_meta_file() {
    let bin = dumpi("ring").join("dumpi-2026.11.25.07.40.39-0000.bin");
    let args = ["run", "network", "--dims", "4,4", "--workload", "dumpi", "--end", "1e15", "--quiet", "--trace-dir"];
    assert_clear_error(
        &[&args[..], &[s(&bin)]].concat(),
        "is one rank's DUMPI trace (.bin): give its run's .meta file",
    );
    // A .meta that is not text says so, and what to give.
    let d = dir("binmeta");
    let meta = d.join("x.meta");
    std::fs::write(&meta, [0xff, 0xfe, 0x00, 0x80]).unwrap();
    assert_clear_error(&[&args[..], &[s(&meta)]].concat(), "not a DUMPI .meta file (not text)");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn options_of_another_workload_are_refused() {
    let d = dir("workloads");
    std::fs::write(d.join("rank.0.txt"), "send 1 8 0\n").unwrap();
    std::fs::write(d.join("rank.1.txt"), "recv 0 0\n").unwrap();
    let ring = dumpi("ring");
    let dumpi = ["--workload", "dumpi", "--trace-dir", s(&ring)];
    let trace = ["--workload", "trace", "--trace-dir", s(&d)];
    #[rustfmt::skip]
    let cases: &[(&[&str], &[&str], &str)] = &[
        (&dumpi, &["--messages", "5"], "--messages is for --workload synthetic (the workload is dumpi"),
        (&dumpi, &["--load", "0.5"], "--load is for --workload synthetic"),
        (&trace, &["--interarrival", "100"], "--interarrival is for --workload synthetic (the workload is trace"),
        (&trace, &["--traffic", "ring"], "--traffic is for --workload synthetic"),
        (&["--workload", "allreduce"], &["--arrivals", "periodic"], "--arrivals is for --workload synthetic (the workload is allreduce"),
        (&dumpi, &["--iterations", "3"], "--iterations is for a generated workload"),
        (&trace, &["--compute-ns", "5"], "--compute-ns is for a generated workload"),
        (&["--workload", "alltoall"], &["--halo-bytes", "8"], "--halo-bytes is for --workload halo3d"),
        (&[], &["--rank-mapping", "random"], "--rank-mapping is for a workload of ranks (the workload is synthetic)"),
        (&[], &["--halo-bytes", "8"], "--halo-bytes is for --workload halo3d (the workload is synthetic)"),
    ];
    for (workload, option, want) in cases {
        let args = [&["run", "network", "--dims", "4,4", "--end", "1e15", "--quiet"][..], workload, option].concat();
        assert_clear_error(&args, want);
    }
    // Each is taken by its own workload.
    let own = ["run", "network", "--dims", "4,4", "--quiet", "--workload", "halo3d", "--ranks", "8", "--end", "1e15"];
    let o = timewarp(&[&own[..], &["--halo-bytes", "8", "--iterations", "2", "--compute-ns", "5"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let o =
        timewarp(&["run", "network", "--dims", "4,4", "--quiet", "--end", "100", "--load", "0.1", "--messages", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn errors_quoting_a_file_escape_control_and_bidi_characters_and_are_bounded() {
    let d = dir("quoted");
    let evil = "2\u{202e}\u{1b}[2J\u{7}\r\u{2066}x";
    let long = "9".repeat(5000) + "x";
    let conf = d.join("evil.conf");
    std::fs::write(
        &conf,
        codes("modelnet-test-torus.conf").replace("link_bandwidth=\"2.0\"", &format!("link_bandwidth=\"{evil}\"")),
    )
    .unwrap();
    let long_conf = d.join("long.conf");
    std::fs::write(
        &long_conf,
        codes("modelnet-test-torus.conf").replace("link_bandwidth=\"2.0\"", &format!("link_bandwidth=\"{long}\"")),
    )
    .unwrap();
    let traces = d.join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    // (Not `evil`: a carriage return separates words in a trace, and in a
    // node list, where the first word is quoted.)
    std::fs::write(traces.join("rank.0.txt"), "send 1 8 \u{202e}7\u{1b}[31m\n").unwrap();
    std::fs::write(traces.join("rank.1.txt"), "recv 0 0\n").unwrap();
    let ranks = d.join("ranks.map");
    std::fs::write(&ranks, format!("0\n{evil}\n")).unwrap();
    let pes = d.join("pes.map");
    std::fs::write(&pes, format!("0\n{evil}\n")).unwrap();
    let key = d.join("key.toml");
    std::fs::write(&key, "[model]\nname = \"phold\"\n\"ab\\u202ecd\\u001b[2J\" = 3\n").unwrap();
    let value = d.join("value.toml");
    std::fs::write(&value, "[model]\nname = \"phold\"\nlps = \"12\\u202e\\n34\"\n").unwrap();
    let net = ["run", "network", "--dims", "4,4", "--end", "1e15", "--quiet"];
    #[rustfmt::skip]
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["run", "network", "--quiet", "--codes-config", s(&conf)], "link_bandwidth must be a number >= 0, got \"2\\u{202e}\\u{1b}[2J\\u{7}\\r\\u{2066}x\""),
        (vec!["run", "network", "--quiet", "--codes-config", s(&long_conf)], "… (4941 more characters)"),
        ([&net[..], &["--workload", "trace", "--trace-dir", s(&traces)]].concat(), "the tag must be a whole number, got '\\u{202e}7\\u{1b}[31m'"),
        ([&net[..], &["--workload", "halo3d", "--ranks", "2", "--rank-mapping", s(&ranks)]].concat(), "expected a node number, got '2\\u{202e}\\u{1b}[2J\\u{7}'"),
        (vec!["run", "phold", "--lps", "2", "--mapping", s(&pes)], "'2\\u{202e}\\u{1b}[2J\\u{7}\\r\\u{2066}x' is not a PE number"),
        (vec!["run", "--config", s(&key)], "unknown key `ab\\u{202e}cd\\u{1b}[2J`"),
        (vec!["run", "--config", s(&value)], "invalid value '12\\u{202e}\\n34' for '--lps"),
    ];
    for (args, want) in cases {
        let o = timewarp(&args);
        let err = stderr(&o);
        assert!(!o.status.success() && !err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.contains(want), "{args:?}: '{err}' should contain '{want}'");
        assert_eq!(raw_controls(&err), [], "{args:?}: {err:?}");
        assert!(err.len() < 400, "{args:?}: a bounded line, got {} bytes", err.len());
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_deadlock_of_16_ranks_is_one_short_line() {
    let d = dir("deadlock");
    for r in 0..16 {
        std::fs::write(d.join(format!("rank.{r}.txt")), format!("recv {} 7\n", (r + 1) % 16)).unwrap();
    }
    let args = ["run", "network", "--dims", "4,4", "--workload", "trace", "--end", "1e15", "--quiet", "--trace-dir"];
    let o = timewarp(&[&args[..], &[s(&d)]].concat());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("16 of 16 ranks did not finish (deadlock"), "{err}");
    assert!(err.contains("rank 2 waits in recv from 3 tag 7 (line 1); and 13 more: ranks 3–15"), "{err}");
    assert!(!err.contains("rank 3 waits"), "{err}");
    assert!(err.len() < 400, "{} bytes: {err}", err.len());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_codes_configuration_beside_another_topology_names_the_clash_and_its_values_their_key() {
    let dragonfly = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/codes/modelnet-synthetic-dragonfly.conf");
    let args = ["run", "network", "--quiet", "--end", "10", "--topology", "torus", "--codes-config", s(&dragonfly)];
    assert_clear_error(&args, "is a dragonfly (CODES model dragonfly), but the command line gives --topology torus");
    let o = timewarp(&args);
    assert!(!stderr(&o).contains("--local-bandwidth"), "{}", stderr(&o));
    // The same topology named again is no clash.
    let o = timewarp(&[
        "run",
        "network",
        "--quiet",
        "--end",
        "10",
        "--topology",
        "dragonfly",
        "--codes-config",
        s(&dragonfly),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A model error about a value the file set says where it came from.
    let d = dir("codes-origin");
    let conf = d.join("par.conf");
    std::fs::write(
        &conf,
        codes("modelnet-synthetic-dragonfly.conf").replace("routing=\"adaptive\"", "routing=\"prog-adaptive\""),
    )
    .unwrap();
    assert_clear_error(
        &["run", "network", "--quiet", "--end", "10", "--vcs", "5", "--codes-config", s(&conf)],
        "(--routing is from",
    );
    let o = timewarp(&["run", "network", "--quiet", "--end", "10", "--vcs", "5", "--codes-config", s(&conf)]);
    assert!(stderr(&o).contains("par.conf:28: routing)"), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

/// Waits until `dir` holds an entry (or the child ends); false if it ended first.
fn wait_for_entry(dir: &Path, child: &mut std::process::Child) -> bool {
    // Only a guard against a hang: the run is far longer than any wait here.
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(300) {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if std::fs::read_dir(dir).unwrap().next().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn a_run_killed_with_sigkill_leaves_no_temporary_output_file() {
    let d = dir("sigkill");
    let (out, ck) = (d.join("out"), d.join("ck"));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&ck).unwrap();
    let args = ["run", "phold", "--lps", "2048", "--remote", "0.3", "--end", "1e9", "--quiet"];
    let files = ["--stats-json", "s.json", "--stats-csv", "pes.csv", "--gvt-csv", "gvt.csv"];
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_timewarp"));
    cmd.args(args).args(files.map(|f| if f.starts_with("--") { f.to_string() } else { s(&out.join(f)).to_string() }));
    cmd.args(["--checkpoint-dir", s(&ck), "--checkpoint-every", "5"]);
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    // A checkpoint: the run is under way, its output files long opened.
    assert!(wait_for_entry(&ck, &mut child), "the run ended before its first checkpoint");
    let during: Vec<_> = std::fs::read_dir(&out).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(Command::new("kill").args(["-9", &child.id().to_string()]).status().unwrap().success());
    let _ = child.wait();
    assert_eq!(during, Vec::<std::ffi::OsString>::new(), "no file in the output folder during the run");
    let after: Vec<_> = std::fs::read_dir(&out).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(after, Vec::<std::ffi::OsString>::new(), "nothing left by kill -9");
    // A folder that cannot be written is still refused before the run.
    let o =
        timewarp(&["run", "phold", "--lps", "8", "--end", "1", "--quiet", "--stats-json", "/nonexistent-dir/s.json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write statistics to /nonexistent-dir/s.json"), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).unwrap();
}
