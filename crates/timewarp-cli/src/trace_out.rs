//! `--trace-out FILE`: the run's timeline (`timewarp::timeline`) in the
//! Chrome trace-event format, for Perfetto and `chrome://tracing`. The
//! engine records it (`Config::timeline`, bounded by `--trace-limit`);
//! this module checks the options go together and writes the file, on
//! rank 0 under MPI (every rank's tracks are gathered there with the
//! results, so one file holds the whole run).

use serde_json::{json, Value};
use timewarp::Report;

use crate::args::EngineArgs;
use crate::stats_out::StatsOut;

/// Refuses `--trace-out` where the timeline would cover part of the run:
/// a checkpointed or resumed run is several segments (the engine reports
/// the last one's timeline), and a profiled run (`--profile-out`) uses the
/// profiling loop, which records none.
pub(crate) fn usable(engine: &EngineArgs, resumed: bool) -> Result<(), String> {
    if engine.trace_out.is_none() {
        return Ok(());
    }
    if engine.checkpoint_dir.is_some() || resumed {
        return Err("--trace-out records one uninterrupted run; leave out --checkpoint-dir (or trace a run that is \
                    not resumed from a checkpoint)"
            .into());
    }
    if engine.profile_out.is_some() {
        return Err("--trace-out and --profile-out: give one of them (a profiled run records no timeline)".into());
    }
    Ok(())
}

/// Writes the timeline of `report` to `out`, with the run's `config` (the
/// statistics file's) and headline figures under `otherData.about`; warns
/// on stderr (one line, unless `--quiet`) when the limit cut it short.
pub(crate) fn write<R>(out: StatsOut, report: &Report<R>, config: &Value, engine: &EngineArgs) -> Result<(), String> {
    let Some(timeline) = &report.timeline else {
        return Err("internal error: the run recorded no timeline for --trace-out".into());
    };
    let st = &report.stats;
    let about = json!({
        "model": st.model,
        "sync": st.sync,
        "threads": st.threads,
        "pes_per_process": st.pes_per_process,
        "ranks": st.ranks,
        "committed_events": st.committed_events,
        "rollbacks": st.primary_rollbacks + st.secondary_rollbacks,
        "digest": st.digest,
        "digest_version": st.digest_version,
        "config": config,
    });
    out.write_with(|w| timeline.write_chrome(&about, w))?;
    let dropped = timeline.dropped();
    if dropped > 0 && !engine.quiet {
        eprintln!(
            "warning: the timeline reached --trace-limit {} ({} spans recorded, {dropped} not); the trace says where \
             each PE stopped: raise --trace-limit to see the whole run",
            timeline.limit,
            timeline.spans()
        );
    }
    Ok(())
}
