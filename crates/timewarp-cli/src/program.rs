//! The program's name in messages: `timewarp`, or the name given to
//! [`App::new`](crate::App::new).

/// The name of this process' program (`App::new`), set once at start.
static PROGRAM: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// The program's name in messages: `timewarp`, or the [`App`](crate::App)'s.
pub(crate) fn name() -> &'static str {
    PROGRAM.get().copied().unwrap_or("timewarp")
}

/// Sets the program's name (once, at the start of [`App::main_from`](crate::App::main_from)).
pub(crate) fn set(name: &'static str) {
    let _ = PROGRAM.set(name);
}
