//! A progress bar for runs of many games.

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mancala_analysis::Observer;
use mancala_arena::GameRecord;

/// Games done, rate and ETA on standard error (hidden when quiet or when
/// standard error is not a terminal).
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar for `total` games.
    pub fn new(total: u64, quiet: bool) -> Progress {
        Progress::counting(total, quiet, "games")
    }

    /// A bar for `total` things of another kind, e.g. `"candidates"`.
    pub fn counting(total: u64, quiet: bool, unit: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        if quiet {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        bar.set_style(
            ProgressStyle::with_template(
                &format!("{{bar:40.cyan/blue}} {{pos}}/{{len}} {unit}  {{per_sec}}  elapsed {{elapsed}}  eta {{eta}}  {{msg}}"),
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        Progress { bar }
    }

    /// Starts the count at `done` (games already played before a resume).
    pub fn skip(&self, done: u64) {
        self.bar.set_position(done);
        self.bar.reset_eta();
    }

    /// One more game.
    pub fn game_done(&self, record: &GameRecord) {
        self.bar.inc(1);
        if let Some(e) = &record.error {
            self.bar
                .println(format!("game {}: forfeit, {e}", record.id));
        }
    }

    /// Shows `text` after the counts (the current leader).
    pub fn set_message(&self, text: String) {
        self.bar.set_message(text);
    }

    /// Prints `text` above the bar, or on standard error when the bar is
    /// hidden (not a terminal).
    pub fn print(&self, text: &str) {
        if self.bar.is_hidden() {
            eprintln!("{text}");
        } else {
            self.bar.println(text);
        }
    }

    /// One more done.
    pub fn step(&self) {
        self.bar.inc(1);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// An analysis's progress on standard error: a bar for each counted phase
/// it announces, and its messages (none of either when quiet).
pub struct AnalysisProgress {
    quiet: bool,
    bar: Mutex<Option<Progress>>,
}

impl AnalysisProgress {
    /// Progress shown unless `quiet`.
    pub fn new(quiet: bool) -> AnalysisProgress {
        AnalysisProgress {
            quiet,
            bar: Mutex::new(None),
        }
    }

    /// Runs `f` on the current bar, if there is one.
    fn with_bar(&self, f: impl FnOnce(&Progress)) {
        if let Some(bar) = &*self.bar.lock().unwrap_or_else(|p| p.into_inner()) {
            f(bar);
        }
    }
}

impl Observer for AnalysisProgress {
    fn message(&self, text: &str) {
        if !self.quiet {
            eprintln!("{text}");
        }
    }
    fn warning(&self, text: &str) {
        // On stderr even with --json, whose stdout it leaves alone.
        eprintln!("warning: {text}");
    }
    fn start(&self, total: u64, unit: &str) {
        let bar = Progress::counting(total, self.quiet, unit);
        *self.bar.lock().unwrap_or_else(|p| p.into_inner()) = Some(bar);
    }
    fn step(&self) {
        self.with_bar(Progress::step);
    }
    fn game_done(&self, record: &GameRecord) {
        self.with_bar(|bar| bar.game_done(record));
    }
    fn skipped_to(&self, done: u64) {
        self.with_bar(|bar| bar.skip(done));
    }
    fn finish(&self) {
        if let Some(bar) = self.bar.lock().unwrap_or_else(|p| p.into_inner()).take() {
            bar.finish();
        }
    }
}
