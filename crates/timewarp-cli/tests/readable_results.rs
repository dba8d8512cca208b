//! Results a reader trusts at a glance (issue 41, item 5): on screen 4
//! significant digits with units, `n/a` for figures a run does not define
//! (`null` in the JSON, which keeps full precision); the report's
//! configuration without options of other topologies; a DUMPI replay's
//! summary says which clock, send model and collective algorithms it used.

mod common;
use common::{stderr, timewarp, tmp};

use serde_json::Value;

/// A run's summary (stdout) and its statistics.
fn run(args: &[&str]) -> (String, Value) {
    let (out, stats, _) = run_at(args);
    (out, stats)
}

/// A run's summary, its statistics, and their file.
fn run_at(args: &[&str]) -> (String, Value, std::path::PathBuf) {
    let json = tmp(&format!("r{}.json", args.join("_").replace(['-', '.', '/', ','], "")));
    let o = timewarp(&[args, &["--stats-json", json.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let stats = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (String::from_utf8_lossy(&o.stdout).into_owned(), stats, json)
}

/// The value shown for results key `k` in a summary.
fn shown<'a>(summary: &'a str, k: &str) -> &'a str {
    summary
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(k).filter(|r| r.starts_with(' ')).map(str::trim))
        .unwrap_or_else(|| panic!("no {k} in {summary}"))
}

/// Significant digits of a shown number ("138.6 ns" -> 4, "0.04712" -> 4, "7" -> 1).
fn digits(v: &str) -> usize {
    let num = v.split(' ').next().unwrap().replace(',', "");
    let d: String = num.chars().filter(char::is_ascii_digit).collect();
    let d = d.trim_start_matches('0');
    if num.contains('.') {
        d.len()
    } else {
        d.trim_end_matches('0').len().max(1)
    }
}

#[test]
fn the_summary_shows_four_significant_digits_and_units_and_the_json_full_precision() {
    let (out, stats) = run(&["run", "network", "--dims", "4,4", "--load", "0.2"]);
    let r = &stats["model_results"];
    for (k, unit) in [
        ("latency_mean", "ns"),
        ("latency_p99", "ns"),
        ("accepted_throughput", "fraction of injection bandwidth"),
        ("max_link_utilisation", "fraction of time busy"),
        ("delivered_packets", "packets"),
    ] {
        let v = shown(&out, k);
        assert!(v.ends_with(unit), "{k}: {v}");
        let n: f64 = v.split(' ').next().unwrap().replace(',', "").parse().unwrap();
        let full = r[k].as_f64().unwrap();
        if r[k].is_u64() {
            assert_eq!(n, full, "counts keep every digit");
        } else {
            assert!(digits(v) <= 4, "{k}: {v}");
            assert!((n - full).abs() <= 5e-4 * full.abs(), "{k}: {v} is {full} to 4 digits");
        }
    }
    // The JSON keeps full precision.
    let lat = r["latency_mean"].to_string();
    assert!(lat.len() > 8, "{lat}");
    assert!(!out.contains(&lat), "not on screen");
    // The engine's process count is not taken for the application's ranks.
    assert!(out.contains("simulator processes"), "{out}");
}

#[test]
fn figures_a_run_does_not_define_are_null_in_json_and_n_a_on_screen() {
    let (out, stats) =
        run(&["run", "network", "--dims", "4,4", "--workload", "allreduce", "--iterations", "1", "--end", "1e15"]);
    let r = &stats["model_results"];
    for k in ["offered_load", "latency_mean_ci95", "accepted_throughput_ci95"] {
        assert!(r[k].is_null(), "{k}: {}", r[k]);
        assert_eq!(shown(&out, k), "n/a", "{k}");
    }
    // What a synthetic run defines stays a number.
    let (_, s) = run(&["run", "network", "--dims", "4,4", "--load", "0.3"]);
    assert!(s["model_results"]["offered_load"].as_f64() == Some(0.3));
    assert!(s["model_results"]["latency_mean_ci95"].as_f64().is_some_and(|c| c > 0.0));
}

#[test]
fn the_report_leaves_out_options_of_other_topologies_and_shows_results_readably() {
    let (_, _, json) = run_at(&["run", "network", "--topology", "dragonfly", "--load", "0.1", "--end", "2000"]);
    let html = tmp("dragonfly.html");
    let o = timewarp(&["report", json.to_str().unwrap(), "-o", html.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    let config = &page[page.find("id=\"configuration\"").unwrap()..page.find("id=\"plots\"").unwrap()];
    for gone in ["&quot;dims&quot;", "&quot;radix&quot;", "&quot;levels&quot;", "&quot;halo-bytes&quot;"] {
        assert!(!config.contains(gone), "{gone} shown for a dragonfly: {config}");
    }
    for kept in ["&quot;routers-per-group&quot;", "&quot;global-links&quot;", "&quot;load&quot;"] {
        assert!(config.contains(kept), "{kept} missing: {config}");
    }
    assert!(config.contains("left out"), "the page says options were left out");
    // The statistics file keeps them all (it reproduces the run).
    let stats: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(stats["config"]["model"]["dims"].is_array());
    let results = &page[page.find("id=\"model-results\"").unwrap()..];
    assert!(results.contains(" ns</td>"), "latency with its unit");
}

#[test]
fn a_dumpi_replay_says_its_clock_send_model_and_collective_algorithms() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../timewarp-models/tests/data/dumpi/halo3d");
    let base = ["run", "network", "--dims", "8", "--end", "1e15", "--workload", "dumpi", "--trace-dir"];
    let (wall, _) = run(&[&base[..], &[dir.to_str().unwrap()]].concat());
    let line = wall.lines().find(|l| l.starts_with("replay: ")).unwrap_or_else(|| panic!("{wall}"));
    assert!(line.contains("wall clock") && line.contains("--dumpi-time cpu"), "{line}");
    assert!(line.contains("every send eager"), "{line}");
    assert!(line.contains("allreduce by recursive doubling (8 ranks"), "{line}");
    assert!(line.contains("barrier by dissemination") && line.contains("binomial tree"), "{line}");
    let (cpu, _) = run(&[&base[..], &[dir.to_str().unwrap(), "--dumpi-time", "cpu", "--compute-scale", "2"]].concat());
    let line = cpu.lines().find(|l| l.starts_with("replay: ")).unwrap();
    assert!(line.contains("CPU clock") && line.contains("scaled by 2"), "{line}");
    // Times in a readable unit, and the share of time communicating.
    let app = wall.lines().find(|l| l.starts_with("application: ")).unwrap();
    assert!(app.ends_with(" ms") || app.ends_with(" µs") || app.ends_with(" s"), "{app}");
    assert!(wall.contains("% of the mean finish)"), "{wall}");
    // A synthetic run has no replay line.
    let (synthetic, _) = run(&["run", "network", "--dims", "4,4", "--load", "0.1", "--end", "2000"]);
    assert!(!synthetic.contains("replay:"));
}

/// The numbers with a decimal point in `text` (the digest line left out:
/// hex, not a number), each with its significant digits.
fn decimals(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with("digest")) {
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let starts = b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
            if !starts {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b',' || b[j] == b'.') {
                j += 1;
            }
            let num = line[i..j].trim_end_matches(['.', ',']);
            // A number, not "0.05:0.8" or a sentence's comma: digits, separators of 3, one point.
            if num.contains('.') && num.matches('.').count() == 1 {
                out.push((num.to_string(), digits(num)));
            }
            i = j;
        }
    }
    out
}

/// Issue 62, item 5: one way to print numbers. A network run's summary and
/// notes (stdout and stderr: the engine's table, the sync note with the
/// lookahead, the results, the jobs and time series, the steady-state
/// note) show no number with more than 4 significant digits.
#[test]
fn a_network_runs_summary_and_notes_show_no_number_past_four_significant_digits() {
    let runs: [&[&str]; 2] = [
        &["run", "network", "--dims", "4,4", "--load", "0.6", "--end", "5000", "--sync", "auto", "--threads", "2"],
        &[
            "run",
            "network",
            "--topology",
            "dragonfly",
            "--end",
            "20000",
            "--job",
            "alltoall:ranks=12,bytes=1024@random-routers",
            "--job",
            "synthetic:load=0.4@random-nodes",
            "--sample-every",
            "2000",
            "--baseline-alone",
        ],
    ];
    for args in runs {
        let o = timewarp(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
        let found = decimals(&text);
        assert!(found.len() > 10, "{text}");
        let long: Vec<_> = found.iter().filter(|(_, d)| *d > 4).collect();
        assert!(long.is_empty(), "{long:?} in {text}");
        // Times in the unit that keeps them short, never thousands of ns.
        assert!(!found.iter().any(|(n, _)| n.contains(',') && text.contains(&format!("{n} ns"))), "{text}");
    }
    assert_eq!(
        decimals("a 363.30450148809524 b 35840.0 ns; 5,000.5"),
        [("363.30450148809524".to_string(), 17), ("35840.0".to_string(), 6), ("5,000.5".to_string(), 5)]
    );
}
