//! A run that stops before its application finished (issue 62): it still
//! prints its summary and writes its statistics, which say what did not
//! finish, and it exits 1 with the one-line reason. (A 125-second two-job
//! run that missed --end once left no file and no summary.)

mod common;
use common::{stderr, timewarp, tmp};

#[test]
fn a_trace_that_misses_end_still_writes_its_statistics_and_summary() {
    let d = tmp("late-trace");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("rank.0.txt"), "compute 1e6\nsend 1 8 0\n").unwrap();
    std::fs::write(d.join("rank.1.txt"), "recv 0 0\n").unwrap();
    let json = tmp("late-trace.json");
    let _ = std::fs::remove_file(&json);
    let args = ["run", "network", "--dims", "4,4", "--end", "500", "--workload", "trace", "--trace-dir"];
    let o = timewarp(&[&args[..], &[d.to_str().unwrap(), "--stats-json", json.to_str().unwrap()]].concat());
    let (out, err) = (String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line of error: {err}");
    assert!(err.contains("2 of 2 ranks did not finish (the run reached its end time (--end)"), "{err}");
    assert!(out.contains("committed events"), "the summary is printed: {out}");
    let s: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("written")).unwrap();
    assert!(s["unfinished"].as_str().is_some_and(|u| u.contains("rank 0 is computing")), "{s}");
    let ranks = s["model_results"]["ranks"].as_array().unwrap();
    assert!(ranks.iter().all(|r| r["finish_ns"].is_null()), "no rank finished: {ranks:?}");
    assert!(s["committed_events"].as_u64().unwrap() > 0);
    // Quiet: the error line only.
    let o = timewarp(&[&args[..], &[d.to_str().unwrap(), "--quiet"]].concat());
    assert_eq!((o.status.code(), o.stdout.is_empty(), stderr(&o).lines().count()), (Some(1), true, 1));
    std::fs::remove_dir_all(&d).unwrap();
}
