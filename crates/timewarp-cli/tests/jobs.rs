//! Several jobs on one network (`run network --job ...`): a job alone is
//! its single-workload run, the jobs' figures and slowdowns against
//! `--baseline-alone`, every mode committing the same interference run,
//! placements (CODES allocation files included) and bad specs.

mod common;
use common::{assert_clear_error, stats, tmp};
use serde_json::Value;

/// Nodes of ranks `first..first + n` of a run's results, in rank order.
fn nodes_of(r: &Value, first: u64, n: u64) -> Vec<u64> {
    let ranks = r["ranks"].as_array().unwrap();
    (first..first + n).map(|k| ranks[k as usize]["node"].as_u64().unwrap()).collect()
}

fn write_list(name: &str, nodes: &[u64]) -> String {
    let p = tmp(name);
    std::fs::write(&p, nodes.iter().map(|n| format!("{n}\n")).collect::<String>()).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn each_job_alone_is_its_single_workload_run() {
    let net = ["run", "network", "--dims", "4,4", "--end", "1e9"];
    let a = [
        "--job",
        "halo3d:ranks=8,iterations=2,bytes=2048@random-nodes",
        "--job",
        "allreduce:ranks=6,bytes=4096@contiguous",
        "--baseline-alone",
    ];
    let both = stats(&[&net[..], &a[..]].concat());
    let r = &both["model_results"];
    let jobs = r["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(r["ranks"].as_array().unwrap().len(), 14, "8 + 6 ranks");
    let singles = [
        (nodes_of(r, 0, 8), vec!["--workload", "halo3d", "--ranks", "8", "--iterations", "2", "--halo-bytes", "2048"]),
        (nodes_of(r, 8, 6), vec!["--workload", "allreduce", "--ranks", "6", "--message-bytes", "4096"]),
    ];
    for (j, (nodes, workload)) in singles.iter().enumerate() {
        let job = &jobs[j];
        assert_eq!(job["nodes"], nodes.len() as u64);
        // The same program on the same nodes as one workload.
        let map = write_list(&format!("job{j}.map"), nodes);
        let single = stats(&[&net[..], &workload[..], &["--rank-mapping", &map]].concat());
        let s = &single["model_results"];
        let alone = &job["alone"];
        assert_eq!(alone["finish_ns"], s["app_time_ns"], "job {j}: alone it finishes as its single run");
        let comm: Vec<f64> = s["ranks"].as_array().unwrap().iter().map(|x| x["comm_ns"].as_f64().unwrap()).collect();
        let mean = comm.iter().sum::<f64>() / comm.len() as f64;
        assert!((alone["comm_ns_mean"].as_f64().unwrap() - mean).abs() <= 1e-9 * mean, "job {j}");
        assert_eq!(alone["latency_mean"], s["latency_mean"], "job {j}");
        // Its wall time is its own, not the shared run's (the summary says both).
        assert!(alone["wall_seconds"].as_f64().is_some_and(|w| w >= 0.0), "job {j}: {alone}");
        // And the job alone, placed from a file, commits the single run's digest and results.
        let spec = match j {
            0 => format!("halo3d:ranks=8,iterations=2,bytes=2048@file:{map}"),
            _ => format!("allreduce:ranks=6,bytes=4096@file:{map}"),
        };
        let one = stats(&[&net[..], &["--job", &spec]].concat());
        assert_eq!(one["digest"], single["digest"], "job {j}: one job is the single-workload run");
        assert_eq!(one["model_results"]["ranks"], s["ranks"], "job {j}");
        assert_eq!(one["model_results"]["jobs"][0]["finish_ns"], s["app_time_ns"], "job {j}");
        // Sharing the network cannot make a job faster than alone here (the
        // jobs use disjoint nodes, but the links between them are shared).
        assert!(job["slowdown"].as_f64().unwrap() >= 1.0 - 1e-12, "job {j}: {job}");
    }
    // The jobs' packets add up to the run's.
    let packets: u64 = jobs.iter().map(|j| j["delivered_packets"].as_u64().unwrap()).sum();
    assert_eq!(packets, r["delivered_packets"].as_u64().unwrap());
}

#[test]
fn an_interference_run_commits_the_same_digest_in_every_mode() {
    let base = [
        "run",
        "network",
        "--topology",
        "dragonfly",
        "--routing",
        "ugal",
        "--end",
        "20000",
        "--job",
        "alltoall:ranks=12,bytes=1024@random-routers",
        "--job",
        "synthetic:load=0.4@random-nodes",
        "--sample-every",
        "2000",
    ];
    let seq = stats(&[&base[..], &["--sync", "sequential"]].concat());
    let r = &seq["model_results"];
    let jobs = r["jobs"].as_array().unwrap();
    assert_eq!((jobs[0]["kind"].as_str(), jobs[1]["kind"].as_str()), (Some("ranks"), Some("synthetic")));
    assert_eq!(jobs[1]["nodes"], 72 - 12, "the synthetic job takes every node left");
    assert!(jobs[0]["finish_ns"].as_f64().is_some() && jobs[1]["latency_mean"].as_f64().is_some(), "{jobs:?}");
    // Per-job time series beside the run's.
    let s = r["samples"].as_array().unwrap();
    let per_job: u64 = s.iter().map(|x| x["jobs"][1]["delivered_packets"].as_u64().unwrap()).sum();
    assert_eq!(per_job, jobs[1]["delivered_packets"].as_u64().unwrap());
    for (sync, threads) in [("conservative", "1"), ("conservative", "2"), ("optimistic", "1"), ("optimistic", "2")] {
        let p = stats(&[&base[..], &["--sync", sync, "--threads", threads, "--kps-per-pe", "1"]].concat());
        assert_eq!(p["digest"], seq["digest"], "{sync} {threads}");
        assert_eq!(p["model_results"], seq["model_results"], "{sync} {threads}");
    }
}

#[test]
fn codes_allocation_files_place_jobs_by_line() {
    // CODES's format: one line per job, its nodes in rank order.
    let alloc = tmp("jobs.alloc.conf");
    std::fs::write(&alloc, "15 14 13 12\n0 5 10\n").unwrap();
    let a = alloc.to_str().unwrap();
    let r = stats(&[
        "run",
        "network",
        "--dims",
        "4,4",
        "--end",
        "1e9",
        "--job",
        &format!("allreduce:ranks=4@codes:{a}"),
        "--job",
        &format!("alltoall:ranks=3@codes:{a}"),
    ]);
    let r = &r["model_results"];
    assert_eq!(nodes_of(r, 0, 4), vec![15, 14, 13, 12]);
    assert_eq!(nodes_of(r, 4, 3), vec![0, 5, 10]);
}

#[test]
fn bad_job_specs_say_what_is_wrong() {
    fn run(specs: &[&str], extra: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = ["run", "network", "--dims", "4,4", "--end", "1e9"].map(String::from).to_vec();
        for s in specs {
            v.extend(["--job".to_string(), s.to_string()]);
        }
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    }
    let check = |args: Vec<String>, what: &str| {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_clear_error(&a, what);
    };
    check(run(&["bogus:ranks=2"], &[]), "unknown kind");
    check(run(&["halo3d:ranks=40"], &[]), "only 16");
    check(run(&["halo3d"], &[]), "ranks=");
    check(run(&["allreduce:ranks=4@random-groups"], &[]), "random-groups is for a dragonfly");
    check(run(&["allreduce:ranks=4@file:/nonexistent/list"], &[]), "/nonexistent/list");
    let list = write_list("taken.map", &[0, 1, 2, 3]);
    let spec = format!("alltoall:ranks=4@file:{list}");
    check(run(&["allreduce:ranks=4@contiguous", &spec], &[]), "taken by an earlier job");
    check(run(&["allreduce:ranks=4"], &["--workload", "halo3d"]), "--workload is for one workload");
    check(run(&["synthetic:load=0.2,nodes=4", "synthetic:load=0.1,nodes=4"], &[]), "one synthetic job per run");
    check(run(&["allreduce:ranks=15", "synthetic:load=0.2"], &[]), "2 nodes or more");
}

#[test]
fn a_dumpi_job_alone_is_its_dumpi_run_and_slows_down_beside_traffic() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("../timewarp-models/tests/data/dumpi/halo3d");
    let d = dir.to_str().unwrap();
    let map = write_list("dumpi.map", &[9, 3, 12, 0, 6, 15, 1, 10]);
    let net = ["run", "network", "--dims", "4,4", "--end", "1e9"];
    let single = stats(
        &[&net[..], &["--workload", "dumpi", "--trace-dir", d, "--dumpi-time", "cpu", "--compute-scale", "0"]].concat(),
    );
    let mapped = stats(
        &[
            &net[..],
            &["--workload", "dumpi", "--trace-dir", d, "--dumpi-time", "cpu", "--compute-scale", "0"],
            &["--rank-mapping", &map],
        ]
        .concat(),
    );
    let job = stats(&[&net[..], &["--job", &format!("dumpi:dir={d},time=cpu,scale=0@file:{map}")]].concat());
    assert_eq!(job["digest"], mapped["digest"], "a DUMPI job is the DUMPI run on its nodes");
    let linear = stats(&[&net[..], &["--job", &format!("dumpi:dir={d},time=cpu,scale=0")]].concat());
    assert_eq!(linear["digest"], single["digest"], "contiguous placement on an empty network is linear");
    // Beside synthetic traffic on the other nodes it finishes later, never earlier.
    let shared = stats(
        &[
            &net[..4],
            &["--end", "200000", "--baseline-alone"],
            &["--job", &format!("dumpi:dir={d},time=cpu,scale=0@file:{map}"), "--job", "synthetic:load=0.5"],
        ]
        .concat(),
    );
    let j = &shared["model_results"]["jobs"][0];
    assert_eq!(j["alone"]["finish_ns"], mapped["model_results"]["app_time_ns"]);
    assert!(j["slowdown"].as_f64().unwrap() > 1.0, "{j}");
}

#[test]
fn a_node_list_file_takes_several_numbers_on_a_line() {
    // `file:PATH`: numbers separated by white space or lines, `#` comments.
    let list = tmp("several-a-line.txt");
    std::fs::write(&list, "# job 0\n15 14\t13\n12 # last\n").unwrap();
    let r = stats(&[
        "run",
        "network",
        "--dims",
        "4,4",
        "--end",
        "1e9",
        "--job",
        &format!("allreduce:ranks=4@file:{}", list.to_str().unwrap()),
    ]);
    assert_eq!(nodes_of(&r["model_results"], 0, 4), vec![15, 14, 13, 12]);
}

/// The jobs table prints numbers one way (issue 62): times with 4
/// significant digits in their unit, counts with separators.
#[test]
fn the_jobs_table_prints_times_in_their_unit() {
    let o = common::timewarp(&[
        "run",
        "network",
        "--dims",
        "4,4",
        "--end",
        "1e6",
        "--job",
        "halo3d:ranks=8,iterations=2,bytes=2048@contiguous",
        "--job",
        "synthetic:load=0.2,nodes=8@contiguous",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let job0 = out.lines().find(|l| l.trim_start().starts_with("job 0 ")).expect("job 0's row");
    assert!(job0.contains(" µs, comm mean ") && job0.contains("196,608 bytes"), "{job0}");
    assert!(!job0.contains(".0 ns"), "{job0}");
}
