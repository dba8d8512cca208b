//! The background writer of a run's checkpoints: one at a time, on a
//! thread of its own, while the run goes on from the same snapshot.

use std::path::PathBuf;
use std::sync::Arc;

use crate::checkpoint::{save, Header};
use crate::error::Error;
use crate::model::Model;
use crate::segment::Snapshot;

/// Says that a periodic checkpoint could not be written (a full disk):
/// not the run's error, which goes on (one process and under MPI alike).
fn warn_unwritten(e: &Error) {
    eprintln!("warning: {e}; the run goes on without this checkpoint");
}

/// A write under way: its seconds and the files written, oldest first; or
/// why it failed, and the files written before.
type Writing = std::thread::JoinHandle<Result<(f64, Vec<PathBuf>), (Error, Vec<PathBuf>)>>;

/// Writes checkpoints one at a time on a thread of its own.
///
/// A checkpoint that cannot be written (a full disk) does not end the run:
/// the error goes to stderr as a warning, the files written before stay,
/// and the next checkpoint is tried as planned (the disk may have room by
/// then). Only the checkpoint of a stop request fails the run.
pub(super) struct Writer<M: Model> {
    running: Option<Writing>,
    written: Vec<PathBuf>,
    _model: std::marker::PhantomData<fn() -> M>,
}

impl<M: Model> Default for Writer<M> {
    fn default() -> Self {
        Writer { running: None, written: Vec::new(), _model: std::marker::PhantomData }
    }
}

impl<M: Model> Writer<M> {
    /// Starts writing `snap` to `path` in `dir` (keeping `keep` files).
    pub(super) fn write(&mut self, dir: PathBuf, path: PathBuf, header: Header, snap: Arc<Snapshot<M>>, keep: usize) {
        let mut written = std::mem::take(&mut self.written);
        self.running = Some(std::thread::spawn(move || {
            let t = std::time::Instant::now();
            match save(&dir, &path, &header, &snap, keep, &mut written) {
                Ok(()) => Ok((t.elapsed().as_secs_f64(), written)),
                Err(e) => Err((e, written)),
            }
        }));
    }

    /// Waits for the write under way; returns the seconds it took and
    /// whether it failed (1, after a warning) or not (0).
    pub(super) fn wait(&mut self) -> Result<(f64, u64), Error> {
        match self.finish()? {
            Ok(seconds) => Ok((seconds, 0)),
            Err(e) => {
                warn_unwritten(&e);
                Ok((0.0, 1))
            }
        }
    }

    /// Waits for the write of a stop's checkpoint: why it failed, if it did.
    pub(super) fn wait_for_stop(&mut self) -> Option<Error> {
        match self.finish() {
            Ok(Ok(_)) => None,
            Ok(Err(e)) | Err(e) => Some(e),
        }
    }

    /// The write's outcome: its seconds, or why it failed (outer error: the writer panicked).
    fn finish(&mut self) -> Result<Result<f64, Error>, Error> {
        let Some(h) = self.running.take() else { return Ok(Ok(0.0)) };
        let outcome = h
            .join()
            .map_err(|p| Error::Internal(format!("checkpoint writer: {}", crate::kernel::panic_text(p.as_ref()))))?;
        Ok(match outcome {
            Ok((seconds, written)) => {
                self.written = written;
                Ok(seconds)
            }
            Err((e, written)) => {
                self.written = written;
                Err(e)
            }
        })
    }
}
