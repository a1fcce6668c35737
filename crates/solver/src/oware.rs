//! Exact values of small Oware (Abapa) positions, under this project's
//! rules: repetitions, grand slams and `max_plies` included.
//!
//! # The difficulty: values depend on history
//!
//! The game ends when a capture-free move recreates a position (houses,
//! captured counts, player to move) seen since the most recent capture, and
//! each player then adds their own row's seeds. So the value of a position
//! in the middle of a capture-free stretch depends on the positions seen
//! since that capture: a plain retrograde analysis over positions, or a
//! transposition table keyed by position, would give one value to positions
//! whose futures differ. Games of this kind ("first cycle games") are not
//! solved by positional strategies in general, so the solver does not try
//! to: it searches the real game tree.
//!
//! # The method
//!
//! Fail-soft alpha-beta over the engine's own states. Every move is played
//! with [`Game::play_unchecked`] on a clone of an [`OwareState`], which
//! carries the boards since the last capture and ends the game by
//! repetition exactly as in play. The search tree is therefore the game
//! tree itself, path and all; nothing is approximated inside a stretch.
//!
//! What makes it tractable is the one irreversible event, the capture:
//!
//! - Right after a capture the history is empty, so the value of a
//!   post-capture position depends only on its houses, captured counts and
//!   player to move. Those are memoised in a transposition table holding
//!   bounds (lower, upper) of the final margin. The key is the board seen
//!   from the mover's side (the rules are symmetric between the players)
//!   and the mover's captured count: the opponent's follows from the seed
//!   total. The captured counts cannot be factored out as a margin, because
//!   the `majority` end (more than half the seeds captured) depends on them.
//! - Positions inside a stretch are never stored or looked up: their values
//!   are recomputed for each path. A stretch cannot be longer than the
//!   number of positions with its seed total, and a capture always leaves
//!   fewer seeds, so every line is finite and the search terminates.
//!
//! Alpha-beta returns the minimax value of any tree that agrees with the
//! nodes it visited, whatever the subtrees it cut off hold; a table bound
//! of a post-capture position is such a result for that position, valid
//! wherever it recurs. The root itself is searched with whatever history
//! its state carries, and is never stored: a state in mid-game, with the
//! boards since its last capture, is solved exactly for that history.
//!
//! # `max_plies`
//!
//! The engine ends a game after `max_plies` moves (1000 by default), and the
//! table forgets how many moves were played. The search therefore plays
//! without the limit and measures, for each result, the *height* of what
//! it visited: the most plies from the node to a position it expanded, a
//! table hit counting with the height of the search that stored it. A
//! position reached after `max_plies` moves differs from the unlimited game
//! only if it is expanded there (the sweep at `max_plies` gives the same
//! margin as any other end), so when the root's ply count plus the height
//! is at most `max_plies`, every visited node is as in the real game and the
//! value is exact under the limit. Otherwise the solver returns
//! [`SolveError::PlyLimit`] rather than a value it cannot vouch for.
//!
//! # Limits
//!
//! Within a stretch the search is exponential in the number of distinct
//! boards of that seed total (it enumerates paths). The supported boards
//! are those with at most [`MAX_BOARDS`] boards of the
//! full seed count (see `docs/oware-solver.md` for what that allows and
//! what it costs); larger ones get [`SolveError::TooLarge`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use mancala_agents::StopCondition;
use mancala_core::{Game, Move, OwareRules, OwareState, Player};

use crate::{MoveValue, Solution, SolveError, SolveStats, SolverOptions};

/// Most boards (seed distributions of all the seeds over all the houses)
/// a supported board may have. Oware(3, 2) has 6,188
/// boards and solves in a tenth of a second; Oware(2, 7) has 4,495 and
/// takes from 2 s to more than a minute depending on `grand_slam`;
/// Oware(4, 1) has 6,435 and did not finish in 9 minutes, nor Oware(3, 3)
/// (33,649) in 100 s. The board count is a crude measure (what costs is the
/// number of paths through capture-free stretches); see
/// `docs/oware-solver.md`.
pub const MAX_BOARDS: u128 = 6_200;

/// Bytes a table entry takes, hash map overhead included (an estimate, for
/// sizing the table from [`SolverOptions::table_mib`]).
pub const ENTRY_BYTES: usize = 48;

/// A table size that holds 2^24 positions ([`ENTRY_BYTES`] each): what
/// `analyze` gives the Oware solver.
pub const DEFAULT_TABLE_MIB: usize = 768;

/// Boards of `seeds` seeds on `houses` houses: `C(seeds + houses - 1, houses - 1)`.
pub fn boards(houses: usize, seeds: usize) -> u128 {
    let mut c: u128 = 1;
    // C(seeds + k, k) from C(seeds + k - 1, k - 1); each step is exact.
    for k in 1..houses as u128 {
        c = c * (seeds as u128 + k) / k;
    }
    c
}

/// Most pits a row may have: a board is packed into 16 bytes for the table.
pub const MAX_SOLVER_PITS: usize = 8;

/// Key of a post-capture position: the houses from the mover's side (own
/// row first), one byte each, and the mover's captured seeds.
type Key = (u128, u8);

/// Bounds of a post-capture position's final margin (mover's side).
#[derive(Clone, Copy, Debug)]
struct Entry {
    lower: i16,
    upper: i16,
    /// Height of what the searches behind these bounds visited.
    height: u32,
    /// Pit index of the best move found, for ordering.
    best: u8,
}

const SHARDS: usize = 64;

/// The transposition table, in shards so that threads rarely wait.
struct Table {
    shards: Vec<Mutex<HashMap<Key, Entry>>>,
    len: AtomicU64,
}

impl Table {
    fn new() -> Table {
        Table {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            len: AtomicU64::new(0),
        }
    }

    fn shard(&self, key: &Key) -> std::sync::MutexGuard<'_, HashMap<Key, Entry>> {
        let h = (key.0 as u64) ^ ((key.0 >> 64) as u64) ^ u64::from(key.1);
        let h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58;
        // A panic elsewhere cannot leave an entry half written: the map is
        // still sound, so a poisoned lock is taken over.
        self.shards[h as usize % SHARDS]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn get(&self, key: &Key) -> Option<Entry> {
        self.shard(key).get(key).copied()
    }

    /// Adds what a search found, tightening what is there.
    fn merge(&self, key: Key, new: Entry) {
        let mut shard = self.shard(&key);
        match shard.get_mut(&key) {
            Some(e) => {
                e.lower = e.lower.max(new.lower);
                e.upper = e.upper.min(new.upper);
                e.height = e.height.max(new.height);
                e.best = new.best;
            }
            None => {
                shard.insert(key, new);
                self.len.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed) as usize
    }

    fn clear(&self) {
        for shard in &self.shards {
            shard
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clear();
        }
        self.len.store(0, Ordering::Relaxed);
    }
}

/// Solves positions of one Oware rule set. Keeps its table between calls,
/// so later positions of the same game are cheap.
pub struct OwareSolver {
    rules: OwareRules,
    /// The same rules without a ply limit: what the search plays (see the
    /// module docs on `max_plies`).
    unlimited: OwareRules,
    /// Most positions the table may hold before the solver gives up.
    max_table_entries: usize,
    table: Table,
    nodes: AtomicU64,
}

impl std::fmt::Debug for OwareSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "OwareSolver({}, {} entries)",
            self.rules,
            self.table.len()
        )
    }
}

/// A search's result: the fail-soft value and the height of what it visited.
type Found = (i32, u32);

impl OwareSolver {
    /// A solver for `rules`, its table growing to `options.table_mib` MiB
    /// ([`ENTRY_BYTES`] a position; Oware has no endgame database, so the
    /// other options are not read).
    ///
    /// # Errors
    /// [`SolveError::TooLarge`] for a board beyond [`MAX_BOARDS`]
    /// or with more than [`MAX_SOLVER_PITS`] pits a row.
    pub fn new(rules: OwareRules, options: &SolverOptions) -> Result<OwareSolver, SolveError> {
        OwareSolver::check(&rules)?;
        let mut unlimited = rules;
        unlimited.max_plies = u32::MAX;
        Ok(OwareSolver {
            rules,
            unlimited,
            max_table_entries: options.table_mib.saturating_mul(1 << 20) / ENTRY_BYTES,
            table: Table::new(),
            nodes: AtomicU64::new(0),
        })
    }

    /// Whether the solver takes `rules`.
    ///
    /// # Errors
    /// [`SolveError::TooLarge`] for a board beyond [`MAX_BOARDS`] or with
    /// more than [`MAX_SOLVER_PITS`] pits a row.
    pub fn check(rules: &OwareRules) -> Result<(), SolveError> {
        let houses = 2 * rules.pits();
        let seeds = rules.total_seeds();
        let count = boards(houses, seeds);
        if rules.pits() > MAX_SOLVER_PITS || count > MAX_BOARDS {
            return Err(SolveError::TooLarge {
                rules: *rules,
                seeds,
                houses,
                boards: count,
                max_boards: MAX_BOARDS,
                pits_note: if rules.pits() > MAX_SOLVER_PITS {
                    " and at most 8 pits a row"
                } else {
                    ""
                },
            });
        }
        Ok(())
    }

    /// The rules solved.
    pub fn rules(&self) -> &OwareRules {
        &self.rules
    }

    /// Positions searched so far, on all threads.
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// Positions in the table.
    pub fn table_entries(&self) -> usize {
        self.table.len()
    }

    /// Forgets the table.
    pub fn clear_table(&self) {
        self.table.clear();
    }

    /// The final margin for the mover of `state` with perfect play, for the
    /// history `state` carries.
    ///
    /// # Errors
    /// [`SolveError::GameOver`], [`SolveError::Stopped`] when
    /// `stop` came first, [`SolveError::PlyLimit`] or
    /// [`SolveError::TableFull`].
    pub fn value(&self, state: &OwareState, stop: StopCondition<'_>) -> Result<i32, SolveError> {
        self.rules.to_move(state).ok_or(SolveError::GameOver)?;
        let mut search = Search::new(self, stop);
        let found = search.search(state, -WIDE, WIDE, false);
        search.finish(state, found)
    }

    /// Solves `state`: its value, every move's value and a principal
    /// variation, with the root's moves spread over `threads` threads.
    ///
    /// # Errors
    /// As [`OwareSolver::value`], and [`SolveError::Threads`] when the
    /// threads cannot start.
    pub fn solve_until(
        &self,
        state: &OwareState,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Solution, SolveError> {
        let t0 = Instant::now();
        let mover = self.rules.to_move(state).ok_or(SolveError::GameOver)?;
        let nodes0 = self.nodes.load(Ordering::Relaxed);
        let moves = self.move_values(state, threads, stop)?;
        let value = moves
            .iter()
            .map(|m| m.value)
            .max()
            .expect("a game not over has moves");
        let pv = self.principal_variation(state, value, stop)?;
        Ok(Solution {
            mover,
            value,
            moves,
            pv,
            stats: SolveStats {
                nodes: self.nodes.load(Ordering::Relaxed) - nodes0,
                seconds: t0.elapsed().as_secs_f64(),
                table_bytes: self.table.len() * ENTRY_BYTES,
                table_entries: self.table.len(),
                ..SolveStats::default()
            },
        })
    }

    /// The value of every legal move of `state`, in move order, with the
    /// moves spread over `threads` threads (1: this thread).
    ///
    /// # Errors
    /// As [`OwareSolver::solve_until`].
    pub fn move_values(
        &self,
        state: &OwareState,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Vec<MoveValue>, SolveError> {
        let mover = self.rules.to_move(state).ok_or(SolveError::GameOver)?;
        let legal: Vec<Move> = self.rules.legal_moves(state).into_iter().collect();
        let value_of = |&mv: &Move| -> Result<MoveValue, SolveError> {
            let mut child = state.clone();
            self.unlimited.play_unchecked(&mut child, mv);
            let value = match self.unlimited.outcome(&child) {
                Some(o) => o.margin_for(mover),
                None => {
                    let mut search = Search::new(self, stop);
                    let capture = captured(&self.unlimited, state, &child);
                    let found = search.search(&child, -WIDE, WIDE, capture);
                    -search.finish(&child, found)?
                }
            };
            Ok(MoveValue { mv, value })
        };
        if threads <= 1 || legal.len() <= 1 {
            return legal.iter().map(value_of).collect();
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| SolveError::Threads(Box::new(e)))?;
        pool.install(|| {
            use rayon::prelude::*;
            legal.par_iter().with_max_len(1).map(value_of).collect()
        })
    }

    /// Moves that keep `value` (the final margin for the mover of `state`),
    /// to the end of the game.
    fn principal_variation(
        &self,
        state: &OwareState,
        mut value: i32,
        stop: StopCondition<'_>,
    ) -> Result<Vec<Move>, SolveError> {
        let rules = &self.unlimited;
        let mut pv = Vec::new();
        let mut state = state.clone();
        while let Some(mover) = rules.to_move(&state) {
            let mut chosen = None;
            for mv in rules.legal_moves(&state) {
                let mut child = state.clone();
                rules.play_unchecked(&mut child, mv);
                // Does this move reach the value? One null-window probe:
                // the child's value (its mover's side) is at most -value.
                let reaches = match rules.outcome(&child) {
                    Some(o) => o.margin_for(mover) >= value,
                    None => {
                        let mut search = Search::new(self, stop);
                        let capture = captured(rules, &state, &child);
                        let found = search.search(&child, -value, -value + 1, capture);
                        search.finish(&child, found)? <= -value
                    }
                };
                if reaches {
                    chosen = Some((mv, child));
                    break;
                }
            }
            let (mv, child) = chosen.expect("some move reaches the position's value");
            pv.push(mv);
            value = -value;
            state = child;
        }
        Ok(pv)
    }
}

/// Wider than any margin (at most 255).
const WIDE: i32 = 1 << 10;

/// Whether the move from `before` to `after` captured seeds.
fn captured(rules: &OwareRules, before: &OwareState, after: &OwareState) -> bool {
    let (a, b) = (rules.scores(before), rules.scores(after));
    a[Player::ZERO] + a[Player::ONE] != b[Player::ZERO] + b[Player::ONE]
}

/// One thread's search.
struct Search<'a> {
    solver: &'a OwareSolver,
    stop: StopCondition<'a>,
    nodes: u64,
    stopped: bool,
    full: bool,
}

impl<'a> Search<'a> {
    fn new(solver: &'a OwareSolver, stop: StopCondition<'a>) -> Search<'a> {
        Search {
            solver,
            stop,
            nodes: 0,
            stopped: false,
            full: false,
        }
    }

    /// The result of a search from `root`, checked: stopped, a full table,
    /// or a height that `max_plies` could have cut short are errors.
    fn finish(self, root: &OwareState, (value, height): Found) -> Result<i32, SolveError> {
        self.solver.nodes.fetch_add(self.nodes, Ordering::Relaxed);
        if self.stopped {
            return Err(SolveError::Stopped);
        }
        if self.full {
            return Err(SolveError::TableFull {
                entries: self.solver.max_table_entries,
            });
        }
        let max_plies = self.solver.rules.max_plies;
        let reached = u64::from(root.plies()) + u64::from(height);
        if reached > u64::from(max_plies) {
            return Err(SolveError::PlyLimit { max_plies, reached });
        }
        Ok(value)
    }

    /// The table key of `state`, whose mover is `mover`.
    fn key(&self, state: &OwareState, mover: Player) -> Key {
        let rules = &self.solver.unlimited;
        let setup = rules.setup(state);
        let mut packed = 0u128;
        for &s in setup.rows[mover]
            .iter()
            .chain(&setup.rows[mover.opponent()])
        {
            packed = (packed << 8) | u128::from(s);
        }
        (packed, rules.scores(state)[mover])
    }

    /// Fail-soft alpha-beta: the final margin for the mover of `state` (not
    /// over) when it lies strictly between `alpha` and `beta`, otherwise a
    /// bound on the same side; and the height of what was visited (1 for a
    /// node whose children were not expanded). `memo`: `state` was just
    /// reached by a capture (or is otherwise known to have no history), so
    /// its value is a function of the position and may be stored.
    fn search(&mut self, state: &OwareState, mut alpha: i32, mut beta: i32, memo: bool) -> Found {
        self.nodes += 1;
        if self.nodes.is_multiple_of(4096) && self.stop.reached() {
            self.stopped = true;
        }
        if self.stopped || self.full {
            return (0, 0);
        }
        let rules = &self.solver.unlimited;
        let mover = rules
            .to_move(state)
            .expect("searched positions are not over");
        let scores = rules.scores(state);
        let rows = rules.row_seeds(state);
        let own = i32::from(scores[mover]);
        let diff = own - i32::from(scores[mover.opponent()]);
        let board = i32::from(rows[Player::ZERO]) + i32::from(rows[Player::ONE]);
        // Captures are never lost and the board is all that is left to
        // share: the margin lies in `diff ± board`.
        let (lo, hi) = (diff - board, diff + board);
        if alpha >= hi {
            return (hi, 0);
        }
        if beta <= lo {
            return (lo, 0);
        }

        let key = memo.then(|| self.key(state, mover));
        let mut hint = None;
        if let Some(key) = &key {
            if let Some(e) = self.solver.table.get(key) {
                let (l, u) = (i32::from(e.lower), i32::from(e.upper));
                if l >= beta || l == u {
                    return (l, e.height);
                }
                if u <= alpha {
                    return (u, e.height);
                }
                alpha = alpha.max(l);
                beta = beta.min(u);
                hint = Some(e.best);
            }
        }

        // Children, best first: the table's move, then bigger captures.
        let mut kids: Vec<(u8, OwareState, i32)> = Vec::with_capacity(8);
        for mv in rules.legal_moves(state) {
            let Move::Pit(pit) = mv else {
                unreachable!("Oware has no swap")
            };
            let mut child = state.clone();
            rules.play_unchecked(&mut child, mv);
            let gain = i32::from(rules.scores(&child)[mover]) - own;
            let order = if hint == Some(pit) { 1000 } else { gain };
            kids.push((pit, child, order));
        }
        kids.sort_by_key(|k| -k.2);

        let (mut best, mut best_pit, mut height) = (i32::MIN, 0u8, 0u32);
        for (pit, child, _) in &kids {
            let (v, h) = match rules.outcome(child) {
                Some(o) => (o.margin_for(mover), 0),
                None => {
                    let capture = captured(rules, state, child);
                    let (v, h) = self.search(child, -beta, -alpha.max(best), capture);
                    (-v, h)
                }
            };
            height = height.max(h);
            if v > best {
                best = v;
                best_pit = *pit;
            }
            if best >= beta {
                break;
            }
        }
        let height = height + 1;
        if self.stopped || self.full {
            return (0, 0);
        }
        if let Some(key) = key {
            let (lower, upper) = if best <= alpha {
                (lo, best)
            } else if best >= beta {
                (best, hi)
            } else {
                (best, best)
            };
            self.solver.table.merge(
                key,
                Entry {
                    lower: lower as i16,
                    upper: upper as i16,
                    height,
                    best: best_pit,
                },
            );
            if self.solver.table.len() > self.solver.max_table_entries {
                self.full = true;
            }
        }
        (best, height)
    }
}
