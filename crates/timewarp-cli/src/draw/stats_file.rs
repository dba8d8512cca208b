//! A statistics file (`--stats-json`) read for the plots and the HTML
//! report: a run's GVT series, per-PE counters and efficiency, and the
//! whole file.
//!
//! The file is read as JSON values, not as `timewarp::stats::Stats`, so a
//! file with keys added later (or written by an older build) still plots.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// One PE's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Pe {
    pub committed: f64,
    pub processed: f64,
    pub rolled_back: f64,
}

impl Pe {
    /// Committed / processed (1 when nothing was processed).
    pub(crate) fn efficiency(&self) -> f64 {
        if self.processed > 0.0 {
            self.committed / self.processed
        } else {
            1.0
        }
    }
}

/// One run's statistics, as much as the plots need.
#[derive(Clone, Debug)]
pub(crate) struct Run {
    /// The series' name in legends.
    pub label: String,
    /// Where it came from.
    pub path: PathBuf,
    /// The whole file (the report shows the rest).
    pub json: Value,
    /// (wall seconds, GVT) per GVT round with a finite GVT.
    pub gvt: Vec<(f64, f64)>,
    /// (wall seconds, events committed so far) per GVT round.
    pub committed: Vec<(f64, f64)>,
    /// Per-PE counters; one made of the totals for a sequential run.
    pub pes: Vec<Pe>,
    /// Whether `pes` came from the file (not from the totals).
    pub per_pe: bool,
    /// Committed / processed events of the run.
    pub efficiency: f64,
}

/// A number at `key` of `v`: absent or null is `None`; another type is an error.
pub(crate) fn number(v: &Value, key: &str, path: &Path) -> Result<Option<f64>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("{}: {key} is {x}, not a number; is it a --stats-json file?", path.display())),
    }
}

/// A list at `key` of `v` (absent or null: empty).
fn list<'a>(v: &'a Value, key: &str, path: &Path) -> Result<&'a [Value], String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(format!("{}: {key} is not a list; is it a --stats-json file?", path.display())),
    }
}

impl Run {
    /// Reads a statistics file written by `timewarp run ... --stats-json`
    /// (or `verify`'s, whose parallel run it takes).
    pub(crate) fn read(path: &Path) -> Result<Run, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let json: Value = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{} is not valid JSON ({e}); give a file written by `timewarp run ... --stats-json FILE`",
                path.display()
            )
        })?;
        Run::from_json(path, json)
    }

    /// The run in `json` (read from `path`).
    pub(crate) fn from_json(path: &Path, json: Value) -> Result<Run, String> {
        // `timewarp verify --stats-json`: both runs; the parallel one is of interest.
        let json = match json.get("parallel") {
            Some(p) if p.is_object() && json.get("sequential").is_some() => p.clone(),
            _ => json,
        };
        if !json.is_object() || json.get("committed_events").is_none() {
            return Err(format!(
                "{}: not run statistics (no committed_events); give a file written by `timewarp run ... \
                 --stats-json FILE`",
                path.display()
            ));
        }
        let mut gvt = Vec::new();
        let mut committed = Vec::new();
        for p in list(&json, "gvt_series", path)? {
            let (Some(wall), Some(c)) = (number(p, "wall", path)?, number(p, "committed", path)?) else {
                return Err(format!("{}: a gvt_series point lacks wall or committed: {p}", path.display()));
            };
            committed.push((wall, c));
            // The last round's GVT is infinite (written as null): the run is over.
            if let Some(g) = number(p, "gvt", path)?.filter(|g| g.is_finite()) {
                gvt.push((wall, g));
            }
        }
        let mut pes = Vec::new();
        for p in list(&json, "pes", path)? {
            let get = |k| number(p, k, path).map(Option::unwrap_or_default);
            pes.push(Pe {
                committed: get("committed")?,
                processed: get("processed")?,
                rolled_back: get("rolled_back")?,
            });
        }
        let total = |k| number(&json, k, path).map(Option::unwrap_or_default);
        let per_pe = !pes.is_empty();
        if !per_pe {
            pes.push(Pe {
                committed: total("committed_events")?,
                processed: total("processed_events")?,
                rolled_back: total("rolled_back_events")?,
            });
        }
        let efficiency = match number(&json, "efficiency", path)? {
            Some(e) => e,
            None => {
                Pe { committed: total("committed_events")?, processed: total("processed_events")?, ..Pe::default() }
                    .efficiency()
            }
        };
        Ok(Run { label: String::new(), path: path.to_path_buf(), json, gvt, committed, pes, per_pe, efficiency })
    }

    /// A text field of the file ("" when absent).
    pub(crate) fn text(&self, key: &str) -> String {
        match self.json.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(v) => v.to_string(),
        }
    }

    /// "phold, optimistic, 2 threads".
    pub(crate) fn describe(&self) -> String {
        let mut parts = vec![self.text("model"), self.text("sync")];
        let threads = self.json.get("threads").and_then(Value::as_u64).unwrap_or(1);
        let ranks = self.json.get("ranks").and_then(Value::as_u64).unwrap_or(1);
        parts.push(format!("{threads} thread{}", if threads == 1 { "" } else { "s" }));
        if ranks > 1 {
            parts.push(format!("{ranks} processes"));
        }
        parts.retain(|p| !p.is_empty());
        parts.join(", ")
    }

    /// Committed events per second over the run, in `bins` equal spans of
    /// wall time: (span middle, rate). Empty without a GVT series.
    pub(crate) fn rate(&self, bins: usize) -> Vec<(f64, f64)> {
        let mut pts = self.committed.clone();
        pts.retain(|p| p.0.is_finite() && p.1.is_finite());
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        if pts.is_empty() {
            return Vec::new();
        }
        if pts[0].0 > 0.0 {
            pts.insert(0, (0.0, 0.0));
        }
        let end = pts[pts.len() - 1].0;
        if end <= 0.0 || bins == 0 {
            return Vec::new();
        }
        // Committed by time t, linear between rounds.
        let at = |t: f64| -> f64 {
            let i = pts.partition_point(|p| p.0 <= t);
            if i == 0 {
                return pts[0].1;
            }
            if i == pts.len() {
                return pts[i - 1].1;
            }
            let (a, b) = (pts[i - 1], pts[i]);
            if b.0 > a.0 {
                a.1 + (b.1 - a.1) * (t - a.0) / (b.0 - a.0)
            } else {
                b.1
            }
        };
        let bins = bins.min(pts.len() - 1).max(1);
        let w = end / bins as f64;
        (0..bins).map(|k| (w * (k as f64 + 0.5), (at(w * (k + 1) as f64) - at(w * k as f64)) / w)).collect()
    }
}

/// Gives each run its legend label: its description alone, or the file
/// names when several overlay (their full paths where the names repeat).
pub(crate) fn label(mut runs: Vec<Run>) -> Vec<Run> {
    let stem = |r: &Run| r.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let stems: Vec<String> = runs.iter().map(stem).collect();
    let unique = (1..stems.len()).all(|i| !stems[..i].contains(&stems[i]));
    for (i, r) in runs.iter_mut().enumerate() {
        r.label = if stems.len() == 1 {
            r.describe()
        } else if unique {
            stems[i].clone()
        } else {
            r.path.display().to_string()
        };
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(j: Value) -> Run {
        Run::from_json(Path::new("t.json"), j).unwrap()
    }

    #[test]
    fn the_rate_is_committed_events_over_wall_time() {
        let r = run(json!({"committed_events": 300, "gvt_series": [
            {"gvt": 1.0, "wall": 1.0, "committed": 100},
            {"gvt": 2.0, "wall": 2.0, "committed": 200},
            {"gvt": null, "wall": 3.0, "committed": 300}]}));
        assert_eq!(r.gvt, vec![(1.0, 1.0), (2.0, 2.0)], "the infinite last GVT is left out");
        let rate = r.rate(3);
        assert_eq!(rate.len(), 3);
        for (k, (t, v)) in rate.iter().enumerate() {
            assert!((t - (k as f64 + 0.5)).abs() < 1e-9);
            assert!((v - 100.0).abs() < 1e-9, "{rate:?}");
        }
    }

    #[test]
    fn a_sequential_run_has_one_pe_of_its_totals() {
        let r = run(json!({"committed_events": 10, "processed_events": 10, "rolled_back_events": 0,
                           "gvt_series": [], "pes": []}));
        assert!(!r.per_pe);
        assert_eq!(r.pes, vec![Pe { committed: 10.0, processed: 10.0, rolled_back: 0.0 }]);
        assert!(r.rate(10).is_empty());
        assert_eq!(r.efficiency, 1.0);
    }

    #[test]
    fn bad_files_are_named() {
        let e = Run::from_json(Path::new("x.json"), json!({"a": 1})).unwrap_err();
        assert!(e.contains("x.json") && e.contains("committed_events"), "{e}");
        let e = Run::from_json(Path::new("x.json"), json!({"committed_events": 1, "pes": 3})).unwrap_err();
        assert!(e.contains("pes is not a list"), "{e}");
        let e = Run::from_json(Path::new("x.json"), json!({"committed_events": "many"})).unwrap_err();
        assert!(e.contains("committed_events"), "{e}");
    }

    #[test]
    fn verify_files_plot_their_parallel_run() {
        let r = run(json!({"identical": true, "sequential": {"committed_events": 1},
                           "parallel": {"committed_events": 2, "sync": "optimistic"}}));
        assert_eq!(r.text("sync"), "optimistic");
    }
}
