//! Fat-tree geometry: two- or three-level folded Clos networks of switches
//! of radix `2k`, optionally pruned (fewer nodes than the full tree, fewer
//! switches at the top, and optionally fewer up links into the top level).
//!
//! # Construction
//!
//! * **Leaves** (level 0) have `k` down ports, each with one node (NIC), and
//!   `k` up ports. `nodes` must be a multiple of `k`: `W = nodes / k` leaves.
//! * **Three levels**: leaves form **pods** of `k` leaves and `k`
//!   aggregation switches (level 1), joined all-to-all inside the pod (leaf
//!   `i`'s up port `j` goes to aggregation switch `j`'s down port `i`); `W`
//!   must be a multiple of `k`, giving `P = W / k` pods (at most `2k`).
//!   Aggregation switch `j` of every pod uses `u` of its `k` up ports
//!   (`--top-uplinks`, default `k`) to reach **core group** `j` of `c`
//!   core switches (the top level, all `2k` ports down).
//! * **Two levels**: the leaves themselves are the switches below the top
//!   (one group, `S = W` leaves, at most `2k`); each uses `u` up ports to
//!   reach the `c` spine switches.
//!
//! Top level: below each group are `S` switches (`P` aggregation switches, or
//! the `W` leaves), each with `u` up links; `c` is the smallest divisor of
//! `u` such that a top switch has room for its `S · u / c` down links. Each
//! lower switch then has `u / c` parallel links to every top switch of its
//! group, so every top switch reaches every pod (leaf): up/down routing can
//! turn at any of them. Up port `m < u` (counting from the first up port)
//! leads to top switch `m mod c` of the group, as its parallel link `m / c`,
//! arriving on that switch's down port `s · (u / c) + m / c` (`s`: the pod or
//! leaf). With `u = k` the tree has full bisection; `u < k` prunes the top
//! level's bandwidth by `k : u`.
//!
//! The full three-level tree (`nodes = 2k³`) has `2k` pods and `5k²`
//! switches (`2k²` leaves, `2k²` aggregation, `k²` core). Summit (radix 36,
//! 3 levels, 3,564 nodes): `k = 18`, 198 leaves, 11 pods, 198 aggregation
//! switches, `c = 6` core switches in each of 18 groups (the smallest
//! divisor of 18 with `11 · 18 / c ≤ 36`), 108 core, 504 switches in all;
//! each core switch uses 33 of its 36 ports, three parallel links per pod.
//!
//! # Numbering
//!
//! Switches: leaves `0..W` first (node `n` is NIC `n mod k` of leaf `n / k`,
//! so only the first `W` LPs have NICs), then (three levels) aggregation
//! switch `j` of pod `p` is `W + p·k + j`, then top switch `i` of group `g`
//! is `T + g·c + i` (`T` = the first top switch). Ports `0..k` of a leaf or
//! aggregation switch go down (a leaf's have no link: its NICs are the
//! ports after the network ports, as on every topology), `k..2k` go up; a
//! top switch's `0..2k` all go down.
//!
//! # Rails
//!
//! With `rails` R > 1 (CODES's `num_rails`: R planes of the tree, each node
//! with a link into every one) the switches above the leaves are built R
//! times, rail `j`'s numbered after rail `j − 1`'s (`W + j·U + i`, `U` the
//! switches of one rail above its leaves), and a leaf LP stands for the R
//! leaves of its nodes: its up ports `k + j·k .. k + (j+1)·k` are rail
//! `j`'s. Every switch then has `(R + 1)·k` ports (those above `2k` of an
//! upper switch have no link). A packet climbs the rail its NIC chose
//! ([`RailSelect`]) and comes down it.
//!
//! # Tapering
//!
//! CODES's `tapering` T (`fattree.c`): a leaf of radix `2k` has
//! `d = 2k·T/(T + 1)` nodes and `e = 2k/(T + 1)` up links (T = 1: `d = e =
//! k`, the trees above). Node `n` is NIC `n mod d` of leaf `n / d`; a
//! leaf's up ports are `k..k + e` (its ports `0..k` have no link, and those
//! from `k + e` none either). Three levels: a pod is still `k` leaves (as
//! CODES's `l0_set_size`), now with `e` aggregation switches, each with `k`
//! links down (one to every leaf of the pod) and `k` up, numbered
//! `W + p·e + j`; the top has one group per aggregation index, `e` groups. Two
//! levels: each leaf has at most `e` links into the spines
//! (`--top-uplinks`). The leaves' up links are then `T` times fewer than
//! their nodes' links: uniform traffic saturates them at `1/T` of the
//! untapered tree's load.

use serde::{Deserialize, Serialize};

/// How a multi-rail fat-tree's NIC chooses the rail of a message, as
/// CODES's `rail_select` names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RailSelect {
    /// CODES's `dedicated`: node `n`'s rail is `(n mod k) mod R` (CODES
    /// gives the rail by the node's index on its leaf).
    #[default]
    Dedicated,
    /// CODES's `adaptive`: the dedicated rail unless another rail's up links
    /// at the leaf hold fewer packets now (decided as the packet becomes
    /// the head of its NIC's queue).
    Adaptive,
    /// A rail drawn uniformly for each message.
    Random,
}

impl std::str::FromStr for RailSelect {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "dedicated" | "static" => Ok(RailSelect::Dedicated),
            "adaptive" => Ok(RailSelect::Adaptive),
            "random" | "rand" => Ok(RailSelect::Random),
            _ => Err(format!("unknown rail selection '{s}' (dedicated, adaptive, random)")),
        }
    }
}

fn one() -> u32 {
    1
}

/// CODES's default `rail_select_limit` (`fattree.c`): adaptive rail
/// selection weighs only messages above 32,768 bytes.
pub const CODES_RAIL_SELECT_LIMIT: u32 = 32768;

fn codes_limit() -> u32 {
    CODES_RAIL_SELECT_LIMIT
}

/// A multi-rail fat-tree packet's rail (in its `via`) that adaptive
/// selection leaves as it is: its message is not above
/// [`FatTree::select_limit`] bytes. (Marking these, not the weighed ones,
/// keeps `--rail-select-limit 0` runs bit for bit what adaptive selection
/// did before the limit existed.)
pub const RAIL_KEPT: u16 = 0x8000;

/// A fat-tree's shape (see the module docs for the construction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FatTree {
    /// Half the switch radix: down (and up) ports of a leaf.
    pub k: u32,
    /// Levels of switches: 2 or 3.
    pub levels: u32,
    /// Leaf switches (`nodes / k`).
    pub leaves: u32,
    /// Up links of each switch just below the top level (`k`: full bisection).
    pub up: u32,
    /// Top switches per group (per aggregation index; one group on two levels).
    pub top: u32,
    /// Planes of the tree (1: the plain tree).
    #[serde(default = "one")]
    pub rails: u32,
    /// How a node chooses its rail (with `rails` > 1).
    #[serde(default)]
    pub select: RailSelect,
    /// Adaptive rail selection weighs only messages of more bytes than this
    /// (CODES's `rail_select_limit`); smaller ones take the dedicated rail.
    #[serde(default = "codes_limit")]
    pub select_limit: u32,
    /// Up links of a leaf (CODES's tapering: `2k/(T + 1)`); 0: `k`, untapered.
    #[serde(default)]
    pub leaf_up: u32,
}

/// Where a fat-tree switch sends a packet next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// Deliver to this NIC of the (leaf) switch.
    Eject(u32),
    /// The unique down port towards the destination.
    Down(usize),
    /// Up: any of the `n` ports from `base`; `pick` is the deterministic
    /// (destination-digit) choice.
    Up {
        /// First up port that may be taken.
        base: usize,
        /// How many consecutive up ports may be taken.
        n: usize,
        /// The destination-based choice among them.
        pick: usize,
    },
}

impl FatTree {
    /// The tree of `radix`-port switches with `levels` levels and `nodes`
    /// nodes, `up` links from each switch below the top into it (`None`:
    /// `radix / 2`, full bisection); the message names the option to fix.
    pub fn new(radix: u32, levels: u32, nodes: u32, up: Option<u32>) -> Result<Self, String> {
        Self::tapered(radix, levels, nodes, up, 1.0)
    }

    /// [`FatTree::new`] with CODES's `tapering` T: leaves of `2k·T/(T + 1)`
    /// nodes and `2k/(T + 1)` up links (see the module docs); `T + 1` must
    /// divide the radix, and T be at least 1.
    pub fn tapered(radix: u32, levels: u32, nodes: u32, up: Option<u32>, tapering: f64) -> Result<Self, String> {
        if radix < 2 || radix % 2 != 0 {
            return Err(format!("--radix must be even and at least 2 (half the ports down, half up), got {radix}"));
        }
        // Ports are numbered in a byte: 2k network ports, then k NICs.
        if radix > 170 {
            return Err(format!("--radix {radix} is too large: a switch may have at most 170 ports"));
        }
        let k = radix / 2;
        let e = radix as f64 / (tapering + 1.0);
        if !(tapering.is_finite() && tapering >= 1.0) || e.fract() != 0.0 {
            return Err(format!(
                "--tapering {tapering}: a leaf of radix {radix} takes T·radix/(T + 1) nodes and radix/(T + 1) up \
                 links, so T + 1 must divide the radix (as CODES requires) and T be at least 1 (timewarp does not \
                 build leaves with more up links than nodes)"
            ));
        }
        let (e, d) = (e as u32, radix - e as u32);
        if levels != 2 && levels != 3 {
            return Err(format!("--levels of a fat-tree must be 2 or 3, got {levels}"));
        }
        if nodes == 0 || nodes % d != 0 {
            let what =
                if d == k { "radix / 2".to_string() } else { format!("T·radix/(T + 1) = {d} per tapered leaf") };
            return Err(format!(
                "--nodes {nodes} of a fat-tree must be a positive multiple of {what} = {d} (whole leaf switches)"
            ));
        }
        let leaves = nodes / d;
        // Up links into the top: the leaves' (at most e) on two levels, the aggregation switches' on three.
        let most = if levels == 2 { e } else { k };
        let up = up.unwrap_or(most);
        if up == 0 || up > most {
            let of = if most == k { format!("radix / 2 = {k}") } else { format!("a tapered leaf's {e} up links") };
            return Err(format!("--top-uplinks must be between 1 and {of}, got {up}"));
        }
        let subs = if levels == 2 {
            leaves
        } else {
            if leaves % k != 0 {
                return Err(format!(
                    "--nodes {nodes}: a 3-level fat-tree is built of whole pods of radix / 2 = {k} leaves of {d} nodes, \
                     so --nodes must be a multiple of {}",
                    k as u64 * d as u64
                ));
            }
            leaves / k
        };
        let max = 2 * k as u64 * d as u64 * if levels == 2 { 1 } else { k as u64 };
        if subs > 2 * k {
            return Err(format!(
                "--nodes {nodes} is too many for {levels} levels of radix {radix} (at most {max}: a top switch has {radix} ports)"
            ));
        }
        // Fewest top switches per group that leave room for every link up.
        let top = (1..=up).find(|c| up % c == 0 && subs * (up / c) <= 2 * k).expect("c = up always fits");
        let leaf_up = if e == k { 0 } else { e };
        let (rails, select, select_limit) = (1, RailSelect::Dedicated, CODES_RAIL_SELECT_LIMIT);
        let t = FatTree { k, levels, leaves, up, top, rails, select, select_limit, leaf_up };
        t.validate()?;
        Ok(t)
    }

    /// Nodes of the full tree of `radix`-port switches on `levels` levels
    /// tapered by `tapering`: `2 · d · k^(levels − 1)` (`d` nodes a leaf);
    /// saturated at `u32::MAX` (and `k` nodes a leaf for a bad tapering:
    /// [`FatTree::tapered`] names what is wrong).
    pub fn full_nodes(radix: u32, levels: u32, tapering: f64) -> u32 {
        let k = radix as u64 / 2;
        let d = if tapering >= 1.0 { (radix as f64 * tapering / (tapering + 1.0)).round() as u64 } else { k };
        let full = k.checked_pow(levels.clamp(1, 4) - 1).map_or(u64::MAX, |n| n.saturating_mul(2 * d));
        full.min(u32::MAX as u64) as u32
    }

    /// This tree built `rails` times over, the nodes choosing their rail by `select`.
    pub fn with_rails(self, rails: u32, select: RailSelect) -> Result<Self, String> {
        let t = FatTree { rails, select, ..self };
        t.validate()?;
        Ok(t)
    }

    /// This tree with adaptive rail selection weighing only messages above `limit` bytes.
    pub fn with_select_limit(self, limit: u32) -> Self {
        FatTree { select_limit: limit, ..self }
    }

    /// Up links of a leaf: `k`, or fewer on a tapered tree.
    #[inline]
    pub fn leaf_up(&self) -> u32 {
        if self.leaf_up == 0 {
            self.k
        } else {
            self.leaf_up
        }
    }

    /// Nodes on a leaf: `k`, or more on a tapered tree (`2k` − [`FatTree::leaf_up`]).
    #[inline]
    pub fn per_leaf(&self) -> u32 {
        2 * self.k - self.leaf_up()
    }

    /// CODES's tapering T of this tree: a leaf's nodes over its up links.
    pub fn tapering(&self) -> f64 {
        self.per_leaf() as f64 / self.leaf_up() as f64
    }

    /// Checks a shape built by hand (as [`FatTree::new`] builds it).
    pub fn validate(&self) -> Result<(), String> {
        let FatTree { k, levels, leaves, up, top, rails, .. } = *self;
        if self.leaf_up > k {
            return Err(format!("inconsistent fat-tree {self:?}: a leaf has at most radix / 2 up links"));
        }
        let most = if levels == 2 { self.leaf_up() } else { k };
        if rails == 0 || rails > 1 && (rails as u64 + 1) * k as u64 + self.per_leaf() as u64 > 255 {
            return Err(format!(
                "--rails {rails}: a fat-tree needs 1 or more rails, and a leaf's (rails + 1)·radix/2 ports and \
                 {} NICs must number at most 255 (radix {})",
                self.per_leaf(),
                2 * k
            ));
        }
        if k == 0 || !(2..=3).contains(&levels) || leaves == 0 || up == 0 || up > most || top == 0 || up % top != 0 {
            return Err(format!("inconsistent fat-tree {self:?} (build it with --radix, --levels and --nodes)"));
        }
        if levels == 3 && leaves % k != 0 || self.subs() * (up / top) > 2 * k {
            return Err(format!("inconsistent fat-tree {self:?} (build it with --radix, --levels and --nodes)"));
        }
        // Ports are numbered in a byte: 2k network ports, then the NICs.
        if 2 * k as u64 + self.per_leaf() as u64 > 255 {
            return Err(format!(
                "--radix {} is too large: a switch's ports and its leaf's {} nodes must number at most 255",
                2 * k,
                self.per_leaf()
            ));
        }
        if leaves as u64 * self.per_leaf() as u64 > 1 << 24 {
            return Err("a fat-tree may have at most 2^24 nodes (--nodes)".into());
        }
        Ok(())
    }

    /// Switches below each top group: pods (three levels) or leaves (two).
    #[inline]
    fn subs(&self) -> u32 {
        if self.levels == 2 {
            self.leaves
        } else {
            self.leaves / self.k
        }
    }

    /// Parallel links between a switch below the top and each top switch of its group.
    #[inline]
    fn parallel(&self) -> u32 {
        self.up / self.top
    }

    /// The first top-level switch.
    #[inline]
    fn top_base(&self) -> u32 {
        if self.levels == 2 {
            self.leaves
        } else {
            self.leaves + self.leaves / self.k * self.leaf_up()
        }
    }

    /// Nodes (NICs): [`FatTree::per_leaf`] per leaf.
    pub fn nodes(&self) -> u32 {
        self.leaves * self.per_leaf()
    }

    /// Switches (one LP each): leaves, then each rail's aggregation
    /// switches (three levels) and top switches.
    pub fn switches(&self) -> u32 {
        self.leaves + self.rails * self.per_rail()
    }

    /// Switches of one rail above the leaves.
    #[inline]
    fn per_rail(&self) -> u32 {
        self.top_base() + self.groups() * self.top - self.leaves
    }

    /// Switch `r` (above the leaves) as its rail and its number in rail 0.
    #[inline]
    fn in_rail(&self, r: u32) -> (u32, u32) {
        let u = r - self.leaves;
        (u / self.per_rail(), self.leaves + u % self.per_rail())
    }

    /// Groups at the top level: one per aggregation index (a leaf's up links), or one.
    fn groups(&self) -> u32 {
        if self.levels == 2 {
            1
        } else {
            self.leaf_up()
        }
    }

    /// Network ports per switch: `2k`, `(R + 1)·k` with R rails.
    pub fn ports(&self) -> usize {
        (self.rails as usize + 1) * self.k as usize
    }

    /// The level of switch `r`: 0 leaf, 1 aggregation, `levels − 1` top.
    // Always inlined: a few compares that every hop's link class, lag and
    // route ask for; called out of line it cost 29 instructions an event
    // (issue 60).
    #[inline(always)]
    pub fn level(&self, r: u32) -> u32 {
        // One rail (every run without --rails): no division on this path.
        let r = if self.rails == 1 || r < self.leaves { r } else { self.in_rail(r).1 };
        if r < self.leaves {
            0
        } else if r < self.top_base() {
            1
        } else {
            self.levels - 1
        }
    }

    /// The switch below the top that is the `s`-th of group `g`.
    #[inline]
    fn sub(&self, g: u32, s: u32) -> u32 {
        if self.levels == 2 {
            s
        } else {
            self.leaves + s * self.leaf_up() + g
        }
    }

    /// The switch and port at the other end of `port` of switch `r`, if it has a link.
    #[inline]
    pub fn neighbour(&self, r: u32, port: usize) -> Option<(u32, usize)> {
        if self.rails == 1 {
            return self.neighbour_in_rail(r, port);
        }
        let k = self.k as usize;
        let (rail, r0, port) = if r < self.leaves {
            // A leaf: rail j's up ports are k + j·k ...
            if port < k {
                return None;
            }
            let j = (port - k) / k;
            (j as u32, r, k + (port - k) % k)
        } else {
            if port >= 2 * k {
                return None;
            }
            let (j, r0) = self.in_rail(r);
            (j, r0, port)
        };
        let (to, at) = self.neighbour_in_rail(r0, port)?;
        let shift = rail * self.per_rail();
        Some(if to < self.leaves { (to, at + rail as usize * k) } else { (to + shift, at) })
    }

    /// [`FatTree::neighbour`] within rail 0.
    #[inline]
    fn neighbour_in_rail(&self, r: u32, port: usize) -> Option<(u32, usize)> {
        let (k, port) = (self.k, port as u32);
        let level = self.level(r);
        if level == self.levels - 1 {
            // A top switch: down port d is parallel link d mod (u/c) to switch d / (u/c) of the group.
            let t = r - self.top_base();
            let (g, i) = (t / self.top, t % self.top);
            let pl = self.parallel();
            let s = port / pl;
            if s >= self.subs() {
                return None;
            }
            let m = (port % pl) * self.top + i;
            return Some((self.sub(g, s), (k + m) as usize));
        }
        if level == 0 && port < k {
            return None; // a NIC's port
        }
        let e = self.leaf_up();
        if level == 1 && port < k {
            let (p, j) = ((r - self.leaves) / e, (r - self.leaves) % e);
            return Some((p * k + port, (k + j) as usize));
        }
        let m = port - k;
        if level == 0 && self.levels == 3 {
            if m >= e {
                return None; // tapered
            }
            // Leaf i of pod p, up port j: aggregation switch j of the pod, its down port i.
            let (p, i) = (r / k, r % k);
            return Some((self.leaves + p * e + m, i as usize));
        }
        if m >= self.up {
            return None; // pruned
        }
        let (g, s) = if level == 0 { (0, r) } else { ((r - self.leaves) % e, (r - self.leaves) / e) };
        let to = self.top_base() + g * self.top + m % self.top;
        Some((to, (s * self.parallel() + m / self.top) as usize))
    }

    /// The next hop at switch `r` of a packet for node `dst`: up until the
    /// lowest common ancestor level, then the unique down path (the parallel
    /// link down chosen by the destination). Destination-based up ports
    /// (D-mod-k): a leaf of a 3-level tree goes to aggregation switch
    /// `dst mod k`; the switches below the top take up port
    /// `(destination leaf) mod u` (3 levels) or `dst mod u` (2 levels).
    #[inline]
    pub fn hop(&self, r: u32, dst: u32) -> Hop {
        if self.rails == 1 {
            self.hop_in_rail(r, dst)
        } else {
            self.hop_on(r, dst, 0)
        }
    }

    /// [`FatTree::hop`] of a packet on rail `rail` (a leaf's up ports are that rail's).
    #[inline]
    pub fn hop_on(&self, r: u32, dst: u32, rail: u32) -> Hop {
        let r = if r < self.leaves { r } else { self.in_rail(r).1 };
        let base = rail as usize * self.k as usize;
        match self.hop_in_rail(r, dst) {
            Hop::Up { base: b, n, pick } if r < self.leaves => Hop::Up { base: b + base, n, pick: pick + base },
            h => h,
        }
    }

    /// The rail node `n` uses under [`RailSelect::Dedicated`] (and starts
    /// from under adaptive): its index on its leaf modulo the rails.
    #[inline]
    pub fn dedicated_rail(&self, n: u32) -> u32 {
        (n % self.per_leaf()) % self.rails
    }

    /// [`FatTree::hop`] within rail 0.
    #[inline]
    fn hop_in_rail(&self, r: u32, dst: u32) -> Hop {
        let (k, d, e) = (self.k, self.per_leaf(), self.leaf_up());
        let leaf = dst / d;
        match self.level(r) {
            0 if r == leaf => Hop::Eject(dst % d),
            0 if self.levels == 3 => Hop::Up { base: k as usize, n: e as usize, pick: (k + dst % e) as usize },
            0 => Hop::Up { base: k as usize, n: self.up as usize, pick: (k + dst % self.up) as usize },
            1 if self.levels == 3 => {
                let p = (r - self.leaves) / e;
                if leaf / k == p {
                    Hop::Down((leaf % k) as usize)
                } else {
                    Hop::Up { base: k as usize, n: self.up as usize, pick: (k + leaf % self.up) as usize }
                }
            }
            _ => {
                // The parallel link the deterministic route would have come
                // up on (up port m = the destination digit, link m / c): so
                // destinations that share a top switch spread over its links
                // to their pod (a digit fixed by the first up hop would not).
                let (s, digit) = if self.levels == 2 { (leaf, dst % self.up) } else { (leaf / k, leaf % self.up) };
                Hop::Down((s * self.parallel() + digit / self.top) as usize)
            }
        }
    }

    /// Switch-to-switch hops between leaves `a` and `b`: twice the level of
    /// their lowest common ancestor.
    pub fn leaf_hops(&self, a: u32, b: u32) -> u32 {
        if a == b {
            0
        } else if self.levels == 3 && a / self.k == b / self.k {
            2
        } else {
            2 * (self.levels - 1)
        }
    }

    /// Mean switch-to-switch hops under uniform random traffic (destination
    /// uniform over the other `N − 1` nodes): of them `d − 1` share the
    /// source's leaf (0 hops; `d` = [`FatTree::per_leaf`]), on three levels
    /// `k·d − d` more share its pod (2 hops), the rest cross the top
    /// (`2 (levels − 1)` hops).
    pub fn mean_uniform_hops(&self) -> f64 {
        let (n, k, d) = (self.nodes() as f64, self.k as f64, self.per_leaf() as f64);
        let pod = if self.levels == 3 { k * d } else { d };
        let top = 2.0 * (self.levels - 1) as f64;
        (2.0 * (pod - d) + top * (n - pod)) / (n - 1.0)
    }
}
