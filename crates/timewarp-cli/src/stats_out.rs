//! Output files written whole or not at all (statistics, CSVs, timeline traces).

use crate::signals;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where `--stats-json` (or another output file: the CSVs, the timeline
/// trace) goes. A file is written through a temporary file in its folder
/// and renamed at the end, so a failed write (a full disk) leaves no
/// truncated file behind; the temporary file exists only while it is
/// written (the folder is checked at the start with one made and removed
/// at once), so a run killed with SIGKILL, which nothing can clean up
/// after, leaves none. A path that is no regular file (`/dev/stdout`, a
/// pipe) is written directly; `-` is standard output.
pub(crate) struct StatsOut {
    /// What the file holds, for error messages ("statistics").
    what: &'static str,
    to: Dest,
    /// Where the temporary file is registered (a signal removes it).
    temporaries: signals::Temporaries,
}

/// Where a [`StatsOut`] writes.
enum Dest {
    Stdout,
    Direct(PathBuf, std::fs::File),
    Renamed { path: PathBuf, tmp: PathBuf },
}

impl StatsOut {
    /// Checks the destination of statistics before the run: a bad path should not cost a whole run.
    pub(crate) fn open(path: &Path, temporaries: &signals::Temporaries) -> Result<Self, String> {
        Self::open_for(path, "statistics", temporaries)
    }

    /// As [`open`](Self::open), for a file holding `what`.
    pub(crate) fn open_for(
        path: &Path,
        what: &'static str,
        temporaries: &signals::Temporaries,
    ) -> Result<Self, String> {
        let fail = |e: std::io::Error| format!("cannot write {what} to {}: {e}", path.display());
        let temporaries = temporaries.clone();
        if path.as_os_str() == "-" {
            return Ok(StatsOut { what, to: Dest::Stdout, temporaries });
        }
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            let file = std::fs::OpenOptions::new().write(true).open(path).map_err(fail)?;
            return Ok(StatsOut { what, to: Dest::Direct(path.to_path_buf(), file), temporaries });
        }
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        // Can it be written? Made and removed at once: the run's figures
        // come at its end, and so does the temporary file that holds them.
        // Registered before it exists: a signal between the two finds nothing to remove.
        temporaries.add(&tmp);
        let made = std::fs::File::create(&tmp);
        let _ = std::fs::remove_file(&tmp);
        temporaries.forget(&tmp);
        made.map_err(fail)?;
        Ok(StatsOut { what, to: Dest::Renamed { path: path.to_path_buf(), tmp }, temporaries })
    }

    /// True when the statistics take standard output (the summary then goes to stderr).
    pub(crate) fn is_stdout(&self) -> bool {
        matches!(self.to, Dest::Stdout)
    }

    /// Writes `text` and a newline and puts it in place.
    pub(crate) fn write(self, text: &str) -> Result<(), String> {
        self.write_with(|w| writeln!(w, "{text}"))
    }

    /// Writes what `body` writes (through a buffer) and puts it in place.
    pub(crate) fn write_with(self, body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), String> {
        let what = self.what;
        let at = |p: &Path| {
            let p = p.display().to_string();
            move |e: std::io::Error| format!("cannot write {what} to {p}: {e}")
        };
        fn buffered<W: Write>(w: W, body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<W> {
            let mut b = std::io::BufWriter::new(w);
            body(&mut b)?;
            b.flush()?;
            b.into_inner().map_err(|e| e.into_error())
        }
        match self.to {
            Dest::Stdout => {
                buffered(std::io::stdout().lock(), body).map(drop).map_err(at(Path::new("standard output")))
            }
            Dest::Direct(path, file) => buffered(file, body).map(drop).map_err(at(&path)),
            Dest::Renamed { path, tmp } => {
                self.temporaries.add(&tmp);
                let written = std::fs::File::create(&tmp).and_then(|f| buffered(f, body)).and_then(|f| f.sync_all());
                // Renamed with the signal handler held off: it removes the
                // temporary file either before (no file) or not at all.
                let mut held = self.temporaries.hold();
                let written = written.and_then(|()| std::fs::rename(&tmp, &path)).map_err(at(&path));
                if written.is_err() {
                    let _ = std::fs::remove_file(&tmp);
                }
                held.retain(|p| p != &tmp);
                written
            }
        }
    }
}
