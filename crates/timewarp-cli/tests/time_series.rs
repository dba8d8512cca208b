//! The network's time series (`--sample-every`, `--samples-csv`): the
//! samples add up to the run's totals, every mode commits the same ones,
//! and the plot and the report show them.

mod common;
use common::{assert_clear_error, stats, timewarp, tmp};
use serde_json::Value;

fn sum(samples: &[Value], key: &str) -> u64 {
    samples.iter().map(|s| s[key].as_u64().unwrap()).sum()
}

/// Σ over intervals equals the run's own count, bytes and latency sums.
fn assert_adds_up(a: &Value, what: &str) {
    let r = &a["model_results"];
    let s = r["samples"].as_array().unwrap_or_else(|| panic!("{what}: no samples in {r}"));
    assert!(!s.is_empty());
    assert_eq!(sum(s, "delivered_packets"), r["delivered_packets"].as_u64().unwrap(), "{what}");
    assert_eq!(sum(s, "injected_packets"), r["injected_packets"].as_u64().unwrap(), "{what}");
    assert_eq!(s.last().unwrap()["in_flight_packets"], r["in_flight_packets"], "{what}: in flight at the end");
    // Without warm-up every delivered packet is measured and its bytes
    // counted: the bytes and the latency sum are the run's.
    let bytes = sum(s, "delivered_bytes") as f64;
    let capacity = r["nodes"].as_f64().unwrap() * r["window_ns"].as_f64().unwrap() * 4.0;
    let accepted = r["accepted_throughput"].as_f64().unwrap();
    assert!((bytes / capacity - accepted).abs() <= 1e-12 * accepted.max(1.0), "{what}: {bytes} bytes, {accepted}");
    let lat: f64 = s
        .iter()
        .filter(|x| !x["latency_mean"].is_null())
        .map(|x| x["latency_mean"].as_f64().unwrap() * x["delivered_packets"].as_f64().unwrap())
        .sum();
    let total = r["latency_mean"].as_f64().unwrap() * r["measured_packets"].as_f64().unwrap();
    assert!((lat - total).abs() <= 1e-9 * total, "{what}: latency sums {lat} and {total}");
    for x in s {
        if x["delivered_packets"] == 0 {
            assert!(x["latency_mean"].is_null() && x["latency_p99"].is_null(), "{what}: undefined is null: {x}");
        } else {
            let (mean, p99) = (x["latency_mean"].as_f64().unwrap(), x["latency_p99"].as_f64().unwrap());
            assert!(p99 > 0.0 && mean > 0.0, "{what}: {x}");
        }
        let links = x["links"].as_array().unwrap();
        assert!(links.len() <= 3, "{what}");
        let u: Vec<f64> = links.iter().map(|l| l["utilisation"].as_f64().unwrap()).collect();
        assert!(u.windows(2).all(|w| w[0] >= w[1]), "{what}: busiest first: {u:?}");
        assert!(u.iter().all(|&x| x > 0.0 && x <= 1.0 + 1e-9), "{what}: busy within the interval: {u:?}");
    }
}

#[test]
fn the_time_series_adds_up_to_the_runs_totals() {
    let csv = tmp("series.csv");
    let c = csv.to_str().unwrap();
    let a = stats(&[
        "run",
        "network",
        "--dims",
        "4,4",
        "--load",
        "0.6",
        "--end",
        "5000",
        "--sample-every",
        "500",
        "--samples-csv",
        c,
    ]);
    assert_adds_up(&a, "torus");
    let s = a["model_results"]["samples"].as_array().unwrap();
    assert_eq!(s.len(), 10, "5000 ns in intervals of 500");
    assert_eq!((s[3]["start_ns"].as_f64(), s[3]["end_ns"].as_f64()), (Some(1500.0), Some(2000.0)));
    assert!(s.iter().all(|x| !x["links"].as_array().unwrap().is_empty()), "a loaded torus has busy links");
    // The CSV: one row per interval, the documented columns first.
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 11);
    assert!(rows[0].starts_with(
        "interval,start_ns,end_ns,injected_packets,delivered_packets,delivered_bytes,accepted_throughput,\
         latency_mean_ns,latency_p99_ns,in_flight_packets,max_link_occupancy,link1_node,link1_port,"
    ));
    let cells: Vec<&str> = rows[4].split(',').collect();
    assert_eq!(cells[0], "3");
    assert_eq!(cells[4], s[3]["delivered_packets"].to_string());
    // A finite workload: intervals up to its last delivery, a partial last
    // interval cut at the end of the run.
    let a = stats(&[
        "run",
        "network",
        "--dims",
        "4,4",
        "--workload",
        "halo3d",
        "--iterations",
        "2",
        "--end",
        "1e9",
        "--sample-every",
        "300",
    ]);
    assert_adds_up(&a, "halo3d");
    let r = &a["model_results"];
    let last = r["samples"].as_array().unwrap().last().unwrap().clone();
    assert!(last["start_ns"].as_f64().unwrap() <= r["app_time_ns"].as_f64().unwrap());
    assert_eq!(last["in_flight_packets"], 0);
    // A dragonfly (ports of three classes, several NICs per router) and a fat-tree.
    let a = stats(&[
        "run",
        "network",
        "--topology",
        "dragonfly",
        "--routing",
        "ugal",
        "--load",
        "0.5",
        "--end",
        "3000",
        "--sample-every",
        "250",
    ]);
    assert_adds_up(&a, "dragonfly");
    let a =
        stats(&["run", "network", "--topology", "fattree", "--load", "0.5", "--end", "3000", "--sample-every", "1000"]);
    assert_adds_up(&a, "fattree");
}

#[test]
fn every_mode_commits_the_same_time_series() {
    let models: [&[&str]; 2] = [
        &["network", "--topology", "dragonfly", "--routing", "ugal", "--load", "0.7", "--end", "3000"],
        &["network", "--dims", "4,4", "--workload", "allreduce", "--message-bytes", "2048", "--end", "1e9"],
    ];
    for m in models {
        let mut base = vec!["run"];
        base.extend(m);
        base.extend(["--sample-every", "200"]);
        let mut seq = base.clone();
        seq.extend(["--sync", "sequential"]);
        let s = stats(&seq);
        assert!(!s["model_results"]["samples"].as_array().unwrap().is_empty());
        // Check mode undoes and redoes every event: each journal entry of
        // the series (and of the ranks) is restored exactly, or it fails.
        let modes =
            [("check", "1"), ("conservative", "1"), ("conservative", "2"), ("optimistic", "1"), ("optimistic", "2")];
        for (sync, threads) in modes {
            let mut args = base.clone();
            args.extend(["--sync", sync, "--threads", threads, "--kps-per-pe", "1", "--batch", "4"]);
            let p = stats(&args);
            assert_eq!(p["digest"], s["digest"], "{args:?}");
            assert_eq!(p["model_results"], s["model_results"], "{args:?}: the samples are the model's results");
        }
    }
}

/// A link's utilisation in an interval is its busy time inside the
/// interval over the interval's length: never above 1, whatever the
/// interval's length against a packet's serialisation time (a packet on
/// its link at the run's end once counted its whole time in the interval
/// it left in: 3.89 on this 4 × 4 torus).
#[test]
fn link_utilisation_per_interval_is_a_fraction() {
    let shapes: [&[&str]; 3] = [
        &["--dims", "4,4", "--load", "0.5", "--end", "2000"],
        &["--dims", "4,4", "--load", "0.9", "--end", "1500", "--message-bytes", "4096"],
        &["--topology", "dragonfly", "--routing", "ugal", "--load", "0.8", "--end", "1200"],
    ];
    for shape in shapes {
        for every in ["1", "10", "37.5", "300"] {
            let mut args = vec!["run", "network"];
            args.extend(shape);
            args.extend(["--sample-every", every]);
            let a = stats(&args);
            let samples = a["model_results"]["samples"].as_array().unwrap();
            let mut busiest = 0.0f64;
            for s in samples {
                for l in s["links"].as_array().unwrap() {
                    let u = l["utilisation"].as_f64().unwrap();
                    assert!((0.0..=1.0 + 1e-9).contains(&u), "{args:?}: interval {s}");
                    busiest = busiest.max(u);
                }
            }
            assert!(busiest > 0.0, "{args:?}: some link was busy");
        }
    }
}

#[test]
fn sampling_options_are_checked() {
    assert_clear_error(&["run", "network", "--dims", "4,4", "--end", "1e9", "--sample-every", "1"], "--sample-every");
    // Only where asked: a run without --sample-every has no samples.
    let a = stats(&["run", "network", "--dims", "4,4", "--end", "1000"]);
    assert!(a["model_results"].get("samples").is_none());
    let o = timewarp(&["run", "network", "--samples-csv", "x.csv"]);
    assert_eq!(o.status.code(), Some(2), "--samples-csv needs --sample-every");
    assert!(String::from_utf8_lossy(&o.stderr).contains("--sample-every"));
}

#[test]
fn plot_and_report_show_the_time_series() {
    let json = tmp("series-run.json");
    let j = json.to_str().unwrap();
    let o = timewarp(&[
        "run",
        "network",
        "--dims",
        "4,4",
        "--load",
        "0.5",
        "--end",
        "3000",
        "--sample-every",
        "300",
        "--stats-json",
        j,
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = tmp("series.svg");
    let o = timewarp(&["plot", j, "--samples", "-o", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&svg).unwrap();
    for t in [
        "Accepted throughput (torus)",
        "Packet latency (torus)",
        "virtual time (ns)",
        "p99",
        "Packets in the network (torus)",
        "Most packets on one link (torus)",
    ] {
        assert!(text.contains(t), "the plot lacks {t:?}");
    }
    let html = tmp("series.html");
    let o = timewarp(&["report", j, "-o", html.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<h2 id=\"samples\">Time series</h2>") && page.contains("busiest links"));
    // A run without a series says how to get one.
    let plain = tmp("plain-run.json");
    let p = plain.to_str().unwrap();
    assert!(timewarp(&["run", "network", "--dims", "4,4", "--end", "500", "--stats-json", p, "--quiet"])
        .status
        .success());
    assert_clear_error(&["plot", p, "--samples", "-o", svg.to_str().unwrap()], "--sample-every");
}
