//! PHOLD's command line.

use clap::Args;
use timewarp_models::phold::{Hierarchy, Phold, Regional};

use super::{bounded, num};
use crate::args::{non_negative_f64, probability, whole};
use crate::registry::{ModelCli, RunInfo};

/// Most busy-work iterations per PHOLD event.
const MAX_COMPUTE: u64 = 1_000_000;

/// Largest delay parameter: an exponential draw with a larger mean could
/// overflow to infinity.
const MAX_SPAN: f64 = 1e300;

/// A finite time span in `0..=MAX_SPAN`.
fn time_span(s: &str) -> Result<f64, String> {
    let v = non_negative_f64(s)?;
    if v > MAX_SPAN {
        return Err(format!("must be at most {MAX_SPAN:e} (a larger delay can overflow to infinity), got {s}"));
    }
    Ok(v)
}

/// PHOLD options (defaults: the reference configuration of the papers).
#[derive(Args, Debug, Clone)]
pub(crate) struct PholdArgs {
    /// Number of LPs.
    #[arg(long, default_value_t = 16_384, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub lps: u32,
    /// Initial events per LP.
    #[arg(long, default_value_t = 10, value_parser = whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub population: u32,
    /// Mean of the exponential part of each delay (0 to 1e300; parameters
    /// that imply more than 1e14 events before --end are refused).
    #[arg(long, default_value_t = 1.0, value_parser = time_span, allow_negative_numbers = true)]
    pub mean: f64,
    /// Minimum delay added to every event (the model's lookahead; 0 to 1e300).
    #[arg(long, default_value_t = 1.0, value_parser = time_span, allow_negative_numbers = true)]
    pub lookahead: f64,
    /// Probability that an event goes to an LP drawn uniformly from all LPs instead of to itself.
    #[arg(long, default_value_t = 0.1, value_parser = probability, allow_negative_numbers = true)]
    pub remote: f64,
    /// Busy-work iterations per event (event grain; 0 to 1,000,000, about a
    /// millisecond per event at most).
    #[arg(long, default_value_t = 0, value_parser = whole::<u32>(0, MAX_COMPUTE), allow_negative_numbers = true)]
    pub compute: u32,
    /// Blocks ("nodes") of the local/regional/remote variant: --remote then
    /// sends to an LP of another node (the multicore report's table 2).
    #[arg(long, value_name = "G", default_value_t = 1, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub nodes: u32,
    /// Sub-blocks ("PEs") per node; an event that is neither remote nor
    /// regional goes to an LP of its own sub-block.
    #[arg(long, value_name = "S", default_value_t = 1, value_parser = whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub pes_per_node: u32,
    /// Probability that an event goes to another sub-block of its own node.
    #[arg(long, default_value_t = 0.0, value_parser = probability, allow_negative_numbers = true)]
    pub regional: f64,
    /// Hierarchical topology L,X,K: leaf clusters of X objects combined two
    /// at a time over L levels (X × 2^(L−1) LPs; sets --lps), K neighbours
    /// per object per level; --remote is the probability of leaving the LP.
    #[arg(long, value_name = "L,X,K", value_delimiter = ',', num_args = 1, value_parser = whole::<u32>(0, u32::MAX as u64))]
    pub hierarchy: Option<Vec<u32>>,
    /// Pareto shape α of the hierarchy's activity: −5 mostly the nearest
    /// cluster, 1 mostly the farthest (not 0).
    #[arg(long, default_value_t = -5.0, allow_negative_numbers = true)]
    pub alpha: f64,
    /// Lower bound of the bounded Pareto range.
    #[arg(long, default_value_t = 1.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub pareto_low: f64,
    /// Upper bound of the bounded Pareto range.
    #[arg(long, default_value_t = 10.0, value_parser = crate::args::positive_f64, allow_negative_numbers = true)]
    pub pareto_high: f64,
    /// Per-object busy work from the same Pareto distribution (mean --compute).
    #[arg(long)]
    pub skewed_compute: bool,
    /// Interleave the hierarchy's leaf clusters in LP ids, so contiguous id
    /// blocks (block mapping) cut every cluster.
    #[arg(long)]
    pub interleave: bool,
}

impl PholdArgs {
    /// Refuses parameters that cannot give a run that ends (see [`MAX_EVENTS`](super::MAX_EVENTS)).
    /// `stall_limit` is `--max-events-at-one-time` (0: none).
    pub(crate) fn bounded(&self, lps: u32, end: f64, stall_limit: u64) -> Result<(), String> {
        let gap = self.mean + self.lookahead;
        if gap == 0.0 {
            if stall_limit == 0 {
                return Err("--mean 0 with --lookahead 0 puts every event at time 0, and --max-events-at-one-time 0 \
                            lifts the limit that would stop it: the run would never end; give --mean or --lookahead \
                            a value > 0"
                    .into());
            }
            return Ok(()); // every event at time 0: the engine's stall limit stops it
        }
        let events = lps as f64 * self.population as f64 * (end / gap).max(1.0);
        let what = format!("--mean {} with --lookahead {}", num(self.mean), num(self.lookahead));
        bounded(events, end, &what, "raise --mean or --lookahead, or lower --end, --lps or --population")
    }

    /// The model these options describe (with --hierarchy, its LP count).
    pub(crate) fn model(&self) -> Result<Phold, String> {
        let mut m = Phold {
            lps: self.lps,
            population: self.population,
            mean: self.mean,
            lookahead: self.lookahead,
            remote: self.remote,
            compute: self.compute,
            ..Phold::default()
        };
        if self.nodes > 1 || self.pes_per_node > 1 || self.regional > 0.0 {
            m.regional = Some(Regional { nodes: self.nodes, pes_per_node: self.pes_per_node, regional: self.regional });
        }
        if let Some(v) = &self.hierarchy {
            let [levels, cluster, neighbours] = v[..] else {
                return Err(format!("--hierarchy takes three numbers L,X,K (levels, objects per leaf cluster, neighbours per level), got {} ", v.len()));
            };
            let h = Hierarchy {
                levels,
                cluster,
                neighbours,
                alpha: self.alpha,
                low: self.pareto_low,
                high: self.pareto_high,
                skewed_compute: self.skewed_compute,
                interleave: self.interleave,
            };
            // --lps left at its default follows the hierarchy; another value must agree.
            if let Some(n) = h.lps() {
                if self.lps != 16_384 && self.lps != n {
                    return Err(format!("--lps {} disagrees with --hierarchy {levels},{cluster},{neighbours}, which gives X × 2^(L−1) = {n} LPs; leave --lps out", self.lps));
                }
                m.lps = n;
            }
            m.hierarchy = Some(h);
        } else if self.skewed_compute || self.interleave {
            return Err("--skewed-compute and --interleave shape the hierarchical model; give --hierarchy L,X,K".into());
        }
        Ok(m)
    }
}

impl ModelCli for PholdArgs {
    type Model = Phold;
    const NAME: &'static str = "phold";
    const ABOUT: &'static str = "PHOLD synthetic benchmark: every event schedules one new event";
    const SUMMARY: &'static str = "synthetic benchmark: every event schedules one new event (Fujimoto; ROSS's PHOLD)";
    const END: &'static str = "20";
    const END_HELP: &'static str =
        "Virtual end time, in the unit of --mean and --lookahead; events at or after it are not processed";
    fn build(&self, run: &RunInfo) -> Result<Phold, String> {
        let m = self.model()?;
        m.validate()?;
        self.bounded(m.lps, run.end, run.max_events_at_one_time)?;
        Ok(m)
    }
    fn sizing(&self) -> String {
        // With --hierarchy the LP count follows from it.
        let lps = self.model().map_or(self.lps, |m| m.lps);
        format!("--lps {lps} with --population {}", self.population)
    }
}
