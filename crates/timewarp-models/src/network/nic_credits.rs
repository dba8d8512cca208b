//! `--nic-buffer`'s part of a router's state: each NIC's credits for the
//! router's input from it (the behaviour is nic_buffer.rs's).

use serde::{Deserialize, Serialize};

/// One NIC's credits for its router's terminal input buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct NicBuf {
    /// Free packet slots of the buffer, as the NIC knows them: a slot is
    /// taken when a packet starts for the router and given back by a
    /// credit, one terminal link latency after the packet left the buffer.
    pub(crate) credits: u16,
    /// Packets at the front of the NIC's queue that hold a slot (their
    /// `ready` is known); those behind wait at the NIC, `ready` infinite.
    pub(crate) sent: u16,
}
