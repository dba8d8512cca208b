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
    /// Tornado (a torus's adversarial pattern): in every dimension of `k`
    /// routers, `⌈k/2⌉ − 1` steps up, so every packet takes the longest
    /// minimal route in one direction and the opposite links idle.
    Tornado,
    /// A random permutation of the nodes, fixed by its seed (the same
    /// permutation in every run and mode with that seed).
    Permutation(u64),
    /// Perfect shuffle: address bits rotated left by one.
    Shuffle,
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
            Traffic::Tornado => "tornado",
            Traffic::Permutation(_) => "permutation",
            Traffic::Shuffle => "shuffle",
        }
    }

    /// Whether the pattern is a permutation of node addresses that needs a
    /// power-of-two node count.
    fn needs_bits(&self) -> bool {
        matches!(self, Traffic::Transpose | Traffic::BitReversal | Traffic::BitComplement | Traffic::Shuffle)
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
    /// nodes of one group, for `GroupShift`). Tornado needs every dimension:
    /// see [`destination_in`](Self::destination_in).
    #[inline]
    pub fn destination(&self, src: u32, nodes: u32, k0: u32, rng: &mut impl Random) -> u32 {
        self.destination_in(src, nodes, &[k0], rng)
    }

    /// [`destination`](Self::destination) in a network whose routers per
    /// dimension are `shape` (node ids count dimension 0 fastest; `shape[0]`
    /// plays `k0`'s part).
    ///
    /// ```
    /// use timewarp_models::network::Traffic;
    /// # struct NoRng;
    /// # impl timewarp::Random for NoRng { fn next_u64(&mut self) -> u64 { 0 } }
    /// // Tornado on an 8 x 8 torus: 3 steps up in x and in y.
    /// assert_eq!(Traffic::Tornado.destination_in(2 + 8 * 6, 64, &[8, 8], &mut NoRng), 5 + 8 * 1);
    /// ```
    #[inline]
    pub fn destination_in(&self, src: u32, nodes: u32, shape: &[u32], rng: &mut impl Random) -> u32 {
        let bits = nodes.trailing_zeros();
        let k0 = shape[0];
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
            Traffic::Tornado => {
                let (mut rest, mut dst, mut scale) = (src, 0, 1);
                for &k in shape {
                    let x = rest % k;
                    rest /= k;
                    dst += scale * ((x + k.div_ceil(2) - 1) % k);
                    scale *= k;
                }
                // Dimensions not in `shape` (only `k0` given) stay as they are.
                dst + scale * rest
            }
            Traffic::Permutation(seed) => permute(src, nodes, seed),
            Traffic::Shuffle => {
                if bits == 0 {
                    src
                } else {
                    ((src << 1) | (src >> (bits - 1))) & (nodes - 1)
                }
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

/// Node `x`'s image under the random permutation of `0..n` named by `seed`:
/// a 4-round Feistel network on the smallest even number of bits that
/// holds `n` (a bijection of that range), walked until it lands below `n`
/// (which keeps it a bijection of `0..n`). Nothing is stored, so a
/// network of any size gets its permutation for free.
fn permute(x: u32, n: u32, seed: u64) -> u32 {
    let bits = (32 - (n.max(2) - 1).leading_zeros()).div_ceil(2) * 2;
    let half = bits / 2;
    let mask = (1u64 << half) - 1;
    let round = |v: u64, r: u64| {
        // splitmix64 of the half-word, the seed and the round.
        let mut z = v ^ seed.rotate_left(17 * r as u32) ^ (r + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) & mask
    };
    let mut y = x as u64;
    loop {
        let (mut l, mut r) = (y >> half, y & mask);
        for i in 0..4 {
            (l, r) = (r, l ^ round(r, i));
        }
        y = (l << half) | r;
        if y < n as u64 {
            return y as u32;
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
            "tornado" => Traffic::Tornado,
            "permutation" => Traffic::Permutation(1),
            "shuffle" | "perfect-shuffle" => Traffic::Shuffle,
            _ => {
                return Err(format!(
                    "unknown traffic pattern '{s}' (uniform, shift, ring, transpose, bit-reversal, bit-complement, neighbour, hotspot, group-shift, tornado, permutation, shuffle)"
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
        for t in [
            Traffic::Transpose,
            Traffic::BitReversal,
            Traffic::BitComplement,
            Traffic::Shift(5),
            Traffic::Ring,
            Traffic::Shuffle,
            Traffic::Tornado,
            Traffic::Permutation(7),
        ] {
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
        assert_eq!(Traffic::Shuffle.destination(0b1000_0011, 256, 16, &mut NoRng), 0b0000_0111);
        // Tornado on a 16-ring (one dimension): 7 steps up; on 5 x 3: 2 and 1.
        assert_eq!(Traffic::Tornado.destination(12, 16, 16, &mut NoRng), 3);
        assert_eq!(Traffic::Tornado.destination_in(4 + 5 * 2, 15, &[5, 3], &mut NoRng), 1);
    }

    #[test]
    fn random_permutations_are_bijections_fixed_by_their_seed() {
        for n in [2, 3, 7, 64, 100, 1000, 3456] {
            for seed in [1, 2, 99] {
                let mut seen = vec![false; n as usize];
                for s in 0..n {
                    let d = Traffic::Permutation(seed).destination(s, n, 1, &mut NoRng);
                    assert!(d < n && !seen[d as usize], "n {n} seed {seed}: {s} -> {d} twice");
                    seen[d as usize] = true;
                }
            }
        }
        let image = |seed| (0..64).map(|s| permute(s, 64, seed)).collect::<Vec<_>>();
        assert_eq!(image(5), image(5));
        assert_ne!(image(5), image(6), "another seed, another permutation");
        assert_ne!(image(5), (0..64).collect::<Vec<_>>(), "not the identity");
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
