//! The choices of the network's multiple-choice options, each with its
//! name on the command line (`FromStr`, `name`) and in files (serde):
//! [`Switch`], [`Routing`], [`Selection`], [`Arbitration`], [`Arrivals`],
//! [`Scoring`].

use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// Where a switch buffers packets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Switch {
    /// Buffers at the inputs only (head-of-line blocking).
    #[default]
    InputBuffered,
    /// Buffers at the inputs and the outputs, infinite crossbar speed-up.
    OutputBuffered,
    /// CODES's routers (`dragonfly-custom.cxx` and its siblings): output
    /// queues as `OutputBuffered`, but a packet moves into its output's
    /// queue only while that queue, the link and the next router's buffer
    /// together hold fewer packets than the next buffer takes (CODES's
    /// `vc_occupancy` against its `*_vc_size`), and its buffer's credit
    /// goes back as it moves, after the link's latency alone (CODES holds
    /// a whole chunk when it moves it, so no tail is still arriving).
    Codes,
}

impl Switch {
    /// Whether packets wait in output queues (every switch but input-buffered).
    ///
    /// ```
    /// use timewarp_models::network::Switch;
    /// assert!(Switch::Codes.output_queued() && !Switch::InputBuffered.output_queued());
    /// ```
    #[inline(always)]
    pub fn output_queued(self) -> bool {
        self != Switch::InputBuffered
    }
}

impl FromStr for Switch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "input-buffered" | "input" => Ok(Switch::InputBuffered),
            "output-buffered" | "output" => Ok(Switch::OutputBuffered),
            "codes" => Ok(Switch::Codes),
            _ => Err(format!("unknown switch '{s}' (input-buffered, output-buffered, codes)")),
        }
    }
}

/// How a router picks a packet's output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Routing {
    /// Dimension order (e-cube on a hypercube), dateline classes on tori.
    #[default]
    DimensionOrder,
    /// Minimal adaptive: any productive port on an adaptive virtual
    /// channel, ranked by the [`Selection`] measure; the
    /// dimension-order escape channels when no adaptive one is free (Duato).
    Adaptive,
    /// Dragonfly: minimal, local–global–local at most.
    Minimal,
    /// Dragonfly: Valiant, minimally to a random intermediate group, then
    /// minimally to the destination.
    Valiant,
    /// Dragonfly: UGAL-L, minimal or Valiant chosen at the source router by
    /// the occupancy of the two first outputs times the two routes' hops.
    Ugal,
    /// Fat-tree: up to the lowest common ancestor on the up port named by a
    /// digit of the destination, then the unique way down.
    UpDown,
    /// Fat-tree: up on the least occupied up port (on a tie updown's, then
    /// the lowest), then down.
    UpDownAdaptive,
    /// Torus, mesh, hypercube: ROMM (Nesson and Johnsson), two dimension-order
    /// phases through a random intermediate router inside the minimal
    /// quadrant of source and destination, so every route is minimal.
    Romm,
    /// Dragonfly: progressive adaptive routing (PAR): UGAL-L's choice at the
    /// source router, taken again at the next router of the source group
    /// while the packet is still on its minimal route.
    Par,
    /// Dragonfly: UGAL-G, UGAL's choice at the source router by the
    /// occupancy of each route's first output plus that of the global
    /// channel it would take out of the source group, as last broadcast by
    /// the router that owns it (global.rs).
    UgalG,
    /// Dragonfly+: CODES's `non-minimal-leaf`, through a random
    /// intermediate group, down to a leaf there and up again (plus.rs).
    NonMinimalLeaf,
    /// Dragonfly (unwired): UGAL as CODES's 1-D `dragonfly` model decides
    /// it (`dragonfly.c`, `do_adaptive_routing`): once, at the source
    /// router, through a group drawn for each packet among all but the source's
    /// (the destination's is the minimal route); minimal unless the
    /// minimal output's occupancy exceeds the non-minimal one's, with no
    /// hop weighting.
    UgalCodes,
}

impl Routing {
    /// The name used on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Routing::DimensionOrder => "dimension-order",
            Routing::Adaptive => "adaptive",
            Routing::Minimal => "minimal",
            Routing::Valiant => "valiant",
            Routing::Ugal => "ugal",
            Routing::UpDown => "updown",
            Routing::UpDownAdaptive => "updown-adaptive",
            Routing::Romm => "romm",
            Routing::Par => "par",
            Routing::UgalG => "ugal-g",
            Routing::NonMinimalLeaf => "non-minimal-leaf",
            Routing::UgalCodes => "ugal-codes",
        }
    }
}

impl FromStr for Routing {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "dimension-order" | "dor" | "e-cube" => Ok(Routing::DimensionOrder),
            "adaptive" => Ok(Routing::Adaptive),
            "minimal" => Ok(Routing::Minimal),
            "valiant" | "non-minimal-spine" => Ok(Routing::Valiant),
            "non-minimal-leaf" => Ok(Routing::NonMinimalLeaf),
            "ugal" | "ugal-l" => Ok(Routing::Ugal),
            "updown" | "up-down" => Ok(Routing::UpDown),
            "updown-adaptive" => Ok(Routing::UpDownAdaptive),
            "romm" => Ok(Routing::Romm),
            "par" | "progressive-adaptive" | "prog-adaptive" => Ok(Routing::Par),
            "ugal-g" => Ok(Routing::UgalG),
            "ugal-codes" => Ok(Routing::UgalCodes),
            _ => Err(format!(
                "unknown routing '{s}' (dimension-order, adaptive, minimal, valiant, ugal, ugal-g, ugal-codes, par, \
                 non-minimal-leaf, romm, updown, updown-adaptive)"
            )),
        }
    }
}

/// How adaptive routing ranks the free outputs of a packet (BigNetSim's two models).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Selection {
    /// Load model: the neighbour's load, as the free buffers behind the output.
    #[default]
    Load,
    /// Contention model: the fewest packets at this router contending for the output.
    Contention,
}

impl FromStr for Selection {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "load" => Ok(Selection::Load),
            "contention" => Ok(Selection::Contention),
            _ => Err(format!("unknown selection '{s}' (load, contention)")),
        }
    }
}

/// Which waiting packet an output serves next (the switch's output arbiter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arbitration {
    /// Oldest first, by when the packet entered the network: a transit
    /// packet's arrival here, an injected packet's becoming the head of its
    /// NIC queue (time spent queueing at the source does not count as age).
    Age,
    /// Round robin over the router's input queues (each virtual channel of
    /// each network port, each NIC's injection queue): the output serves the
    /// first queue after the one it served last whose head waits for it —
    /// the separable allocators' round-robin arbiters of cycle-accurate
    /// simulators (BookSim), and the closest to one past saturation
    /// (docs/network.md, "Arbitration").
    #[default]
    RoundRobin,
    /// Transit packets (from network ports) before injected ones, oldest
    /// first within each.
    TransitFirst,
}

impl Arbitration {
    /// The name used on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Arbitration::Age => "age",
            Arbitration::RoundRobin => "round-robin",
            Arbitration::TransitFirst => "transit-first",
        }
    }
}

impl FromStr for Arbitration {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "age" | "oldest" => Ok(Arbitration::Age),
            "round-robin" | "rr" => Ok(Arbitration::RoundRobin),
            "transit-first" => Ok(Arbitration::TransitFirst),
            _ => Err(format!("unknown arbitration '{s}' (age, round-robin, transit-first)")),
        }
    }
}

/// How messages are created at each node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Exponential gaps (a Poisson process).
    #[default]
    Poisson,
    /// Equal gaps, each node with a random phase.
    Periodic,
    /// Equal gaps, every node in phase: each creates its first message one
    /// gap after the start, then one a gap, all at the same instants (as
    /// CODES's `model-net-synthetic-dragonfly-all` sends).
    #[serde(rename = "in-phase")]
    InPhase,
    /// On/off (Markov-modulated): bursts of messages back to back at the
    /// injection link's rate, `burst` messages long on average (each ends
    /// the burst with probability 1/burst), separated by exponential
    /// silences sized so the mean rate is the offered load.
    Bursty {
        /// Mean messages per burst.
        burst: u32,
    },
    /// Bernoulli per cycle: time in slots of one message's serialisation,
    /// a message in each slot with probability `load` (a geometric gap).
    Bernoulli,
}

impl Arrivals {
    /// The name used on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Arrivals::Poisson => "poisson",
            Arrivals::Periodic => "periodic",
            Arrivals::InPhase => "in-phase",
            Arrivals::Bursty { .. } => "bursty",
            Arrivals::Bernoulli => "bernoulli",
        }
    }
}

impl FromStr for Arrivals {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "poisson" => Ok(Arrivals::Poisson),
            "periodic" => Ok(Arrivals::Periodic),
            "in-phase" => Ok(Arrivals::InPhase),
            "bursty" | "on-off" => Ok(Arrivals::Bursty { burst: 8 }),
            "bernoulli" => Ok(Arrivals::Bernoulli),
            _ => Err(format!("unknown arrival process '{s}' (poisson, periodic, in-phase, bursty, bernoulli)")),
        }
    }
}

/// How a Dragonfly+'s prog-adaptive routing scores its candidates (CODES's
/// `route_scoring_metric`). Both count the packets in a port's buffers and
/// downstream ones plus those waiting for it ([`Network::occupancy`](super::Network));
/// delta differs from alpha only where the best minimal and the best
/// non-minimal candidate are compared, beta wherever candidates lead to
/// routers at different distances from the destination.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scoring {
    /// CODES's `alpha`: the count as it is.
    #[default]
    Alpha,
    /// CODES's `beta`: every candidate's count times the hops left from
    /// its far end to the destination (1 to 5 on a Dragonfly+).
    Beta,
    /// CODES's `delta`: the non-minimal candidate's count doubled (a 2:1
    /// bias towards the minimal route).
    Delta,
}

impl Scoring {
    /// The name on the command line and in CODES's files.
    pub fn name(self) -> &'static str {
        match self {
            Scoring::Alpha => "alpha",
            Scoring::Beta => "beta",
            Scoring::Delta => "delta",
        }
    }
}

impl FromStr for Scoring {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "alpha" => Ok(Scoring::Alpha),
            "beta" => Ok(Scoring::Beta),
            "delta" => Ok(Scoring::Delta),
            _ => Err(format!("unknown route scoring '{s}' (alpha, beta, delta)")),
        }
    }
}
