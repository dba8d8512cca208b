//! Models shipped with timewarp. Each lives in its own folder and is
//! validated against an answer known independently of the engine.
#![warn(missing_docs, unreachable_pub)]

pub mod pcs;
pub mod phold;
