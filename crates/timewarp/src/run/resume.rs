//! A snapshot made ready to start a run: the resumed run's end checked
//! against the checkpoint's.

use crate::config::Config;
use crate::error::Error;
use crate::model::Model;
use crate::segment::Snapshot;

/// A snapshot ready to start a run of `cfg`: its events past a new, earlier
/// end dropped; a later end refused (events past the old end were never
/// created).
pub(super) fn prepare<M: Model>(mut snap: Snapshot<M>, cfg: &Config) -> Result<Snapshot<M>, Error> {
    let old = snap.stats.end_time;
    if old > 0.0 && cfg.end > old {
        return Err(Error::Option {
            option: "end",
            problem: format!(
                "the checkpoint's run ends at {old}; a resume can end there or earlier, not at {} (events past {old} \
                 were never created)",
                cfg.end
            ),
        });
    }
    if cfg.end <= snap.time() && snap.pending_events() > 0 {
        return Err(Error::Option {
            option: "end",
            problem: format!(
                "the checkpoint is at time {}; a resume must end after it, not at {}",
                snap.time(),
                cfg.end
            ),
        });
    }
    let dropped = snap.truncate(cfg.end);
    snap.stats.events_past_end += dropped;
    snap.stats.end_time = cfg.end;
    Ok(snap)
}
