//! The five real DUMPI traces under a rendezvous protocol for every
//! message (`eager_limit` 0: even 0-byte ones): each finishes (no
//! deadlock: collectives' and `MPI_Sendrecv`'s sends do not hold their
//! rank, as in MPI), sends exactly two control messages per message that
//! enters the network, and commits one digest in every mode.

use super::*;
use timewarp::SyncMode;

#[test]
fn every_dumpi_trace_finishes_by_rendezvous_with_two_control_messages_a_message() {
    let opt = DumpiOptions::default();
    let m = Network { topology: Topology::Torus(vec![4, 4]), eager_limit: Some(0), ..Network::default() };
    for name in ["ring", "halo3d", "collectives", "pingpong", "wildcard"] {
        let w = load(name, &opt);
        // Messages to other ranks (a rank's to itself never enter the network).
        let network: u64 =
            w.sends.iter().enumerate().map(|(r, s)| s.iter().filter(|s| s.dst != r as u32).count() as u64).sum();
        let seq = go(m.clone(), w.clone(), Mapping::Linear);
        let r = &seq.results;
        assert_eq!(r.unfinished(), None, "{name}");
        assert_eq!(r.rendezvous_messages, Some(2 * network), "{name}");
        assert_eq!(r.delivered_messages, 3 * network, "{name}: request-to-send, clear-to-send and data");
        for (sync, threads) in [(SyncMode::Optimistic, 2), (SyncMode::Conservative, 2)] {
            let mut w = w.clone();
            w.place(m.topology.nodes(), &Mapping::Linear).unwrap();
            let mm = Network { workload: Some(Arc::new(w)), ..m.clone() };
            let cfg = Config { end: 1e15, sync, threads, ..Config::default() };
            let other = Run::new(&mm, &cfg).execute().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(other.stats.digest, seq.stats.digest, "{name} {sync:?}");
            assert_eq!(other.results.rendezvous_messages, r.rendezvous_messages, "{name} {sync:?}");
        }
    }
}
