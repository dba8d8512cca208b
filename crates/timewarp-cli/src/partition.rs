//! `timewarp partition` and `run ... --profile-out`: profile a run, turn
//! the profile into a mapping with one of the multicore report's schemes.

use clap::Args;
use std::path::{Path, PathBuf};
use timewarp::partition::{mapping_text, partition, Graph, Request, Scheme};
use timewarp::Model;

use crate::args::{choice, whole};

/// Options of `timewarp partition`.
#[derive(Args, Debug, Clone)]
pub(crate) struct PartitionArgs {
    /// The profile (written by `timewarp run ... --profile-out FILE`).
    pub profile: PathBuf,
    /// Parts (PEs: processes × threads of the run that will use the mapping).
    #[arg(long, value_parser = whole::<u32>(1, 1 << 20), allow_negative_numbers = true)]
    pub parts: Option<u32>,
    /// Latency-sensitive partitioning for PROCESSES × THREADS PEs: across
    /// processes first, then across the threads inside each (report 3.2.2).
    #[arg(long, value_name = "PROCESSES,THREADS", value_delimiter = ',', num_args = 1,
          value_parser = whole::<u32>(1, 1 << 20))]
    pub hierarchy: Option<Vec<u32>>,
    /// With --hierarchy: one flat partition into PROCESSES × THREADS parts
    /// instead (for comparison; the prediction still counts processes).
    #[arg(long)]
    pub flat: bool,
    /// Scheme: random, block, static (unit weights on the communication
    /// graph), object-only (bin packing of handler time), activity (measured
    /// messages), object-activity (messages and handler time).
    #[arg(long, value_parser = choice::<Scheme>(&["random", "block", "static", "object-only", "activity", "object-activity"]))]
    pub scheme: Scheme,
    /// Allowed largest part / mean part (METIS schemes).
    #[arg(long, default_value_t = 1.05, value_parser = imbalance, allow_negative_numbers = true)]
    pub imbalance: f64,
    /// Seed of --scheme random (the same seed as `run --mapping random --seed S` gives the same table).
    #[arg(long, default_value_t = 1, value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    pub seed: u64,
    /// Where to write the mapping (one PE per LP, for `run --mapping MAPPING`).
    #[arg(short = 'o', long, value_name = "MAPPING")]
    pub output: PathBuf,
    /// Print nothing on success.
    #[arg(long, short)]
    pub quiet: bool,
}

/// A number >= 1 and finite.
fn imbalance(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 1.0 => Ok(v),
        _ => Err(format!("must be a number >= 1 (largest part / mean part), got {s}")),
    }
}

/// `timewarp partition`.
pub(crate) fn run(a: &PartitionArgs) -> Result<(), String> {
    let (processes, threads) = match (&a.hierarchy, a.parts) {
        (Some(h), parts) => {
            let [p, t] = h[..] else {
                return Err(format!("--hierarchy takes PROCESSES,THREADS (two numbers), got {} numbers", h.len()));
            };
            if let Some(n) = parts.filter(|&n| n != p * t) {
                return Err(format!(
                    "--parts {n} disagrees with --hierarchy {p},{t} ({} PEs); give one of them",
                    p * t
                ));
            }
            (p as usize, t as usize)
        }
        (None, Some(n)) => (1, n as usize),
        (None, None) => return Err("give --parts P (PEs) or --hierarchy PROCESSES,THREADS".into()),
    };
    if a.flat && a.hierarchy.is_none() {
        return Err("--flat compares with --hierarchy PROCESSES,THREADS; without it every partition is flat".into());
    }
    let path = a.profile.display();
    let text = std::fs::read_to_string(&a.profile).map_err(|e| format!("cannot read profile {path}: {e}"))?;
    let g = Graph::from_metis(&text, &format!("profile {path}")).map_err(|e| e.to_string())?;
    // A part without an LP is a PE with nothing to do: such a mapping asks
    // for PEs (a run needs at least as many as parts) that would idle.
    let (parts, lps) = (processes * threads, g.len());
    if parts > lps {
        let asked = match &a.hierarchy {
            Some(_) => format!("--hierarchy {processes},{threads} makes {parts} parts"),
            None => format!("--parts {parts} is"),
        };
        return Err(format!(
            "{asked} more than the profile's {lps} LPs: a part would get no LP; give at most {lps} parts"
        ));
    }
    let r = Request {
        scheme: a.scheme,
        processes,
        threads,
        hierarchical: a.hierarchy.is_some() && !a.flat,
        imbalance: a.imbalance,
        seed: a.seed,
    };
    let p = partition(&g, &r).map_err(|e| e.to_string())?;
    let out = mapping_text(&g, &r, &p);
    std::fs::write(&a.output, out).map_err(|e| format!("cannot write the mapping to {}: {e}", a.output.display()))?;
    if !a.quiet {
        let h = &g.header;
        let layout = match (&a.hierarchy, r.hierarchical) {
            (Some(_), true) => format!("{processes} processes × {threads} threads, latency-sensitive"),
            (Some(_), false) => format!("{processes} processes × {threads} threads, flat"),
            (None, _) => format!("{threads} PEs"),
        };
        println!(
            "partition: scheme {}, {} parts ({layout}); profile of {} ({} LPs, {} committed events, seed {})",
            a.scheme.name(),
            processes * threads,
            h.model,
            h.lps,
            h.committed_events,
            h.seed
        );
        println!(
            "cut: {} messages ({} across processes); predicted remote fraction {}, remote-process fraction {}",
            p.cut,
            p.cut_processes,
            crate::readable::sig(p.remote_fraction),
            crate::readable::sig(p.remote_process_fraction)
        );
        println!(
            "imbalance (largest part / mean): events {}, handler time {}, LPs {}",
            crate::readable::sig(p.imbalance_events),
            crate::readable::sig(p.imbalance_time),
            crate::readable::sig(p.imbalance_lps)
        );
        println!("mapping written to {}", a.output.display());
    }
    Ok(())
}

/// `run ... --profile-out FILE`: runs `model` sequentially with the profile
/// on and writes it (`params` describes the model's options).
pub(crate) fn profile<M: Model>(
    model: &M,
    cfg: &timewarp::Config,
    processes: usize,
    path: &Path,
    params: &str,
    quiet: bool,
) -> Result<Option<timewarp::Report<M::Results>>, String> {
    if processes > 1 {
        return Err(format!(
            "--profile-out runs in one process, but this run has {processes} MPI processes; \
             profile without mpirun (--sync sequential)"
        ));
    }
    let fail = |e: std::io::Error| format!("cannot write the profile to {}: {e}", path.display());
    // Fail before the run, not after it.
    let file = std::fs::File::create(path).map_err(fail)?;
    let (report, mut p) = timewarp::profile(model, cfg).map_err(|e| crate::args::describe(&e))?;
    p.header.params = params.to_string();
    let g = p.graph();
    {
        use std::io::Write;
        let mut w = std::io::BufWriter::new(file);
        w.write_all(g.to_metis().as_bytes()).and_then(|()| w.flush()).map_err(fail)?;
    }
    if !quiet {
        eprintln!(
            "profile: {} LPs, {} edges, {} committed events written to {}",
            g.len(),
            g.adj.len() / 2,
            g.total_events(),
            path.display()
        );
    }
    Ok(Some(report))
}
