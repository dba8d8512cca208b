//! UGAL-G's table: what one router knows of its group's global channels
//! (part of the node's state; how it is kept and journalled is global.rs's).

use serde::{Deserialize, Serialize};

use super::topology::Dragonfly;

/// What one router knows of its group's global channels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Global {
    /// The latest occupancy heard of each global channel of the group, by
    /// link number in the group (`k = i·h + port − (a − 1)`); the router's
    /// own entries hold what it last broadcast.
    pub(crate) seen: Vec<u16>,
    /// When it last broadcast (−∞: never).
    pub(crate) last: f64,
    /// When its pending [`Msg::Publish`](super::Msg::Publish) fires, or −1 (none).
    pub(crate) pending: f64,
}

impl Global {
    /// A router's table at the start: every channel empty, nothing sent.
    pub(crate) fn new(d: &Dragonfly) -> Self {
        Global { seen: vec![0; (d.a * d.h) as usize], last: f64::NEG_INFINITY, pending: -1.0 }
    }
}
