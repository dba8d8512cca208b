//! `--trace-out`: the timeline trace is valid Chrome trace-event JSON,
//! every span is complete and nests properly on its track, rollbacks show
//! when the statistics count them, `--trace-limit` bounds it, and tracing
//! never changes what is committed.

mod common;
use common::{stderr, timewarp};

use serde_json::Value;
use std::collections::BTreeMap;

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("timewarp-trace-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs `args` with `--stats-json` and, if `trace` names a file, `--trace-out`;
/// returns the statistics, the trace and stderr.
fn run(args: &[&str], trace: Option<&str>, extra: &[&str]) -> (Value, Option<Value>, String) {
    let key = format!("{}{}", args.join("_"), extra.join("_")).replace(['-', '.', '/'], "");
    let stats = tmp(&format!("stats-{key}-{}.json", trace.is_some()));
    let mut all = args.to_vec();
    all.extend(["--stats-json", stats.to_str().unwrap()]);
    let path = trace.map(|t| tmp(&format!("{t}-{key}.json")));
    if let Some(p) = &path {
        all.extend(["--trace-out", p.to_str().unwrap()]);
    }
    all.extend(extra);
    let o = timewarp(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    let read = |p: &std::path::Path| -> Value {
        let text = std::fs::read_to_string(p).unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not valid JSON: {e}", p.display()))
    };
    (read(&stats), path.map(|p| read(&p)), stderr(&o))
}

/// Nanoseconds from a trace time in microseconds (written from whole nanoseconds).
fn ns(v: &Value) -> i64 {
    (v.as_f64().expect("a number") * 1000.0).round() as i64
}

/// A span's start and end in nanoseconds, and its name.
type Interval = (i64, i64, String);

/// Checks the trace's form and nesting; returns the spans per name.
fn check(trace: &Value, what: &str) -> BTreeMap<String, usize> {
    assert_eq!(trace["displayTimeUnit"], "ns", "{what}");
    let events = trace["traceEvents"].as_array().unwrap_or_else(|| panic!("{what}: no traceEvents"));
    let mut named = std::collections::BTreeSet::new();
    let mut tracks: BTreeMap<(i64, i64), Vec<Interval>> = BTreeMap::new();
    let mut names = BTreeMap::new();
    for e in events {
        let (pid, tid) = (e["pid"].as_i64(), e["tid"].as_i64());
        let (Some(pid), Some(tid)) = (pid, tid) else { panic!("{what}: an event without pid/tid: {e}") };
        match e["ph"].as_str() {
            Some("M") => {
                if e["name"] == "thread_name" {
                    assert!(e["args"]["name"].as_str().is_some_and(|n| n.starts_with("PE ")), "{what}: {e}");
                    named.insert((pid, tid));
                }
            }
            Some("X") => {
                let name = e["name"].as_str().unwrap_or_else(|| panic!("{what}: a span without a name: {e}"));
                assert!(e["args"].is_object(), "{what}: {e}");
                let (ts, dur) = (ns(&e["ts"]), ns(&e["dur"]));
                assert!(ts >= 0 && dur >= 0, "{what}: {e}");
                tracks.entry((pid, tid)).or_default().push((ts, ts + dur, name.to_string()));
                *names.entry(name.to_string()).or_insert(0) += 1;
            }
            other => panic!("{what}: unexpected phase {other:?}: {e}"),
        }
    }
    assert!(!tracks.is_empty(), "{what}: no spans");
    for (track, spans) in &mut tracks {
        assert!(named.contains(track), "{what}: track {track:?} has no thread_name");
        // Sorted by start, longer first: a span must end before the next
        // one starts or lie inside every span still open.
        spans.sort_by_key(|s| (s.0, std::cmp::Reverse(s.1)));
        let mut open: Vec<&Interval> = Vec::new();
        for s in spans.iter() {
            while open.last().is_some_and(|o| o.1 <= s.0) {
                open.pop();
            }
            if let Some(o) = open.last() {
                assert!(s.1 <= o.1, "{what}: on track {track:?}, {s:?} overlaps {o:?} without nesting in it");
            }
            open.push(s);
        }
    }
    names
}

const PHOLD: &[&str] = &["run", "phold", "--lps", "256", "--end", "20", "--quiet"];

#[test]
fn every_mode_writes_a_trace_that_nests_and_changes_nothing() {
    let modes: &[(&str, &[&str])] = &[
        ("sequential", &["--sync", "sequential"]),
        ("optimistic", &["--sync", "optimistic", "--threads", "2", "--remote", "1.0"]),
        // One worker running two PEs in turn is deterministic: it rolls back on every machine.
        (
            "one-worker",
            &["--sync", "optimistic", "--threads", "1", "--pes", "2", "--remote", "1.0", "--lookahead", "0"],
        ),
        ("optimistic-dynamic", &["--sync", "optimistic", "--threads", "2", "--pes", "4", "--scheduling", "dynamic"]),
        ("conservative", &["--sync", "conservative", "--threads", "2"]),
    ];
    for (what, mode) in modes {
        let args: Vec<&str> = PHOLD.iter().chain(mode.iter()).copied().collect();
        let (plain, _, _) = run(&args, None, &[]);
        let (stats, trace, err) = run(&args, Some(what), &[]);
        let trace = trace.unwrap();
        assert_eq!(stats["digest"], plain["digest"], "{what}: tracing changed the digest");
        assert!(err.is_empty(), "{what}: {err}");
        let names = check(&trace, what);
        assert_eq!(trace["otherData"]["about"]["digest"], stats["digest"], "{what}");
        assert_eq!(trace["otherData"]["truncated"], false, "{what}");
        let count = |n: &str| names.get(n).copied().unwrap_or(0);
        match *what {
            "sequential" => assert!(count("events") > 0, "{what}: {names:?}"),
            "conservative" => assert!(count("window") > 0 && count("sync") > 0, "{what}: {names:?}"),
            _ => {
                assert!(count("batch") > 0 && count("GVT round") > 0, "{what}: {names:?}");
                assert!(count("fossil collection") > 0 && count("GVT report") > 0, "{what}: {names:?}");
                let rollbacks =
                    stats["primary_rollbacks"].as_u64().unwrap() + stats["secondary_rollbacks"].as_u64().unwrap();
                assert_eq!(count("rollback") > 0, rollbacks > 0, "{what}: {rollbacks} rollbacks, spans {names:?}");
                let tracks: std::collections::BTreeSet<_> =
                    trace["traceEvents"].as_array().unwrap().iter().map(|e| e["tid"].as_i64()).collect();
                assert_eq!(tracks.len(), stats["pes_per_process"].as_u64().unwrap() as usize, "{what}: a track per PE");
            }
        }
        // Whether two threads roll back depends on how the OS schedules them.
        if *what == "one-worker" {
            assert!(count("rollback") > 0, "two PEs on one worker roll back: {names:?}");
        }
    }
}

#[test]
fn the_limit_bounds_the_trace_and_says_so() {
    let args: Vec<&str> = PHOLD.iter().chain(&["--sync", "optimistic", "--threads", "2"]).copied().collect();
    let (_, trace, _) = run(&args, Some("limited"), &["--trace-limit", "40"]);
    let trace = trace.unwrap();
    let names = check(&trace, "limited");
    assert!(names.values().sum::<usize>() <= 40, "{names:?}");
    assert_eq!(trace["otherData"]["truncated"], true);
    assert!(trace["otherData"]["dropped_spans"].as_u64().unwrap() > 0);
    // Without --quiet the run warns in one line.
    let loud: Vec<&str> = args.iter().copied().filter(|a| *a != "--quiet").collect();
    let (_, _, err) = run(&loud, Some("limited-loud"), &["--trace-limit", "40"]);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("--trace-limit")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(warnings[0].starts_with("warning: the timeline reached --trace-limit 40"), "{err}");
}

#[test]
#[should_panic(expected = "overlaps")]
fn the_nesting_check_catches_spans_that_overlap_partly() {
    let span = |ts: f64, dur: f64| serde_json::json!({ "ph": "X", "name": "batch", "ts": ts, "dur": dur, "pid": 0, "tid": 0, "args": {} });
    let name = serde_json::json!({ "ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": { "name": "PE 0" } });
    let trace = serde_json::json!({ "traceEvents": [name, span(1.0, 2.0), span(2.0, 2.0)], "displayTimeUnit": "ns" });
    check(&trace, "crafted");
}
