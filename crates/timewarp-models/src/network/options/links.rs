//! The links' parameters: [`LinkClass`] (a class's own bandwidth,
//! latency and buffers), the per-class figures and per-port look-ups
//! derived from the options, and the zero-load latency formulas.

use super::super::packet::{Packet, NO_DIM};
use super::super::Topology;
use super::Network;

/// One class of links' own parameters; `None`: the network-wide default
/// (`link_bandwidth`, `link_latency`, `buffer_packets`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkClass {
    /// Bytes per ns.
    pub bandwidth: Option<f64>,
    /// ns from sender to receiver.
    pub latency: Option<f64>,
    /// Packets per virtual-channel buffer at the receiving end (terminal
    /// links have none: the NIC's source queue is unbounded and it always
    /// takes a packet).
    pub buffer_packets: Option<u32>,
}

impl Network {
    /// The exact zero-load latency on a dragonfly of a single packet of
    /// `bytes` crossing `local` local and `global` global links:
    /// `(l + 2) L + g Lg + (l + g + 1) R + S` (injection and ejection links cost L).
    /// With per-class parameters: `2 Lt + l Ll + g Lg + (l + g + 1) R +
    /// bytes / min(Bt, Bl if l > 0, Bg if g > 0)` ([`Network::zero_load_latency_route`]).
    pub fn zero_load_latency_dragonfly(&self, local: u32, global: u32, bytes: u32) -> f64 {
        let route: Vec<usize> =
            std::iter::repeat(1).take(local as usize).chain(std::iter::repeat(2).take(global as usize)).collect();
        self.zero_load_latency_route(&route, bytes)
    }

    /// The exact latency of a single packet of `bytes` crossing `hops`
    /// router-to-router links in an empty network: `(h+2) L + (h+1) R + S`
    /// (links of class 1; a fat-tree's route climbs and descends through
    /// its classes: [`Network::zero_load_latency_route`]).
    pub fn zero_load_latency(&self, hops: u32, bytes: u32) -> f64 {
        let route = match self.topology {
            Topology::FatTree(_) => (1..=hops / 2).chain((1..=hops / 2).rev()).map(|c| c as usize).collect(),
            _ => vec![1; hops as usize],
        };
        self.zero_load_latency_route(&route, bytes)
    }

    /// The exact zero-load latency of a single packet of `bytes` whose
    /// router-to-router links have the classes `route`: both terminal
    /// links' and every link's latency, a router delay per router, and the
    /// serialisation time on the slowest link,
    /// `2 Lt + Σ L_i + (h + 1) R + bytes / min(Bt, min B_i)`.
    pub fn zero_load_latency_route(&self, route: &[usize], bytes: u32) -> f64 {
        let links: f64 = route.iter().map(|&c| self.class_latency(c)).sum();
        let slowest = route.iter().map(|&c| self.class_bandwidth(c)).fold(self.class_bandwidth(0), f64::min);
        2.0 * self.class_latency(0) + links + (route.len() as f64 + 1.0) * self.router_delay + bytes as f64 / slowest
    }

    // The look-ups of a router's ports and of each link's parameters live
    // here beside the options they read, not in switch.rs: they are pure
    // functions of the parameters and the topology (no node state), used by
    // validation, the zero-load formulas, routing, injection and the switch
    // alike.

    /// Network ports per router; the NICs' ports follow from this index.
    #[inline]
    pub(crate) fn ports(&self) -> usize {
        self.topology.ports()
    }

    /// Output ports per router: network ports, then one ejection port per NIC.
    #[inline]
    pub(crate) fn outputs(&self) -> usize {
        self.topology.ports() + self.topology.terminals() as usize
    }

    /// Whether the fixed route of a packet is its only candidate output
    /// Bandwidth of link class `c` (bytes per ns; see [`Network::classes`]).
    #[inline]
    pub fn class_bandwidth(&self, c: usize) -> f64 {
        self.classes[c].bandwidth.unwrap_or(self.link_bandwidth)
    }

    /// Latency of link class `c` (a dragonfly's global class defaults to `global_link_latency`).
    #[inline]
    pub fn class_latency(&self, c: usize) -> f64 {
        self.classes[c].latency.unwrap_or(match self.topology {
            Topology::Dragonfly(_) | Topology::SlimFly(_) if c == 2 => self.global_link_latency,
            _ => self.link_latency,
        })
    }

    /// Packets per virtual-channel buffer behind links of class `c`.
    #[inline]
    pub fn class_buffer(&self, c: usize) -> u32 {
        self.classes[c].buffer_packets.unwrap_or(self.buffer_packets)
    }

    /// The largest buffer of any class (the bound of a router's queues).
    pub(crate) fn max_buffer(&self) -> u32 {
        (1..3).map(|c| self.class_buffer(c)).fold(self.buffer_packets, u32::max)
    }

    /// Whether every class has the default bandwidth: a packet's tail then
    /// follows its head by one serialisation time everywhere, and nothing
    /// about the links it crossed needs remembering.
    #[inline]
    pub(crate) fn uniform_bandwidth(&self) -> bool {
        self.classes.iter().all(|c| c.bandwidth.map_or(true, |b| b == self.link_bandwidth))
    }

    /// The class of the link behind output `o` of router `r`: 0 terminal
    /// (the NICs' ports); 1 a cube's links, a dragonfly's local ones, a
    /// fat-tree's leaf–level-1 ones; 2 a dragonfly's global links, a
    /// fat-tree's level-1–level-2 ones.
    #[inline]
    pub fn link_class(&self, r: u32, o: usize) -> usize {
        if o >= self.ports() {
            return 0;
        }
        match &self.topology {
            Topology::Dragonfly(d) => 1 + d.is_global(o) as usize,
            Topology::SlimFly(s) => 1 + s.is_global(o) as usize,
            // Ports k.. go up to the next level (a top switch's all go down);
            // ports below k down to this one.
            Topology::FatTree(f) => {
                let l = f.level(r);
                (l + (o >= f.k as usize && l + 1 < f.levels) as u32) as usize
            }
            _ => 1,
        }
    }

    /// [`Network::link_class`]'s name in the topology's terms: `terminal`;
    /// a dragonfly's or Slim Fly's `local` and `global` (CODES's names); a
    /// fat-tree's `leaf-level1` and `level1-level2`; a cube's `network`.
    pub fn link_class_name(&self, r: u32, o: usize) -> &'static str {
        match (&self.topology, self.link_class(r, o)) {
            (_, 0) => "terminal",
            (Topology::Dragonfly(_) | Topology::SlimFly(_), 1) => "local",
            (Topology::Dragonfly(_) | Topology::SlimFly(_), _) => "global",
            (Topology::FatTree(_), 1) => "leaf-level1",
            (Topology::FatTree(_), _) => "level1-level2",
            _ => "network",
        }
    }

    /// Latency of the link behind port `o` of router `r`.
    #[inline]
    pub(crate) fn latency(&self, r: u32, o: usize) -> f64 {
        // Per-class latencies are rare: without them (on every hop of most
        // runs) no class needs working out.
        if self.classes.iter().all(|c| c.latency.is_none()) {
            return match &self.topology {
                Topology::Dragonfly(d) if d.is_global(o) => self.global_link_latency,
                Topology::SlimFly(s) if s.is_global(o) => self.global_link_latency,
                _ => self.link_latency,
            };
        }
        self.class_latency(self.link_class(r, o))
    }

    /// Packets per virtual-channel buffer behind output `o` of router `r`
    /// (an ejection port's output buffers: `buffer_packets`).
    #[inline]
    pub(crate) fn buffer_of(&self, r: u32, o: usize) -> u32 {
        // Without per-class buffers (most runs) no class needs working out.
        if self.classes.iter().all(|c| c.buffer_packets.is_none()) || o >= self.ports() {
            self.buffer_packets
        } else {
            self.class_buffer(self.link_class(r, o))
        }
    }

    /// How long the tail of `p` (at router `r`, `p.hops` hops so far)
    /// follows its head out of output `o`: its serialisation time on the
    /// slowest link it has crossed or is about to (cut-through: a fast link
    /// cannot send the tail before a slow one has delivered it). What it
    /// crossed: its injection link, and on a cube a network link once it
    /// has hopped; on a fat-tree the levels up to the highest it reached,
    /// `(hops + level) / 2` (up: hops = level; down from `M`: hops = 2M −
    /// level); on a dragonfly the classes recorded in `p.dim` (unused there
    /// otherwise), which `launch` sets only when the bandwidths differ.
    #[inline(always)]
    pub(crate) fn lag(&self, r: u32, p: &Packet, o: usize) -> f64 {
        if self.uniform_bandwidth() {
            return p.bytes as f64 / self.link_bandwidth;
        }
        if let Topology::Dragonfly(d) = &self.topology {
            if d.wiring.is_some() {
                // Wired (CODES's connection files): each link serialises at
                // its own bandwidth, as CODES's links do; `dim` is the
                // routing draw there, not the classes crossed.
                return p.bytes as f64 / self.class_bandwidth(self.link_class(r, o));
            }
        }
        let mut crossed = 1 << self.link_class(r, o) | 1;
        crossed |= match &self.topology {
            Topology::Dragonfly(_) | Topology::SlimFly(_) if p.dim != NO_DIM => p.dim,
            Topology::Dragonfly(_) | Topology::SlimFly(_) => 0,
            Topology::FatTree(f) => match (p.hops as u32 + f.level(r)) / 2 {
                0 => 0,
                1 => 0b10,
                _ => 0b110,
            },
            _ => ((p.hops > 0) as u8) << 1,
        };
        let slowest =
            (0..3).filter(|c| crossed & 1 << c != 0).map(|c| self.class_bandwidth(c)).fold(f64::MAX, f64::min);
        p.bytes as f64 / slowest
    }

    /// Serialisation of `bytes` on an injection link.
    #[inline]
    pub(crate) fn serialisation(&self, bytes: u32) -> f64 {
        bytes as f64 / self.class_bandwidth(0)
    }
}
