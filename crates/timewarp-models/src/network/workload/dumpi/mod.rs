//! SST DUMPI binary traces (`--workload dumpi`): a run's `.meta` file and
//! its per-rank `.bin` files, read without the DUMPI library and turned into
//! rank programs ([`Workload`]): point-to-point calls become sends,
//! receives, waits and probes (wildcards kept, matched at run time), the
//! collectives are expanded like the text format's, and the recorded time
//! between calls becomes computation. The format as DUMPI 13 writes it and
//! the mapping of calls are in docs/codes.md, "From DUMPI traces".
//!
//! `decode.rs` reads the binary format into calls, `convert.rs` turns the
//! calls into rank programs, `names.rs` holds DUMPI's tables.

mod convert;
mod decode;
mod names;
#[cfg(test)]
mod tests;

use super::Workload;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use timewarp::text::printable;

use convert::convert;
use decode::decode;
#[cfg(test)]
use decode::{Call, RankTrace, Record};
#[cfg(test)]
use names::{BUILTIN_SIZES, NAMES};

/// Which recorded clock gives the computation between calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DumpiTime {
    /// Wall-clock time (`CLOCK_MONOTONIC`).
    #[default]
    Wall,
    /// The process's CPU time.
    Cpu,
}

/// How a DUMPI trace becomes rank programs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DumpiOptions {
    /// The clock of the compute gaps.
    pub time: DumpiTime,
    /// Every compute gap is multiplied by this (0: communication only).
    pub compute_scale: f64,
}

impl Default for DumpiOptions {
    fn default() -> Self {
        DumpiOptions { time: DumpiTime::Wall, compute_scale: 1.0 }
    }
}

/// The `.meta` file of `--trace-dir` (the path itself when it is one).
fn meta_file(path: &Path) -> Result<PathBuf, String> {
    if path.is_file() && path.extension().is_some_and(|x| x == "bin") {
        // One rank's trace: read as a .meta file it would be "not UTF-8".
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        return Err(format!(
            "--trace-dir {} is one rank's DUMPI trace (.bin): give its run's .meta file (dumpi-<stamp>.meta) or \
             the directory that holds both ({})",
            path.display(),
            dir.display()
        ));
    }
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    let entries = std::fs::read_dir(path).map_err(|e| format!("--trace-dir {}: {e}", path.display()))?;
    let mut metas: Vec<PathBuf> =
        entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "meta")).collect();
    metas.sort();
    match metas.len() {
        1 => Ok(metas.remove(0)),
        0 => Err(format!("--trace-dir {} holds no DUMPI .meta file (dumpi-<stamp>.meta)", path.display())),
        n => Err(format!(
            "--trace-dir {} holds {n} DUMPI .meta files ({}, ...); give one of them as --trace-dir",
            path.display(),
            metas[0].display()
        )),
    }
}

/// The text of `meta`; a file that is not text (a rank's `.bin` given as
/// `--trace-dir`) is refused saying what to give.
fn read_meta(meta: &Path) -> Result<String, String> {
    std::fs::read_to_string(meta).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => format!(
            "--trace-dir {}: not a DUMPI .meta file (not text): give the run's dumpi-<stamp>.meta file or the \
             directory that holds it",
            meta.display()
        ),
        _ => format!("{}: {e}", meta.display()),
    })
}

/// The ranks and the `.bin` file prefix `meta`'s `text` gives.
fn meta_keys(meta: &Path, text: &str) -> Result<(u32, String), String> {
    let mut keys = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match line.split_once('=') {
            Some((k, v)) => keys.insert(k.trim(), v.trim()),
            None => {
                return Err(format!(
                    "{}: not a DUMPI .meta file: line '{}' is not key=value",
                    meta.display(),
                    printable(line)
                ))
            }
        };
    }
    let get =
        |k: &str| keys.get(k).copied().ok_or_else(|| format!("{}: not a DUMPI .meta file: no '{k}='", meta.display()));
    let p: u32 = get("numprocs")?
        .parse()
        .ok()
        .filter(|&p| p > 0)
        .ok_or_else(|| format!("{}: numprocs must be a whole number >= 1", meta.display()))?;
    Ok((p, get("fileprefix")?.to_string()))
}

/// Rank `r`'s `.bin` file beside `meta`.
fn bin_file(meta: &Path, prefix: &str, r: u32) -> PathBuf {
    meta.parent().unwrap_or(Path::new(".")).join(format!("{prefix}-{r:04}.bin"))
}

impl Workload {
    /// Reads a DUMPI run: `dir` holds one `.meta` file (or is one), its
    /// `<fileprefix>-NNNN.bin` files lie beside it. Errors are one line
    /// naming the file, or the rank and the call that cannot be replayed.
    pub fn read_dumpi(dir: &Path, opt: &DumpiOptions) -> Result<Workload, String> {
        let meta = meta_file(dir)?;
        let text = read_meta(&meta)?;
        let (p, prefix) = meta_keys(&meta, &text)?;
        let mut traces = vec![];
        for r in 0..p {
            let f = bin_file(&meta, &prefix, r);
            let b = std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?;
            traces.push(decode(&b, &format!("{} (rank {r})", f.display()), opt.time)?);
        }
        convert(&traces, opt, meta.display().to_string())
    }

    /// The files [`read_dumpi`](Self::read_dumpi) would read from `dir`, as
    /// far as they are there (without reading the `.bin` files): every
    /// `.meta` file it would consider and, when there is one, the `.bin`
    /// files it names, up to the first missing. A checkpoint fingerprints
    /// them, so a trace changed, replaced, added to or cut short before a
    /// resume is caught before it is read.
    pub fn dumpi_files(dir: &Path) -> Vec<PathBuf> {
        let metas: Vec<PathBuf> = if dir.is_file() {
            vec![dir.to_path_buf()]
        } else {
            let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
            let mut m: Vec<PathBuf> =
                entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "meta")).collect();
            m.sort();
            m
        };
        let mut out = metas.clone();
        if let [meta] = &metas[..] {
            let keys = read_meta(meta).and_then(|t| meta_keys(meta, &t));
            if let Ok((p, prefix)) = keys {
                out.extend((0..p).map(|r| bin_file(meta, &prefix, r)).take_while(|f| f.is_file()));
            }
        }
        out
    }
}
