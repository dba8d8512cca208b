//! This process' program: its name in messages (a program built on
//! [`App`](crate::App) is called by its own), and the exit code of a run
//! stopped after writing a checkpoint. At the bottom of the front end:
//! every step may name the program.

/// Exit code of a run stopped on request (SIGINT, SIGTERM) after writing a
/// checkpoint: a batch script can tell it from a failure (1) or a usage
/// error (2) and resume.
pub(crate) const EXIT_CHECKPOINTED: u8 = 3;

/// The name of this process' program (`App::new`), for messages.
static PROGRAM: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// The program's name in messages: `timewarp`, or the [`App`](crate::App)'s.
pub(crate) fn name() -> &'static str {
    PROGRAM.get().copied().unwrap_or("timewarp")
}

/// Names this process' program (the first name set stays).
pub(crate) fn set_name(name: &'static str) {
    let _ = PROGRAM.set(name);
}
