//! The progress bar of multi-file work (`stats`, `check`, `sessions` over directories): on
//! stderr, only when stderr is a terminal and `-q` is not given, and only once the work has
//! taken longer than a second, so quick runs never flash a bar.

use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cmd::Ctx;

/// Work that ends sooner shows no bar.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);

/// Counts finished inputs; safe to tick from worker threads.
pub struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
    shown: AtomicBool,
}

impl Progress {
    /// A bar over `len` inputs called `what` ("sessions", "files"); none for a single input.
    pub fn new(ctx: &Ctx, len: usize, what: &str) -> Progress {
        let bar = (len > 1 && !ctx.global.quiet && io::stderr().is_terminal()).then(|| {
            let b = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::hidden());
            if let Ok(style) =
                ProgressStyle::with_template(&format!("{{spinner}} {{pos}}/{{len}} {what} {{wide_bar}} {{eta}}"))
            {
                b.set_style(style);
            }
            b
        });
        Progress { bar, start: Instant::now(), shown: AtomicBool::new(false) }
    }

    /// One more input done.
    pub fn tick(&self) {
        let Some(b) = &self.bar else { return };
        b.inc(1);
        if self.start.elapsed() > PROGRESS_AFTER && !self.shown.swap(true, Ordering::Relaxed) {
            b.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// Clear the bar before the results are printed.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
