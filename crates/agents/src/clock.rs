//! Game clocks: a tournament's time control, the two clocks of a game as
//! the runner keeps them, what a mover sees of them, and the time manager
//! that `time=auto` agents use to decide how long to think.
//!
//! A time control is written as fastchess writes it: `10+0.1` (10 s for the
//! game and 0.1 s added after each move), `40/60+0` (60 s for every 40
//! moves, added again when a period is over), `inf` (no clock). A "move" is
//! one decision of a player: a Kalah extra turn is a move of its own, with
//! its own increment.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use mancala_core::spec::truncate_input;
use mancala_core::Player;
use thiserror::Error;

/// The longest base time or increment a time control takes (a day): far
/// beyond any tournament, small enough that clock sums cannot overflow.
pub const MAX_CLOCK: Duration = Duration::from_secs(24 * 60 * 60);

/// A time control that cannot be read, and why.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error(
    "bad time control '{}': {why} (expected BASE+INCREMENT in seconds as in 10+0.1, \
     MOVES/BASE+INCREMENT as in 40/60+0, or inf)",
    truncate_input(.text)
)]
pub struct TimeControlError {
    /// The text given.
    pub text: String,
    /// What is wrong with it.
    pub why: String,
}

/// A time control: how much each player has for the game and gets back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// Each player's time at the start, and again at each new period.
    pub base: Duration,
    /// Added to a player's clock after each of their moves.
    pub increment: Duration,
    /// Moves per period (`40/60+0`): after this many moves of a player, the
    /// base time is added to their clock again. `None`: one period.
    pub moves_per_period: Option<u32>,
}

impl TimeControl {
    /// Reads `BASE+INC`, `MOVES/BASE+INC` or `BASE` (seconds, decimals
    /// allowed). `inf` is no time control and reads as `None`.
    ///
    /// # Errors
    /// [`TimeControlError`] naming what is wrong with `text`.
    pub fn parse(text: &str) -> Result<Option<TimeControl>, TimeControlError> {
        let text = text.trim();
        if text == "inf" {
            return Ok(None);
        }
        let bad = |why: &str| TimeControlError {
            text: text.into(),
            why: why.into(),
        };
        let (moves, rest) = match text.split_once('/') {
            Some((moves, rest)) => {
                let n = moves
                    .parse::<u32>()
                    .ok()
                    .filter(|&n| (1..=10_000).contains(&n))
                    .ok_or_else(|| bad("the moves per period must be 1 to 10000"))?;
                (Some(n), rest)
            }
            None => (None, text),
        };
        let (base, increment) = match rest.split_once('+') {
            Some((b, i)) => (b, i),
            None => (rest, "0"),
        };
        let seconds = |s: &str, what: &str| -> Result<Duration, TimeControlError> {
            let x: f64 = s
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| bad(&format!("the {what} `{s}` is not a number of seconds")))?;
            // Compared as seconds before any conversion: a `Duration` cannot
            // hold 2^64 s (`1e20`), and building one would panic.
            if x > MAX_CLOCK.as_secs_f64() {
                return Err(bad(&format!("the {what} is over a day")));
            }
            let d = Duration::from_secs_f64(x);
            // Clocks are kept to the millisecond, as the protocol sends them.
            Ok(Duration::from_millis(d.as_millis() as u64))
        };
        let control = TimeControl {
            base: seconds(base, "base time")?,
            increment: seconds(increment, "increment")?,
            moves_per_period: moves,
        };
        if control.base.is_zero() && control.increment.is_zero() {
            return Err(bad("a clock of no time at all loses every game"));
        }
        if control.base.is_zero() {
            return Err(bad(
                "the base time must be above 0 (a player would lose before the first increment)",
            ));
        }
        Ok(Some(control))
    }
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    /// As [`TimeControl::parse`], but `inf` is an error: there is no time
    /// control to return.
    fn from_str(s: &str) -> Result<TimeControl, TimeControlError> {
        TimeControl::parse(s)?.ok_or_else(|| TimeControlError {
            text: s.into(),
            why: "inf is no time control here".into(),
        })
    }
}

/// Seconds as the time control was written: `10`, `0.1`, `0.025`.
fn seconds_text(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}", ms / 1000)
    } else {
        let text = format!("{}.{:03}", ms / 1000, ms % 1000);
        text.trim_end_matches('0').to_string()
    }
}

impl fmt::Display for TimeControl {
    /// The canonical form, which parses back: `10+0.1`, `40/60+0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = self.moves_per_period {
            write!(f, "{n}/")?;
        }
        write!(
            f,
            "{}+{}",
            seconds_text(self.base),
            seconds_text(self.increment)
        )
    }
}

/// The clocks as the mover sees them when a move begins: what an agent
/// that manages its time is given, and what the engine protocol's `go
/// wtime ... btime ...` carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clock {
    /// Time left on each player's clock, by player index.
    pub remaining: [Duration; 2],
    /// Added to each player's clock after each of their moves.
    pub increment: [Duration; 2],
    /// The mover's moves left in the current period, when periods have a
    /// number of moves (`movestogo`).
    pub moves_to_go: Option<u32>,
}

impl Clock {
    /// Time left on `player`'s clock.
    pub fn remaining_for(&self, player: Player) -> Duration {
        self.remaining[player.index()]
    }

    /// `player`'s increment.
    pub fn increment_for(&self, player: Player) -> Duration {
        self.increment[player.index()]
    }
}

/// The time manager's guess of a player's moves left in a game when the
/// time control does not say (no moves per period): most Kalah and Oware
/// games give each player 15 to 40 moves, so spending a twentieth of the
/// clock a move keeps time for the long games and spends more of it
/// early, when a move matters most.
pub const EXPECTED_MOVES_LEFT: u32 = 20;

/// The share of the increment a move may spend on top of its share of the
/// clock; the rest builds a reserve against the latency of a pipe.
const INCREMENT_SHARE: (u32, u32) = (3, 4);

/// A move never takes more than this share of what is left on the clock,
/// so that the next moves still have time, whatever the increment.
const MOST_OF_REMAINING: (u32, u32) = (1, 2);

/// How long the mover may think on this move: a share of the time left
/// (`remaining / moves_to_go`, or `remaining / 20` without periods) plus
/// three quarters of the increment, never more than half of what is left.
/// It is the time manager of every built-in agent with `time=auto`.
pub fn time_for_move(clock: &Clock, mover: Player) -> Duration {
    let remaining = clock.remaining_for(mover);
    let moves_left = clock
        .moves_to_go
        .unwrap_or(EXPECTED_MOVES_LEFT)
        .clamp(1, EXPECTED_MOVES_LEFT);
    let share =
        remaining / moves_left + clock.increment_for(mover) * INCREMENT_SHARE.0 / INCREMENT_SHARE.1;
    share.min(remaining * MOST_OF_REMAINING.0 / MOST_OF_REMAINING.1)
}

/// Why a player lost on time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flagged {
    /// The player whose clock ran out.
    pub player: Player,
    /// Their time before the move.
    pub had: Duration,
    /// What the move took.
    pub took: Duration,
}

impl fmt::Display for Flagged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "out of time: the move took {} ms with {} ms on the clock",
            self.took.as_millis(),
            self.had.as_millis()
        )
    }
}

/// Both clocks of one game, as the runner keeps them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClocks {
    control: TimeControl,
    /// A move may overrun the clock by this much without losing: the
    /// latency of a pipe and of the runner's own bookkeeping.
    margin: Duration,
    remaining: [Duration; 2],
    /// Moves each player has made.
    moves: [u32; 2],
}

impl GameClocks {
    /// Both clocks at the start of a game.
    pub fn new(control: TimeControl, margin: Duration) -> GameClocks {
        GameClocks {
            control,
            margin,
            remaining: [control.base; 2],
            moves: [0; 2],
        }
    }

    /// What the mover sees before a move.
    pub fn view(&self, mover: Player) -> Clock {
        Clock {
            remaining: self.remaining,
            increment: [self.control.increment; 2],
            moves_to_go: self
                .control
                .moves_per_period
                .map(|n| n - self.moves[mover.index()] % n),
        }
    }

    /// The longest `player`'s move may take before it loses on time: what
    /// is on the clock plus the margin.
    pub fn allowance(&self, player: Player) -> Duration {
        self.remaining[player.index()] + self.margin
    }

    /// Charges `player`'s move that took `took`: the clock loses it (within
    /// the margin a clock stops at zero), then gains the increment, and the
    /// base again when a period ends.
    ///
    /// # Errors
    /// [`Flagged`] when the move took longer than the clock plus the margin:
    /// the player has lost on time, and the clocks stay as they were.
    pub fn charge(&mut self, player: Player, took: Duration) -> Result<(), Flagged> {
        let i = player.index();
        let had = self.remaining[i];
        if took > had + self.margin {
            return Err(Flagged { player, had, took });
        }
        let mut left = had.saturating_sub(took) + self.control.increment;
        self.moves[i] += 1;
        if let Some(n) = self.control.moves_per_period {
            if self.moves[i].is_multiple_of(n) {
                left += self.control.base;
            }
        }
        self.remaining[i] = left;
        Ok(())
    }

    /// Time left on each player's clock, by player index.
    pub fn remaining(&self) -> [Duration; 2] {
        self.remaining
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn time_controls_read_as_fastchess_writes_them() {
        let tc = |s: &str| TimeControl::parse(s).unwrap().unwrap();
        let plain = tc("10+0.1");
        assert_eq!(
            plain,
            TimeControl {
                base: ms(10_000),
                increment: ms(100),
                moves_per_period: None
            }
        );
        assert_eq!(plain.to_string(), "10+0.1");
        let periods = tc("40/60+0");
        assert_eq!(periods.moves_per_period, Some(40));
        assert_eq!(periods.base, ms(60_000));
        assert_eq!(periods.to_string(), "40/60+0");
        assert_eq!(tc("2.5").to_string(), "2.5+0");
        assert_eq!(tc("1+0.025").increment, ms(25));
        assert_eq!(TimeControl::parse("inf").unwrap(), None);
        for s in ["10+0.1", "40/60+0", "0.5+0.005", "3/1+1"] {
            assert_eq!(tc(&tc(s).to_string()), tc(s), "{s}");
        }
    }

    #[test]
    fn bad_time_controls_say_what_is_wrong() {
        for (text, says) in [
            ("", "not a number"),
            ("fast", "not a number"),
            ("10+", "increment"),
            ("-1+0", "base time"),
            ("NaN+0", "base time"),
            ("0+0", "no time at all"),
            ("0+1", "above 0"),
            ("0/10+0", "moves per period"),
            ("x/10+0", "moves per period"),
            ("100000+0", "over a day"),
            // Past what a `Duration` holds (2^64 s): refused, not a panic.
            ("1e20+0", "over a day"),
            ("1+1e300", "over a day"),
            ("1/1e20+0", "over a day"),
            ("1e400+0", "base time"),
        ] {
            let e = TimeControl::parse(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
            assert!(e.contains("10+0.1"), "{text}: {e}");
        }
        assert!("inf".parse::<TimeControl>().is_err());
    }

    #[test]
    fn increment_is_added_after_the_move() {
        let control = TimeControl::parse("1+0.1").unwrap().unwrap();
        let mut clocks = GameClocks::new(control, ms(50));
        clocks.charge(Player::ZERO, ms(300)).unwrap();
        assert_eq!(clocks.remaining(), [ms(800), ms(1000)]);
        clocks.charge(Player::ONE, ms(0)).unwrap();
        assert_eq!(clocks.remaining(), [ms(800), ms(1100)]);
        // An extra turn is a move of its own, with its increment.
        clocks.charge(Player::ONE, ms(100)).unwrap();
        assert_eq!(clocks.remaining(), [ms(800), ms(1100)]);
    }

    #[test]
    fn the_flag_falls_only_beyond_the_margin() {
        let control = TimeControl::parse("1+0").unwrap().unwrap();
        let mut clocks = GameClocks::new(control, ms(50));
        assert_eq!(clocks.allowance(Player::ZERO), ms(1050));
        // Over the clock but within the margin: the clock stops at zero.
        clocks.charge(Player::ZERO, ms(1050)).unwrap();
        assert_eq!(clocks.remaining()[0], ms(0));
        assert_eq!(clocks.allowance(Player::ZERO), ms(50));
        let flag = clocks.charge(Player::ZERO, ms(51)).unwrap_err();
        assert_eq!(
            flag,
            Flagged {
                player: Player::ZERO,
                had: ms(0),
                took: ms(51)
            }
        );
        assert!(flag.to_string().contains("took 51 ms with 0 ms"), "{flag}");
        // The clocks stay as they were before the move that lost.
        assert_eq!(clocks.remaining(), [ms(0), ms(1000)]);
    }

    #[test]
    fn a_period_adds_the_base_again() {
        let control = TimeControl::parse("2/1+0").unwrap().unwrap();
        let mut clocks = GameClocks::new(control, Duration::ZERO);
        assert_eq!(clocks.view(Player::ZERO).moves_to_go, Some(2));
        clocks.charge(Player::ZERO, ms(400)).unwrap();
        assert_eq!(clocks.view(Player::ZERO).moves_to_go, Some(1));
        assert_eq!(clocks.view(Player::ONE).moves_to_go, Some(2));
        clocks.charge(Player::ZERO, ms(400)).unwrap();
        assert_eq!(clocks.remaining()[0], ms(1200));
        assert_eq!(clocks.view(Player::ZERO).moves_to_go, Some(2));
    }

    #[test]
    fn the_time_manager_spends_a_share_and_most_of_the_increment() {
        let clock = |left: u64, inc: u64, to_go: Option<u32>| Clock {
            remaining: [ms(left), ms(9_999)],
            increment: [ms(inc), ms(inc)],
            moves_to_go: to_go,
        };
        // A twentieth of the clock, three quarters of the increment.
        assert_eq!(
            time_for_move(&clock(10_000, 100, None), Player::ZERO),
            ms(575)
        );
        // Its own clock, not the opponent's.
        assert_eq!(
            time_for_move(&clock(10_000, 100, None), Player::ONE),
            Duration::from_micros(9_999_000 / 20) + ms(75)
        );
        // Periods: the time left over the moves left.
        assert_eq!(
            time_for_move(&clock(10_000, 0, Some(4)), Player::ZERO),
            ms(2_500)
        );
        // The last move of a period still keeps half for safety.
        assert_eq!(
            time_for_move(&clock(10_000, 0, Some(1)), Player::ZERO),
            ms(5_000)
        );
        // A big increment on a short clock: never more than half the clock.
        assert_eq!(
            time_for_move(&clock(100, 1_000, None), Player::ZERO),
            ms(50)
        );
        // Nothing left: no time to think.
        assert_eq!(time_for_move(&clock(0, 0, None), Player::ZERO), ms(0));
    }
}
