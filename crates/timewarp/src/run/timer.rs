//! The wall-clock timer of a run's checkpoints (`Plan::wall`).

use std::sync::atomic::{AtomicBool, Ordering::*};
use std::sync::Arc;
use std::time::Duration;

use crate::segment::Control;

/// Rings `control` every `seconds` of wall-clock time until dropped.
pub(super) struct Timer {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Timer {
    pub(super) fn start(control: Control, seconds: f64) -> Timer {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let period = Duration::from_secs_f64(seconds);
        let thread = std::thread::Builder::new()
            .name("timewarp checkpoint timer".into())
            .spawn(move || loop {
                let due = std::time::Instant::now() + period;
                while std::time::Instant::now() < due {
                    std::thread::park_timeout(due.saturating_duration_since(std::time::Instant::now()));
                    if flag.load(Acquire) {
                        return;
                    }
                }
                control.ring();
            })
            .ok();
        Timer { stop, thread }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.stop.store(true, Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}
