//! The TLM model commits the same history and the same field in every mode,
//! thread count and placement (MPI: crates/timewarp-cli/tests/mpi.rs): its
//! massive timestamp ties are ordered by the engine, not by arrival.

use timewarp::{Config, Mapping, Run, SyncMode};
use timewarp_models::tlm::{Layout, Tlm, TlmResults, Waveform};

fn models() -> Vec<Tlm> {
    let mut city = Tlm::new(&[18, 16]).unwrap();
    city.clear_sources();
    city.set_layout(Layout::Urban { block: 3, street: 2, seed: 3 }).unwrap();
    for s in [[4, 4], [13, 9], [0, 14]] {
        city.add_source(&s).unwrap();
    }
    for r in [[9, 9], [17, 4]] {
        city.add_receiver(&r).unwrap();
    }
    city.waveform = Waveform::Gaussian { width: 1.5 };
    city.boundary_reflection = 0.5;
    city.threshold = 1e-5;
    city.snapshot = Some((20, 0));

    let mut terrain = Tlm::new(&[8, 7, 3]).unwrap();
    terrain.set_layout(Layout::parse_terrain("..1\n.#.\n\n..2", 8, 7).unwrap()).unwrap();
    terrain.add_receiver(&[0, 6, 2]).unwrap();
    terrain.waveform = Waveform::Sine { period: 5.0, steps: 0 };
    terrain.boundary_reflection = -1.0;
    terrain.snapshot = Some((25, 1));
    vec![city, terrain]
}

fn same(a: &TlmResults, b: &TlmResults) -> bool {
    let bits = |r: &TlmResults| r.field.as_ref().map(|f| f.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    serde_json::to_value(a).unwrap() == serde_json::to_value(b).unwrap() && a.signals == b.signals && bits(a) == bits(b)
}

#[test]
fn every_mode_commits_the_same_tlm_history_and_field() {
    for m in models() {
        let end = 40.0;
        let seq = Run::new(&m, &Config { end, ..Config::default() }).execute().unwrap();
        assert!(seq.results.cell_steps > 1000);
        assert!(seq.stats.timestamp_ties > seq.stats.committed_events / 2, "TLM is a tie-heavy workload");
        let configs = [
            Config { sync: SyncMode::Check, ..Config::default() },
            Config { sync: SyncMode::Optimistic, threads: 1, ..Config::default() },
            Config { sync: SyncMode::Optimistic, threads: 2, kps_per_pe: 1, ..Config::default() },
            Config { sync: SyncMode::Optimistic, threads: 4, mapping: Mapping::Random, ..Config::default() },
            Config { sync: SyncMode::Conservative, threads: 2, ..Config::default() },
            Config { sync: SyncMode::Conservative, threads: 3, mapping: Mapping::Random, ..Config::default() },
        ];
        for cfg in configs {
            let what = format!("{}-D {:?} threads {}", m.grid().dims, cfg.sync, cfg.threads);
            let r = Run::new(&m, &Config { end, ..cfg }).execute().unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(r.stats.digest, seq.stats.digest, "{what}");
            assert!(same(&r.results, &seq.results), "{what}");
        }
    }
}
