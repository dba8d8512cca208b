//! One run of a model from the command line: output paths checked first,
//! the run, the summary, the statistics files.

use crate::args::EngineArgs;
use crate::procs::{Checkpoints, Procs};
use crate::program::{self, EXIT_CHECKPOINTED};
use crate::stats_out::StatsOut;
use crate::{csv_stats, partition, signals, trace_out};
use serde_json::Value;
use std::path::PathBuf;
use timewarp::Model;

/// What a model does with its typed results after a run: write its files
/// (`after`), and add to the printed summary (`summary`).
pub(crate) struct Hooks<'a, R> {
    pub after: &'a dyn Fn(&R) -> Result<(), String>,
    pub summary: &'a dyn Fn(&R) -> String,
}

/// What a run records besides its figures.
pub(crate) struct Outputs<'a> {
    /// The model's parsed options (written into profiles).
    pub(crate) params: &'a str,
    /// The effective configuration (the statistics file's `config`).
    pub(crate) config: Value,
    /// Where the output files' temporary names are registered.
    pub(crate) temporaries: &'a signals::Temporaries,
}

/// Runs one model with the engine options and prints / writes the results.
pub(crate) fn execute<M: Model>(
    model: &M,
    cfg: &timewarp::Config,
    engine: &EngineArgs,
    procs: &Procs,
    rec: Outputs<'_>,
    hooks: Hooks<'_, M::Results>,
    ck: Checkpoints<'_, M>,
) -> Result<Option<Value>, String> {
    let params = rec.params;
    // Every output path is checked before the run: a bad one should not cost a whole run.
    let open = |p: &Option<PathBuf>| match p {
        Some(p) if procs.rank() == 0 => StatsOut::open(p, rec.temporaries).map(Some).map_err(|e| procs.alone(e)),
        _ => Ok(None),
    };
    let stats_out = open(&engine.stats_json)?;
    let csv_outs = [open(&engine.stats_csv)?, open(&engine.gvt_csv)?];
    let trace_out = match &engine.trace_out {
        Some(p) if procs.rank() == 0 => {
            Some(StatsOut::open_for(p, "the timeline trace", rec.temporaries).map_err(|e| procs.alone(e))?)
        }
        _ => None,
    };
    let (control, stoppable) = (ck.control, ck.stoppable);
    let run = match &engine.profile_out {
        Some(path) => partition::profile(model, cfg, procs.size(), path, params, engine.quiet),
        None => procs.run(model, cfg, ck).map_err(|e| match e {
            timewarp::Error::Interrupted { checkpoint: Some(p) } if stoppable => {
                format!("interrupted; wrote checkpoint {p}; continue with: {} resume {p}", program::name())
            }
            timewarp::Error::Interrupted { checkpoint: Some(p) } => {
                // The engine's text names `timewarp`; this program may be another App.
                eprintln!("interrupted; wrote checkpoint {p}; continue with: {} resume {p}", program::name());
                std::process::exit(EXIT_CHECKPOINTED.into())
            }
            e => procs.failed(e),
        }),
    };
    let report = match run {
        Ok(Some(r)) => r,
        // No figures, no files (none was made before the end).
        other => return other.map(|_| None),
    };
    if control.interrupted() {
        eprintln!(
            "interrupted, but the run ended before its next cut: it finished, its results are complete and there is \
             nothing to resume (no checkpoint written)"
        );
    }
    // A run that stopped before its work was done (ranks of a trace or job
    // still waiting at --end, or deadlocked) is an error, but its figures
    // and files are still written, the statistics saying what did not
    // finish (issue 62: a 125-second run once left nothing).
    let unfinished = (hooks.after)(&report.results).err();
    let results = serde_json::to_value(&report.results).map_err(|e| e.to_string())?;
    let summary = format!("{}{}{}", report.stats.table(), results_text(&results), (hooks.summary)(&report.results));
    let to_stdout = stats_out.iter().chain(csv_outs.iter().flatten()).chain(&trace_out).any(StatsOut::is_stdout);
    if !engine.quiet {
        if to_stdout {
            eprint!("{summary}");
        } else {
            print!("{summary}");
        }
    }
    // Every file is written even when an earlier one fails (the others keep
    // the run's figures); the first failure is the error.
    let mut failed: Option<String> = None;
    let mut keep = |written: Result<(), String>| {
        if let Err(e) = written {
            failed.get_or_insert(e);
        }
    };
    if let Some(out) = trace_out {
        keep(trace_out::write(out, &report, &rec.config, engine));
    }
    if let Some(out) = stats_out {
        let mut json = serde_json::to_value(&report.stats).map_err(|e| e.to_string())?;
        json["model_results"] = results.clone();
        json["config"] = rec.config;
        if let Some(e) = &unfinished {
            json["unfinished"] = e.clone().into();
        }
        crate::auto::keys(&mut json, engine.auto.as_ref());
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        keep(out.write(&text));
    }
    let [pes, gvt] = csv_outs;
    if let (Some(_), Some(why), false) = (&gvt, csv_stats::no_gvt_series(&report.stats), engine.quiet) {
        eprintln!("note: --gvt-csv holds only its header: {why}");
    }
    for (file, text) in [(pes, csv_stats::pes(&report.stats)), (gvt, csv_stats::gvt(&report.stats))] {
        if let Some(file) = file {
            match text {
                Ok(text) => keep(file.write(text.trim_end_matches('\n'))),
                Err(e) => keep(Err(e)),
            }
        }
    }
    if let Some(e) = failed {
        // The run's figures are not lost with a file: a quiet run prints them on stderr.
        if engine.quiet {
            eprint!("{summary}");
        }
        return Err(unfinished.unwrap_or(e));
    }
    unfinished.map_or(Ok(Some(results)), Err)
}

/// The model's scalar results as rows, readable (4 significant digits,
/// units, `n/a` for what the run does not define: `readable::value`);
/// arrays (per-cell figures, say) and full precision are left to `--stats-json`.
fn results_text(results: &serde_json::Value) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    match results {
        serde_json::Value::Object(map) => {
            let rows: Vec<_> = map.iter().filter(|(_, v)| !v.is_array() && !v.is_object()).collect();
            if rows.is_empty() {
                return out;
            }
            out.push_str("model results:\n");
            let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
            for (k, v) in rows {
                let _ = writeln!(out, "  {k:<w$}  {}", crate::readable::value(k, v));
            }
            if map.values().any(|v| v.is_array() || v.is_object()) {
                out.push_str("  (per-item figures: --stats-json FILE, key model_results)\n");
            }
        }
        serde_json::Value::Null => {}
        other => {
            let _ = writeln!(out, "model results  {other}");
        }
    }
    out
}
