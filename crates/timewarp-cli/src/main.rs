//! The `timewarp` command: run the shipped models under any synchronisation mode.

mod args;
mod models;

use args::EngineArgs;
use clap::{Parser, Subcommand};
use models::ModelCmd;
use serde_json::Value;
use std::io::Write;
use std::process::ExitCode;
use timewarp::Model;

/// timewarp: an optimistic (Time Warp) parallel discrete-event simulator.
#[derive(Parser, Debug)]
// No help screen for a missing subcommand: the error and the usage line.
#[command(name = "timewarp", version, about, propagate_version = true, arg_required_else_help = false)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run a model and print a summary (see `timewarp run <model> --help`).
    #[command(arg_required_else_help = false)]
    Run {
        #[command(subcommand)]
        model: ModelCmd,
    },
    /// Run a model sequentially and in parallel and compare what they commit
    /// (exit 0 when identical; otherwise report the first LP and event that differ).
    #[command(arg_required_else_help = false)]
    Verify {
        #[command(subcommand)]
        model: ModelCmd,
    },
    /// List the shipped models.
    List,
}

/// What to do with a model once its options are parsed (generic over the
/// model type); returns the model results when it ran the model here.
trait Action {
    /// `sizing` names the model's options that set its size (for the memory check).
    fn apply<M: Model>(&self, model: &M, engine: &EngineArgs, sizing: &str) -> Result<Option<Value>, String>;
}

/// `timewarp run`, in this process (and, with MPI, its peers).
struct Run<'a> {
    procs: &'a Procs,
}
struct Verify<'a> {
    procs: &'a Procs,
}

impl Action for Run<'_> {
    fn apply<M: Model>(&self, model: &M, engine: &EngineArgs, sizing: &str) -> Result<Option<Value>, String> {
        let cfg = engine.config()?;
        fits(model, &cfg, self.procs.size(), sizing).map_err(|e| self.procs.alone(e))?;
        if self.procs.rank() == 0 {
            for note in engine.notes(&cfg, model.num_lps(), cfg.threads * self.procs.size()) {
                eprintln!("{note}");
            }
        }
        execute(model, &cfg, engine, self.procs)
    }
}

impl Action for Verify<'_> {
    fn apply<M: Model>(&self, model: &M, engine: &EngineArgs, sizing: &str) -> Result<Option<Value>, String> {
        if self.procs.size() > 1 {
            return Err(format!(
                "verify runs in one process, but this run has {} MPI processes; run `timewarp run` under mpirun \
                 and compare its digest with `timewarp run --sync sequential`",
                self.procs.size()
            ));
        }
        let cfg = engine.config_for_verify()?;
        fits(model, &cfg, 1, sizing)?;
        for note in engine.notes(&cfg, model.num_lps(), cfg.threads) {
            eprintln!("{note}");
        }
        verify(model, cfg, engine).map(|()| None)
    }
}

/// The processes of this run: MPI's when built with the `mpi` feature.
struct Procs {
    #[cfg(feature = "mpi")]
    cluster: timewarp::mpi::Cluster,
}

impl Procs {
    fn init() -> Result<Self, String> {
        Ok(Procs {
            #[cfg(feature = "mpi")]
            cluster: timewarp::mpi::Cluster::init().map_err(|e| e.to_string())?,
        })
    }
    fn rank(&self) -> usize {
        #[cfg(feature = "mpi")]
        return self.cluster.rank();
        #[cfg(not(feature = "mpi"))]
        0
    }
    fn size(&self) -> usize {
        #[cfg(feature = "mpi")]
        return self.cluster.size();
        #[cfg(not(feature = "mpi"))]
        1
    }
    /// An error on this process alone: with other processes waiting for this
    /// one, say which rank failed and end them all; else return it.
    fn alone(&self, e: String) -> String {
        #[cfg(feature = "mpi")]
        if self.size() > 1 {
            eprintln!("error (rank {}): {e}", self.rank());
            self.cluster.abort(1)
        }
        e
    }

    /// Runs `model` here (and on every MPI process); the report comes back on rank 0 only.
    fn run<M: Model>(&self, model: &M, cfg: &timewarp::Config) -> Result<Option<timewarp::Report<M::Results>>, String> {
        #[cfg(feature = "mpi")]
        return match timewarp::mpi::run(model, cfg, &self.cluster) {
            Ok(r) => Ok(r),
            // The same on every process (checked before any message): each
            // returns it and rank 0 alone prints it.
            Err(e @ (timewarp::Error::Config(_) | timewarp::Error::Option { .. })) => Err(args::describe(&e)),
            Err(e) => Err(self.alone(args::describe(&e))),
        };
        #[cfg(not(feature = "mpi"))]
        timewarp::run(model, cfg).map(Some).map_err(|e| args::describe(&e))
    }
}

fn main() -> ExitCode {
    let procs = match Procs::init() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let lead = procs.rank() == 0;
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap's whole message: what is wrong, the accepted values or the
            // nearest spelling, and the usage (help and version go to stdout, exit 0).
            if lead {
                let _ = e.print();
            }
            return ExitCode::from(e.exit_code().clamp(0, 255) as u8);
        }
    };
    let result = match cli.cmd {
        Cmd::List => {
            for (name, what) in models::MODELS.iter().filter(|_| lead) {
                println!("{name:<8} {what}");
            }
            Ok(())
        }
        Cmd::Run { model } => dispatch(model, &Run { procs: &procs }),
        Cmd::Verify { model } => dispatch(model, &Verify { procs: &procs }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if lead {
                eprintln!("error: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Builds the chosen model from its options and applies `action` to it.
fn dispatch(cmd: ModelCmd, action: &impl Action) -> Result<(), String> {
    match cmd {
        ModelCmd::Phold { model, engine } => {
            let m = model.model();
            m.validate()?;
            let sizing = format!("--lps {} with --population {}", model.lps, model.population);
            action.apply(&m, &engine, &sizing).map(drop)
        }
        ModelCmd::Network { model, engine } => {
            let m = model.model()?;
            let sizing = match model.topology.as_str() {
                "hypercube" => format!("--nodes {}", model.nodes),
                _ => format!("--dims {}", model.dims.iter().map(u32::to_string).collect::<Vec<_>>().join(",")),
            };
            let results = action.apply(&m, &engine, &sizing)?;
            match (&model.link_stats, results) {
                (Some(path), Some(r)) => write_link_stats(path, &r),
                _ => Ok(()),
            }
        }
        ModelCmd::Pcs { model, engine } => {
            let m = model.model();
            m.validate()?;
            let sizing = format!(
                "--cells-x {} × --cells-y {} with --portables-per-cell {}",
                model.cells_x, model.cells_y, model.portables_per_cell
            );
            action.apply(&m, &engine, &sizing).map(drop)
        }
    }
}

/// Refuses a configuration that cannot fit in this machine's memory, naming
/// the options that make it big (`sizing` for the model's size), before
/// anything is allocated. One of `processes` processes holds its share.
fn fits<M: Model>(model: &M, cfg: &timewarp::Config, processes: usize, sizing: &str) -> Result<(), String> {
    use timewarp::memory::{human, machine_memory, Estimate};
    let Some(have) = machine_memory() else { return Ok(()) };
    let e = Estimate::of(model, cfg, processes);
    if e.total() <= have {
        return Ok(());
    }
    let (what, fix) = if e.rings > e.lps.saturating_add(e.events) {
        (format!("--threads {}", cfg.threads), "use fewer threads")
    } else {
        (sizing.to_string(), "make the model smaller")
    };
    Err(format!(
        "{what} needs about {} of memory (LP records {}, initial events {}, rings between threads {}), \
         but this machine has {}; {fix}",
        human(e.total()),
        human(e.lps),
        human(e.events),
        human(e.rings),
        human(have)
    ))
}

/// Writes the network's per-link figures (`model_results.links`) as CSV.
fn write_link_stats(path: &std::path::Path, results: &Value) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write link statistics to {}: {e}", path.display());
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(fail)?);
    writeln!(f, "link,source,destination,packets,busy_fraction").map_err(fail)?;
    let links = results.get("links").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for (i, l) in links.iter().enumerate() {
        writeln!(f, "{i},{},{},{},{}", l["node"], l["neighbour"], l["packets"], l["busy"]).map_err(fail)?;
    }
    f.flush().map_err(fail)
}

/// `timewarp verify`: sequential against the requested parallel configuration.
fn verify<M: Model>(model: &M, mut cfg: timewarp::Config, engine: &EngineArgs) -> Result<(), String> {
    cfg.progress = false;
    let v = timewarp::verify::verify(model, &cfg).map_err(|e| args::describe(&e))?;
    let par = format!("{} with {} thread(s)", cfg.sync.name(), cfg.threads);
    match v.divergence {
        None => {
            if !engine.quiet {
                println!(
                    "verify: OK: sequential and {par} commit the same history ({} events, digest {}, efficiency {:.1}%)",
                    v.sequential.committed_events,
                    v.sequential.digest,
                    100.0 * v.parallel.efficiency
                );
            }
            Ok(())
        }
        Some(d) => Err(format!(
            "verify: MISMATCH between sequential (digest {}, {} events) and {par} (digest {}, {} events): {d}",
            v.sequential.digest, v.sequential.committed_events, v.parallel.digest, v.parallel.committed_events
        )),
    }
}

/// Prints the model's scalar results as rows; arrays (per-cell figures, say)
/// are left to `--stats-json`.
fn print_results(results: &serde_json::Value) {
    match results {
        serde_json::Value::Object(map) => {
            let rows: Vec<_> = map.iter().filter(|(_, v)| !v.is_array() && !v.is_object()).collect();
            if rows.is_empty() {
                return;
            }
            println!("model results:");
            let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
            for (k, v) in rows {
                println!("  {k:<w$}  {v}");
            }
            if map.values().any(|v| v.is_array() || v.is_object()) {
                println!("  (per-item figures: --stats-json FILE, key model_results)");
            }
        }
        serde_json::Value::Null => {}
        other => println!("model results  {other}"),
    }
}

/// Runs one model with the engine options and prints / writes the results.
fn execute<M: Model>(
    model: &M,
    cfg: &timewarp::Config,
    engine: &EngineArgs,
    procs: &Procs,
) -> Result<Option<Value>, String> {
    // Open the stats file before running: a bad path should not cost a whole run.
    let stats_file = match &engine.stats_json {
        Some(p) if procs.rank() == 0 => {
            let f = std::fs::File::create(p);
            Some(f.map_err(|e| procs.alone(format!("cannot write statistics to {}: {e}", p.display())))?)
        }
        _ => None,
    };
    let Some(report) = procs.run(model, cfg)? else { return Ok(None) };
    let results = serde_json::to_value(&report.results).map_err(|e| e.to_string())?;
    if !engine.quiet {
        print!("{}", report.stats.table());
        print_results(&results);
    }
    if let (Some(mut f), Some(p)) = (stats_file, &engine.stats_json) {
        let mut json = serde_json::to_value(&report.stats).map_err(|e| e.to_string())?;
        json["model_results"] = results.clone();
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        writeln!(f, "{text}").map_err(|e| format!("cannot write statistics to {}: {e}", p.display()))?;
    }
    Ok(Some(results))
}
