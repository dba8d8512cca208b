//! Progress of a long run on a terminal: virtual time against end time.
//! Hidden when stderr is not a terminal (piped runs and CI stay quiet).
//! A [`ProgressSink`] in [`Config::progress_sink`](crate::Config::progress_sink)
//! gets the same figures for another thread to read (an embedding
//! program's own progress bar), terminal or not.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Where a run publishes how far it got, for another thread to read while
/// it runs: the virtual time (GVT in optimistic runs) last reported and
/// the end time. Written where the terminal progress bar is updated (every
/// few thousand events, window or GVT round, by one PE), so it costs the
/// event loop nothing; clones share the figures.
///
/// ```
/// use timewarp::{Config, ProgressSink};
/// let sink = ProgressSink::default();
/// let cfg = Config { end: 5.0, progress_sink: Some(sink.clone()), ..Default::default() };
/// # let _ = cfg;
/// assert_eq!((sink.now(), sink.end()), (0.0, 0.0)); // before the run starts
/// ```
#[derive(Clone, Debug, Default)]
pub struct ProgressSink {
    /// `f64` bits of the latest virtual time reported.
    now: Arc<AtomicU64>,
    /// `f64` bits of the run's end time (0 until it starts).
    end: Arc<AtomicU64>,
}

impl ProgressSink {
    /// The virtual time (or GVT) the run last reported; the end time once
    /// it has run to its end; 0 before it starts.
    pub fn now(&self) -> f64 {
        f64::from_bits(self.now.load(Relaxed))
    }

    /// The run's end time, 0 until the run starts.
    pub fn end(&self) -> f64 {
        f64::from_bits(self.end.load(Relaxed))
    }

    fn set_now(&self, now: f64) {
        self.now.store(now.to_bits(), Relaxed);
    }

    fn set_end(&self, end: f64) {
        self.end.store(end.to_bits(), Relaxed);
    }
}

/// A progress line in thousandths of the end time.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    sink: Option<ProgressSink>,
    end: f64,
}

impl Progress {
    /// Shows a bar only when `enabled` and stderr is a terminal; reports to
    /// `sink` (the run's [`Config::progress_sink`](crate::Config::progress_sink),
    /// given to the PE that shows the bar) if any.
    pub(crate) fn new(enabled: bool, sink: Option<&ProgressSink>, end: f64) -> Self {
        use std::io::IsTerminal;
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let b = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr_with_hz(4));
            b.set_style(
                ProgressStyle::with_template("{elapsed:>4} [{bar:40}] {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            b
        });
        let sink = sink.cloned();
        if let Some(s) = &sink {
            s.set_end(end);
        }
        Progress { bar, sink, end }
    }

    /// Reports that virtual time (or GVT) reached `now`.
    #[inline]
    pub(crate) fn update(&mut self, now: f64) {
        if let Some(s) = &self.sink {
            s.set_now(now.min(self.end));
        }
        if let Some(b) = &self.bar {
            b.set_position((now / self.end * 1000.0).clamp(0.0, 1000.0) as u64);
            b.set_message(format!("time {} / {}", crate::text::sig(now), crate::text::sig(self.end)));
        }
    }

    /// Reports that the run reached its end time (not paused before it).
    pub(crate) fn reached_end(&mut self) {
        let end = self.end;
        self.update(end);
    }

    /// Removes the bar.
    pub(crate) fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}
