//! The checkpoint files of a directory: their names (`ckpt-<GVT>.twc`),
//! writing one and keeping the newest, listing them oldest first.

use std::path::{Path, PathBuf};

use super::file::{self, Header};
use crate::error::Error;
use crate::model::Model;
use crate::segment::Snapshot;

/// Where a checkpoint of `snap` goes in `dir`: `ckpt-<GVT>.twc`.
pub(crate) fn file_path<M: Model>(dir: &Path, snap: &Snapshot<M>) -> PathBuf {
    dir.join(format!("ckpt-{}.twc", snap.time()))
}

/// Writes `snap` to `path` in `dir` and keeps the newest `keep` checkpoint
/// files there (`written`: this run's, oldest first).
pub(crate) fn save<M: Model>(
    dir: &Path,
    path: &Path,
    header: &Header,
    snap: &Snapshot<M>,
    keep: usize,
    written: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Checkpoint {
        path: dir.display().to_string(),
        problem: format!("cannot create the checkpoint directory: {e}"),
    })?;
    file::write(path, header, snap)?;
    let path = path.to_path_buf();
    written.retain(|p| p != &path);
    written.push(path);
    // Keep the newest: this run's files, and older ones found in the directory.
    let mut all = list(dir)?;
    all.retain(|p| !written.contains(p));
    all.extend(written.iter().cloned());
    let excess = all.len().saturating_sub(keep);
    for old in all.drain(..excess) {
        let _ = std::fs::remove_file(&old);
        written.retain(|p| p != &old);
    }
    Ok(())
}

/// The checkpoint files `ckpt-<time>.twc` in `dir`, oldest (earliest cut) first.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::Checkpoint {
        path: dir.display().to_string(),
        problem: format!("cannot list the checkpoint directory: {e}"),
    })?;
    let mut found: Vec<(f64, PathBuf)> = rd
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let t: f64 = name.strip_prefix("ckpt-")?.strip_suffix(".twc")?.parse().ok()?;
            Some((t, e.path()))
        })
        .collect();
    found.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(found.into_iter().map(|x| x.1).collect())
}
