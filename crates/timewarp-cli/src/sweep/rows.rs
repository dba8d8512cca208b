//! The sweep's CSV: one row per run, the swept values, the engine's
//! figures and every scalar of the model's results, or the run's error.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::rerun::{field, run_stats};

/// The engine's columns after the swept options' (then the model's
/// results, then `error`).
pub(crate) const COLUMNS: &[&str] = &[
    "rep",
    "committed_events",
    "event_rate",
    "efficiency",
    "rolled_back_events",
    "peak_memory_bytes",
    "wall_seconds",
    "digest",
    "digest_version",
];

/// The statistics fields behind `COLUMNS[1..]`, in order.
const FIELDS: &[&str] = &[
    "committed_events",
    "event_rate",
    "efficiency",
    "rolled_back_events",
    "peak_rss_bytes",
    "wall_seconds",
    "digest",
    "digest_version",
];

/// The prefix of a model result's column whose name is taken already (by
/// a swept option, e.g. the network's `nodes`, or an engine column).
const RESULT_PREFIX: &str = "result.";

/// One run's figures, as the CSV shows them: the engine's (`FIELDS`), and
/// the model's scalar results by name (sorted: a JSON object's order).
#[derive(Debug, Default, PartialEq)]
pub(super) struct Figures {
    engine: Vec<String>,
    model: Vec<(String, String)>,
}

impl Figures {
    /// The figures of a run's statistics `json`: arrays and objects of the
    /// model's results (per-link, per-rank lists) are not scalars and stay
    /// in `timewarp run --stats-json`.
    pub(super) fn of(json: &Json) -> Figures {
        let model = match &json["model_results"] {
            Json::Object(m) => {
                m.iter().filter(|(_, v)| !v.is_array() && !v.is_object()).map(|(k, v)| (k.clone(), field(v))).collect()
            }
            _ => Vec::new(),
        };
        Figures { engine: FIELDS.iter().map(|k| field(&json[k])).collect(), model }
    }
}

/// Runs `timewarp run tokens...` and reads its statistics file.
pub(super) fn run_one(exe: &Path, tokens: &[String]) -> Result<Figures, String> {
    run_stats(exe, tokens).map(|json| Figures::of(&json))
}

/// One row: the swept values, the rep, and the run's figures or its error.
struct Row {
    values: Vec<String>,
    rep: u32,
    outcome: Result<Figures, String>,
}

/// The sweep's CSV. The model's columns are known only from its runs
/// (the union of their results' names), so the rows are kept and the
/// whole file written again after each run: an interrupted sweep keeps the
/// rows of the runs it finished. To standard output, once at the end.
pub(super) struct Csv {
    path: PathBuf,
    names: Vec<String>,
    /// The model's result names, sorted.
    model: Vec<String>,
    rows: Vec<Row>,
}

impl Csv {
    pub(super) fn open(path: &Path, names: &[String]) -> Result<Self, String> {
        let c = Csv { path: path.to_path_buf(), names: names.to_vec(), model: Vec::new(), rows: Vec::new() };
        if !c.stdout() {
            // Refuse an unwritable path before the first run.
            c.write()?;
        }
        Ok(c)
    }

    fn stdout(&self) -> bool {
        self.path.as_os_str() == "-"
    }

    pub(super) fn row(&mut self, values: &[&str], rep: u32, outcome: Result<Figures, String>) -> Result<(), String> {
        if let Ok(f) = &outcome {
            for (k, _) in &f.model {
                if let Err(i) = self.model.binary_search(k) {
                    self.model.insert(i, k.clone());
                }
            }
        }
        self.rows.push(Row { values: values.iter().map(|v| v.to_string()).collect(), rep, outcome });
        if self.stdout() {
            Ok(())
        } else {
            self.write()
        }
    }

    /// Writes the rows to standard output (a file is written already).
    pub(super) fn finish(&self) -> Result<(), String> {
        if self.stdout() {
            self.write()
        } else {
            Ok(())
        }
    }

    /// The header: swept options, engine columns, model columns, error.
    fn header(&self) -> Vec<String> {
        let mut h: Vec<String> = self.names.iter().cloned().chain(COLUMNS.iter().map(|c| c.to_string())).collect();
        for m in &self.model {
            let taken = h.contains(m) || m == "error";
            h.push(if taken { format!("{RESULT_PREFIX}{m}") } else { m.clone() });
        }
        h.push("error".into());
        h
    }

    fn records(&self) -> Vec<Vec<String>> {
        let mut out = vec![self.header()];
        for r in &self.rows {
            let mut rec: Vec<String> = r.values.clone();
            rec.push(r.rep.to_string());
            match &r.outcome {
                Ok(f) => {
                    rec.extend(f.engine.iter().cloned());
                    rec.extend(
                        self.model
                            .iter()
                            .map(|m| f.model.iter().find(|(k, _)| k == m).map(|(_, v)| v.clone()).unwrap_or_default()),
                    );
                    rec.push(String::new());
                }
                Err(e) => {
                    rec.extend(std::iter::repeat(String::new()).take(FIELDS.len() + self.model.len()));
                    rec.push(e.clone());
                }
            }
            out.push(rec);
        }
        out
    }

    fn write(&self) -> Result<(), String> {
        let fail = |e: &dyn std::fmt::Display| format!("cannot write the sweep to {}: {e}", self.path.display());
        // A file is written beside and renamed over: a sweep stopped while
        // writing keeps the previous rows whole.
        let part = self.path.with_file_name(format!(
            ".{}.part",
            self.path.file_name().map_or_else(|| "sweep.csv".into(), |n| n.to_string_lossy())
        ));
        let sink: Box<dyn Write> = if self.stdout() {
            Box::new(std::io::stdout())
        } else {
            Box::new(std::io::BufWriter::new(std::fs::File::create(&part).map_err(|e| fail(&e))?))
        };
        let mut out = csv::Writer::from_writer(sink);
        for rec in self.records() {
            out.write_record(&rec).map_err(|e| fail(&e))?;
        }
        out.flush().map_err(|e| fail(&e))?;
        drop(out);
        if self.stdout() {
            return Ok(());
        }
        std::fs::rename(&part, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&part);
            fail(&e)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_columns_are_sorted_and_prefixed_where_a_name_is_taken() {
        let mut c = Csv { path: "-".into(), names: vec!["nodes".into()], model: vec![], rows: vec![] };
        let f = |m: &[(&str, &str)]| Figures {
            engine: vec!["1".into(); FIELDS.len()],
            model: m.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        c.row(&["4"], 1, Ok(f(&[("nodes", "4"), ("b", "2")]))).unwrap();
        c.row(&["8"], 1, Err("no".into())).unwrap();
        c.row(&["16"], 1, Ok(f(&[("a", "x"), ("nodes", "16")]))).unwrap();
        let r = c.records();
        let h = &r[0];
        assert_eq!(h[h.len() - 4..], ["a", "b", "result.nodes", "error"]);
        assert_eq!(r[1][r[1].len() - 4..], ["", "2", "4", ""]);
        assert_eq!(r[2][r[2].len() - 4..], ["", "", "", "no"]);
        assert_eq!(r[3][r[3].len() - 4..], ["x", "", "16", ""]);
        assert!(r.iter().all(|rec| rec.len() == h.len()));
    }
}
