//! The network model's workload options: synthetic traffic, or ranks
//! running traces (`--trace-dir`: text or SST DUMPI) or a generated program (all-reduce, 3-D
//! halo exchange, all-to-all), their placement, and the application
//! figures in the summary.

use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use timewarp::checkpoint::InputFiles;
use timewarp_models::network::{self, read_mapping, DumpiOptions, DumpiTime, Mapping, Results, Workload};

/// Most messages a generated workload may send (its programs are held in
/// memory), and a synthetic one bounded by --messages (its source queues
/// can hold most of them at once).
pub(crate) const MAX_MESSAGES: u64 = 50_000_000;

/// The defaults of a generated workload's options (a value other than
/// these with another workload is refused).
const ITERATIONS: u32 = 1;
const COMPUTE_NS: f64 = 1000.0;
const HALO_BYTES: u32 = 4096;

/// What the network's nodes do.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Workload")]
pub(crate) struct WorkloadArgs {
    /// synthetic (--traffic and --load), trace (ranks replay the files of
    /// --trace-dir), dumpi (ranks replay the SST DUMPI trace of --trace-dir:
    /// its .meta and .bin files), or generated ranks: allreduce (ring all-reduce of
    /// --message-bytes), halo3d (periodic 3-D stencil, 6 neighbours,
    /// --halo-bytes), alltoall (--message-bytes to every other rank). Trace
    /// workloads run until the application ends: give a large --end (e.g. 1e15).
    #[arg(long, default_value = "synthetic", value_parser = ["synthetic", "trace", "dumpi", "allreduce", "halo3d", "alltoall"])]
    pub workload: String,
    /// Directory of trace files rank.0.txt, rank.1.txt, ... (--workload trace;
    /// the format is in docs/network-workloads.md), or of one DUMPI run's .meta and
    /// .bin files, or that .meta file (--workload dumpi).
    #[arg(long, value_name = "DIR")]
    pub trace_dir: Option<PathBuf>,
    /// The recorded clock whose time between calls becomes computation
    /// (--workload dumpi) [default: wall].
    #[arg(long, value_name = "wall|cpu", value_parser = ["wall", "cpu"])]
    pub dumpi_time: Option<String>,
    /// Multiplies the DUMPI trace's compute gaps (0: communication only)
    /// [default: 1].
    #[arg(long, value_name = "F", value_parser = crate::args::non_negative_f64, allow_negative_numbers = true)]
    pub compute_scale: Option<f64>,
    /// Ranks on nodes: linear (rank r on node r), random (a permutation drawn
    /// from --seed), or a file with one node per line.
    #[arg(long, value_name = "linear|random|FILE", default_value = "linear")]
    pub rank_mapping: String,
    /// Ranks of a generated workload [default: every node].
    #[arg(long, value_name = "N", value_parser = crate::args::whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub ranks: Option<u32>,
    /// Iterations of a generated workload (each: compute, then communicate).
    #[arg(long, default_value_t = ITERATIONS, value_parser = crate::args::whole::<u32>(1, u32::MAX as u64), allow_negative_numbers = true)]
    pub iterations: u32,
    /// ns of computation at the start of each iteration of a generated workload.
    #[arg(long, default_value_t = COMPUTE_NS, value_parser = crate::args::non_negative_f64, allow_negative_numbers = true)]
    pub compute_ns: f64,
    /// Bytes sent to each neighbour per iteration of --workload halo3d.
    #[arg(long, default_value_t = HALO_BYTES, value_parser = crate::args::whole::<u32>(0, u32::MAX as u64), allow_negative_numbers = true)]
    pub halo_bytes: u32,
    #[arg(long = "job", value_name = "KIND[:KEY=VALUE,...][@PLACEMENT]", help = super::job_args::JOB_HELP)]
    pub jobs: Vec<String>,
    /// With --job or --codes-workload: run each job alone on the same nodes
    /// first (sequentially), and report each job's slowdown against it.
    #[arg(long)]
    pub baseline_alone: bool,
    /// A CODES workload file (model-net-mpi-replay's --workload_conf_file): a
    /// line per job, RANKS APP QOS MEAN_INTERVAL, APP an SWM skeleton's name
    /// (milc, nearest_neighbor, incast, incast1, incast2, nekbone, lammps,
    /// lammps1), conceptual-BENCH
    /// (jacobi3d, from conceptual.json) or an SWM skeleton .json file; names
    /// and relative paths are looked up in the file's directory. Each line is
    /// a job, before any --job (docs/codes-applications.md).
    #[arg(long, value_name = "FILE")]
    pub codes_workload: Option<PathBuf>,
    /// A CODES allocation file (--alloc_file): line j lists job j's nodes in
    /// rank order [default: each job on the lowest nodes left free].
    #[arg(long, value_name = "FILE")]
    pub codes_alloc: Option<PathBuf>,
}

impl WorkloadArgs {
    /// The files [`build`](Self::build) reads: the trace's (those of
    /// `--trace-dir` it would read, as found there), a `--rank-mapping` file,
    /// the jobs' files, and `--codes-workload`'s (with the skeleton files it
    /// names) and `--codes-alloc`'s.
    pub(crate) fn inputs(&self) -> Vec<InputFiles> {
        let mut out = Vec::new();
        if let Some(dir) = &self.trace_dir {
            let files = match self.workload.as_str() {
                "trace" => Workload::trace_files(dir),
                "dumpi" => Workload::dumpi_files(dir),
                // Refused by the build.
                _ => Vec::new(),
            };
            out.push(InputFiles::new(format!("--trace-dir {}", dir.display()), files));
        }
        if let Some(file) = &self.codes_workload {
            let files = super::codes_apps::inputs(file);
            out.push(InputFiles::new(format!("--codes-workload {}", file.display()), files));
        }
        if let Some(file) = &self.codes_alloc {
            out.push(InputFiles::new(format!("--codes-alloc {}", file.display()), vec![file.clone()]));
        }
        for spec in self.jobs.iter().filter_map(|j| super::job_args::parse(j).ok()) {
            out.extend(spec.inputs());
        }
        if !matches!(self.rank_mapping.as_str(), "linear" | "random") {
            let file = &self.rank_mapping;
            out.push(InputFiles::new(format!("--rank-mapping {file}"), vec![file.into()]));
        }
        out
    }

    /// Whether the run is of jobs (`--job` or `--codes-workload`).
    pub(crate) fn has_jobs(&self) -> bool {
        !self.jobs.is_empty() || self.codes_workload.is_some()
    }

    /// The jobs: a line of `--codes-workload` each (placed by `--codes-alloc`),
    /// then the `--job`s.
    pub(crate) fn job_specs(&self) -> Result<Vec<super::job_args::Spec>, String> {
        let mut out = Vec::new();
        if let Some(file) = &self.codes_workload {
            for (j, l) in super::codes_apps::read(file)?.iter().enumerate() {
                out.push(super::job_args::Spec {
                    text: format!("{} ({} ranks, --codes-workload line {})", l.app, l.ranks, l.line),
                    kind: "codes".into(),
                    opts: vec![("file".into(), file.display().to_string()), ("job".into(), j.to_string())],
                    placement: match &self.codes_alloc {
                        Some(a) => format!("codes:{}", a.display()),
                        None => "contiguous".into(),
                    },
                });
            }
        }
        for s in &self.jobs {
            out.push(super::job_args::parse(s)?);
        }
        Ok(out)
    }

    /// The placed workload (`None`: synthetic traffic).
    pub(crate) fn build(&self, nodes: u32, message_bytes: u32, seed: u64) -> Result<Option<Arc<Workload>>, String> {
        if self.baseline_alone {
            return Err("--baseline-alone is for runs of jobs: give --job or --codes-workload".into());
        }
        if let Some(a) = &self.codes_alloc {
            return Err(format!(
                "--codes-alloc {}: it places the jobs of --codes-workload; give that too",
                a.display()
            ));
        }
        let traced = self.workload == "trace" || self.workload == "dumpi";
        let generated = self.workload != "synthetic" && !traced;
        if self.trace_dir.is_some() && !traced {
            return Err(format!("--trace-dir is for --workload trace or dumpi (the workload is {})", self.workload));
        }
        for (given, option) in
            [(self.dumpi_time.is_some(), "--dumpi-time"), (self.compute_scale.is_some(), "--compute-scale")]
        {
            if given && self.workload != "dumpi" {
                return Err(format!("{option} is for --workload dumpi (the workload is {})", self.workload));
            }
        }
        // Options of another workload are refused, not ignored: the run
        // would not be what was asked. (Of an option with a default, a value
        // other than the default shows that it was given.)
        let generated_only = "a generated workload (allreduce, halo3d, alltoall)";
        let refused = [
            (self.iterations != ITERATIONS && !generated, "--iterations", generated_only),
            (self.compute_ns != COMPUTE_NS && !generated, "--compute-ns", generated_only),
            (self.halo_bytes != HALO_BYTES && self.workload != "halo3d", "--halo-bytes", "--workload halo3d"),
            (self.rank_mapping != "linear" && self.workload == "synthetic", "--rank-mapping", "a workload of ranks"),
        ];
        if let Some((_, option, of)) = refused.iter().find(|r| r.0) {
            return Err(format!("{option} is for {of} (the workload is {})", self.workload));
        }
        if self.ranks.is_some() && !generated {
            return Err("--ranks sets the size of a generated workload (allreduce, halo3d, alltoall); \
                        a trace has as many ranks as files"
                .into());
        }
        let p = self.ranks.unwrap_or(nodes);
        if generated && p > nodes {
            return Err(format!("--ranks {p} is more than the network's {nodes} nodes (one rank per node)"));
        }
        // Generated programs are held whole in memory: refuse one too big
        // before building it (messages per rank per iteration: 2 (p − 1)
        // for the ring, 6 for halo3d, p − 1 for all-to-all).
        let per = match self.workload.as_str() {
            "allreduce" => 2 * p.saturating_sub(1) as u64,
            "halo3d" => 6,
            _ => p.saturating_sub(1) as u64,
        };
        let sends = p as u64 * per * self.iterations as u64;
        if generated && sends > MAX_MESSAGES {
            return Err(format!(
                "--workload {} on {p} ranks for --iterations {} sends {sends} messages, more than the \
                 {MAX_MESSAGES} a run holds; lower --iterations or --ranks",
                self.workload, self.iterations
            ));
        }
        let (i, c) = (self.iterations, self.compute_ns);
        let mut w = match self.workload.as_str() {
            "synthetic" => return Ok(None),
            "trace" => match &self.trace_dir {
                Some(dir) => Workload::read(dir)?,
                None => return Err("--workload trace needs --trace-dir DIR (files rank.0.txt, rank.1.txt, ...)".into()),
            },
            "dumpi" => match &self.trace_dir {
                Some(dir) => {
                    let time = if self.dumpi_time.as_deref() == Some("cpu") { DumpiTime::Cpu } else { DumpiTime::Wall };
                    Workload::read_dumpi(dir, &DumpiOptions { time, compute_scale: self.compute_scale.unwrap_or(1.0) })?
                }
                None => {
                    return Err("--workload dumpi needs --trace-dir DIR (a DUMPI run's .meta and .bin files)".into())
                }
            },
            "allreduce" => Workload::ring_allreduce(p, message_bytes, i, c),
            "halo3d" => Workload::halo3d(p, self.halo_bytes, i, c),
            _ => Workload::all_to_all(p, message_bytes, i, c),
        };
        let mapping = match self.rank_mapping.as_str() {
            "linear" => Mapping::Linear,
            "random" => Mapping::Random(seed),
            file => Mapping::List(read_mapping(std::path::Path::new(file))?),
        };
        w.place(nodes, &mapping)?;
        Ok(Some(Arc::new(w)))
    }
}

impl WorkloadArgs {
    /// What a trace replay assumed, for its summary (a trace workload of
    /// `ranks` ranks; empty for others): the clock of a DUMPI trace's
    /// compute gaps and their scale, the eager sends, and the collectives'
    /// algorithms (docs/network-workloads.md, "Semantics" and "Collectives").
    pub(crate) fn replay(&self, ranks: usize, eager_limit: Option<u32>) -> String {
        let dumpi = self.workload == "dumpi";
        if !dumpi && self.workload != "trace" {
            return String::new();
        }
        let clock = if !dumpi {
            String::new()
        } else if self.dumpi_time.as_deref() == Some("cpu") {
            "compute gaps from the trace's CPU clock (--dumpi-time cpu)".to_string() + &self.scale() + "; "
        } else {
            "compute gaps from the trace's wall clock (--dumpi-time cpu for its CPU clock: a trace recorded \
             oversubscribed has long wall gaps)"
                .to_string()
                + &self.scale()
                + "; "
        };
        let allreduce = if ranks.is_power_of_two() {
            format!("allreduce by recursive doubling ({ranks} ranks, a power of two)")
        } else {
            format!("allreduce by the ring ({ranks} ranks, not a power of two)")
        };
        let more = if dumpi { ", bcast and reduce by binomial tree, alltoall by pairwise exchange" } else { "" };
        let sends = match eager_limit {
            None => "every send eager (it completes when queued at its NIC; no rendezvous)".to_string(),
            Some(l) => format!("sends eager below {l} bytes, rendezvous from {l} (--eager-limit)"),
        };
        format!("replay: {clock}{sends}; collectives: {allreduce}, barrier by dissemination{more}\n")
    }

    /// The compute gaps' scale, when not 1.
    fn scale(&self) -> String {
        match self.compute_scale {
            Some(f) if f != 1.0 => format!(", scaled by {f} (--compute-scale)"),
            _ => String::new(),
        }
    }
}

/// The application's figures: its time, and per-rank finish and blocked
/// (communication) times as min / mean / max.
pub(crate) fn summary(r: &Results) -> String {
    use crate::readable::{count, time_ns};
    let mut notes: String = r.notes.iter().map(|n| format!("{n}\n")).collect();
    if let Some(l) = r.eager_limit {
        notes += &format!(
            "MPI protocol: eager below {l} bytes, rendezvous from {l} bytes (--eager-limit); {} control messages \
             (request- and clear-to-send, {} bytes each)\n",
            count(r.rendezvous_messages.unwrap_or(0)),
            network::CONTROL_BYTES
        );
    }
    // Beside the protocol: the NICs' buffer (--nic-buffer), for every run that has one.
    if let (Some(b), Some(k)) = (r.nic_buffer_bytes, r.nic_buffer_packets) {
        notes += &format!(
            "NIC buffer: {} bytes ({k} packet{}) at each router's input from a NIC; the NIC sends a packet \
             only with a credit for a free slot (--nic-buffer)\n",
            count(b as u64),
            if k == 1 { "" } else { "s" }
        );
    }
    let Some(app) = r.app_time_ns else { return notes };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let stats = |v: &[f64]| {
        let (lo, hi) = v.iter().fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
        format!("min {}, mean {}, max {}", time_ns(lo), time_ns(mean(v)), time_ns(hi))
    };
    let finish: Vec<f64> = r.ranks.iter().filter_map(|x| x.finish_ns).collect();
    let comm: Vec<f64> = r.ranks.iter().map(|x| x.comm_ns).collect();
    let share = if mean(&finish) > 0.0 {
        format!(" ({} of the mean finish)", timewarp::text::percent(mean(&comm) / mean(&finish)))
    } else {
        String::new()
    };
    format!(
        "application: {} ranks finished at {}\n  rank finish: {}\n  rank communication: {}{share}\n{notes}",
        r.ranks.len(),
        time_ns(app),
        stats(&finish),
        stats(&comm),
    )
}
