//! Openings: where each pair of games starts. Random move lists drawn by
//! the seed ([`crate::schedule::random_openings`]), or a suite read from a
//! file ([`read_openings`]): one opening per line, either a position in
//! the project's notation or a move sequence from the start.
//!
//! ```text
//! # fair starts of Kalah(6,4) under empty capture
//! 2,4,4,4,4,4/4,4,4,4,4,5/0,1/0   # P0 pit 1 -2, P1 pit 6 +1, P1 store +1
//! 3 6 2
//! ```

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use mancala_core::{Game, Move};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use thiserror::Error;

use mancala_agents::derive_seed;

use crate::lines::{read_line_or_stop, CappedLine};

/// Where a pair of games starts: a position (the start of the game when
/// `None`), then moves played from it before the agents take over.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening<S> {
    /// The position the game starts from, with its notation as records
    /// write it; `None`: the rules' start.
    pub start: Option<(S, String)>,
    /// Moves from there, as records write them in `opening_moves`.
    pub moves: Vec<Move>,
}

impl<S> Default for Opening<S> {
    fn default() -> Opening<S> {
        Opening {
            start: None,
            moves: Vec::new(),
        }
    }
}

impl<S> From<Vec<Move>> for Opening<S> {
    fn from(moves: Vec<Move>) -> Opening<S> {
        Opening { start: None, moves }
    }
}

impl<S: Clone> Opening<S> {
    /// The state the opening's moves are played from.
    pub fn start_state<G: Game<State = S>>(&self, game: &G) -> S {
        match &self.start {
            Some((state, _)) => state.clone(),
            None => game.start(),
        }
    }
}

impl<S> Opening<S> {
    /// The start position's notation, `None` for the rules' start.
    pub fn start_text(&self) -> Option<&str> {
        self.start.as_ref().map(|(_, text)| text.as_str())
    }
}

/// In which order a suite's openings are played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpeningOrder {
    /// As in the file: the first pair of games plays the first line.
    #[default]
    Sequential,
    /// Shuffled by the tournament's seed.
    Random,
}

/// A name that is not an [`OpeningOrder`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("'{0}' is not an order of openings: sequential or random")]
pub struct UnknownOrder(pub String);

impl std::str::FromStr for OpeningOrder {
    type Err = UnknownOrder;

    fn from_str(text: &str) -> Result<OpeningOrder, UnknownOrder> {
        match text {
            "sequential" => Ok(OpeningOrder::Sequential),
            "random" => Ok(OpeningOrder::Random),
            other => Err(UnknownOrder(other.to_string())),
        }
    }
}

impl fmt::Display for OpeningOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OpeningOrder::Sequential => "sequential",
            OpeningOrder::Random => "random",
        })
    }
}

/// An opening file that cannot be used.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum OpeningsError {
    /// The file cannot be read.
    #[error("cannot read the openings file {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        reason: String,
    },
    /// A line is not an opening of the game.
    #[error("{path}, line {line}: {reason}")]
    Line {
        /// The file.
        path: String,
        /// The line's number, from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The file holds no opening.
    #[error("{path} holds no opening (only comments and blank lines)")]
    Empty {
        /// The file.
        path: String,
    },
}

/// The longest line read from an openings file: a position of the largest
/// board, or a long move list, is far shorter.
pub const MAX_LINE: usize = 4096;

/// The most openings a file may hold: far more than any tournament plays,
/// few enough to keep in memory.
pub const MAX_OPENINGS: usize = 1 << 20;

/// A byte-order mark, which some editors put before the first line of a
/// text file; it is invisible, so a line that starts with it would be
/// refused for a reason nobody can see.
const BYTE_ORDER_MARK: char = '\u{feff}';

/// Reads the openings of `text` (the content of the file `path`, named in
/// messages) for `game`: one per line, a position in the notation of
/// [`mancala_core::notation`] (it holds a `/`) or moves from the start
/// separated by spaces (`3 6 2`); `#` starts a comment, blank lines and a
/// byte-order mark before the first line are skipped. Each must be legal
/// and leave the game unfinished.
///
/// # Errors
/// [`OpeningsError::Line`] for the first line that is not an opening of
/// `game`, with its number and why; [`OpeningsError::Empty`].
pub fn parse_openings<G: Game>(
    game: &G,
    text: &str,
    path: &str,
) -> Result<Vec<Opening<G::State>>, OpeningsError> {
    read_openings_from(game, text.as_bytes(), path)
}

/// [`parse_openings`] of the file at `path`.
///
/// # Errors
/// [`OpeningsError::Io`] when it cannot be read, else as
/// [`parse_openings`].
pub fn read_openings<G: Game>(
    game: &G,
    path: &Path,
) -> Result<Vec<Opening<G::State>>, OpeningsError> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| OpeningsError::Io {
        path: name.clone(),
        reason: e.to_string(),
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(OpeningsError::Io {
            path: name,
            reason: "not a file".into(),
        });
    }
    let file = File::open(path).map_err(io)?;
    read_openings_from(game, BufReader::new(file), &name)
}

/// [`parse_openings`] of what `input` holds (the file `path`, named in
/// messages), read line by line: at most [`MAX_LINE`] bytes of it are held
/// at a time, so a file of any size (a huge line, endless comments) costs
/// no more memory than the openings it holds, and at most
/// [`MAX_OPENINGS`] of those.
///
/// # Errors
/// [`OpeningsError::Io`] when reading fails, else as [`parse_openings`];
/// a line longer than [`MAX_LINE`] bytes or not UTF-8 is an
/// [`OpeningsError::Line`].
pub fn read_openings_from<G: Game>(
    game: &G,
    mut input: impl BufRead,
    path: &str,
) -> Result<Vec<Opening<G::State>>, OpeningsError> {
    let mut openings = Vec::new();
    let mut line = 0;
    let mut buffer = Vec::new();
    loop {
        let read = read_line_or_stop(&mut input, &mut buffer, MAX_LINE).map_err(|e| {
            OpeningsError::Io {
                path: path.to_string(),
                reason: e.to_string(),
            }
        })?;
        line += 1;
        let bad = |reason: String| OpeningsError::Line {
            path: path.to_string(),
            line,
            reason,
        };
        let raw = match read {
            CappedLine::End => break,
            // Refused at once, without reading the rest of the line: it
            // could be the whole of a huge file.
            CappedLine::TooLong { .. } => {
                return Err(bad(format!("the line is more than {MAX_LINE} bytes long")))
            }
            CappedLine::Line { .. } => match std::str::from_utf8(&buffer) {
                Ok(text) => text
                    .strip_suffix('\n')
                    .map_or(text, |t| t.strip_suffix('\r').unwrap_or(t))
                    .to_string(),
                Err(_) => return Err(bad("the line is not UTF-8 text".into())),
            },
        };
        let raw = if line == 1 {
            raw.strip_prefix(BYTE_ORDER_MARK).unwrap_or(&raw)
        } else {
            &raw
        };
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        if openings.len() == MAX_OPENINGS {
            return Err(bad(format!("more than {MAX_OPENINGS} openings")));
        }
        openings.push(parse_opening(game, content).map_err(bad)?);
    }
    if openings.is_empty() {
        return Err(OpeningsError::Empty {
            path: path.to_string(),
        });
    }
    Ok(openings)
}

/// The opening a line holds (`content`, its comment and spaces removed),
/// or why it holds none.
fn parse_opening<G: Game>(game: &G, content: &str) -> Result<Opening<G::State>, String> {
    if content.contains('/') {
        let state = game
            .parse_position(content)
            .map_err(|e| format!("'{content}' is not a position of {}: {e}", game_name(game)))?;
        if game.is_over(&state) {
            return Err(format!("the position '{content}' is already over"));
        }
        let text = game.setup(&state).to_string();
        return Ok(Opening {
            start: Some((state, text)),
            moves: Vec::new(),
        });
    }
    let mut state = game.start();
    let mut moves = Vec::new();
    for (i, token) in content.split_whitespace().enumerate() {
        let mv =
            Move::parse_human(token).map_err(|e| format!("move {} ('{token}'): {e}", i + 1))?;
        if game.is_over(&state) {
            return Err(format!(
                "move {} ('{token}'): the game is over before it",
                i + 1
            ));
        }
        game.try_play(&mut state, mv)
            .map_err(|e| format!("move {} ('{token}') is illegal: {e}", i + 1))?;
        moves.push(mv);
    }
    if game.is_over(&state) {
        return Err(format!("the moves '{content}' end the game"));
    }
    Ok(Opening::from(moves))
}

fn game_name<G: Game>(game: &G) -> String {
    format!("this {}-pit game", game.pits())
}

/// `openings` in `order`: as they are, or shuffled by `seed`.
pub fn ordered<S>(
    mut openings: Vec<Opening<S>>,
    order: OpeningOrder,
    seed: u64,
) -> Vec<Opening<S>> {
    if order == OpeningOrder::Random {
        // A stream of its own, apart from the games' seeds.
        let mut rng = SmallRng::seed_from_u64(derive_seed(seed, 0x6f70_656e));
        openings.shuffle(&mut rng);
    }
    openings
}

/// A digest of a suite (FNV-1a, 64 bits, over each opening's start and
/// moves as records write them): a resumed tournament checks that its
/// file still holds the same openings.
pub fn digest<S>(openings: &[Opening<S>]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for o in openings {
        eat(o.start_text().unwrap_or("start").as_bytes());
        for mv in &o.moves {
            eat(b" ");
            eat(mv.to_string().as_bytes());
        }
        eat(b"\n");
    }
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_core::{GameSpec, KalahRules};

    fn kalah(spec: &str) -> KalahRules {
        match spec.parse::<GameSpec>().unwrap() {
            GameSpec::Kalah(rules) => rules,
            other => panic!("{other}"),
        }
    }

    #[test]
    fn a_file_holds_positions_and_move_lists_with_comments() {
        let game = KalahRules::default();
        let text = "# a suite\n\n2,4,4,4,4,4/4,4,4,4,4,5/0,1/0   # a fair start\n  3 6 2  \n3\n";
        let openings = parse_openings(&game, text, "suite.txt").unwrap();
        assert_eq!(openings.len(), 3);
        let (state, written) = openings[0].start.as_ref().unwrap();
        assert_eq!(written, "2,4,4,4,4,4/4,4,4,4,4,5/0,1/0");
        assert_eq!(game.setup(state).to_string(), *written);
        assert!(openings[0].moves.is_empty());
        assert_eq!(openings[1].start, None);
        assert_eq!(
            openings[1].moves,
            [Move::Pit(2), Move::Pit(5), Move::Pit(1)]
        );
        // Pit 3 of the start sows into the store: the same player moves on.
        assert_eq!(openings[2].moves, [Move::Pit(2)]);
        // A move list starts from the rules' start.
        assert_eq!(openings[2].start_state(&game), game.start());
    }

    #[test]
    fn every_bad_line_is_refused_with_its_file_line_and_reason() {
        let game = kalah("kalah:pits=4,seeds=3");
        let cases = [
            ("3 6", "move 2 ('6')"),
            ("1 x", "move 2 ('x')"),
            ("0", "move 1 ('0')"),
            ("+3", "move 1 ('+3')"),
            ("4,4,4/3,3,3,3/0,0/0", "is not a position"),
            ("3,3,3,3/3,3,3,3/0,0/2", "is not a position"),
            ("0,0,0,0/0,0,0,0/12,12/-", "already over"),
        ];
        for (line, why) in cases {
            let text = format!("# header\n3 1\n{line}\n");
            let e = parse_openings(&game, &text, "bad.txt")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("bad.txt, line 3: "), "{line}: {e}");
            assert!(e.contains(why), "{line}: {e}");
        }
        // Moves that end the game, and a move after its end.
        let tiny = kalah("kalah:pits=1,seeds=1");
        let e = parse_openings(&tiny, "1\n", "t.txt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1") && e.contains("end the game"), "{e}");
        let e = parse_openings(&tiny, "1 1\n", "t.txt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("the game is over before it"), "{e}");
        // Nothing but comments, and a line of a megabyte.
        let e = parse_openings(&game, "# only\n\n", "e.txt").unwrap_err();
        assert!(matches!(e, OpeningsError::Empty { .. }), "{e}");
        let long = "1 ".repeat(MAX_LINE);
        let e = parse_openings(&game, &long, "l.txt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1") && e.contains("bytes long"), "{e}");
    }

    /// Input without end: `head` once, then `line` over and over, as fast
    /// as it can be read; it fails once `limit` bytes were served, so that
    /// a reader that holds what it reads fails instead of filling memory.
    struct Endless {
        head: Vec<u8>,
        line: &'static [u8],
        served: usize,
        limit: usize,
    }

    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.served >= self.limit {
                return Err(std::io::Error::other("read far past any line cap"));
            }
            for b in buf.iter_mut() {
                *b = match self.head.get(self.served) {
                    Some(&b) => b,
                    None => self.line[(self.served - self.head.len()) % self.line.len()],
                };
                self.served += 1;
            }
            Ok(buf.len())
        }
    }

    #[test]
    fn a_line_without_end_is_refused_after_the_cap_without_holding_it() {
        let game = KalahRules::default();
        let mut input = std::io::BufReader::new(Endless {
            head: b"# a suite\n3 1\n".to_vec(),
            line: b"# comment ",
            served: 0,
            limit: 64 << 20,
        });
        let e = read_openings_from(&game, &mut input, "huge.txt")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("huge.txt, line 3: "), "{e}");
        assert!(
            e.contains(&format!("more than {MAX_LINE} bytes long")),
            "{e}"
        );
        let served = input.get_ref().served;
        assert!(
            served < 1 << 20,
            "{served} bytes read for a line cap of {MAX_LINE}"
        );
    }

    #[test]
    fn comment_lines_are_read_as_a_stream_up_to_the_count_of_openings() {
        let game = KalahRules::default();
        // Lines are judged as they come: a bad line after a megabyte of
        // comments is found before the comments without end that follow.
        let mut head = b"3 1\n".to_vec();
        head.extend(b"# just a comment\n".repeat(1 << 16));
        head.extend(b"x\n");
        let mut input = std::io::BufReader::new(Endless {
            head,
            line: b"# and more\n",
            served: 0,
            limit: 64 << 20,
        });
        let e = read_openings_from(&game, &mut input, "comments.txt")
            .unwrap_err()
            .to_string();
        let bad = (1 << 16) + 2;
        assert!(
            e.starts_with(&format!("comments.txt, line {bad}: move 1 ('x')")),
            "{e}"
        );
        // Openings without end stop at the count.
        let mut input = std::io::BufReader::new(Endless {
            head: Vec::new(),
            line: b"1\n",
            served: 0,
            limit: 64 << 20,
        });
        let e = read_openings_from(&game, &mut input, "many.txt")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("line {}", MAX_OPENINGS + 1))
                && e.contains(&format!("more than {MAX_OPENINGS} openings")),
            "{e}"
        );
    }

    #[test]
    fn a_byte_order_mark_before_the_first_line_is_skipped() {
        let game = KalahRules::default();
        let with = parse_openings(&game, "\u{feff}3 1\n2\n", "bom.txt").unwrap();
        let without = parse_openings(&game, "3 1\n2\n", "bom.txt").unwrap();
        assert_eq!(with, without);
        // Only at the very start: elsewhere it is not a move.
        let e = parse_openings(&game, "3 1\n\u{feff}2\n", "bom.txt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn a_missing_file_or_a_folder_is_an_error_that_names_it() {
        let game = KalahRules::default();
        let dir = tempfile::tempdir().unwrap();
        let e = read_openings(&game, &dir.path().join("none.txt")).unwrap_err();
        assert!(matches!(e, OpeningsError::Io { .. }), "{e}");
        assert!(e.to_string().contains("none.txt"), "{e}");
        let e = read_openings(&game, dir.path()).unwrap_err().to_string();
        assert!(e.contains("not a file"), "{e}");
    }

    #[test]
    fn a_random_order_is_a_seeded_permutation_and_the_digest_follows_the_lines() {
        let game = KalahRules::default();
        // Pit 3 of the start keeps the turn: "3 3" would be illegal.
        let text: String = [1, 2, 4, 5, 6]
            .into_iter()
            .flat_map(|a| (1..=6).map(move |b| format!("{a} {b}\n")))
            .collect();
        let all = parse_openings(&game, &text, "s.txt").unwrap();
        let same = ordered(all.clone(), OpeningOrder::Sequential, 5);
        assert_eq!(same, all);
        let a = ordered(all.clone(), OpeningOrder::Random, 5);
        assert_eq!(a, ordered(all.clone(), OpeningOrder::Random, 5));
        assert_ne!(a, all);
        assert_ne!(a, ordered(all.clone(), OpeningOrder::Random, 6));
        let mut sorted = a.clone();
        sorted.sort_by_key(|o| o.moves.clone());
        assert_eq!(sorted, all);
        assert_eq!(digest(&all), digest(&same));
        assert_ne!(digest(&all), digest(&a));
        assert_ne!(digest(&all), digest(&all[1..]));
        assert_eq!("random".parse::<OpeningOrder>(), Ok(OpeningOrder::Random));
        let e = "shuffled".parse::<OpeningOrder>().unwrap_err();
        assert_eq!(e, UnknownOrder("shuffled".into()));
        assert!(e.to_string().contains("sequential or random"));
    }
}
