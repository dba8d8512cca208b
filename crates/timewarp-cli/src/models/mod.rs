//! Command-line front ends of the shipped models: their options and defaults.
//!
//! One file per model (`phold.rs`, `pcs.rs`, `tlm.rs`): its clap argument
//! struct, how it builds the model, and its
//! [`ModelCli`](crate::ModelCli) impl; here what they share (the network's
//! too, whose front end is `network/`): the bound on a run's expected events.

mod pcs;
mod phold;
mod tlm;

pub(crate) use pcs::PcsArgs;
pub(crate) use phold::PholdArgs;
pub(crate) use tlm::TlmArgs;

/// Most events a run may be expected to process: more would not finish in
/// any reasonable time (10^14 events are days at 10^8 events per second),
/// so parameters that imply more are refused up front.
pub(crate) const MAX_EVENTS: f64 = 1e14;

/// `v` as a person writes it: `0.5`, `20000`, but `1e300`, not 301 digits.
pub(crate) fn num(v: f64) -> String {
    let s = v.to_string();
    if s.len() > 12 {
        format!("{v:e}")
    } else {
        s
    }
}

/// Refuses parameters whose expected number of events (`events`, over the
/// run up to `end`) is beyond [`MAX_EVENTS`]; `what` names the options.
pub(crate) fn bounded(events: f64, end: f64, what: &str, fix: &str) -> Result<(), String> {
    if events > MAX_EVENTS {
        return Err(format!(
            "{what} gives about {events:.1e} events before --end {}, more than the {MAX_EVENTS:e} a run can \
             process in reasonable time; {fix}",
            num(end)
        ));
    }
    Ok(())
}
