//! The network model commits the same history and the same results in every
//! mode, thread count and placement (MPI: crates/timewarp-cli/tests/mpi.rs).

use timewarp::{Config, Mapping, Rollback, Run, SyncMode};
use timewarp_models::network::{
    Arbitration, Arrivals, Dragonfly, FatTree, Network, Routing, Selection, Switch, Topology, Traffic,
};

/// A PE of few LPs uses fewer KPs by default (each serves at least
/// `MIN_LPS_PER_KP` LPs), as many as asked with `min_lps_per_kp: 1`, and
/// the count never changes what is committed.
#[test]
fn a_pe_of_few_lps_uses_fewer_kps_and_commits_the_same() {
    let m = Network { topology: Topology::Torus(vec![8, 8]), load: 0.5, ..Network::default() };
    let end = 2_000.0;
    let seq = Run::new(&m, &Config { end, ..Config::default() }).execute().unwrap();
    // 64 routers: (PEs, KPs per PE by default, asked for 16 exactly)
    for (pes, default_kps, exact_kps) in [(1, 4, 16), (2, 2, 16), (4, 1, 16), (8, 1, 8)] {
        for (min_lps_per_kp, kps) in [(timewarp::MIN_LPS_PER_KP, default_kps), (1, exact_kps)] {
            let cfg = Config {
                end,
                sync: SyncMode::Optimistic,
                threads: 1,
                pes: Some(pes),
                kps_per_pe: 16,
                min_lps_per_kp,
                ..Config::default()
            };
            let what = format!("{pes} PEs, at least {min_lps_per_kp} LPs a KP");
            assert_eq!(cfg.kps_in_use(64, pes), kps, "{what}");
            let r = Run::new(&m, &cfg).execute().unwrap();
            assert_eq!(r.stats.kps_per_pe, kps as u64, "{what}");
            assert_eq!(r.stats.digest, seq.stats.digest, "{what}");
        }
    }
}

#[test]
fn every_mode_commits_the_same_network_history_and_results() {
    let models = [
        Network { topology: Topology::Torus(vec![4, 4]), load: 0.6, ..Network::default() },
        Network {
            topology: Topology::Torus(vec![4, 3]),
            routing: Routing::Valiant,
            vcs: 4,
            buffer_packets: 2,
            load: 0.5,
            ..Network::default()
        },
        Network { topology: Topology::Hypercube(4), routing: Routing::Valiant, load: 0.6, ..Network::default() },
        Network {
            topology: Topology::Torus(vec![5, 4]),
            traffic: Traffic::Tornado,
            arrivals: Arrivals::Bursty { burst: 4 },
            load: 0.7,
            ..Network::default()
        },
        Network {
            topology: Topology::Mesh(vec![3, 4]),
            arrivals: Arrivals::Bernoulli,
            switch: Switch::OutputBuffered,
            arbitration: Arbitration::Age,
            vcs: 3,
            buffer_packets: 2,
            message_bytes: 700,
            load: 0.5,
            ..Network::default()
        },
        Network {
            topology: Topology::Torus(vec![3, 4]),
            routing: Routing::Adaptive,
            selection: Selection::Contention,
            vcs: 3,
            buffer_packets: 1,
            load: 0.8,
            ..Network::default()
        },
        Network {
            topology: Topology::Hypercube(4),
            arbitration: Arbitration::Age,
            traffic: Traffic::Hotspot { nodes: 2, fraction: 0.3 },
            link_latency: 0.0,
            load: 0.7,
            ..Network::default()
        },
        // Dragonflies: a router LP with two NICs, global links slower than local ones.
        Network {
            topology: Topology::Dragonfly(Dragonfly::maximal(4, 2, 2)),
            routing: Routing::Ugal,
            arbitration: Arbitration::TransitFirst,
            traffic: Traffic::GroupShift,
            vcs: 5,
            buffer_packets: 2,
            global_link_latency: 20.0,
            load: 0.7,
            ..Network::default()
        },
        Network {
            topology: Topology::Dragonfly(Dragonfly::new(4, 2, 2, 5)),
            routing: Routing::Valiant,
            switch: Switch::OutputBuffered,
            vcs: 5,
            message_bytes: 700,
            load: 0.6,
            ..Network::default()
        },
        // ROMM: random intermediates inside the minimal quadrant, two phases.
        Network {
            topology: Topology::Torus(vec![4, 4]),
            routing: Routing::Romm,
            traffic: Traffic::Transpose,
            vcs: 4,
            buffer_packets: 2,
            load: 0.7,
            split_quantiles: true,
            ..Network::default()
        },
        Network {
            topology: Topology::Mesh(vec![4, 4]),
            routing: Routing::Romm,
            switch: Switch::OutputBuffered,
            load: 0.6,
            ..Network::default()
        },
        Network { topology: Topology::Hypercube(4), routing: Routing::Romm, load: 0.6, ..Network::default() },
        // PAR (the choice taken again in the source group) and UGAL-L with a threshold.
        Network {
            topology: Topology::Dragonfly(Dragonfly::maximal(4, 2, 2)),
            routing: Routing::Par,
            traffic: Traffic::GroupShift,
            vcs: 6,
            buffer_packets: 2,
            global_link_latency: 20.0,
            load: 0.7,
            split_quantiles: true,
            ..Network::default()
        },
        Network {
            topology: Topology::Dragonfly(Dragonfly::maximal(4, 2, 2)),
            routing: Routing::Ugal,
            traffic: Traffic::GroupShift,
            ugal_threshold: 3.0,
            vcs: 5,
            buffer_packets: 2,
            load: 0.7,
            ..Network::default()
        },
        // UGAL-G: the occupancy broadcasts are events between routers, the
        // tables they write are rolled back with the rest of the router.
        Network {
            topology: Topology::Dragonfly(Dragonfly::maximal(4, 2, 2)),
            routing: Routing::UgalG,
            traffic: Traffic::GroupShift,
            switch: Switch::OutputBuffered,
            vcs: 5,
            buffer_packets: 2,
            global_link_latency: 20.0,
            load: 0.7,
            ..Network::default()
        },
        Network {
            topology: Topology::Dragonfly(Dragonfly::new(4, 2, 2, 5)),
            routing: Routing::UgalG,
            ugal_g_period: Some(25.0),
            ugal_threshold: 1.0,
            vcs: 5,
            load: 0.8,
            ..Network::default()
        },
        // Fat-trees: interior switch LPs without NICs; adaptive up ports
        // chosen from buffer occupancy, which must not depend on the mode.
        Network {
            topology: Topology::FatTree(FatTree::new(6, 3, 54, None).unwrap()),
            routing: Routing::UpDownAdaptive,
            traffic: Traffic::Permutation(3),
            vcs: 1,
            buffer_packets: 2,
            load: 0.8,
            ..Network::default()
        },
        Network {
            topology: Topology::FatTree(FatTree::new(8, 2, 24, Some(2)).unwrap()),
            routing: Routing::UpDown,
            switch: Switch::OutputBuffered,
            message_bytes: 700,
            load: 0.7,
            ..Network::default()
        },
    ];
    let mut rolled_back = 0;
    for m in models {
        let end = 2_500.0;
        let seq = Run::new(&m, &Config { end, ..Config::default() }).execute().unwrap();
        let want = serde_json::to_value(&seq.results).unwrap();
        assert!(seq.results.delivered_packets > 100, "{m:?}");
        let r = &seq.results;
        assert_eq!(r.injected_packets, r.delivered_packets + r.in_flight_packets, "{m:?}");
        // One worker running 4 PEs in turn rolls back the same events every
        // time: the undo path (Rollback::Incremental) is exercised whatever the timing.
        // One KP per LP (the default gives these small PEs one KP): rollbacks
        // of a KP's few LPs among others that go on.
        let turns = Config {
            end,
            sync: SyncMode::Optimistic,
            threads: 1,
            pes: Some(4),
            min_lps_per_kp: 1,
            ..Config::default()
        };
        let r = Run::new(&m, &turns).execute().unwrap();
        rolled_back += r.stats.rolled_back_events;
        assert_eq!(r.stats.digest, seq.stats.digest, "{:?}: 1 thread, 4 PEs", m.topology);
        assert_eq!(serde_json::to_value(&r.results).unwrap(), want, "{:?}: 1 thread, 4 PEs", m.topology);
        let mut configs = vec![
            Config { sync: SyncMode::Check, ..Config::default() },
            Config { sync: SyncMode::Optimistic, threads: 1, ..Config::default() },
            Config { sync: SyncMode::Optimistic, threads: 2, kps_per_pe: 1, ..Config::default() },
            Config { sync: SyncMode::Optimistic, threads: 4, mapping: Mapping::Random, ..Config::default() },
        ];
        if m.link_latency > 0.0 {
            // Conservative windows need the link latency as lookahead.
            configs.push(Config { sync: SyncMode::Conservative, threads: 2, ..Config::default() });
            configs.push(Config {
                sync: SyncMode::Conservative,
                threads: 3,
                mapping: Mapping::Random,
                ..Config::default()
            });
        }
        for cfg in configs {
            let what = format!("{:?} {:?} threads {}", m.topology, cfg.sync, cfg.threads);
            let r = Run::new(&m, &Config { end, ..cfg }).execute().unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(r.stats.digest, seq.stats.digest, "{what}");
            assert_eq!(serde_json::to_value(&r.results).unwrap(), want, "{what}");
        }
    }
    assert!(rolled_back > 1000, "the 4-PE runs rolled back only {rolled_back} events");
}

#[test]
fn whole_state_saving_commits_the_same_history_as_incremental_saving() {
    // The copy-the-router path kept to measure against (--rollback state-saving).
    let m = Network { topology: Topology::Torus(vec![4, 4]), load: 0.7, message_bytes: 700, ..Network::default() };
    let end = 1_500.0;
    let seq = Run::new(&m, &Config { end, ..Config::default() }).execute().unwrap();
    let whole = Network { rollback: Rollback::StateSaving, ..m.clone() };
    for cfg in [
        Config { sync: SyncMode::Check, ..Config::default() },
        Config { sync: SyncMode::Optimistic, threads: 1, pes: Some(4), ..Config::default() },
        Config { sync: SyncMode::Optimistic, threads: 2, ..Config::default() },
    ] {
        let what = format!("{:?} pes {:?} threads {}", cfg.sync, cfg.pes, cfg.threads);
        let r = Run::new(&whole, &Config { end, ..cfg }).execute().unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(r.stats.digest, seq.stats.digest, "{what}");
        assert_eq!(serde_json::to_value(&r.results).unwrap(), serde_json::to_value(&seq.results).unwrap());
        assert_eq!(r.stats.saved_entries, 0, "{what}: the whole-state path writes no journal");
    }
    let reverse = Network { rollback: Rollback::Reverse, ..m };
    let err = reverse.validate().unwrap_err();
    assert!(err.contains("--rollback reverse") && err.contains("incremental"), "{err}");
}

#[test]
fn zero_link_latency_is_refused_by_conservative_windows_with_a_reason() {
    let m = Network { topology: Topology::Torus(vec![4, 4]), link_latency: 0.0, ..Network::default() };
    let e = Run::new(&m, &Config { end: 100.0, sync: SyncMode::Conservative, threads: 2, ..Config::default() })
        .execute()
        .unwrap_err();
    assert!(e.to_string().contains("lookahead"), "{e}");
}

/// Trace-driven workloads: the ranks' state is rolled back with the nodes,
/// so every mode gives the same history, rank times and application time
/// (a deadlocked trace included: the same ranks wait for the same things).
#[test]
fn every_mode_gives_the_same_trace_workload_results() {
    use std::sync::Arc;
    use timewarp_models::network::{Mapping as Place, Workload};
    let texts: Vec<String> = (0..6)
        .map(|r| {
            let (a, b) = ((r + 1) % 6, (r + 5) % 6);
            format!("irecv {b} 1\nisend {a} 700 1\ncompute {}\nwait\nallreduce 300\nwaitall\nbarrier\n", 10 * r)
        })
        .collect();
    let traced = Workload::parse(&texts, |r| r.to_string(), "t".into()).unwrap();
    let mut stuck = texts.clone();
    stuck[4] = "recv 2 9\n".into();
    let stuck = Workload::parse(&stuck, |r| r.to_string(), "t".into()).unwrap();
    let torus = Network { topology: Topology::Torus(vec![4, 4]), packet_bytes: 64, ..Network::default() };
    let dfly = Network {
        topology: Topology::Dragonfly(Dragonfly::maximal(4, 2, 2)),
        routing: Routing::Valiant,
        vcs: 5,
        packet_bytes: 64,
        ..Network::default()
    };
    let cases = [
        (torus.clone(), Workload::halo3d(16, 500, 3, 100.0), Place::Random(5)),
        (dfly.clone(), Workload::all_to_all(20, 300, 2, 50.0), Place::Random(7)),
        (dfly.clone(), traced.clone(), Place::Random(1)),
        // Ranks and a UGAL-G table in one router's state.
        (Network { routing: Routing::UgalG, ..dfly }, traced, Place::Random(2)),
        (torus.clone(), Workload::ring_allreduce(16, 4096, 2, 0.0), Place::Linear),
        (torus, stuck, Place::Linear),
        // Ranks on a fat-tree: its switches above the leaves have no nodes.
        (
            Network {
                topology: Topology::FatTree(FatTree::new(4, 3, 16, None).unwrap()),
                routing: Routing::UpDownAdaptive,
                packet_bytes: 64,
                ..Network::default()
            },
            Workload::halo3d(16, 500, 2, 100.0),
            Place::Random(3),
        ),
    ];
    let mut unfinished = 0;
    for (mut m, mut w, place) in cases {
        w.place(m.topology.nodes(), &place).unwrap();
        let name = w.name.clone();
        m.workload = Some(Arc::new(w));
        let end = 1e9;
        let seq = Run::new(&m, &Config { end, ..Config::default() }).execute().unwrap();
        let want = serde_json::to_value(&seq.results).unwrap();
        assert!(seq.results.delivered_packets > 20, "{name}");
        assert_eq!(seq.results.app_time_ns.is_none(), seq.results.unfinished().is_some(), "{name}");
        unfinished += seq.results.unfinished().is_some() as u32;
        for cfg in [
            // Check mode restores every event's saved writes and compares states.
            Config { sync: SyncMode::Check, ..Config::default() },
            Config { sync: SyncMode::Optimistic, threads: 1, pes: Some(4), ..Config::default() },
            Config { sync: SyncMode::Optimistic, threads: 2, kps_per_pe: 1, ..Config::default() },
            Config { sync: SyncMode::Optimistic, threads: 3, mapping: Mapping::Random, ..Config::default() },
            Config { sync: SyncMode::Conservative, threads: 2, ..Config::default() },
        ] {
            let what = format!("{name} {:?} threads {}", cfg.sync, cfg.threads);
            let r = Run::new(&m, &Config { end, ..cfg }).execute().unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(r.stats.digest, seq.stats.digest, "{what}");
            assert_eq!(serde_json::to_value(&r.results).unwrap(), want, "{what}");
        }
    }
    assert_eq!(unfinished, 1, "only the stuck trace deadlocks");
}

/// DUMPI traces (tests/data/dumpi): wildcard receives and probes, request
/// waits and the expanded collectives give the same digest and results in
/// every mode.
#[test]
fn every_mode_gives_the_same_dumpi_workload_results() {
    use std::sync::Arc;
    use timewarp_models::network::{DumpiOptions, Mapping as Place, Workload};
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dumpi");
    let torus = Network { topology: Topology::Torus(vec![4, 4]), packet_bytes: 512, ..Network::default() };
    let dfly = Network {
        topology: Topology::Dragonfly(Dragonfly::maximal(4, 2, 2)),
        routing: Routing::Valiant,
        vcs: 5,
        packet_bytes: 512,
        ..Network::default()
    };
    let scaled = DumpiOptions { compute_scale: 1e-3, ..DumpiOptions::default() };
    let cases = [
        (torus.clone(), "halo3d", scaled, Place::Random(5)),
        (dfly.clone(), "wildcard", DumpiOptions::default(), Place::Random(2)),
        (dfly, "collectives", scaled, Place::Random(1)),
        (torus, "pingpong", DumpiOptions { compute_scale: 0.0, ..scaled }, Place::Linear),
    ];
    for (mut m, name, opt, place) in cases {
        let mut w = Workload::read_dumpi(&data.join(name), &opt).unwrap();
        w.place(m.topology.nodes(), &place).unwrap();
        m.workload = Some(Arc::new(w));
        let end = 1e15;
        let seq = Run::new(&m, &Config { end, ..Config::default() }).execute().unwrap();
        let want = serde_json::to_value(&seq.results).unwrap();
        assert_eq!(seq.results.unfinished(), None, "{name}");
        for cfg in [
            Config { sync: SyncMode::Check, ..Config::default() },
            Config { sync: SyncMode::Optimistic, threads: 1, pes: Some(4), ..Config::default() },
            Config { sync: SyncMode::Optimistic, threads: 2, kps_per_pe: 1, ..Config::default() },
            Config { sync: SyncMode::Conservative, threads: 2, ..Config::default() },
        ] {
            let what = format!("{name} {:?} threads {}", cfg.sync, cfg.threads);
            let r = Run::new(&m, &Config { end, ..cfg }).execute().unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(r.stats.digest, seq.stats.digest, "{what}");
            assert_eq!(serde_json::to_value(&r.results).unwrap(), want, "{what}");
        }
    }
}

/// No quadratic behaviour on a saturated network (issue 29): with whole-state
/// saving, the source queues growing past saturation were copied before
/// every event, so the work per event grew with the end time. Incremental
/// state saving saves what an event writes: the entries per processed event
/// must not grow when the run is four times longer (a count, not a time).
#[test]
fn optimistic_work_per_event_is_flat_in_the_end_time_past_saturation() {
    let m = Network { topology: Topology::Torus(vec![8, 8]), message_bytes: 3, ..Network::default() };
    let per_event = |end: f64| {
        // Every event speculative: a safe one saves nothing.
        let cfg = Config {
            end,
            sync: SyncMode::Optimistic,
            threads: 1,
            pes: Some(2),
            safe_events: false,
            ..Config::default()
        };
        let r = Run::new(&m, &cfg).execute().unwrap();
        // Saturated: the source queues grow with the run.
        let queued = r.results.in_flight_packets as f64 / r.results.nodes as f64;
        (r.stats.saved_entries as f64 / r.stats.processed_events as f64, queued)
    };
    let (short, q1) = per_event(1_000.0);
    let (long, q4) = per_event(4_000.0);
    assert!(q4 > 2.0 * q1 && q4 > 20.0, "the network must saturate: {q1} then {q4} packets waiting per node");
    assert!(short > 1.0, "every event saves something: {short}");
    assert!(long < 1.1 * short, "entries per event grew with the end time: {short:.2} then {long:.2}");
}
