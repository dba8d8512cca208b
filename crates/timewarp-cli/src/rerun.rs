//! Runs of this program started again, one process each (`timewarp run
//! ... --quiet --stats-json TMP`), as `sweep` and `curve` run theirs: each
//! run's statistics or its error line, a statistics value as a CSV field,
//! and the progress line on a terminal.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value as Json;

/// A JSON scalar as a CSV field (null: empty; text without its quotes).
pub(crate) fn field(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        Json::Null => String::new(),
        v => v.to_string(),
    }
}

/// How a sweep or a curve runs one point in this process (an embedding
/// program's runs, [`crate::embed`]): the tokens after `run` (to which it
/// adds `--quiet --stats-json FILE`) give the run's statistics or its
/// error line. Without one each run is this program started again
/// ([`run_stats`]).
pub(crate) type InProcess<'a> = &'a dyn Fn(&[String]) -> Result<Json, String>;

/// Runs `timewarp run tokens...` (this program again) and returns its
/// statistics (`--stats-json`), or the run's error line.
pub(crate) fn run_stats(exe: &Path, tokens: &[String]) -> Result<Json, String> {
    let stats = std::env::temp_dir().join(format!("timewarp-sweep-{}.json", std::process::id()));
    let out = Command::new(exe)
        .arg("run")
        .args(tokens)
        .arg("--quiet")
        .arg("--stats-json")
        .arg(&stats)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let text = std::fs::read_to_string(&stats);
    let _ = std::fs::remove_file(&stats);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let line = err
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("error: "))
            .or_else(|| err.lines().rev().find(|l| !l.trim().is_empty()))
            .map(str::trim)
            .map(String::from);
        return Err(line.unwrap_or_else(|| format!("the run ended with {}", out.status)));
    }
    text.map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .map_err(|e| format!("the run's statistics could not be read: {e}"))
}

/// The progress line: shown on a terminal only (piped sweeps stay quiet).
pub(crate) struct Progress {
    on: bool,
}

impl Progress {
    pub(crate) fn new() -> Self {
        use std::io::IsTerminal;
        Progress { on: std::io::stderr().is_terminal() }
    }

    pub(crate) fn show(&self, line: &str) {
        if self.on {
            eprint!("\r\x1b[K{line}");
        }
    }

    pub(crate) fn clear(&self) {
        if self.on {
            eprint!("\r\x1b[K");
        }
    }
}
