//! `timewarp sweep` carries the model's results (issue 41, item 1): every
//! scalar of `model_results` is a column beside the engine's, in a stable
//! (alphabetical) order, equal to a single run's figure; `--zip` pairs the
//! `--set` values instead of crossing them; a row that cannot run says why
//! in its own `error` column and the others are whole.

mod common;
use common::{stats, stderr, timewarp, tmp};

use std::collections::HashMap;

/// The CSV's header and its rows by column name.
fn read(text: &str) -> (Vec<String>, Vec<HashMap<String, String>>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let rows =
        r.records().map(|rec| header.iter().cloned().zip(rec.unwrap().iter().map(String::from)).collect()).collect();
    (header, rows)
}

const NET: [&str; 6] = ["network", "--dims", "4,4", "--end", "2000", "--quiet"];

#[test]
fn every_scalar_model_result_is_a_column_equal_to_a_single_runs() {
    let out = tmp("results.csv");
    let o = timewarp(&[&["sweep"], &NET[..5], &["--set", "load=0.1,0.3", "-o", out.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = read(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(rows.len(), 2);
    // Swept options, the engine's columns, the model's sorted, error last.
    assert_eq!(header[..3], ["load", "rep", "committed_events"]);
    assert_eq!(header.last().map(String::as_str), Some("error"));
    let at = header.iter().position(|h| h == "digest_version").unwrap() + 1;
    let model: Vec<&String> = header[at..header.len() - 1].iter().collect();
    let mut sorted = model.clone();
    sorted.sort();
    assert_eq!(model, sorted, "model columns in alphabetical order");
    for name in ["latency_mean", "accepted_throughput", "in_flight_packets", "topology", "nodes"] {
        assert!(model.iter().any(|m| *m == name), "{name} missing from {header:?}");
    }
    // No list (links, ranks) becomes a column.
    assert!(!header.iter().any(|h| h == "links" || h == "ranks"));
    for row in &rows {
        let one = stats(&[&["run"], &NET[..5], &["--load", &row["load"]]].concat());
        let m = one["model_results"].as_object().unwrap();
        for (k, v) in m {
            let want = match v {
                serde_json::Value::String(s) => s.clone(),
                v if v.is_array() || v.is_object() => continue,
                v => v.to_string(),
            };
            assert_eq!(row[k], want, "load {}: {k}", row["load"]);
        }
        assert_eq!(row["digest"], one["digest"].as_str().unwrap());
    }
    assert_ne!(rows[0]["latency_mean"], rows[1]["latency_mean"]);
}

#[test]
fn a_model_result_named_like_a_swept_option_is_prefixed() {
    // The network's `nodes` is an option (of a hypercube) and a result.
    let o =
        timewarp(&["sweep", "network", "--topology", "hypercube", "--end", "300", "--set", "nodes=16,32", "-o", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = read(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(header.iter().filter(|h| *h == "nodes").count(), 1, "{header:?}");
    assert!(header.contains(&"result.nodes".to_string()), "{header:?}");
    assert_eq!((rows[0]["nodes"].as_str(), rows[0]["result.nodes"].as_str()), ("16", "16"));
    assert_eq!(rows[1]["result.nodes"], "32");
}

#[test]
fn zip_pairs_values_where_the_product_would_run_impossible_rows() {
    let args =
        [&["sweep"], &NET[..5], &["--set", "sync=sequential,optimistic", "--set", "threads=1,2", "--zip", "-o", "-"]]
            .concat();
    let o = timewarp(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, rows) = read(&String::from_utf8_lossy(&o.stdout));
    let pairs: Vec<(&str, &str)> = rows.iter().map(|r| (r["sync"].as_str(), r["threads"].as_str())).collect();
    assert_eq!(pairs, [("sequential", "1"), ("optimistic", "2")]);
    assert!(rows.iter().all(|r| r["error"].is_empty()));
    assert_eq!(rows[0]["digest"], rows[1]["digest"], "every mode commits the same history");
    assert_eq!(rows[0]["latency_mean"], rows[1]["latency_mean"]);
    // --zip may also come after the model's options, and before them.
    let o = timewarp(&[
        "sweep",
        "--zip",
        "network",
        "--dims",
        "4,4",
        "--end",
        "500",
        "--set",
        "load=0.1,0.2",
        "--set",
        "seed=1,2",
        "-o",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read(&String::from_utf8_lossy(&o.stdout)).1.len(), 2);
}

#[test]
fn zip_with_unequal_lists_is_one_line_naming_the_counts() {
    let o = timewarp(
        &[
            &["sweep"],
            &NET[..5],
            &["--set", "sync=sequential,optimistic", "--set", "threads=1,2,4", "--zip", "-o", "-"],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("sync has 2, threads has 3") && err.contains("--zip"), "{err}");
    assert!(o.stdout.is_empty(), "nothing ran");
}

#[test]
fn a_row_that_cannot_run_says_why_and_the_others_are_whole() {
    let out = tmp("failing.csv");
    let o = timewarp(&[&["sweep"], &NET[..5], &["--set", "load=0.1,3,0.2", "-o", out.to_str().unwrap()]].concat());
    // Documented: exit 1 when a run failed, every row written.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 of 3 runs failed"), "{}", stderr(&o));
    let (header, rows) = read(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(rows.len(), 3);
    assert!(rows[1]["error"].contains("--load 3") && rows[1]["latency_mean"].is_empty(), "{:?}", rows[1]);
    for r in [&rows[0], &rows[2]] {
        assert!(r["error"].is_empty() && r["latency_mean"].parse::<f64>().unwrap() > 0.0, "{r:?}");
    }
    // Each row has every column (the failed one empty but for its error).
    assert!(rows.iter().all(|r| r.len() == header.len()));
}

#[test]
fn plot_draws_any_two_columns_with_units_and_log_axes() {
    let csv = tmp("plotted.csv");
    let o = timewarp(
        &[
            &["sweep"],
            &NET[..5],
            &["--set", "load=0.05,0.2,0.4", "--set", "arrivals=poisson,periodic"],
            &["-o", csv.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = tmp("plotted.svg");
    let (c, g) = (csv.to_str().unwrap(), svg.to_str().unwrap());
    let plot = |extra: &[&str]| {
        let o = timewarp(&[&["plot", c, "-o", g], extra].concat());
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        std::fs::read_to_string(&svg).unwrap()
    };
    let text = plot(&["--x", "accepted_throughput", "--y", "latency_mean", "--by", "arrivals"]);
    assert!(text.contains("accepted_throughput (fraction of injection bandwidth)"), "x unit");
    assert!(text.contains("latency_mean (ns)"), "y unit");
    assert!(text.contains("arrivals = periodic"), "grouped");
    let text = plot(&["--x", "load", "--y", "latency_mean", "--log-x", "--log-y"]);
    assert!(text.contains("load (fraction of injection bandwidth), log scale"), "log x");
    // (Two rows a load: their mean, with bars.)
    assert!(text.contains("latency_mean (ns) (mean; bars: min to max), log scale"), "log y");
    // A column of unknown meaning keeps its bare name.
    let text = plot(&["--x", "load", "--y", "fairness"]);
    assert!(text.lines().any(|l| l.trim() == "fairness (mean; bars: min to max)"), "bare name");
    // What a log axis cannot show is refused in one line.
    for (args, says) in [
        (vec!["--x", "load", "--y", "rolled_back_events", "--log-y"], "rolled_back_events has the value 0"),
        (vec!["--x", "topology", "--y", "latency_mean", "--log-x"], "holds names"),
    ] {
        let o = timewarp(&[&["plot", c, "-o", g], &args[..]].concat());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.starts_with("error") && err.trim_end().lines().count() == 1 && err.contains(says), "{err}");
    }
}
