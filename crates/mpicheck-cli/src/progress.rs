//! A progress line for offline analysis: hidden at first, drawn on stderr (a terminal only)
//! once the analysis has taken [`SHOW_AFTER`], so quick runs print nothing extra.

use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long an analysis runs before its progress is shown.
pub const SHOW_AFTER: Duration = Duration::from_millis(1500);
const TICK: Duration = Duration::from_millis(120);

pub struct Progress {
    bar: Option<ProgressBar>,
    /// Dropping the sender tells the thread that would show the bar to stop waiting.
    stop: Mutex<Option<Sender<()>>>,
    shower: Mutex<Option<JoinHandle<()>>>,
}

impl Progress {
    /// Starts timing; the bar appears after [`SHOW_AFTER`] if stderr is a terminal.
    pub fn start() -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress::disabled();
        }
        Progress::start_on(ProgressDrawTarget::stderr(), SHOW_AFTER)
    }

    fn start_on(target: ProgressDrawTarget, after: Duration) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} mpicheck: {msg} ({elapsed})")
                .expect("the template is valid"),
        );
        let (stop, stopped) = mpsc::channel::<()>();
        let shown = bar.clone();
        let shower = std::thread::spawn(move || {
            if let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(after) {
                shown.set_draw_target(target);
                shown.enable_steady_tick(TICK);
            }
        });
        Progress {
            bar: Some(bar),
            stop: Mutex::new(Some(stop)),
            shower: Mutex::new(Some(shower)),
        }
    }

    /// A progress that never shows.
    pub fn disabled() -> Progress {
        Progress {
            bar: None,
            stop: Mutex::new(None),
            shower: Mutex::new(None),
        }
    }

    /// What the analysis does now.
    pub fn stage(&self, message: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(message.to_string());
        }
    }

    /// Runs `f` (which prints) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Removes the bar for good, before the report is printed.
    pub fn finish(&self) {
        if let Ok(mut stop) = self.stop.lock() {
            stop.take();
        }
        if let Some(shower) = self.shower.lock().ok().and_then(|mut s| s.take()) {
            let _ = shower.join();
        }
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    #[cfg(test)]
    fn is_visible(&self) -> bool {
        self.bar.as_ref().is_some_and(|b| !b.is_hidden())
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::InMemoryTerm;

    fn term() -> (InMemoryTerm, ProgressDrawTarget) {
        let term = InMemoryTerm::new(4, 100);
        let target = ProgressDrawTarget::term_like(Box::new(term.clone()));
        (term, target)
    }

    #[test]
    fn quick_analyses_show_nothing() {
        let (term, target) = term();
        let progress = Progress::start_on(target, Duration::from_secs(30));
        progress.stage("reading trace 1 of 2");
        progress.finish();
        assert!(!progress.is_visible());
        assert_eq!(term.contents(), "");
    }

    #[test]
    fn slow_analyses_show_their_stage_then_clear_it() {
        let (term, target) = term();
        let progress = Progress::start_on(target, Duration::from_millis(50));
        progress.stage("replaying 1000 calls of 4 ranks and running the checks");
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while !term.contents().contains("replaying 1000 calls") {
            assert!(
                std::time::Instant::now() < deadline,
                "bar never drawn: {:?}",
                term.contents()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(term.contents().contains("mpicheck: replaying"));
        progress.finish();
        assert_eq!(term.contents().trim(), "");
    }
}
