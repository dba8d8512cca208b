//! Checkpoints of the shipped models resume exactly: a run that writes
//! checkpoints in one mode, resumed from each of them in every other mode
//! and thread count, commits the digest of a sequential run that never
//! stopped (issue: checkpoint and restart at a GVT cut).

use std::path::PathBuf;

use timewarp::checkpoint::{self, Control, File, Plan};
use timewarp::{Config, Model, Run, SyncMode};
use timewarp_models::network::{Dragonfly, Network, Routing, Topology, Traffic};
use timewarp_models::pcs::Pcs;
use timewarp_models::phold::Phold;
use timewarp_models::tlm::{Layout, Tlm};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tw-models-ckpt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn cfg(sync: SyncMode, threads: usize, end: f64) -> Config {
    Config { sync, threads, end, seed: 11, batch: 8, gvt_interval: 4, ..Config::default() }
}

/// Writes checkpoints every `every` in `writer`'s mode, then resumes each in
/// sequential, conservative and optimistic modes on 1–3 threads.
fn resumes_exactly<M: Model>(name: &str, model: &M, end: f64, every: f64, writer: Config, conservative: bool) {
    let reference = Run::new(model, &cfg(SyncMode::Sequential, 1, end)).execute().unwrap().stats;
    let d = dir(name);
    let plan = Plan { dir: Some(d.clone()), every: Some(every), keep: 100, ..Plan::default() };
    let with = Run::new(model, &writer).plan(&plan).control(&Control::default()).execute().unwrap().stats;
    assert_eq!(with.digest, reference.digest, "{name}: the run that writes checkpoints");
    assert_eq!(with.committed_events, reference.committed_events);
    let files = checkpoint::list(&d).unwrap();
    assert_eq!(files.len() as u64, with.checkpoints);
    assert!(files.len() >= 2, "{name}: {files:?}");
    let mut readers = vec![cfg(SyncMode::Sequential, 1, end), cfg(SyncMode::Optimistic, 1, end)];
    readers.push(cfg(SyncMode::Optimistic, 3, end));
    if conservative {
        readers.push(cfg(SyncMode::Conservative, 2, end));
    }
    for f in &files {
        let file = File::open(f).unwrap();
        for c in &readers {
            let snap = file.load(model, None).unwrap();
            let r = Run::new(model, c).resume(snap).execute().unwrap();
            let what = format!("{name}: {f:?} resumed {} x{}", c.sync.name(), c.threads);
            assert_eq!(r.stats.digest, reference.digest, "{what}");
            assert_eq!(r.stats.committed_events, reference.committed_events, "{what}");
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn phold_resumes_exactly() {
    let m = Phold { lps: 256, population: 4, remote: 0.5, ..Phold::default() };
    resumes_exactly("phold", &m, 30.0, 8.0, cfg(SyncMode::Optimistic, 2, 30.0), true);
    resumes_exactly("phold-cons", &m, 30.0, 11.0, cfg(SyncMode::Conservative, 3, 30.0), true);
}

#[test]
fn pcs_with_mobility_resumes_exactly() {
    let m = Pcs { cells_x: 6, cells_y: 6, move_rate: 0.5, ..Pcs::default() };
    resumes_exactly("pcs", &m, 20.0, 6.0, cfg(SyncMode::Optimistic, 2, 20.0), false);
}

#[test]
fn network_resumes_exactly() {
    let m = Network { topology: Topology::Torus(vec![4, 4]), load: 0.6, ..Network::default() };
    resumes_exactly("network", &m, 2500.0, 700.0, cfg(SyncMode::Optimistic, 2, 2500.0), true);
}

#[test]
fn network_with_ugal_g_tables_resumes_exactly() {
    // A router's state then ends with its UGAL-G table (network/global.rs).
    let m = Network {
        topology: Topology::Dragonfly(Dragonfly::maximal(4, 2, 2)),
        routing: Routing::UgalG,
        traffic: Traffic::GroupShift,
        vcs: 5,
        load: 0.6,
        ..Network::default()
    };
    resumes_exactly("network-ugal-g", &m, 2500.0, 700.0, cfg(SyncMode::Optimistic, 2, 2500.0), true);
}

#[test]
fn tlm_resumes_exactly() {
    let mut m = Tlm::new(&[24, 20]).unwrap();
    m.clear_sources();
    m.set_layout(Layout::Urban { block: 3, street: 2, seed: 3 }).unwrap();
    for s in [[4, 4], [13, 9]] {
        m.add_source(&s).unwrap();
    }
    m.add_receiver(&[9, 9]).unwrap();
    resumes_exactly("tlm", &m, 40.0, 15.0, cfg(SyncMode::Conservative, 2, 40.0), true);
}
