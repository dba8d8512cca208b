//! Synthetic traffic patterns (Dally and Towles, *Principles and Practices
//! of Interconnection Networks*, section 3.2): where each new message goes.

use serde::{Deserialize, Serialize};
use std::str::FromStr;
use timewarp::Random;

/// How a source picks a message's destination.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Traffic {
    /// Uniform over every other node.
    Uniform,
    /// Node `s` sends to `(s + k) mod N`.
    Shift(u32),
    /// Node `s` sends to `(s + 1) mod N` (a shift by one).
    Ring,
    /// Address bits rotated by half: on a square 2-D torus or mesh, `(x, y)` to `(y, x)`.
    Transpose,
    /// Address bits in reverse order.
    BitReversal,
    /// Every address bit flipped.
    BitComplement,
    /// One step up dimension 0 (`x + 1 mod k`): nearest-neighbour traffic.
    Neighbour,
    /// Dragonfly adversarial pattern: every node of group `i` sends to a node
    /// of group `i + 1 mod g`, drawn uniformly (all of a group's traffic
    /// needs the global links between two groups).
    GroupShift,
    /// With probability `fraction` to one of the first `nodes` nodes (the hot
    /// spots, uniformly), otherwise uniform over every other node.
    Hotspot {
        /// How many hot nodes (ids `0..nodes`).
        nodes: u32,
        /// Probability that a message goes to a hot node.
        fraction: f64,
    },
}

impl Traffic {
    /// The name used on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Traffic::Uniform => "uniform",
            Traffic::Shift(_) => "shift",
            Traffic::Ring => "ring",
            Traffic::Transpose => "transpose",
            Traffic::BitReversal => "bit-reversal",
            Traffic::BitComplement => "bit-complement",
            Traffic::Neighbour => "neighbour",
            Traffic::Hotspot { .. } => "hotspot",
            Traffic::GroupShift => "group-shift",
        }
    }

    /// Whether the pattern is a permutation of node addresses that needs a
    /// power-of-two node count.
    fn needs_bits(&self) -> bool {
        matches!(self, Traffic::Transpose | Traffic::BitReversal | Traffic::BitComplement)
    }

    /// Checks the pattern against a network of `nodes` nodes whose first
    /// dimension has `k0` routers.
    pub fn validate(&self, nodes: u32) -> Result<(), String> {
        if self.needs_bits() {
            if !nodes.is_power_of_two() {
                return Err(format!("--traffic {} needs a power-of-two number of nodes, got {nodes}", self.name()));
            }
            if matches!(self, Traffic::Transpose) && nodes.trailing_zeros() % 2 == 1 {
                return Err(format!(
                    "--traffic transpose needs an even number of address bits (4^m nodes, e.g. a square 2-D torus), got {nodes} nodes"
                ));
            }
        }
        if nodes < 2 && matches!(self, Traffic::Uniform | Traffic::Hotspot { .. }) {
            return Err("uniform traffic needs at least 2 nodes".into());
        }
        if let Traffic::Hotspot { nodes: h, fraction } = *self {
            if h == 0 || h > nodes {
                return Err(format!("--hotspot-nodes must be between 1 and the node count {nodes}, got {h}"));
            }
            if !(0.0..=1.0).contains(&fraction) {
                return Err(format!("--hotspot-fraction must be between 0 and 1, got {fraction}"));
            }
        }
        Ok(())
    }

    /// The destination of a message from `src` in a network of `nodes` nodes
    /// whose dimension 0 has `k0` routers (a hypercube: 2; a dragonfly: the
    /// nodes of one group, for `GroupShift`).
    #[inline]
    pub fn destination(&self, src: u32, nodes: u32, k0: u32, rng: &mut impl Random) -> u32 {
        let bits = nodes.trailing_zeros();
        match *self {
            Traffic::Uniform => other(src, nodes, rng),
            Traffic::Shift(k) => ((src as u64 + k as u64) % nodes as u64) as u32,
            Traffic::Ring => (src + 1) % nodes,
            Traffic::Transpose => {
                let h = bits / 2;
                let lo = src & ((1 << h) - 1);
                (lo << h) | (src >> h)
            }
            Traffic::BitReversal => {
                if bits == 0 {
                    src
                } else {
                    src.reverse_bits() >> (32 - bits)
                }
            }
            Traffic::BitComplement => !src & (nodes - 1),
            Traffic::Neighbour => {
                let x = src % k0;
                src - x + (x + 1) % k0
            }
            Traffic::GroupShift => {
                let next = (src / k0 + 1) % (nodes / k0);
                next * k0 + rng.below(k0 as u64) as u32
            }
            Traffic::Hotspot { nodes: h, fraction } => {
                if rng.bernoulli(fraction) {
                    rng.below(h as u64) as u32
                } else {
                    other(src, nodes, rng)
                }
            }
        }
    }
}

/// Uniform over the nodes other than `src`.
#[inline]
fn other(src: u32, nodes: u32, rng: &mut impl Random) -> u32 {
    let d = rng.below(nodes as u64 - 1) as u32;
    d + (d >= src) as u32
}

impl FromStr for Traffic {
    type Err = String;
    /// Parses a pattern name; `shift` and `hotspot` get default parameters
    /// (the CLI sets them from `--shift`, `--hotspot-nodes`, `--hotspot-fraction`).
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "uniform" => Traffic::Uniform,
            "shift" => Traffic::Shift(1),
            "ring" => Traffic::Ring,
            "transpose" => Traffic::Transpose,
            "bit-reversal" => Traffic::BitReversal,
            "bit-complement" => Traffic::BitComplement,
            "neighbour" | "neighbor" => Traffic::Neighbour,
            "hotspot" => Traffic::Hotspot { nodes: 1, fraction: 0.1 },
            "group-shift" => Traffic::GroupShift,
            _ => {
                return Err(format!(
                    "unknown traffic pattern '{s}' (uniform, shift, ring, transpose, bit-reversal, bit-complement, neighbour, hotspot, group-shift)"
                ))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed "random" source for the permutations (they draw nothing).
    struct NoRng;
    impl Random for NoRng {
        fn next_u64(&mut self) -> u64 {
            unreachable!("a permutation draws nothing")
        }
    }

    #[test]
    fn permutations_are_permutations() {
        for t in [Traffic::Transpose, Traffic::BitReversal, Traffic::BitComplement, Traffic::Shift(5), Traffic::Ring] {
            let n = 256;
            let mut seen = vec![false; n as usize];
            for s in 0..n {
                let d = t.destination(s, n, 16, &mut NoRng);
                assert!(!seen[d as usize], "{t:?} maps two sources to {d}");
                seen[d as usize] = true;
            }
        }
        // Transpose of (x, y) on a 16 x 16 grid (id = x + 16 y) is (y, x).
        assert_eq!(Traffic::Transpose.destination(3 + 16 * 7, 256, 16, &mut NoRng), 7 + 16 * 3);
        assert_eq!(Traffic::BitReversal.destination(0b0000_0001, 256, 16, &mut NoRng), 0b1000_0000);
        assert_eq!(Traffic::Neighbour.destination(15 + 16 * 2, 256, 16, &mut NoRng), 16 * 2);
    }

    #[test]
    fn shapes_that_cannot_carry_a_pattern_are_refused() {
        assert!(Traffic::Transpose.validate(128).is_err());
        assert!(Traffic::BitReversal.validate(100).is_err());
        assert!(Traffic::Hotspot { nodes: 0, fraction: 0.5 }.validate(16).is_err());
        assert!(Traffic::Uniform.validate(16).is_ok());
        assert!("nope".parse::<Traffic>().is_err());
    }
}
