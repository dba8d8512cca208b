//! `timewarp report`: one self-contained HTML page of a run: the summary,
//! the configuration, the plots of `timewarp plot` as inline SVG, per-PE
//! and per-rank tables and the model's results. Nothing is fetched: styles
//! are inline and there are no scripts, so the page works offline and
//! can be mailed or archived as one file.

use crate::draw::stats_file::Run;
use crate::draw::stats_panels::{One, Panel};
use clap::Args;
use serde_json::{Map, Value};
use std::fmt::Write as _;
use std::path::PathBuf;

/// `timewarp report`: the arguments.
#[derive(Args, Debug)]
pub(crate) struct ReportArgs {
    /// A statistics file (`timewarp run ... --stats-json FILE`).
    #[arg(value_name = "FILE")]
    input: PathBuf,
    /// The page [default: FILE with .html].
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
}

/// Size of each plot on the page.
const PLOT: (u32, u32) = (640, 440);

/// Most rows of a table of per-item results (a network's links, say): the
/// page stays light, the JSON file has them all.
const MAX_ROWS: usize = 200;

/// The run's settings, in this order (others that a later build adds show
/// under "Other figures").
const CONFIG: [&str; 12] = [
    "model",
    "sync",
    "threads",
    "ranks",
    "lps",
    "end_time",
    "seed",
    "queue",
    "kps_per_pe",
    "event_memory_per_pe",
    "event_bytes",
    "gvt_interval",
];

/// The run's main figures, in this order.
const SUMMARY: [&str; 15] = [
    "committed_events",
    "processed_events",
    "rolled_back_events",
    "efficiency",
    "rollback_efficiency",
    "event_rate",
    "wall_seconds",
    "init_seconds",
    "remote_fraction",
    "primary_rollbacks",
    "secondary_rollbacks",
    "gvt_rounds",
    "peak_events",
    "peak_rss_bytes",
    "digest",
];

/// The MPI figures of a run across processes, above its per-rank table.
const MPI: [&str; 8] = [
    "remote_process_fraction",
    "mpi_messages",
    "mpi_events_per_message",
    "mpi_bytes",
    "mpi_flushes",
    "polls",
    "successful_polls",
    "mpi_seconds",
];

/// `timewarp report`.
pub(crate) fn run(a: &ReportArgs) -> Result<(), String> {
    let output = a.output.clone().unwrap_or_else(|| a.input.with_extension("html"));
    if output == a.input {
        return Err(format!("the output {} is the input: give another -o", output.display()));
    }
    let run = Run::read(&a.input)?;
    let page = page(&run)?;
    std::fs::write(&output, page).map_err(|e| format!("cannot write the report to {}: {e}", output.display()))
}

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A value as table text: readable numbers, percentages and sizes by key.
fn show(key: &str, v: &Value) -> String {
    match v {
        Value::Null => "–".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or_default();
            if key.ends_with("efficiency") || key.ends_with("fraction") {
                timewarp::text::percent(f)
            } else if key.ends_with("bytes") && f >= 1024.0 * 1024.0 {
                format!("{} MiB", crate::readable::sig(f / (1u64 << 20) as f64))
            } else if key.ends_with("seconds") {
                timewarp::text::seconds(f)
            } else if key == "event_rate" {
                format!("{} events/s", group(f.round()))
            } else if n.is_u64() || n.is_i64() {
                group(f)
            } else if crate::readable::unit(key) == Some("ns") {
                crate::readable::time_ns(f)
            } else {
                crate::readable::sig(f)
            }
        }
        // A set of counts (why MPI messages left): the ones that occurred.
        Value::Object(m) if m.values().all(Value::is_u64) => {
            let seen: Vec<String> = m
                .iter()
                .filter(|(_, n)| n.as_u64() != Some(0))
                .map(|(k, n)| format!("{} {}", name(k), group(n.as_u64().unwrap_or_default() as f64)))
                .collect();
            if seen.is_empty() {
                "–".into()
            } else {
                seen.join(", ")
            }
        }
        other => other.to_string(),
    }
}

/// A run's configuration as the report shows it: without the model options
/// that do not apply to it (the network's options of other topologies and
/// workloads); the statistics file keeps them, to reproduce the run.
fn shown_config(config: &Value) -> Value {
    // (Without the shipped models there is nothing to leave out.)
    #[cfg_attr(not(feature = "models"), allow(unused_mut))]
    let mut c = config.clone();
    #[cfg(feature = "models")]
    if let Some(model) = c.get_mut("model").and_then(Value::as_object_mut) {
        if model.get("name").and_then(Value::as_str) == Some("network") {
            let all = model.clone();
            model.retain(|k, _| crate::network::network_option_applies(k, &all));
        }
    }
    c
}

/// 1234567 -> "1,234,567".
fn group(f: f64) -> String {
    let s = format!("{}", f.abs() as u64);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if f < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// "committed_events" -> "committed events".
fn name(key: &str) -> String {
    key.replace('_', " ")
}

/// A two-column table of `keys` present in `map`.
fn pairs(out: &mut String, id: &str, map: &Map<String, Value>, keys: &[&str]) {
    let _ = writeln!(out, "<table id=\"{id}\" class=\"pairs\">");
    for k in keys {
        if let Some(v) = map.get(*k) {
            let _ = writeln!(out, "<tr><th>{}</th><td>{}</td></tr>", esc(&name(k)), esc(&show(k, v)));
        }
    }
    out.push_str("</table>\n");
}

/// A computed column: its name and how a row gives its cell.
type Column<'a> = (&'a str, &'a dyn Fn(&Value) -> String);

/// A table of a list of objects (columns: the keys of the first, then any
/// new ones), with `extra` computed columns; at most `MAX_ROWS` rows.
fn rows(out: &mut String, id: &str, first: &str, items: &[Value], extra: &[Column<'_>]) {
    let mut cols: Vec<&str> = Vec::new();
    for it in items {
        if let Value::Object(m) = it {
            for (k, v) in m {
                if !cols.contains(&k.as_str()) && !v.is_array() && !v.is_object() {
                    cols.push(k);
                }
            }
        }
    }
    let _ = write!(out, "<table id=\"{id}\" class=\"rows\"><thead><tr><th>{}</th>", esc(first));
    for c in &cols {
        let _ = write!(out, "<th>{}</th>", esc(&name(c)));
    }
    for (c, _) in extra {
        let _ = write!(out, "<th>{}</th>", esc(c));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (i, it) in items.iter().take(MAX_ROWS).enumerate() {
        let _ = write!(out, "<tr><th>{i}</th>");
        for c in &cols {
            let _ = write!(out, "<td>{}</td>", esc(&show(c, it.get(*c).unwrap_or(&Value::Null))));
        }
        for (_, f) in extra {
            let _ = write!(out, "<td>{}</td>", esc(&f(it)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
    if items.len() > MAX_ROWS {
        let _ = writeln!(
            out,
            "<p class=\"note\">The first {MAX_ROWS} of {} rows; the statistics file has them all.</p>",
            items.len()
        );
    }
}

/// The model's results: scalars as a table, lists of objects as tables,
/// lists of numbers summarised, anything else as JSON.
fn results(out: &mut String, v: &Value) {
    let Value::Object(map) = v else {
        let _ = writeln!(out, "<pre id=\"model-results\">{}</pre>", esc(&v.to_string()));
        return;
    };
    let scalars: Vec<&str> =
        map.iter().filter(|(_, v)| !v.is_array() && !v.is_object()).map(|(k, _)| k.as_str()).collect();
    if scalars.is_empty() && map.is_empty() {
        out.push_str("<p class=\"note\" id=\"model-results\">The model reported no results.</p>\n");
    } else {
        // Readable, with units and n/a for what the run does not define
        // (the JSON keeps full precision and null).
        let _ = writeln!(out, "<table id=\"model-results\" class=\"pairs\">");
        for k in &scalars {
            let v = crate::readable::value(k, &map[*k]);
            let _ = writeln!(out, "<tr><th>{}</th><td>{}</td></tr>", esc(&name(k)), esc(&v));
        }
        out.push_str("</table>\n");
    }
    for (k, v) in map.iter().filter(|(_, v)| v.is_array() || v.is_object()) {
        let _ = writeln!(out, "<h3>{}</h3>", esc(&name(k)));
        match v {
            Value::Array(items) if items.iter().all(Value::is_object) && !items.is_empty() => {
                // A time series' busiest links are a list in each sample: shown as text.
                let busiest = |x: &Value| {
                    let links = x.get("links").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
                    let one = |l: &Value| {
                        let f = |k: &str| l.get(k).and_then(Value::as_f64).unwrap_or_default();
                        format!(
                            "{}→{} {} ({} queued)",
                            f("node"),
                            f("neighbour"),
                            timewarp::text::percent(f("utilisation")),
                            f("occupancy")
                        )
                    };
                    links.iter().map(one).collect::<Vec<_>>().join("; ")
                };
                let extra: &[Column<'_>] = if k == "samples" { &[("busiest links", &busiest)] } else { &[] };
                rows(out, &format!("model-{k}"), "#", items, extra);
            }
            Value::Array(items) if items.iter().all(Value::is_number) => {
                let xs: Vec<f64> = items.iter().filter_map(Value::as_f64).collect();
                let (lo, hi) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(*x), b.max(*x)));
                let mean = xs.iter().sum::<f64>() / xs.len().max(1) as f64;
                let _ = writeln!(
                    out,
                    "<p>{} values{}</p>",
                    xs.len(),
                    if xs.is_empty() {
                        String::new()
                    } else {
                        format!(
                            ": min {}, mean {}, max {}",
                            crate::readable::sig(lo),
                            crate::readable::sig(mean),
                            crate::readable::sig(hi)
                        )
                    }
                );
            }
            other => {
                let mut text = serde_json::to_string_pretty(other).unwrap_or_default();
                if text.len() > 20_000 {
                    text.truncate(text.char_indices().nth(20_000).map_or(text.len(), |(i, _)| i));
                    text.push_str("\n… (the statistics file has the rest)");
                }
                let _ = writeln!(out, "<pre>{}</pre>", esc(&text));
            }
        }
    }
}

/// Page styles: inline, so the page needs nothing else.
const STYLE: &str = "body{font-family:'DejaVu Sans',Verdana,sans-serif;margin:2em auto;max-width:1320px;\
padding:0 1em;color:#222}h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;margin:.5em 0}th,td{padding:.2em .7em;border:1px solid #ddd;text-align:right}\
table.pairs th{text-align:left;background:#f4f4f4}thead th{background:#f4f4f4}\
.plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:12px}figure{margin:0}\
svg{width:100%;height:auto}\
.note{color:#666}pre{background:#f7f7f7;padding:.6em;overflow:auto}.wide{overflow-x:auto}";

/// The whole page.
fn page(run: &Run) -> Result<String, String> {
    let empty = Map::new();
    let map = run.json.as_object().unwrap_or(&empty);
    let title = format!("{} run: {}", crate::program::name(), run.describe());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n\
         </head>\n<body>\n<h1>{}</h1>\n<p class=\"note\">From {}, by timewarp {}.</p>",
        esc(&title),
        esc(&title),
        esc(&run.path.display().to_string()),
        env!("CARGO_PKG_VERSION")
    );

    out.push_str("<h2 id=\"summary\">Summary</h2>\n");
    pairs(&mut out, "summary-table", map, &SUMMARY);

    out.push_str("<h2 id=\"configuration\">Configuration</h2>\n");
    pairs(&mut out, "configuration-table", map, &CONFIG);
    // A run file or command line, where a later build records one.
    for key in ["config", "command", "run_file"] {
        if let Some(v) = map.get(key) {
            let shown = if key == "config" { shown_config(v) } else { v.clone() };
            let v = &shown;
            let text = match v {
                Value::String(s) => s.clone(),
                v => serde_json::to_string_pretty(v).unwrap_or_default(),
            };
            let _ = writeln!(out, "<h3>{}</h3>\n<pre>{}</pre>", esc(&name(key)), esc(&text));
            if key == "config" && map.get(key) != Some(v) {
                out.push_str(
                    "<p class=\"note\">Model options that do not apply to this topology or workload are left out; \
                     the statistics file keeps them.</p>\n",
                );
            }
        }
    }

    out.push_str("<h2 id=\"plots\">Plots</h2>\n<div class=\"plots\">\n");
    for p in Panel::ALL {
        let svg = crate::draw::svg(PLOT, &One(std::slice::from_ref(run), p))?;
        let _ = writeln!(out, "<figure class=\"plot\" title=\"{}\">\n{}</figure>", esc(p.title()), svg.trim());
    }
    out.push_str("</div>\n");

    out.push_str("<h2 id=\"pes\">Per PE</h2>\n<div class=\"wide\">\n");
    let pes = map.get("pes").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if pes.is_empty() {
        out.push_str("<p class=\"note\" id=\"pes-table\">No per-PE figures: a sequential run has one PE and the summary is its figures.</p>\n");
    } else {
        let eff = |p: &Value| {
            let c = p.get("committed").and_then(Value::as_f64).unwrap_or_default();
            let n = p.get("processed").and_then(Value::as_f64).unwrap_or_default();
            if n > 0.0 {
                timewarp::text::percent(c / n)
            } else {
                "–".into()
            }
        };
        rows(&mut out, "pes-table", "PE", pes, &[("efficiency", &eff)]);
    }
    out.push_str("</div>\n");

    out.push_str("<h2 id=\"workers\">Per worker</h2>\n<div class=\"wide\">\n");
    let workers = map.get("workers").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if workers.is_empty() {
        out.push_str(
            "<p class=\"note\" id=\"workers-table\">No per-worker figures: a sequential run has no worker \
             threads (and files written before they were recorded have none).</p>\n",
        );
    } else {
        rows(&mut out, "workers-table", "#", workers, &[]);
        out.push_str(
            "<p class=\"note\">Wait: in the kernel's own waits past their spin (idle, in a barrier, or \
             deactivated). CPU and descheduled: the OS's account (on a core; ready but waiting for one), \
             – where it gives none.</p>\n",
        );
    }
    out.push_str("</div>\n");

    out.push_str("<h2 id=\"ranks\">Per rank</h2>\n<div class=\"wide\">\n");
    let ranks = map.get("rank_stats").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if ranks.is_empty() {
        out.push_str(
            "<p class=\"note\" id=\"ranks-table\">One process: no per-rank figures (those come from MPI runs).</p>\n",
        );
    } else {
        pairs(&mut out, "mpi-table", map, &MPI);
        let sent_for = |r: &Value| show("mpi_flushes", r.get("mpi_flushes").unwrap_or(&Value::Null));
        rows(&mut out, "ranks-table", "#", ranks, &[("messages sent for", &sent_for)]);
    }
    out.push_str("</div>\n");

    if let Some(links) = crate::network::draw::links::Links::of(&run.json, &run.path)? {
        let svg = crate::draw::svg(crate::network::draw::links::SIZE, &links)?;
        let _ = writeln!(
            out,
            "<h2 id=\"links\">Network links</h2>\n<figure class=\"model-picture\">\n{}</figure>",
            svg.trim()
        );
        if let Some(map) = crate::network::draw::map::Map::of(&run.json, &links) {
            let svg = crate::draw::svg(crate::network::draw::map::SIZE, &map)?;
            let _ = writeln!(out, "<figure class=\"model-picture\" id=\"link-map\">\n{}</figure>", svg.trim());
        }
    }

    if let Some(series) = crate::network::draw::time_series::Series::of(&run.json, &run.path)? {
        let svg = crate::draw::svg(crate::network::draw::time_series::SIZE, &series)?;
        let _ = writeln!(
            out,
            "<h2 id=\"samples\">Time series</h2>\n<figure class=\"model-picture\">\n{}</figure>\n\
             <p class=\"note\">The table of every interval is under Model results, samples.</p>",
            svg.trim()
        );
    }

    out.push_str("<h2 id=\"results\">Model results</h2>\n<div class=\"wide\">\n");
    results(&mut out, map.get("model_results").unwrap_or(&Value::Null));
    out.push_str("</div>\n");

    let known: Vec<&str> = CONFIG
        .iter()
        .chain(&SUMMARY)
        .copied()
        .chain(["pes", "workers", "rank_stats", "gvt_series", "model_results", "config", "command", "run_file"])
        .collect();
    let other: Vec<&str> = map
        .iter()
        .filter(|(k, v)| !known.contains(&k.as_str()) && !v.is_array() && !v.is_object())
        .map(|(k, _)| k.as_str())
        .collect();
    out.push_str("<h2 id=\"other\">Other figures</h2>\n");
    pairs(&mut out, "other-table", map, &other);
    out.push_str("</body>\n</html>\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    /// The page for the statistics `json` read from `path`.
    fn page_of(path: &Path, json: Value) -> String {
        page(&Run::from_json(path, json).unwrap()).unwrap()
    }

    #[test]
    fn text_is_escaped_and_numbers_read_well() {
        assert_eq!(esc("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
        assert_eq!(show("efficiency", &json!(0.5)), "50.00%");
        assert_eq!(show("efficiency", &json!(0.98765)), "98.77%");
        assert_eq!(show("latency_mean", &json!(35840.25)), "35.84 µs");
        assert_eq!(show("hops_mean", &json!(2.14375)), "2.144");
        assert_eq!(show("committed_events", &json!(1234567)), "1,234,567");
        assert_eq!(show("wall_seconds", &json!(0.5)), "500.0 ms");
        assert_eq!(show("peak_rss_bytes", &json!(3u64 << 20)), "3.000 MiB");
    }

    #[test]
    fn workers_have_a_table_and_absent_os_figures_show_as_absent() {
        let p = page_of(
            Path::new("w.json"),
            json!({"model": "phold", "sync": "optimistic", "committed_events": 5, "processed_events": 5,
                   "pes": [], "gvt_series": [], "rank_stats": [],
                   "workers": [{"iterations": 3, "seconds": 1.5, "wait_seconds": 0.25, "cpu_seconds": 1.0,
                                "descheduled_seconds": 0.125},
                               {"iterations": 4, "seconds": 1.5, "wait_seconds": 0.5}]}),
        );
        let table = &p[p.find("id=\"workers-table\"").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        assert!(table.contains("<td>125.0 ms</td>") && table.contains("<td>–</td>"), "{table}");
    }

    #[test]
    fn an_mpi_run_says_why_its_messages_left() {
        let flushes = json!({"size": 4, "age": 1200, "idle": 30, "window": 0});
        let p = page_of(
            Path::new("m.json"),
            json!({"model": "phold", "sync": "optimistic", "committed_events": 5, "processed_events": 5,
                   "pes": [], "gvt_series": [], "mpi_messages": 1234, "mpi_flushes": flushes,
                   "rank_stats": [{"rank": 0, "mpi_messages": 1234, "mpi_flushes": flushes}]}),
        );
        let table = &p[p.find("id=\"mpi-table\"").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        assert!(table.contains("<td>age 1,200, idle 30, size 4</td>"), "{table}");
        assert!(p[p.find("id=\"ranks-table\"").unwrap()..].contains("age 1,200, idle 30, size 4"));
    }

    #[test]
    fn a_sequential_run_says_what_it_lacks() {
        let p = page_of(
            Path::new("<seq>.json"),
            json!({"model": "phold", "sync": "sequential", "committed_events": 5, "processed_events": 5,
                   "pes": [], "gvt_series": [], "rank_stats": [], "model_results": {"sent": 3, "cells": [1, 2]},
                   "new_figure": 7}),
        );
        assert!(p.contains("&lt;seq&gt;.json"));
        assert!(p.contains("No per-PE figures"));
        assert!(p.contains("No per-worker figures"));
        assert!(p.contains("no GVT rounds"));
        assert!(p.contains("new figure"), "a field added later shows");
        assert!(p.contains("2 values"));
        assert_eq!(p.matches("<svg").count(), 4);
    }
}
