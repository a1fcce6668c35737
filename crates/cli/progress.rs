//! A progress bar for runs of many games.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
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

    /// One more done.
    pub fn step(&self) {
        self.bar.inc(1);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
