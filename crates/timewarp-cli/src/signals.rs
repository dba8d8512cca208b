//! SIGINT and SIGTERM: a first signal pauses a run at its next cut (with a
//! checkpoint directory), a second or any other stops the process.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use timewarp::checkpoint::Control;

/// What a first signal does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Pause {
    /// Writes a checkpoint at the next cut, then stops (a checkpoint directory, one process).
    Checkpoint,
    /// Stops at once: no checkpoint directory was given.
    NoDirectory,
    /// Stops at once: under MPI the processes cannot agree on a moment
    /// to pause on a signal (only at `--checkpoint-every` marks).
    Processes,
    /// Stops at once (a command that writes no checkpoints).
    Never,
}

impl Pause {
    /// For a run of the model options `m` on `procs`.
    pub(crate) fn of(m: &clap::ArgMatches, procs: &crate::procs::Procs) -> Pause {
        match (m.get_one::<PathBuf>("checkpoint_dir").is_some(), procs.size() == 1) {
            (false, _) => Pause::NoDirectory,
            (true, true) => Pause::Checkpoint,
            (true, false) => Pause::Processes,
        }
    }

    /// What a signal that stops the process at once says.
    pub(crate) fn stopped(self) -> &'static str {
        match self {
            Pause::NoDirectory => {
                "interrupted: stopped (give --checkpoint-dir to be able to stop with a checkpoint and resume)"
            }
            Pause::Processes => {
                "interrupted: stopped without a checkpoint (under MPI a signal cannot pause the run: its \
                 processes would have to agree on the moment; resume from the newest checkpoint \
                 --checkpoint-every wrote, if any)"
            }
            Pause::Checkpoint | Pause::Never => "interrupted: stopped",
        }
    }
}

/// Temporary output files (statistics written to a temporary name,
/// then renamed), which a signal that ends the process removes.
#[derive(Clone, Default)]
pub(crate) struct Temporaries(Arc<Mutex<Vec<PathBuf>>>);

impl Temporaries {
    pub(crate) fn add(&self, p: &Path) {
        self.hold().push(p.to_path_buf());
    }

    pub(crate) fn forget(&self, p: &Path) {
        self.hold().retain(|q| q != p);
    }

    /// The list, with the signal handler held off until the guard goes.
    pub(crate) fn hold(&self) -> MutexGuard<'_, Vec<PathBuf>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Watches for SIGINT and SIGTERM. With [`Pause::Checkpoint`] the first
/// asks `control` to pause: the run writes a checkpoint at its next cut
/// and stops; otherwise, or at a second signal, the process removes the
/// `temporaries` and ends at once with 128 + the signal number (no
/// statistics file is written: it is only ever renamed into place).
/// Only the `lead` process (rank 0) says so.
pub(crate) fn watch(control: &Control, pause: Pause, temporaries: &Temporaries, lead: bool) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return; // the default action still ends the process
    };
    let control = control.clone();
    let temporaries = temporaries.clone();
    let spawned = std::thread::Builder::new().name("timewarp signals".into()).spawn(move || {
        let mut asked = false;
        for sig in signals.forever() {
            if pause == Pause::Checkpoint && !asked {
                eprintln!(
                    "\ninterrupted: writing a checkpoint at the next GVT, then stopping (interrupt again to stop \
                     at once, without it)"
                );
                control.interrupt();
                asked = true;
                continue;
            }
            // Held until the process ends: no rename slips in between.
            let held = temporaries.hold();
            for p in held.iter() {
                let _ = std::fs::remove_file(p);
            }
            if lead {
                if asked {
                    eprintln!("\ninterrupted again: stopped without a checkpoint");
                } else {
                    eprintln!("\n{}", pause.stopped());
                }
            }
            std::process::exit(128 + sig);
        }
    });
    drop(spawned);
}
