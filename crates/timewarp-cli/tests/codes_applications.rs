//! CODES's application studies from CODES's own files (`--codes-workload`,
//! `--codes-alloc`; tests/data/codes/workloads/, copied from CODES's
//! repository, `small/` a reduced copy of the MILC + Jacobi test): every
//! mode commits one digest, each job runs on its allocation line's nodes,
//! its packets and bytes are what its skeleton's definition sends, and
//! bad files get one-line errors.

mod common;
use common::{assert_clear_error, stderr, timewarp, tmp};
use serde_json::{json, Value};

const DIR: &str = "tests/data/codes/workloads";

fn path(name: &str) -> String {
    format!("{DIR}/{name}")
}

/// A quiet run's `--stats-json`, parsed (a short file name of its own).
fn stats(name: &str, args: &[&str]) -> Value {
    let out = tmp(&format!("codes-apps-{name}.json"));
    let mut all = args.to_vec();
    all.extend(["--stats-json", out.to_str().unwrap(), "--quiet"]);
    let o = timewarp(&all);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

/// Every mode's run of `args` (sequential, optimistic and conservative on 2
/// threads): one digest, one set of results; the sequential one's.
fn every_mode(name: &str, args: &[&str]) -> Value {
    let seq = stats(&format!("{name}-seq"), &[args, &["--sync", "sequential"]].concat());
    for sync in ["optimistic", "conservative"] {
        let p = stats(&format!("{name}-{sync}"), &[args, &["--sync", sync, "--threads", "2"]].concat());
        assert_eq!(p["digest"], seq["digest"], "{name}: {sync}");
        assert_eq!(p["model_results"], seq["model_results"], "{name}: {sync}");
    }
    seq
}

/// Messages of MPICH's all-reduce on `p` ranks as CODES expands it: the
/// fold and unfold of the `rem = p − pof2` extra ranks, and `log2 pof2`
/// rounds of the `pof2` others.
fn allreduce_messages(p: u64) -> u64 {
    let pof2 = 1u64 << (63 - p.leading_zeros());
    2 * (p - pof2) + pof2 * pof2.trailing_zeros() as u64
}

/// Nodes of ranks `first..first + n` in rank order.
fn nodes_of(r: &Value, first: usize, n: usize) -> Vec<u64> {
    r["ranks"].as_array().unwrap()[first..first + n].iter().map(|x| x["node"].as_u64().unwrap()).collect()
}

/// Line `j` of an allocation file as node numbers.
fn alloc_line(file: &str, j: usize) -> Vec<u64> {
    let text = std::fs::read_to_string(path(file)).unwrap();
    text.lines().nth(j).unwrap().split_whitespace().map(|w| w.parse().unwrap()).collect()
}

#[test]
fn codes_milc_example_runs_in_every_mode_as_its_skeleton_defines() {
    // kb.dfdally-72-milc-small: MILC on 2x2x3x6 = 72 ranks, 10 iterations of
    // 4096-byte messages (one packet), on CODES's 72-node Dally dragonfly.
    let cfg = path("dfdally-72-par.conf");
    let (w, a) = (path("kb.dfdally-72-milc-small.workload.conf"), path("kb.dfdally-72-milc-small.alloc.conf"));
    let args = ["run", "network", "--codes-config", &cfg, "--codes-workload", &w, "--codes-alloc", &a, "--end", "1e9"];
    let s = every_mode("milc-small", &args);
    let r = &s["model_results"];
    // Per rank and iteration: 2 exchanges x (a step down and up in each of 4
    // dimensions) = 16 messages, and 2 all-reduces of 8 bytes.
    let halo = 72 * 10 * 16;
    let collective = 10 * 2 * allreduce_messages(72);
    assert_eq!(allreduce_messages(72), 2 * 8 + 64 * 6);
    assert_eq!(r["delivered_messages"], halo + collective);
    let job = &r["jobs"][0];
    assert_eq!(job["delivered_packets"], halo + collective, "one packet each");
    assert_eq!(job["delivered_bytes"], halo * 4096 + collective * 8);
    assert_eq!(nodes_of(r, 0, 72), alloc_line("kb.dfdally-72-milc-small.alloc.conf", 0));
    assert!(job["finish_ns"].as_f64().is_some(), "{job}");
}

#[test]
fn codes_milc_and_jacobi_share_the_network_by_their_allocation() {
    // CODES's two-job test (jacobi_MILC.workload.conf: Jacobi 3-D then MILC,
    // 36 ranks each, on rand_node0-1d-72-jacobi_MILC.alloc.conf), with
    // fewer iterations and smaller messages (small/README.md).
    let cfg = path("dfdally-72-par.conf");
    let (w, a) = (path("small/jacobi_MILC.workload.conf"), path("rand_node0-1d-72-jacobi_MILC.alloc.conf"));
    let args = ["run", "network", "--codes-config", &cfg, "--codes-workload", &w, "--codes-alloc", &a, "--end", "1e10"];
    let s = every_mode("jacobi-milc", &args);
    let r = &s["model_results"];
    let jobs = r["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert!(jobs[0]["name"].as_str().unwrap().starts_with("conceptual-jacobi3d"), "{}", jobs[0]);
    assert!(jobs[1]["name"].as_str().unwrap().starts_with("milc"), "{}", jobs[1]);
    assert_eq!(nodes_of(r, 0, 36), alloc_line("rand_node0-1d-72-jacobi_MILC.alloc.conf", 0));
    assert_eq!(nodes_of(r, 36, 36), alloc_line("rand_node0-1d-72-jacobi_MILC.alloc.conf", 1));
    // Jacobi: 3 iterations x 6 planes of 512 doubles (4096 bytes, one
    // packet) per rank, an all-reduce per iteration, a 6-round barrier
    // before and after.
    let jacobi = 36 * 3 * 6 + 3 * allreduce_messages(36) + 2 * 36 * 6;
    assert_eq!(jobs[0]["delivered_packets"], jacobi);
    // MILC: 3 iterations x 16 messages of 8192 bytes (2 packets) per rank,
    // 2 all-reduces per iteration.
    let (halo, collective) = (36 * 3 * 16, 3 * 2 * allreduce_messages(36));
    assert_eq!(jobs[1]["delivered_packets"], halo * 2 + collective);
    assert_eq!(jobs[1]["delivered_bytes"], halo * 8192 + collective * 8);
    assert!(jobs.iter().all(|j| j["finish_ns"].as_f64().is_some()), "{jobs:?}");
    // A Conceptual benchmark in the workload: CODES replays it (conc-online)
    // with every message eager, whatever its size.
    // (The packet counts above hold no control message either.)
    assert_eq!(r["eager_limit"], Value::Null, "{r}");
}

#[test]
fn swm_incast_runs_in_every_mode_as_its_skeleton_defines() {
    // SWM's incast2.json by name: 8 ranks, 0..=6 each send 160 bytes to 7,
    // 2 iterations; without an allocation file, on the lowest nodes.
    let cfg = path("dfdally-72-par.conf");
    let w = path("swm/incast2.workload.conf");
    let s = every_mode("incast2", &["run", "network", "--codes-config", &cfg, "--codes-workload", &w, "--end", "1e9"]);
    let job = &s["model_results"]["jobs"][0];
    assert_eq!(job["delivered_packets"], 7 * 2);
    assert_eq!(job["delivered_bytes"], 7 * 2 * 160);
    assert_eq!(nodes_of(&s["model_results"], 0, 8), (0..8).collect::<Vec<u64>>());
}

#[test]
fn swm_nearest_neighbor_runs_in_every_mode_as_its_skeleton_defines() {
    // SWM's skeleton.json on 4x4x4 ranks, 2 iterations: distance 3 reaches
    // the 26 ranks around each, 32768 bytes (8 packets) to each.
    let cfg = path("dfdally-72-par.conf");
    let w = path("swm/nearest_neighbor.workload.conf");
    let s = every_mode("nn", &["run", "network", "--codes-config", &cfg, "--codes-workload", &w, "--end", "1e10"]);
    let r = &s["model_results"];
    let job = &r["jobs"][0];
    // 32 KiB is past CODES's eager limit (8192 bytes, swm-online): each
    // message is a request-to-send, a clear-to-send and its 8 packets.
    let messages = 64 * 2 * 26;
    assert_eq!((&r["eager_limit"], &r["rendezvous_messages"]), (&json!(8192), &json!(2 * messages)));
    assert_eq!(job["delivered_packets"], messages * (8 + 2));
    assert_eq!(job["delivered_bytes"], messages * 32768 + 2 * messages * 64);
}

#[test]
fn swm_allreduce_and_many_to_many_share_the_network_in_every_mode() {
    // benchmarks.workload.conf: SWM's allreduce32 by name (32 ranks, 10
    // all-reduces of 8 bytes) on nodes 0..32, and many_to_many-40.json
    // (sources 0..=7 each to every one of 8..=39, 2 iterations of 4096
    // bytes: one packet, eager) on the 40 nodes after.
    let cfg = path("dfdally-72-par.conf");
    let w = path("swm/benchmarks.workload.conf");
    let s =
        every_mode("swm-bench", &["run", "network", "--codes-config", &cfg, "--codes-workload", &w, "--end", "1e10"]);
    let r = &s["model_results"];
    let jobs = r["jobs"].as_array().unwrap();
    assert!(jobs[0]["name"].as_str().unwrap().starts_with("allreduce"), "{}", jobs[0]);
    assert!(jobs[1]["name"].as_str().unwrap().starts_with("many_to_many"), "{}", jobs[1]);
    let allreduce = 10 * allreduce_messages(32);
    assert_eq!(allreduce, 10 * 32 * 5);
    assert_eq!(
        (&jobs[0]["delivered_packets"], &jobs[0]["delivered_bytes"]),
        (&json!(allreduce), &json!(allreduce * 8))
    );
    let m2m = 8 * 32 * 2;
    assert_eq!((&jobs[1]["delivered_packets"], &jobs[1]["delivered_bytes"]), (&json!(m2m), &json!(m2m * 4096)));
    assert_eq!(nodes_of(r, 0, 72), (0..72).collect::<Vec<u64>>());
    // Every all-reduce waits 1000 cycles at 1 GHz first.
    assert!(jobs[0]["finish_ns"].as_f64().unwrap() >= 10.0 * 1000.0, "{}", jobs[0]);
}

#[test]
fn a_long_swm_allreduce_reduce_scatters_and_all_gathers_in_every_mode() {
    // 64 KiB on 32 ranks, 2 iterations: past 2048 bytes CODES's
    // SWM_Allreduce is MPICH's reduce-scatter (blocks of 32768, 16384,
    // 8192, 4096, 2048 bytes per rank) then all-gather (the same back):
    // 10 messages per rank, 6 of them 8192 bytes or more (rendezvous).
    let json = tmp("allreduce-long.json");
    let cfg = json!({"app": "allreduce", "iteration_cnt": 2, "msg_req_bytes": 65536, "cpu_freq": 4e9});
    std::fs::write(&json, json!({"jobs": {"size": 32, "cfg": cfg}}).to_string()).unwrap();
    let w = tmp("allreduce-long.workload.conf");
    std::fs::write(&w, format!("32 {} 0 0\n", json.display())).unwrap();
    let cfg = path("dfdally-72-par.conf");
    let args = ["run", "network", "--codes-config", &cfg, "--codes-workload", w.to_str().unwrap(), "--end", "1e10"];
    let s = every_mode("allreduce-long", &args);
    let r = &s["model_results"];
    let job = &r["jobs"][0];
    let rdv = 32 * 6 * 2;
    assert_eq!(r["rendezvous_messages"], 2 * rdv);
    // Each phase a rank sends all but one 32nd of the vector.
    let payload = 2 * 32 * 2 * 65536 * 31 / 32;
    assert_eq!(job["delivered_bytes"], payload + 2 * rdv * 64);
    assert_eq!(job["delivered_packets"], 2 * 32 * 2 * (8 + 4 + 2 + 1 + 1) + 2 * rdv);
}

#[test]
fn swm_spread_runs_in_every_mode_as_its_skeleton_defines() {
    // SWM's spread_workload.json by name: rank 63 sends 8 bytes to each of
    // 0..=62, 50 iterations, 10000 cycles at 4 GHz (2.5 us) after each send.
    let cfg = path("dfdally-72-par.conf");
    let w = path("swm/spread.workload.conf");
    let s = every_mode("spread", &["run", "network", "--codes-config", &cfg, "--codes-workload", &w, "--end", "1e10"]);
    let job = &s["model_results"]["jobs"][0];
    assert_eq!((&job["delivered_packets"], &job["delivered_bytes"]), (&json!(50 * 63), &json!(50 * 63 * 8)));
    assert!(job["finish_ns"].as_f64().unwrap() >= 50.0 * 63.0 * 2500.0, "the source computes after every send: {job}");
}

#[test]
fn swm_layered_allbcast_runs_in_every_mode_as_its_skeleton_defines() {
    // layered_allbcast-16.json: 16 ranks, 2 iterations of 3 layers from
    // 32768 bytes growing 1.5 per layer, gradients a quarter: per layer a
    // rank sends each of the 15 others 1/16 of the gradients then of the
    // weights: 512 + 2048, 768 + 3072, 1152 + 4608 bytes (4608: 2 packets).
    let cfg = path("dfdally-72-par.conf");
    let w = path("swm/layered_allbcast.workload.conf");
    let s = every_mode("layered", &["run", "network", "--codes-config", &cfg, "--codes-workload", &w, "--end", "1e10"]);
    let job = &s["model_results"]["jobs"][0];
    let pairs = 16 * 15 * 2;
    assert_eq!(job["delivered_packets"], pairs * (1 + 1 + 1 + 1 + 1 + 2));
    assert_eq!(job["delivered_bytes"], pairs * (512 + 2048 + 768 + 3072 + 1152 + 4608));
}

#[test]
fn bad_swm_benchmark_files_get_one_line_errors() {
    let cfg = path("dfdally-72-par.conf");
    let write = |name: &str, text: &str| {
        let p = tmp(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let run = |w: &str, must: &str| {
        assert_clear_error(
            &["run", "network", "-q", "--codes-config", &cfg, "--codes-workload", w, "--end", "1e9"],
            must,
        );
    };
    let job = |name: &str, ranks: u32, cfg: Value| {
        let json = write(&format!("{name}.json"), &json!({"jobs": {"size": ranks, "cfg": cfg}}).to_string());
        write(&format!("{name}.workload.conf"), &format!("{ranks} {json} 0 0\n"))
    };
    // SWM's periodic aggressor by name: CODES's file, 2048 ranks, not here.
    run(&write("aggressor.workload.conf", "8 periodic_aggressor 1 0\n"), "periodic_aggressor.json");
    let pa = std::fs::canonicalize(path("swm/periodic_aggressor.json")).unwrap();
    run(&write("pa.workload.conf", &format!("8 {} 1 0\n", pa.display())), "jobs.size is 2048");
    let pa8: Value =
        serde_json::from_str(&std::fs::read_to_string(path("swm/periodic_aggressor-8.json")).unwrap()).unwrap();
    let mut inside = pa8["jobs"]["cfg"].clone();
    inside["incast_src_rank_id_interval"] = json!([0, 7]);
    run(&job("pa-inside", 8, inside), "incast_dest_rank_id 7 is inside");
    let mut big = pa8["jobs"]["cfg"].clone();
    big["incast_size"] = json!(4);
    run(&job("pa-size", 8, big), "below incast_size 4");
    let mut none = pa8["jobs"]["cfg"].clone();
    none.as_object_mut().unwrap().remove("incast_src_rank_id_interval");
    run(&job("pa-none", 8, none), "incast_src_rank_id_interval must be [FIRST, LAST]");
    let m2m = std::fs::canonicalize(path("swm/many_to_many_workload.json")).unwrap();
    run(&write("m2m.workload.conf", &format!("8 {} 1 0\n", m2m.display())), "jobs.size is 256");
    let overlap =
        json!({"app": "many_to_many", "cpu_freq": 4e9, "src_rank_id_interval": [0, 4], "dst_rank_id_interval": [4, 7]});
    run(&job("m2m-overlap", 8, overlap), "overlap");
    let no_dst = json!({"app": "many_to_many", "cpu_freq": 4e9, "src_rank_id_interval": [0, 3]});
    run(&job("m2m-no-dst", 8, no_dst), "dst_rank_id_interval must be [FIRST, LAST]");
    let inside = json!({"app": "spread", "cpu_freq": 4e9, "src_rank_id": 3, "dst_rank_id_interval": [0, 7]});
    run(&job("spread-inside", 8, inside), "src_rank_id 3 is inside");
    let scattered = json!({"app": "spread", "cpu_freq": 4e9, "scattered_start": true, "dst_rank_id_interval": [1, 7]});
    run(&job("spread-scattered", 8, scattered), "start_delay_max > 0");
    run(&job("allreduce-nofreq", 8, json!({"app": "allreduce"})), "jobs.cfg.cpu_freq is missing");
    let huge = json!({"app": "layered_allbcast", "cpu_freq": 4e9, "layer_growth_rate": 100.0});
    run(&job("layered-huge", 8, huge), "not a size");
}

/// Message sizes of one Nekbone gather-scatter of rank `rank` on the
/// non-periodic `r` lattice at order `p` (SWM's `make_neighbors_loads`: a
/// face along x shares `(Ez p + 1)(Ey p + 1)` DOFs, along y
/// `(Ez p + 1)(Ex p + 1)`, along z `(Ex p + 1)(Ey p + 1)`; an edge the
/// unstepped axis's `E p + 1`; a corner 1; 8 bytes each).
fn nekbone_gsop(r: [i64; 3], e: [u64; 3], rank: i64, p: u64) -> Vec<u64> {
    let at = [rank % r[0], rank / r[0] % r[1], rank / (r[0] * r[1])];
    let side = e.map(|e| e * p + 1);
    let mut out = vec![];
    for d in (0..27).map(|i| [i % 3 - 1, i / 3 % 3 - 1, i / 9 - 1]) {
        if d == [0, 0, 0] || (0..3).any(|i| !(0..r[i]).contains(&(at[i] + d[i]))) {
            continue;
        }
        let dofs: u64 = (0..3).filter(|&i| d[i] == 0).map(|i| side[i]).product();
        out.push(dofs * 8);
    }
    out
}

#[test]
fn swm_nekbone_runs_in_every_mode_as_its_skeleton_defines() {
    // nekbone-36.json: 4x3x3 ranks of 2x3x4 elements, orders 8 and 11, 2
    // CG iterations. Per order and rank: 2 + 2 x 2 gather-scatters, 2 x
    // (1 + 3 x 2) all-reduces of a double, a barrier (6 rounds on 36 ranks).
    let cfg = path("dfdally-72-par.conf");
    let w = path("swm/nekbone.workload.conf");
    let s = every_mode("nek", &["run", "network", "--codes-config", &cfg, "--codes-workload", &w, "--end", "1e10"]);
    let r = &s["model_results"];
    let job = &r["jobs"][0];
    assert!(job["name"].as_str().unwrap().starts_with("nekbone"), "{job}");
    let sizes: Vec<u64> =
        (0..36).flat_map(|rank| [8, 11].map(|p| nekbone_gsop([4, 3, 3], [2, 3, 4], rank, p))).flatten().collect();
    let gsops = 2 + 2 * 2;
    // CODES's eager limit (8192 bytes): a message that large or larger goes
    // by rendezvous (a request- and a clear-to-send of 64 bytes each).
    let rdv = gsops * sizes.iter().filter(|&&b| b >= 8192).count() as u64;
    assert!(rdv > 0 && rdv < gsops * sizes.len() as u64, "both protocols: {rdv}");
    let halo_packets = gsops * sizes.iter().map(|b| b.div_ceil(4096)).sum::<u64>();
    let halo_bytes = gsops * sizes.iter().sum::<u64>();
    let collective = 2 * (2 * (1 + 3 * 2) * allreduce_messages(36) + 36 * 6);
    assert_eq!((&r["eager_limit"], &r["rendezvous_messages"]), (&json!(8192), &json!(2 * rdv)));
    assert_eq!(job["delivered_packets"], halo_packets + 2 * rdv + collective);
    assert_eq!(
        job["delivered_bytes"],
        halo_bytes + 2 * rdv * 64 + 2 * (2 * (1 + 3 * 2) * allreduce_messages(36)) * 8 + 2 * 36 * 6
    );
    assert!(job["finish_ns"].as_f64().is_some(), "{job}");
}

/// One FFT transpose of SWM's LAMMPS over all ranks: the (messages,
/// points) that move, each grid point going from its owner in one layout
/// to its owner in the other (a message per pair of different owners).
fn transpose_totals(grid: [u64; 3], from: &dyn Fn([u64; 3]) -> u64, to: &dyn Fn([u64; 3]) -> u64) -> (u64, u64) {
    let (mut pairs, mut points) = (std::collections::BTreeSet::new(), 0);
    for x in 0..grid[0] {
        for y in 0..grid[1] {
            for z in 0..grid[2] {
                let (a, b) = (from([x, y, z]), to([x, y, z]));
                if a != b {
                    pairs.insert((a, b));
                    points += 1;
                }
            }
        }
    }
    (pairs.len() as u64, points)
}

#[test]
fn swm_lammps_runs_in_every_mode_as_its_skeleton_defines() {
    // lammps-8.json: SWM's LAMMPS on 2x2x2 ranks, 2x2x2 replicas (a box of
    // 110 x 154 x 145.45, PPPM grid 48 x 64 x 60), 11 timesteps: checks
    // from the 6th, a neighbour rebuild at the 11th (the sixth check).
    let cfg = path("dfdally-72-par.conf");
    let w = path("swm/lammps.workload.conf");
    let s = every_mode("lammps", &["run", "network", "--codes-config", &cfg, "--codes-workload", &w, "--end", "1e11"]);
    let r = &s["model_results"];
    let job = &r["jobs"][0];
    assert!(job["name"].as_str().unwrap().starts_with("lammps"), "{job}");
    let (steps, checks, rebuilds) = (11, 6, 1);
    // Per rank a slab of 55 x 77 x 72.7261; a ghost swap per axis each way
    // (the cutoff 12 within a slab), the y and z faces grown by it.
    let wd = [55.0, 77.0, 2.0 * (36.3615 + 36.3646) / 2.0];
    let vol = [
        (wd[1] * wd[2] * 12.0f64).trunc(),
        ((wd[0] + 24.0) * wd[2] * 12.0).trunc(),
        ((wd[0] + 24.0) * (wd[1] + 24.0) * 12.0).trunc(),
    ];
    let ghost = |per: f64| vol.iter().map(|v| 2 * (v * per + 0.5) as u64).sum::<u64>();
    let (fw, rw) = (ghost(2.48839990371), ghost(2.48841071356));
    // The PPPM stencil each way: 2 and 3 planes across faces of the 24 x 32 x
    // 30 brick grown by 5 on the axes before, 8 bytes a point before the
    // FFTs and 24 after.
    let faces = 29 * 37 + 29 * 30 + 32 * 30;
    // The FFT layouts: bricks (z fastest), z slabs of 60/8 (pencils, 1 x 8),
    // x halves by z quarters, x halves by y quarters.
    let brick = |p: [u64; 3]| p[0] / 24 * 4 + p[1] / 32 * 2 + p[2] / 30;
    let slab = |p: [u64; 3]| (0..8).rev().find(|m| m * 60 / 8 <= p[2]).unwrap();
    let mid1 = |p: [u64; 3]| p[0] / 24 + 2 * (p[2] / 15);
    let mid2 = |p: [u64; 3]| p[0] / 24 + 2 * (p[1] / 16);
    let lay: [&dyn Fn([u64; 3]) -> u64; 4] = [&brick, &slab, &mid1, &mid2];
    let mut moves = vec![(0, 1, 8), (1, 2, 16), (2, 3, 16), (3, 1, 16)];
    for _ in 0..3 {
        moves.extend([(1, 2, 16), (2, 3, 16), (3, 0, 16)]);
    }
    let fft = moves.iter().fold((0, 0), |acc, &(a, b, elem)| {
        let (m, points) = transpose_totals([48, 64, 60], lay[a], lay[b]);
        (acc.0 + m, acc.1 + elem * points)
    });
    let step = (8 * (3 * 6 + 12) + fft.0, 8 * (fw + 2 * rw + 32 * 5 * faces) + fft.1);
    // The rebuild replaces the forward ghost exchange: a handshake of 4
    // bytes and the atoms per axis (both neighbours are one rank), then the
    // borders, each ghost swap after a handshake.
    let atoms: u64 =
        [77.0 * wd[2], 55.0 * wd[2], 55.0 * 77.0].iter().map(|a| 4 + (a.trunc() * 3.08673789851 + 0.5) as u64).sum();
    let rebuild = (8 * (6 + 12 - 6), 8 * (atoms + 6 * 4 + ghost(6.63563071593) - fw));
    let p2p = (steps * step.0 + rebuilds * rebuild.0, steps * step.1 + rebuilds * rebuild.1);
    // All-reduces (3 rounds of 8 ranks): 48, 48, 48, 8, 48 bytes a step, 4
    // per check, 5 x 4 per rebuild.
    let collective = (8 * 3 * (5 * steps + checks + 5 * rebuilds), 8 * 3 * (200 * steps + 4 * checks + 20 * rebuilds));
    let control = r["rendezvous_messages"].as_u64().unwrap();
    assert!(control > 0, "FFT messages go by rendezvous");
    assert_eq!(r["delivered_messages"], p2p.0 + collective.0 + control);
    assert_eq!(job["delivered_bytes"], p2p.1 + collective.1 + 64 * control);
    assert!(job["finish_ns"].as_f64().is_some(), "{job}");
}

#[test]
fn swm_periodic_aggressor_runs_in_every_mode_as_lammps_and_its_bursts() {
    // periodic_aggressor-8.json: lammps-8.json's LAMMPS (2x2x2 ranks and
    // replicas), 2 iterations of 2 x 3 steps = LAMMPS's 12 (a rebuild at
    // the 11th); after each iteration's first 3, ranks 0..=6 send 2 rounds
    // of 131,072 bytes to rank 7. So its traffic is a 12-step LAMMPS run's
    // (whose counts swm_lammps_runs_in_every_mode_as_its_skeleton_defines
    // checks against SWM's definition) and 28 messages more, besides the
    // rendezvous handshakes (64 bytes each) of the large ones.
    let cfg = path("dfdally-72-par.conf");
    let w = path("swm/periodic_aggressor.workload.conf");
    let args = ["run", "network", "--codes-config", &cfg, "--codes-workload", &w, "--end", "1e11"];
    let s = every_mode("aggressor", &args);
    let r = &s["model_results"];
    let job = &r["jobs"][0];
    assert!(job["name"].as_str().unwrap().starts_with("periodic_aggressor"), "{job}");
    let lmp = tmp("aggr-lammps-12.json");
    let text = std::fs::read_to_string(path("swm/lammps-8.json")).unwrap();
    std::fs::write(&lmp, text.replace("\"num_time_steps\": 11", "\"num_time_steps\": 12")).unwrap();
    let lw = tmp("aggr-lammps-12.workload.conf");
    std::fs::write(&lw, format!("8 {} 0 0\n", lmp.display())).unwrap();
    let l = stats(
        "aggr-lammps",
        &["run", "network", "--codes-config", &cfg, "--codes-workload", lw.to_str().unwrap(), "--end", "1e11"],
    );
    let l = &l["model_results"];
    let plain = |r: &Value| {
        let control = r["rendezvous_messages"].as_u64().unwrap();
        let bytes = r["jobs"][0]["delivered_bytes"].as_u64().unwrap();
        (r["delivered_messages"].as_u64().unwrap() - control, bytes - 64 * control)
    };
    let (lm, lb) = plain(l);
    assert_eq!(plain(r), (lm + 7 * 2 * 2, lb + 7 * 2 * 2 * 131_072));
    assert!(job["finish_ns"].as_f64().is_some(), "{job}");
}

#[test]
fn a_codes_study_is_a_run_file_of_its_own() {
    // --print-config keeps --codes-workload and --codes-alloc; the run file
    // runs the same study (same digest).
    let cfg = path("dfdally-72-par.conf");
    let (w, a) = (path("kb.dfdally-72-milc-small.workload.conf"), path("kb.dfdally-72-milc-small.alloc.conf"));
    let args = ["run", "network", "--codes-config", &cfg, "--codes-workload", &w, "--codes-alloc", &a, "--end", "1e9"];
    let o = timewarp(&[&args[..], &["--print-config", "-q"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let toml = String::from_utf8(o.stdout).unwrap();
    assert!(toml.contains(&format!("codes-workload = \"{w}\"")), "{toml}");
    assert!(toml.contains(&format!("codes-alloc = \"{a}\"")), "{toml}");
    let file = tmp("codes-study.toml");
    std::fs::write(&file, toml).unwrap();
    let replay = stats("run-file", &["run", "--config", file.to_str().unwrap()]);
    assert_eq!(replay["digest"], stats("direct", &args)["digest"]);
}

#[test]
fn bad_codes_workload_and_allocation_files_get_one_line_errors() {
    let cfg = path("dfdally-72-par.conf");
    let kb = path("kb.dfdally-72-milc-small.workload.conf");
    let json = std::fs::canonicalize(path("kb.dfdally-72-milc-small.json")).unwrap();
    let write = |name: &str, text: &str| {
        let p = tmp(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let run = |w: &str, alloc: Option<&str>, must: &str| {
        let mut args = vec!["run", "network", "-q", "--codes-config", &cfg, "--codes-workload", w, "--end", "1e9"];
        if let Some(a) = alloc {
            args.extend(["--codes-alloc", a]);
        }
        assert_clear_error(&args, must);
    };
    run(&write("bogus.workload.conf", "4 bogus 1 0\n"), None, "unknown application 'bogus'");
    run(&write("three.workload.conf", "36 milc 1\n"), None, "expected 4 fields");
    run(
        &path("kb.dfdally-72-milc-small.workload.conf.in"),
        None,
        "'@CMAKE_CURRENT_BINARY_DIR@' is a CMake placeholder",
    );
    run(&write("size.workload.conf", &format!("36 {} 1 0\n", json.display())), None, "jobs.size is 72");
    // SWM's LAMMPS files by name: 2048 ranks.
    run(&write("lammps.workload.conf", "8 lammps 1 0\n"), None, "lammps_workload.json");
    let lmp = std::fs::canonicalize(path("swm/lammps_workload1.json")).unwrap();
    run(&write("lmp.workload.conf", &format!("8 {} 1 0\n", lmp.display())), None, "jobs.size is 2048");
    // 36 ranks: SWM's FFT transposes do not pair up (it asserts).
    let lmp36 = write(
        "lammps-36.json",
        &std::fs::read_to_string(path("swm/lammps-8.json")).unwrap().replace("\"size\": 8", "\"size\": 36"),
    );
    run(&write("lmp36.workload.conf", &format!("36 {lmp36} 1 0\n")), None, "FFT transpose");
    let nn4096 = std::fs::canonicalize(path("swm/skeleton.json")).unwrap();
    // SWM's Nekbone by name: its workload.json is 13^3 ranks.
    let nek = std::fs::canonicalize(path("swm/workload.json")).unwrap();
    run(&write("nek.workload.conf", &format!("8 {} 1 0\n", nek.display())), None, "jobs.size is 2197");
    run(&write("nekbone.workload.conf", "8 nekbone 1 0\n"), None, "workload.json");
    run(&write("nn.workload.conf", &format!("8 {} 1 0\n", nn4096.display())), None, "jobs.size is 4096");
    let nodes71: String = (0..71).map(|n| format!("{n} ")).collect();
    run(&kb, Some(&write("short.alloc.conf", &nodes71)), "lists 71 nodes for its 72 ranks");
    let out_of_range: String = (0..71).map(|n| format!("{n} ")).collect::<String>() + "99";
    run(&kb, Some(&write("range.alloc.conf", &out_of_range)), "node 99 is outside");
    let nodes36: String = (0..36).map(|n| format!("{n} ")).collect();
    run(&path("jacobi_MILC.workload.conf"), Some(&write("one.alloc.conf", &nodes36)), "none for job 1");
    // More ranks than the network has nodes.
    assert_clear_error(&["run", "network", "--dims", "4,4", "--codes-workload", &kb, "--end", "1e9"], "only 16");
    assert_clear_error(&["run", "network", "--dims", "4,4", "--baseline-alone"], "--codes-workload");
    assert_clear_error(&["run", "network", "--dims", "4,4", "--codes-alloc", &kb], "give that too");
}
