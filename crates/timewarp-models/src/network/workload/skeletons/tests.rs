//! Each skeleton's messages and bytes per iteration against its own
//! definition (SWM's `milc_swm_user_code.cpp` and
//! `nekbone_swm_user_code.cpp`, Union's `jacobi3d.C`),
//! counted here independently of the generators, and every receive
//! matched by a send.

use super::super::{Kind, Workload, COLLECTIVE_TAG};
use super::{allreduce_folded_messages, Incast, Jacobi3d, Milc, NearestNeighbor, Nekbone};
use std::collections::BTreeMap;

/// Per rank: (point-to-point messages, their bytes, collective messages).
pub(super) fn counts(w: &Workload) -> Vec<(u64, u64, u64)> {
    w.sends
        .iter()
        .map(|s| {
            let p2p: Vec<_> = s.iter().filter(|m| m.tag < COLLECTIVE_TAG).collect();
            (p2p.len() as u64, p2p.iter().map(|m| m.bytes as u64).sum(), (s.len() - p2p.len()) as u64)
        })
        .collect()
}

/// Every receive has a send from its source with its tag to its rank, and
/// no send is left over (as multisets).
pub(super) fn assert_matched(w: &Workload) {
    let mut sent: BTreeMap<(u32, u32, u32), i64> = BTreeMap::new();
    for (r, s) in w.sends.iter().enumerate() {
        for m in s {
            *sent.entry((r as u32, m.dst, m.tag)).or_default() += 1;
        }
    }
    for (r, ops) in w.ops.iter().enumerate() {
        for op in ops {
            if let Kind::Recv { src, tag, .. } = op.kind {
                *sent.entry((src, r as u32, tag)).or_default() -= 1;
            }
        }
    }
    assert!(sent.values().all(|&n| n == 0), "unmatched: {:?}", sent.iter().filter(|e| *e.1 != 0).collect::<Vec<_>>());
}

fn milc(dims: &[u32], distance: u32) -> Milc {
    Milc {
        ranks: dims.iter().product(),
        iterations: 3,
        compute_cycles: 100.0,
        cpu_hz: 4e9,
        dims: dims.to_vec(),
        msg_size: 497_664,
        max_distance: distance,
        randomize: false,
        seed: 1,
    }
}

#[test]
fn milc_sends_two_halo_exchanges_and_two_allreduces_per_iteration() {
    // CODES's test: 2x2x3x3 = 36 ranks. Distance 1: a step down and a step
    // up in each of the 4 dimensions = 8 neighbours (a dimension of 2 gives
    // its one neighbour twice); each exchange (even, odd) sends to each.
    let m = milc(&[2, 2, 3, 3], 1);
    let w = m.workload().unwrap();
    let per_iter_msgs = 2 * 2 * 4;
    // MPICH's all-reduce on 36 ranks: pof2 = 32, rem = 4: 2*4 fold and
    // unfold messages, 32 ranks * 5 rounds.
    assert_eq!(allreduce_folded_messages(36), 2 * 4 + 32 * 5);
    let collective: u64 = counts(&w).iter().map(|c| c.2).sum();
    assert_eq!(collective, 3 * 2 * (2 * 4 + 32 * 5), "two all-reduces per iteration");
    for (r, c) in counts(&w).iter().enumerate() {
        assert_eq!(c.0, 3 * per_iter_msgs, "rank {r}");
        assert_eq!(c.1, 3 * per_iter_msgs * 497_664, "rank {r}");
    }
    assert_matched(&w);
    // The neighbours themselves: coordinates (x0 fastest), one step along
    // one dimension, wrapping.
    let n = m.neighbours(0);
    assert_eq!(n, vec![1, 1, 2, 2, 8, 4, 24, 12], "rank 0 = (0,0,0,0): -x0, +x0, -x1, +x1, -x2 (2*4), +x2, ...");
    // Compute: 100 cycles at 4 GHz.
    assert_eq!(m.compute_ns(), 25.0);
}

#[test]
fn milc_at_distance_two_adds_the_diagonals() {
    // Up to 2 dimensions changed, each down or up: 4*2 + C(4,2)*4 = 32.
    let m = milc(&[3, 3, 3, 4], 2);
    for r in [0, 17, 107] {
        assert_eq!(m.neighbours(r).len(), 4 * 2 + 6 * 4, "rank {r}");
    }
    assert_matched(&m.workload().unwrap());
}

#[test]
fn milc_randomised_order_sends_the_same_messages() {
    let mut m = milc(&[2, 3, 3, 2], 1);
    let plain = counts(&m.workload().unwrap());
    m.randomize = true;
    let w = m.workload().unwrap();
    assert_eq!(counts(&w), plain);
    assert_matched(&w);
}

#[test]
fn milc_refuses_what_the_skeleton_cannot_run() {
    let mut m = milc(&[2, 2, 3, 3], 1);
    m.ranks = 35;
    assert!(m.workload().unwrap_err().contains("multiply"));
    assert!(milc(&[2, 1, 3], 1).workload().unwrap_err().contains("size 1"));
    assert!(milc(&[2, 2], 0).workload().unwrap_err().contains("max_dimension_distance"));
}

fn argv(words: &str) -> Vec<String> {
    words.split_whitespace().map(String::from).collect()
}

#[test]
fn jacobi3d_sends_six_planes_and_an_allreduce_per_iteration() {
    // conceptual.json's jacobi3d: 400x300x300 in 100^3 blocks = 4x3x3 = 36
    // ranks, 50000 doubles per plane, 39 iterations, 200 us compute.
    let j = Jacobi3d::from_argv(&argv("jacobi3d 400 300 300 100 100 100 50000 39 200000 barrier")).unwrap();
    assert_eq!((j.grid(), j.iterations, j.compute_ns, j.barrier), ([4, 3, 3], 39, 200_000.0, true));
    let w = j.workload(36).unwrap();
    // A dissemination barrier on 36 ranks: ceil(log2 36) = 6 rounds.
    let barriers = 2 * 6;
    for (r, c) in counts(&w).iter().enumerate() {
        assert_eq!(c.0, 39 * 6, "rank {r}: 6 planes per iteration");
        assert_eq!(c.1, 39 * 6 * 50_000 * 8, "rank {r}: doubles of 8 bytes");
    }
    let collective: u64 = counts(&w).iter().map(|c| c.2).sum();
    assert_eq!(collective, 36 * barriers + 39 * allreduce_folded_messages(36));
    assert_matched(&w);
    // +nobarrier drops the all-reduce; the cube form takes 6 words.
    let j = Jacobi3d::from_argv(&argv("jacobi3d 8 4 16 2 100 +nobarrier")).unwrap();
    assert_eq!((j.grid(), j.barrier), ([2, 2, 2], false));
    let collective: u64 = counts(&j.workload(8).unwrap()).iter().map(|c| c.2).sum();
    assert_eq!(collective, 8 * 2 * 3, "the two barriers only");
}

#[test]
fn jacobi3d_refuses_what_it_cannot_run() {
    let j = Jacobi3d::from_argv(&argv("jacobi3d 400 300 300 100 100 100 50000 39 200000 barrier")).unwrap();
    assert!(j.workload(72).unwrap_err().contains("need 36 ranks"));
    let j = Jacobi3d::from_argv(&argv("jacobi3d 400 300 300 100 100 300 5 1 1 barrier")).unwrap();
    assert!(j.workload(12).unwrap_err().contains("themselves"));
    let j = Jacobi3d::from_argv(&argv("jacobi3d 400 300 300 100 70 100 5 1 1 barrier")).unwrap();
    assert!(j.workload(36).unwrap_err().contains("not a multiple"));
    assert!(Jacobi3d::from_argv(&argv("jacobi3d 1 2")).unwrap_err().contains("got 2 arguments"));
    assert!(Jacobi3d::from_argv(&argv("jacobi3d x 4 16 2 1 barrier")).unwrap_err().contains("'x'"));
}

fn incast() -> Incast {
    // SWM's incast.json: 100 ranks, 0..=98 send 1310720 bytes to 99, 10 iterations.
    Incast {
        ranks: 100,
        iterations: 10,
        dst: 99,
        sources: (0, 98),
        bytes: 1_310_720,
        compute_cycles: 0.0,
        cpu_hz: 4e9,
        any_source: false,
        blocking: false,
        start_delay_max: 0,
        seed: 1,
    }
}

#[test]
fn incast_sends_one_message_per_source_per_iteration_to_the_destination() {
    let i = incast();
    let w = i.workload().unwrap();
    for (r, c) in counts(&w).iter().enumerate() {
        let want = if r < 99 { (10, 10 * 1_310_720, 0) } else { (0, 0, 0) };
        assert_eq!(*c, want, "rank {r}");
    }
    assert!(w.sends.iter().flatten().all(|m| m.dst == 99));
    // The skeleton's tag: sizeof(int) x ((source + 1) + size x iteration).
    assert_eq!(w.sends[7][3].tag, 4 * (8 + 100 * 3));
    assert_matched(&w);
    // Any source, blocking, scattered start: the same messages.
    let w = Incast { any_source: true, blocking: true, start_delay_max: 1000, ..incast() }.workload().unwrap();
    assert_eq!(counts(&w), counts(&i.workload().unwrap()));
    let recvs = w.ops[99].iter().filter(|o| matches!(o.kind, Kind::Recv { src: super::super::ANY_SOURCE, .. }));
    assert_eq!(recvs.count(), 99 * 10);
    // A destination among the sources would wait for itself.
    assert!(Incast { sources: (0, 99), ..incast() }.workload().unwrap_err().contains("inside"));
    assert!(Incast { dst: 100, ..incast() }.workload().unwrap_err().contains("must be ranks"));
}

#[test]
fn nearest_neighbor_sends_to_every_rank_within_its_distance() {
    // SWM's skeleton.json shape (16^3 there): distance 3 on a 3-D grid is
    // every offset in {-1, 0, 1}^3 but 0: 26 neighbours, all distinct when
    // every dimension is 3 or more.
    let nn = NearestNeighbor {
        ranks: 64,
        iterations: 5,
        dims: vec![4, 4, 4],
        msg_size: 32_768,
        max_distance: 3,
        iterations_per_sync: 2,
        randomize: false,
        seed: 1,
    };
    let at = |c: [u32; 3]| c[0] + 4 * c[1] + 16 * c[2];
    for r in [0, 21, 63] {
        let c = [r % 4, r / 4 % 4, r / 16];
        let mut want = vec![];
        for dz in [3, 0, 1] {
            for dy in [3, 0, 1] {
                for dx in [3, 0, 1] {
                    if (dx, dy, dz) != (0, 0, 0) {
                        want.push(at([(c[0] + dx) % 4, (c[1] + dy) % 4, (c[2] + dz) % 4]));
                    }
                }
            }
        }
        let mut got = nn.neighbours(r);
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "rank {r}");
    }
    let w = nn.workload().unwrap();
    for (r, c) in counts(&w).iter().enumerate() {
        assert_eq!(*c, (5 * 26, 5 * 26 * 32_768, 0), "rank {r}");
    }
    // A wait every 2 iterations and after the last: after iterations 2, 4, 5.
    assert_eq!(w.ops[0].iter().filter(|o| o.kind == Kind::WaitAll).count(), 3);
    assert_matched(&w);
    // Distance 1: 2 per dimension.
    assert_eq!(NearestNeighbor { max_distance: 1, ..nn.clone() }.neighbours(5).len(), 6);
    assert!(NearestNeighbor { dims: vec![4, 8], ..nn }.workload().err().is_some_and(|e| e.contains("multiply")));
}

fn nekbone() -> Nekbone {
    // tests/data/codes/workloads/swm/nekbone-36.json: SWM's workload.json
    // (orders 8 and 11, 8-byte DOFs) on 4x3x3 ranks of 2x3x4 elements, 2 CG iterations.
    Nekbone { ranks: 36, r: [4, 3, 3], e: [2, 3, 4], poly: (8, 12, 3), cg_count: 2, dof_bytes: 8 }
}

/// Rank `rank`'s (messages, bytes) of one gather-scatter at order `p`, from
/// `make_neighbors_loads` case by case: a face neighbour along x gets
/// `(Ez p + 1)(Ey p + 1)` DOFs, along y `(Ez p + 1)(Ex p + 1)`, along z
/// `(Ex p + 1)(Ey p + 1)`; an edge neighbour in the y-z plane `Ex p + 1`,
/// x-z `Ey p + 1`, x-y `Ez p + 1`; a corner 1; none off the lattice.
fn nekbone_gsop(n: &Nekbone, rank: u32, p: u64) -> (u64, u64) {
    let [rx, ry, rz] = n.r.map(i64::from);
    let (x, y, z) = (rank as i64 % rx, rank as i64 / rx % ry, rank as i64 / (rx * ry));
    let [ex, ey, ez] = n.e.map(|e| e as u64 * p + 1);
    let (mut msgs, mut bytes) = (0, 0);
    for dz in -1..=1i64 {
        for dy in -1..=1i64 {
            for dx in -1..=1i64 {
                let inside = (0..rx).contains(&(x + dx)) && (0..ry).contains(&(y + dy)) && (0..rz).contains(&(z + dz));
                let dofs = match (dx != 0, dy != 0, dz != 0) {
                    (false, false, false) => continue,
                    (true, false, false) => ez * ey,
                    (false, true, false) => ez * ex,
                    (false, false, true) => ex * ey,
                    (false, true, true) => ex,
                    (true, false, true) => ey,
                    (true, true, false) => ez,
                    (true, true, true) => 1,
                };
                if inside {
                    msgs += 1;
                    bytes += dofs * n.dof_bytes as u64;
                }
            }
        }
    }
    (msgs, bytes)
}

#[test]
fn nekbone_sends_its_gather_scatters_and_allreduces_per_order() {
    let n = nekbone();
    let w = n.workload().unwrap();
    assert_eq!(n.orders(), vec![8, 11], "for (p = Pbegin; p < Pend; p += Pstep)");
    // Per order: gsop twice, then two conjugate gradients of CGcount gsops each.
    let gsops = 2 + 2 * n.cg_count as u64;
    for (r, c) in counts(&w).iter().enumerate() {
        let (m8, b8) = nekbone_gsop(&n, r as u32, 8);
        let (m11, b11) = nekbone_gsop(&n, r as u32, 11);
        assert_eq!((c.0, c.1), (gsops * (m8 + m11), gsops * (b8 + b11)), "rank {r}");
    }
    // A corner rank (0) has 7 neighbours; an inner one (rank 17 = (1,1,1)) all 26.
    assert_eq!(nekbone_gsop(&n, 0, 8).0, 7);
    assert_eq!(n.loads(17, 8).unwrap().len(), 26);
    // Per order: two CGs of 1 + 3 CGcount all-reduces, and a barrier
    // (SWM's dissemination: ceil(log2 36) = 6 rounds, a message per rank each).
    let allreduces = 2 * (1 + 3 * n.cg_count as u64);
    let collective: u64 = counts(&w).iter().map(|c| c.2).sum();
    assert_eq!(collective, 2 * (allreduces * allreduce_folded_messages(36) + 36 * 6));
    assert_matched(&w);
}

#[test]
fn nekbone_on_a_line_has_only_face_neighbours() {
    // 5x1x1 ranks: the ends have one neighbour, the others two, each a face along x.
    let n = Nekbone { ranks: 5, r: [5, 1, 1], e: [1, 2, 3], poly: (1, 2, 1), cg_count: 0, ..nekbone() };
    assert_eq!(n.loads(0, 1).unwrap(), vec![(1, (3 + 1) * (2 + 1) * 8)]);
    assert_eq!(n.loads(2, 1).unwrap().iter().map(|l| l.0).collect::<Vec<_>>(), vec![3, 1]);
    assert_matched(&n.workload().unwrap());
}

#[test]
fn nekbone_refuses_what_the_skeleton_asserts_against() {
    assert!(Nekbone { ranks: 35, ..nekbone() }.workload().unwrap_err().contains("multiply"));
    assert!(Nekbone { e: [2, 0, 4], ..nekbone() }.workload().unwrap_err().contains("Ex Ey Ez"));
    assert!(Nekbone { poly: (12, 8, 3), ..nekbone() }.workload().unwrap_err().contains("Pbegin < Pend"));
    assert!(Nekbone { poly: (8, 12, 0), ..nekbone() }.workload().unwrap_err().contains("Pstep"));
    let huge = Nekbone { e: [100_000, 100_000, 1], ..nekbone() };
    assert!(huge.workload().unwrap_err().contains("exceeds 4 GiB"));
}
