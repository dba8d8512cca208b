//! Progress of a long run on a terminal: virtual time against end time.
//! Hidden when stderr is not a terminal (piped runs and CI stay quiet).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress line in thousandths of the end time.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    end: f64,
}

impl Progress {
    /// Shows a bar only when `enabled` and stderr is a terminal.
    pub(crate) fn new(enabled: bool, end: f64) -> Self {
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
        Progress { bar, end }
    }

    /// Reports that virtual time (or GVT) reached `now`.
    #[inline]
    pub(crate) fn update(&mut self, now: f64) {
        if let Some(b) = &self.bar {
            b.set_position((now / self.end * 1000.0).clamp(0.0, 1000.0) as u64);
            b.set_message(format!("time {} / {}", crate::text::sig(now), crate::text::sig(self.end)));
        }
    }

    /// Removes the bar.
    pub(crate) fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}
