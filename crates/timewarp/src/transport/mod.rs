//! How PEs reach each other, in one process and across processes: one
//! layer under both parallel kernels, one file per part.
//!
//! * [`Layout`](crate::layout::Layout) (in `layout.rs`, below the
//!   configuration and this layer): which process holds which PE, asked
//!   wherever a PE's process or locality matters.
//! * [`wire`]: what travels between PEs (`Wire`) and the one byte encoding
//!   of what crosses processes (records encoded and decoded there only).
//! * [`ring`]: the SPSC rings between PEs of one process; [`received`]: what
//!   a PE remembers of the events each PE sent it, for anti-messages.
//! * [`port`]: a PE's buffers for PEs of other processes; [`outbox`]: their
//!   sections consolidated into one message per destination process.
//! * [`endpoint`]: an optimistic PE's one way to every other PE (`Transport`:
//!   rings and port behind one send and one drain).
//! * [`network`]: the seams to other processes (`Network` for the
//!   optimistic kernel, `WindowNet` for the conservative one) and their
//!   single-process stand-ins.
//! * [`delay`]: a cluster's link emulated between processes of one
//!   machine (measurement only).
//! * [`pace`]: virtual time per wall-clock second, from GVT's progress
//!   (when the courier sends).
//! * [`mattern`]: GVT across processes (white-message counting, the gates
//!   the PEs wait on), apart from the collectives a network provides.
//!
//! What calls MPI lives in `crate::mpi` (feature `mpi`) and implements the
//! network traits; everything here builds and is tested without it.

#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) mod delay;
pub(crate) mod endpoint;
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) mod mattern;
pub(crate) mod network;
pub(crate) mod outbox;
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) mod pace;
pub(crate) mod port;
pub(crate) mod received;
pub(crate) mod ring;
pub(crate) mod wire;

pub(crate) use endpoint::Transport;
pub(crate) use network::{Alone, Network, NoNet, Visit, WindowNet};
pub(crate) use received::Received;
pub(crate) use ring::Links;
pub(crate) use wire::Wire;
