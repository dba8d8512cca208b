//! Several jobs on one network ([`Network::jobs`](super::Network::jobs)):
//! which nodes each job holds, what it runs (ranks of the joined
//! [`Workload`](super::Workload), or synthetic traffic among its own
//! nodes), its figures when it ran alone, and the per-job results.

use serde::Serialize;

/// [`Jobs::job_of`] of a node no job holds.
pub const NO_JOB: u16 = u16::MAX;

/// The jobs of a run, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Jobs {
    /// The jobs, by job number.
    pub list: Vec<Job>,
    /// Per node, its job or [`NO_JOB`].
    pub job_of: Vec<u16>,
}

/// One job.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Job {
    /// How it was asked for (`--job`'s text).
    pub name: String,
    /// Its nodes: rank `r` of a job of ranks on the `r`-th.
    pub nodes: Vec<u32>,
    /// A job of ranks: its first rank in the joined workload and how many.
    pub ranks: Option<(u32, u32)>,
    /// Synthetic traffic: the offered load of each of its nodes (uniform
    /// destinations among the job's other nodes).
    pub load: f64,
    /// Its figures when it ran alone on the same nodes (`--baseline-alone`).
    pub alone: Option<Alone>,
}

/// A job's figures from a run of it alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Alone {
    /// When its last rank finished (jobs of ranks).
    pub finish_ns: Option<f64>,
    /// Mean time its ranks were blocked communicating.
    pub comm_ns_mean: Option<f64>,
    /// Mean latency of its packets.
    pub latency_mean: Option<f64>,
    /// Wall-clock seconds the run alone took (not in the shared run's
    /// `wall_seconds`).
    pub wall_seconds: f64,
}

impl Jobs {
    /// The synthetic job that holds node `node`, if one does.
    #[inline]
    pub fn synthetic(&self, node: u32) -> Option<&Job> {
        let j = *self.job_of.get(node as usize)?;
        self.list.get(j as usize).filter(|x| x.ranks.is_none())
    }

    /// The job of the packets node `src` sends (several jobs only: with
    /// one, the run's own figures are the job's, and its state is the
    /// single-job run's).
    #[inline]
    pub fn job_of(&self, src: u32) -> Option<usize> {
        if self.list.len() < 2 {
            return None;
        }
        self.job_of.get(src as usize).copied().filter(|&j| j != NO_JOB).map(|j| j as usize)
    }
}

/// One job's results (`model_results.jobs`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
#[allow(missing_docs)]
pub struct JobResult {
    pub job: u32,
    pub name: String,
    /// "ranks" or "synthetic".
    pub kind: &'static str,
    pub nodes: u32,
    /// Jobs of ranks: when the last rank finished (`None`: one did not),
    /// and the time its ranks were blocked communicating (mean, max).
    pub finish_ns: Option<f64>,
    pub comm_ns_mean: Option<f64>,
    pub comm_ns_max: Option<f64>,
    /// Packets of the job (sent by its nodes) delivered, their bytes and mean latency.
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    pub latency_mean: Option<f64>,
    /// With `--baseline-alone`: the same job alone on the same nodes, and
    /// the slowdowns against it (finish time for ranks, packet latency for synthetic traffic).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alone: Option<Alone>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comm_slowdown: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_slowdown: Option<f64>,
}
