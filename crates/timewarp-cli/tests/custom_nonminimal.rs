//! CODES's `dragonfly_custom` non-minimal routes end to end (issue 40):
//! Valiant through an intermediate ROUTER drawn as CODES draws it, the
//! detour within a group, one digest in every mode for valiant, ugal and
//! par, and the virtual channels the longer routes need.

mod common;

use common::{assert_clear_error, stderr, timewarp};

fn theta_conf() -> String {
    format!("{}/tests/data/codes/modelnet-test-dragonfly-theta.conf", env!("CARGO_MANIFEST_DIR"))
}

/// CODES's binary records of a Theta connection file, `width` integers each.
fn records(name: &str, width: usize) -> Vec<Vec<u32>> {
    let b = std::fs::read(format!("{}/tests/data/codes/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    b.chunks_exact(4 * width)
        .map(|r| r.chunks_exact(4).map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]])).collect())
        .collect()
}

/// The mean hops of Valiant routes under uniform traffic on Theta (9
/// groups of 96 routers, 4 nodes each), enumerated from the files alone:
/// a local route is 1 hop where the intra file lists the pair, else 2; a
/// route to another group goes to a gateway (uniform over the group's
/// routers with links there), over one of its links there (uniform), then
/// to the router; the intermediate is CODES's draw (any router outside
/// the source's group, the router 96 after the source with 97 chances in
/// 864; within a group one of the 95 others).
fn theta_valiant_mean_hops() -> f64 {
    let (a, g, p) = (96usize, 9usize, 4usize);
    let n = a * g;
    let mut direct = vec![false; a * a];
    for r in records("intra-theta", 3) {
        direct[r[0] as usize * a + r[1] as usize] = true;
    }
    let ld = |x: usize, y: usize| -> f64 {
        match (x % a, y % a) {
            (i, j) if i == j => 0.0,
            (i, j) if direct[i * a + j] => 1.0,
            _ => 2.0,
        }
    };
    // Links per (router, target group): the routers they land on.
    let mut links: Vec<Vec<usize>> = vec![Vec::new(); n * g];
    for r in records("inter-theta", 2) {
        links[r[0] as usize * g + r[1] as usize / a].push(r[1] as usize);
    }
    // Expected minimal hops from router x to router y.
    let mut eh = vec![0.0f64; n * n];
    for x in 0..n {
        for y in 0..n {
            let (gx, gy) = (x / a, y / a);
            eh[x * n + y] = if gx == gy {
                ld(x, y)
            } else {
                let gws: Vec<usize> = (gx * a..gx * a + a).filter(|&w| !links[w * g + gy].is_empty()).collect();
                gws.iter()
                    .map(|&w| {
                        let l = &links[w * g + gy];
                        ld(x, w) + 1.0 + l.iter().map(|&e| ld(e, y)).sum::<f64>() / l.len() as f64
                    })
                    .sum::<f64>()
                    / gws.len() as f64
            };
        }
    }
    // Sum over v outside group x of eh[v → y].
    let mut outside = vec![0.0f64; g * n];
    for y in 0..n {
        let total: f64 = (0..n).map(|v| eh[v * n + y]).sum();
        for x in 0..g {
            outside[x * n + y] = total - (x * a..x * a + a).map(|v| eh[v * n + y]).sum::<f64>();
        }
    }
    let (mut sum, mut weight) = (0.0, 0.0);
    for s in 0..n {
        let gs = s / a;
        let moved = (s + a) % n;
        // Toward another group: E[eh(s → v)] over CODES's draw.
        let to_v = ((0..n).filter(|v| v / a != gs).map(|v| eh[s * n + v]).sum::<f64>() + a as f64 * eh[s * n + moved])
            / n as f64;
        for t in 0..n {
            // Node pairs: p² per router pair, p(p − 1) within a router (0 hops).
            let w = if s == t { (p * (p - 1)) as f64 } else { (p * p) as f64 };
            weight += w;
            if s == t {
                continue;
            }
            let h = if gs == t / a {
                (gs * a..gs * a + a).filter(|&v| v != s).map(|v| ld(s, v) + ld(v, t)).sum::<f64>() / (a - 1) as f64
            } else {
                to_v + (outside[gs * n + t] + a as f64 * eh[moved * n + t]) / n as f64
            };
            sum += w * h;
        }
    }
    sum / weight
}

/// A run on Theta's files: its statistics (`--stats-json -`).
fn run(args: &[&str]) -> serde_json::Value {
    let conf = theta_conf();
    let mut all = vec!["run", "network", "--codes-config", &conf, "--stats-json", "-"];
    all.extend_from_slice(args);
    let o = timewarp(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// Valiant on Theta's files at low load, every message delivered (so no
/// route length is favoured by the end of the run): the mean hops is the
/// enumerated one within four standard errors (one packet per message,
/// each its own draw). Valiant through a GROUP (before) measured 6.71.
#[test]
fn valiant_on_theta_takes_the_enumerated_mean_hops() {
    let want = theta_valiant_mean_hops();
    let s = run(&["--routing", "valiant", "--traffic", "uniform", "--load", "0.05", "--messages", "5", "--end", "1e7"]);
    let r = &s["model_results"];
    let (mean, sd, n) =
        (r["hops_mean"].as_f64().unwrap(), r["hops_std"].as_f64().unwrap(), r["delivered_packets"].as_f64().unwrap());
    assert_eq!((n, r["in_flight_packets"].as_u64()), (17280.0, Some(0)), "every message delivered");
    let se = sd / n.sqrt();
    assert!((mean - want).abs() < 4.0 * se, "mean hops {mean}, enumerated {want} (standard error {se})");
}

/// Traffic to the next router (nearly all within a group): minimal routes
/// take one local hop (two at a row's end), Valiant ones detour through
/// another router of the group, as CODES's `nonminimal` does.
#[test]
fn valiant_within_a_group_detours_through_another_router() {
    let hops = |routing: &str| {
        let s = run(&["--routing", routing, "--traffic", "shift", "--shift", "4", "--load", "0.05", "--messages", "3"]);
        s["model_results"]["hops_mean"].as_f64().unwrap()
    };
    let (min, val) = (hops("minimal"), hops("valiant"));
    assert!(min < 1.2, "minimal: {min} hops");
    // Two legs of 1 or 2 local hops each (one of 95 routers; 20 are 1 hop from a router).
    assert!(val > 3.0 && val < 4.0, "valiant: {val} hops, minimal {min}");
}

/// Valiant, UGAL and PAR on Theta's wiring commit one digest in every mode
/// (the draws of the intermediate router and of each leg are undone on
/// rollback).
#[test]
fn every_mode_commits_one_digest_for_valiant_ugal_and_par() {
    for routing in ["valiant", "ugal", "par"] {
        let base = ["--routing", routing, "--traffic", "uniform", "--load", "0.3", "--end", "6000"];
        let seq = run(&[&base[..], &["--sync", "sequential"]].concat());
        assert!(seq["model_results"]["delivered_packets"].as_u64().unwrap() > 1000, "{routing}");
        for mode in [
            &["--sync", "optimistic", "--threads", "2"][..],
            &["--sync", "optimistic", "--threads", "1", "--pes", "4"],
            &["--sync", "optimistic", "--threads", "2", "--pes", "6", "--mapping", "random"],
            &["--sync", "conservative", "--threads", "2"],
        ] {
            let s = run(&[&base[..], mode].concat());
            assert_eq!(s["digest"], seq["digest"], "{routing} {mode:?}");
            assert_eq!(s["model_results"], seq["model_results"], "{routing} {mode:?}");
        }
    }
}

/// A route through an intermediate router of an Aries group has up to
/// 4·2 + 2 = 10 hops (PAR 12: two more before it turns), one virtual
/// channel each: fewer is refused in one line naming the need; the
/// import's default is enough for each routing.
#[test]
fn too_few_virtual_channels_for_an_intermediate_router_are_refused() {
    let conf = theta_conf();
    for (routing, vcs, need) in [("valiant", "9", "--vcs 10"), ("ugal", "8", "--vcs 10"), ("par", "11", "--vcs 12")] {
        assert_clear_error(
            &["run", "network", "--codes-config", &conf, "--routing", routing, "--vcs", vcs, "--end", "1", "-q"],
            need,
        );
        let s = run(&["--routing", routing, "--end", "1"]);
        assert_eq!(s["config"]["model"]["routing"].as_str(), Some(routing));
    }
    // Minimal routes are unchanged: 2·2 + 1 channels.
    run(&["--routing", "minimal", "--vcs", "5", "--end", "1"]);
}
