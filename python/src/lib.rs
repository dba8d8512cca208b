//! `timewarp._timewarp`: the native half of the Python package `timewarp`.
//!
//! Each function takes the tokens a user would type after the command's
//! verb and calls [`timewarp_cli::embed`], which parses and runs them as
//! the `timewarp` command does: the Python package (`timewarp/__init__.py`)
//! turns keyword arguments into those tokens and the returned JSON or CSV
//! text into Python objects.
//!
//! A call runs on a thread of its own with the GIL released; the calling
//! thread looks for signals every 50 ms, and at Ctrl-C asks the run to stop
//! at its next cut (writing a checkpoint where `--checkpoint-dir` is given)
//! and raises `KeyboardInterrupt` once it has.

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;
use timewarp::checkpoint::Control;
use timewarp::ProgressSink;
use timewarp_cli::embed::{Embedded, Error};

create_exception!(
    _timewarp,
    RunError,
    PyRuntimeError,
    "A run that started failed (the command would exit with 1): the message is the command's."
);

/// The shipped models' verbs (built per call: it is a list of boxes).
fn shipped() -> Embedded {
    Embedded::new(timewarp_cli::App::new("timewarp").shipped())
}

/// An embedded call's error as Python's.
fn py_err(e: Error) -> PyErr {
    match e {
        Error::Input(e) => PyValueError::new_err(e),
        Error::Run(e) => RunError::new_err(e),
        Error::Interrupted(e) => PyKeyboardInterrupt::new_err(e),
    }
}

/// Runs `f` on a thread of its own, the GIL released, stopping it at
/// Ctrl-C; every 50 ms, `progress(now, end)` (the run's virtual time and
/// end time, once it has started) if given, and the run stopped if it raises.
fn blocking<T, F>(py: Python<'_>, progress: Option<PyObject>, f: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&Embedded, &Control) -> Result<T, Error> + Send,
{
    let control = Control::default();
    let sink = progress.as_ref().map(|_| ProgressSink::default());
    let (tx, rx) = mpsc::channel();
    let (outcome, signal, raised) = std::thread::scope(|s| {
        let c = control.clone();
        let to = sink.clone();
        let spawned = std::thread::Builder::new().name("timewarp run".into()).spawn_scoped(s, move || {
            let tw = match to {
                Some(sink) => shipped().with_progress(sink),
                None => shipped(),
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&tw, &c)));
            let _ = tx.send(r);
        });
        if let Err(e) = spawned {
            return (Ok(Err(Error::Run(format!("cannot start the run's thread: {e}")))), None, None);
        }
        let mut signal: Option<PyErr> = None;
        // What `progress` raised (the run is stopped and this raised instead).
        let mut raised: Option<PyErr> = None;
        let mut rx = rx;
        loop {
            // (A receiver is not Sync: it goes into the GIL-free closure and comes back.)
            let (got, back) = py.allow_threads(move || (rx.recv_timeout(Duration::from_millis(50)), rx));
            rx = back;
            match got {
                Ok(r) => return (r, signal, raised),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if signal.is_none() {
                        if let Err(e) = py.check_signals() {
                            control.interrupt();
                            signal = Some(e);
                        }
                    }
                    if let (None, None, Some(cb), Some(sink)) = (&signal, &raised, &progress, &sink) {
                        if sink.end() > 0.0 {
                            if let Err(e) = cb.call1(py, (sink.now(), sink.end())) {
                                control.interrupt();
                                // Ctrl-C while the callback ran is Ctrl-C: the
                                // run stops as for a signal (checkpoint and all).
                                if e.is_instance_of::<PyKeyboardInterrupt>(py) {
                                    signal = Some(e);
                                } else {
                                    raised = Some(e);
                                }
                            }
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return (Ok(Err(Error::Run("the run's thread ended without an answer".into()))), signal, raised)
                }
            }
        }
    });
    if let (Some(e), Ok(_)) = (raised, &outcome) {
        return Err(e);
    }
    // Once more at the end of a run that finished: a run shorter than the
    // polling period reports too, and a bar ends where the run did.
    if let (None, Ok(Ok(_)), Some(cb), Some(sink)) = (&signal, &outcome, &progress, &sink) {
        if sink.end() > 0.0 {
            cb.call1(py, (sink.now(), sink.end()))?;
        }
    }
    match outcome {
        Ok(Ok(v)) => signal.map_or(Ok(v), Err),
        Ok(Err(Error::Input(e))) => Err(PyValueError::new_err(e)),
        Ok(Err(Error::Run(e))) => Err(signal.unwrap_or_else(|| RunError::new_err(e))),
        Ok(Err(Error::Interrupted(e))) => Err(PyKeyboardInterrupt::new_err(e)),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(RunError::new_err(format!("the run panicked (a timewarp bug, please report it): {what}")))
        }
    }
}

/// `timewarp run ARGS...`: the statistics file's JSON text; `progress(now,
/// end)` called every 50 ms while it runs, if given.
#[pyfunction]
#[pyo3(signature = (args, progress=None))]
fn run(py: Python<'_>, args: Vec<String>, progress: Option<PyObject>) -> PyResult<String> {
    blocking(py, progress, move |tw, c| tw.run(&args, c))
}

/// `timewarp resume FILE OPTIONS...`: the statistics file's JSON text;
/// `progress` as `run`'s.
#[pyfunction]
#[pyo3(signature = (file, options, progress=None))]
fn resume(py: Python<'_>, file: PathBuf, options: Vec<String>, progress: Option<PyObject>) -> PyResult<String> {
    blocking(py, progress, move |tw, c| tw.resume(&file, &options, c))
}

/// `timewarp plot ARGS...` (the files, `-o OUT`, options): the picture written.
#[pyfunction]
fn plot(py: Python<'_>, args: Vec<String>) -> PyResult<()> {
    py.allow_threads(move || shipped().plot(&args)).map_err(py_err)
}

/// `timewarp report FILE -o OUT.html`: the page written.
#[pyfunction]
fn report(py: Python<'_>, args: Vec<String>) -> PyResult<()> {
    py.allow_threads(move || shipped().report(&args)).map_err(py_err)
}

/// `timewarp verify ARGS...`: both runs' statistics and the verdict (JSON text).
#[pyfunction]
fn verify(py: Python<'_>, args: Vec<String>) -> PyResult<String> {
    blocking(py, None, move |tw, c| tw.verify(&args, c))
}

/// `timewarp sweep ARGS...`: the CSV text.
#[pyfunction]
fn sweep(py: Python<'_>, args: Vec<String>) -> PyResult<String> {
    blocking(py, None, move |tw, c| tw.sweep(&args, c))
}

/// `timewarp curve ARGS... -o OUTPUT`: the CSV text (plots beside OUTPUT).
#[pyfunction]
fn curve(py: Python<'_>, args: Vec<String>, output: PathBuf) -> PyResult<String> {
    blocking(py, None, move |tw, c| tw.curve(&args, &output, c))
}

/// The models: (name, summary) pairs.
#[pyfunction]
fn models() -> Vec<(&'static str, &'static str)> {
    shipped().models()
}

/// The options of `run MODEL`: dicts (name, engine, kind, default, help), or None for an unknown model.
#[pyfunction]
fn options<'py>(py: Python<'py>, model: &str) -> PyResult<Option<Vec<Bound<'py, PyDict>>>> {
    let Some(list) = shipped().options(model) else { return Ok(None) };
    list.into_iter()
        .map(|o| {
            let d = PyDict::new(py);
            d.set_item("name", o.name)?;
            d.set_item("engine", o.engine)?;
            d.set_item("kind", o.kind)?;
            d.set_item("default", o.default)?;
            d.set_item("help", o.help)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()
        .map(Some)
}

/// The module `timewarp._timewarp`.
#[pymodule]
fn _timewarp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RunError", m.py().get_type::<RunError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(resume, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(curve, m)?)?;
    m.add_function(wrap_pyfunction!(plot, m)?)?;
    m.add_function(wrap_pyfunction!(report, m)?)?;
    m.add_function(wrap_pyfunction!(models, m)?)?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    Ok(())
}
