//! Exact values of single-round Congkak positions.
//!
//! [`CongkakSolver`] finds the final margin of a position with perfect play
//! by both sides (from the mover's side), the value of every legal move and
//! a principal variation, for single-round Congkak (`rounds=one`) on every
//! board the engine allows, under both `empty_capture` settings and both
//! `game_end` rules.
//!
//! # Why the stores can be left out
//!
//! In a single round nothing ever leaves a store, and nothing a move does
//! depends on what a store holds: the sowing passes through the mover's
//! store (dropping a seed there) and over the opponent's, a relay goes on
//! while the last seed lands in a hole that held seeds, a capture looks at
//! the hole facing the last one, and the round ends when a row is empty
//! (the mover's with `game_end=delayed`, either with `immediate`), after
//! which each row's seeds go to its owner. None of these reads a store; the
//! engine's [`CongkakRules`] reads them only to report the scores. So the
//! rest of the game, and what it adds to each store, depends only on the
//! holes and the player to move, and a position's value is the stores'
//! margin plus the margin *still to come*. Only the second part is searched
//! and tabled, under a key made of the holes alone, seen from the mover's
//! side (the rules are the same for both players, so a position and its
//! mirror image share one entry). The tests check the result against a
//! plain minimax over the engine's whole state, stores included.
//!
//! Multi-round play (`rounds=many`) breaks this: at the end of a round the
//! stores refill the holes, decide which holes are burnt and who begins
//! the next round, so the future depends on the stores. The solver refuses
//! it ([`CongkakSolveError::MultiRound`]) rather than table a wrong key.
//!
//! # The method
//!
//! The same as the Kalah solver's ([`crate::Solver`]), for the same
//! reasons: fail-soft alpha-beta on the margin still to come, driven by
//! MTD(f) null-window probes, over a transposition table of exact bounds
//! ([`crate::table::Table`], shared lock-free by all threads). Bounds
//! found once stay true, since the search always goes to the end of the
//! game, so each probe reuses everything the earlier ones learnt. A move's
//! value is what it puts in the stores at once (captures and the final
//! sweep included) plus the child's value: added when the move earns an
//! extra turn (the mover moves again), subtracted when the turn passes.
//! Moves are ordered by the table's move, then by immediate gain with a
//! bonus for an extra turn.
//!
//! Every move is played by the engine ([`Game::play_unchecked`]), so the
//! relays, laps, captures and the end of the round are exactly the
//! engine's. The search terminates without a ply limit: a move that puts
//! no seed in a store only moves seeds of the mover's row towards the
//! store, so no position (holes and mover) can recur, and every line is
//! finite (see `docs/RULES.md`, "Every move ends").
//!
//! On several threads every MTD(f) probe at the root shares the root's
//! moves out (the first to refute the probe's window stops the others);
//! then every move's value is searched from the root's value, the moves
//! spread over the threads. The values are exact, so they do not depend
//! on the thread count, and neither does the principal variation: it
//! takes, at each step, the first legal move that keeps the value.
//!
//! ```
//! use mancala_core::{CongkakRules, Game};
//! use mancala_solver::congkak::CongkakSolver;
//!
//! let rules = CongkakRules::new(3, 2).unwrap();
//! let solver = CongkakSolver::new(rules, 1).unwrap();
//! let solution = solver.solve(&rules.start(), 1).unwrap();
//! assert!(solution.moves.iter().all(|m| m.value <= solution.value));
//! assert!(solution.moves.iter().any(|m| m.value == solution.value));
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use mancala_agents::StopCondition;
use mancala_core::{CongkakRules, CongkakState, Game, Move, Player, Rounds, MAX_PITS};
use thiserror::Error;

use crate::table::{Key, Table, NO_MOVE};
use crate::{MoveValue, Solution, SolveStats};

/// Errors of the Congkak solver.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CongkakSolveError {
    /// The position is over: there is nothing to solve.
    #[error("the game is over")]
    GameOver,
    /// The stop condition came first.
    #[error("stopped before the position was solved")]
    Stopped,
    /// Multi-round play: the rest of the game depends on the stores.
    #[error(
        "{rules}: the Congkak solver plays a single round only (rounds=one): with \
         rounds=many the stores refill the holes between rounds, burn the holes they \
         cannot fill and decide who begins, so the rest of the game depends on the \
         stores, which the solver's table leaves out"
    )]
    MultiRound {
        /// The rules asked for.
        rules: CongkakRules,
    },
    /// Memory for the table cannot be had, or the threads cannot start.
    #[error("{0}")]
    Resources(String),
}

/// Nodes between two looks at the stop condition.
const STOP_INTERVAL: u64 = 1 << 12;

/// The holes of a position from the mover's side: what the table keys on.
#[derive(Clone, Copy)]
struct Holes {
    /// The mover's holes then the opponent's, each in sowing order.
    cells: [u8; 2 * MAX_PITS],
    /// Holes per row.
    n: usize,
    /// Seeds in the holes: the most the margin still to come can be, either way.
    seeds: i32,
}

impl Holes {
    /// The holes of `state`, whose mover is `mover`.
    #[inline]
    fn of(rules: &CongkakRules, state: &CongkakState, mover: Player) -> Holes {
        let n = rules.pits();
        let rows = rules.setup(state).rows;
        let mut cells = [0u8; 2 * MAX_PITS];
        cells[..n].copy_from_slice(&rows[mover]);
        cells[n..2 * n].copy_from_slice(&rows[mover.opponent()]);
        let seeds = cells[..2 * n].iter().map(|&s| i32::from(s)).sum();
        Holes { cells, n, seeds }
    }

    /// The table key: the holes packed `bits` bits each when they fit in
    /// the 96 bits a table slot keeps (no collisions at all), else a
    /// 128-bit hash of them (of which the table keeps 96 bits).
    #[inline]
    fn key(&self, bits: u32) -> Key {
        let cells = &self.cells[..2 * self.n];
        crate::table::packed_key(cells, bits).unwrap_or_else(|| {
            [
                hash(cells, 0x51_7CC1_B727_220A),
                hash(cells, 0x2545_F491_4F6C_DD1D),
            ]
        })
    }
}

/// A 64-bit hash of `bytes`: each 8-byte word through its own multiply, so
/// that no two words can cancel.
fn hash(bytes: &[u8], seed: u64) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = seed;
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(K);
        h ^= h >> 31;
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^ (h >> 33)
}

/// Bits that hold any hole's count on a board of `total` seeds.
fn bits_for(total: usize) -> u32 {
    usize::BITS - total.leading_zeros()
}

/// The mover's store minus the opponent's.
#[inline]
fn stores_margin(rules: &CongkakRules, state: &CongkakState, mover: Player) -> i32 {
    let s = rules.scores(state);
    i32::from(s[mover]) - i32::from(s[mover.opponent()])
}

/// How the game goes on after a move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Next {
    /// The game is over: the move's value is its gain.
    Over,
    /// An extra turn: the mover moves again.
    Same,
    /// The opponent moves.
    Other,
}

/// One move of a position, played.
#[derive(Clone, Copy, Debug)]
struct Kid {
    mv: Move,
    child: CongkakState,
    /// What the move adds to the mover's stores' margin (final sweep included).
    gain: i32,
    next: Next,
}

/// Plays every legal move of `state` (whose mover is `mover`), in move order.
fn kids(rules: &CongkakRules, state: &CongkakState, mover: Player) -> Vec<Kid> {
    let before = stores_margin(rules, state, mover);
    rules
        .legal_moves(state)
        .into_iter()
        .map(|mv| {
            let mut child = *state;
            rules.play_unchecked(&mut child, mv);
            let next = match rules.to_move(&child) {
                None => Next::Over,
                Some(p) if p == mover => Next::Same,
                Some(_) => Next::Other,
            };
            Kid {
                mv,
                child,
                gain: stores_margin(rules, &child, mover) - before,
                next,
            }
        })
        .collect()
}

/// A move's value from its child's value still to come.
#[inline]
fn through(kid: &Kid, child_value: i32) -> i32 {
    match kid.next {
        Next::Over => kid.gain,
        Next::Same => kid.gain + child_value,
        Next::Other => kid.gain - child_value,
    }
}

/// Solves positions of one single-round Congkak rule set. Keeps its table
/// between calls, so later positions of the same game are cheap.
pub struct CongkakSolver {
    rules: CongkakRules,
    table: Table,
    /// Bits per hole in table keys.
    bits: u32,
    nodes: AtomicU64,
}

impl std::fmt::Debug for CongkakSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CongkakSolver({}, {:?})", self.rules, self.table)
    }
}

impl CongkakSolver {
    /// A solver for `rules` with a transposition table of `table_mib` MiB
    /// (0: one bucket, for tests).
    ///
    /// # Errors
    /// [`CongkakSolveError::MultiRound`] for `rounds=many`;
    /// [`CongkakSolveError::Resources`] when the table cannot be allocated.
    pub fn new(rules: CongkakRules, table_mib: usize) -> Result<CongkakSolver, CongkakSolveError> {
        if rules.rounds != Rounds::One {
            return Err(CongkakSolveError::MultiRound { rules });
        }
        let table = Table::new(table_mib).map_err(CongkakSolveError::Resources)?;
        Ok(CongkakSolver {
            bits: bits_for(rules.total_seeds()),
            rules,
            table,
            nodes: AtomicU64::new(0),
        })
    }

    /// The rules solved.
    pub fn rules(&self) -> &CongkakRules {
        &self.rules
    }

    /// Positions searched by this solver so far, on all threads.
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// Slots of the table holding an entry.
    pub fn table_entries(&self) -> usize {
        self.table.filled()
    }

    /// Forgets the table.
    pub fn clear_table(&self) {
        self.table.clear();
    }

    /// The final margin for the mover of `state` with perfect play, found
    /// on this thread.
    ///
    /// # Errors
    /// [`CongkakSolveError::GameOver`], or [`CongkakSolveError::Stopped`]
    /// when `stop` came first.
    pub fn value(
        &self,
        state: &CongkakState,
        stop: StopCondition<'_>,
    ) -> Result<i32, CongkakSolveError> {
        let mover = self
            .rules
            .to_move(state)
            .ok_or(CongkakSolveError::GameOver)?;
        let mut search = Search::new(self, stop);
        let v = search.solve(state, 0);
        search.finish()?;
        Ok(stores_margin(&self.rules, state, mover) + v)
    }

    /// Solves `state`: its value, every move's value and a principal
    /// variation, with the root's moves spread over `threads` threads.
    ///
    /// # Errors
    /// [`CongkakSolveError::GameOver`] for a finished game, or
    /// [`CongkakSolveError::Resources`] when the threads cannot start.
    pub fn solve(
        &self,
        state: &CongkakState,
        threads: usize,
    ) -> Result<Solution, CongkakSolveError> {
        self.solve_until(state, threads, StopCondition::NEVER)
    }

    /// [`CongkakSolver::solve`], giving up when `stop` is reached.
    ///
    /// # Errors
    /// [`CongkakSolveError::GameOver`], [`CongkakSolveError::Stopped`], or
    /// [`CongkakSolveError::Resources`] when the threads cannot start.
    pub fn solve_until(
        &self,
        state: &CongkakState,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Solution, CongkakSolveError> {
        let t0 = Instant::now();
        let mover = self
            .rules
            .to_move(state)
            .ok_or(CongkakSolveError::GameOver)?;
        let base = stores_margin(&self.rules, state, mover);
        let nodes0 = self.nodes();
        let moves = self.move_values(state, threads, stop)?;
        let value = moves
            .iter()
            .map(|m| m.value)
            .max()
            .expect("a game not over has moves");
        let pv = self.principal_variation(state, value - base, stop)?;
        let seconds = t0.elapsed().as_secs_f64();
        Ok(Solution {
            mover,
            value,
            moves,
            pv,
            stats: SolveStats {
                nodes: self.nodes() - nodes0,
                seconds,
                table_bytes: self.table.bytes(),
                table_entries: self.table.filled(),
                ..SolveStats::default()
            },
        })
    }

    /// The value of every legal move of `state`, in move order, found by
    /// `threads` threads (1: this thread).
    ///
    /// # Errors
    /// As [`CongkakSolver::solve_until`].
    pub fn move_values(
        &self,
        state: &CongkakState,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<Vec<MoveValue>, CongkakSolveError> {
        let mover = self
            .rules
            .to_move(state)
            .ok_or(CongkakSolveError::GameOver)?;
        let base = stores_margin(&self.rules, state, mover);
        let (_, moves) = self.root_search(state, threads, stop, true)?;
        Ok(moves
            .into_iter()
            .map(|(mv, v)| MoveValue {
                mv,
                value: base + v,
            })
            .collect())
    }

    /// The value of `state` and the moves that keep it: what a player needs
    /// to play perfectly. Cheaper than [`CongkakSolver::move_values`]: once
    /// the value is known, whether a move keeps it takes one null-window
    /// search, where its exact value takes several.
    ///
    /// # Errors
    /// As [`CongkakSolver::solve_until`].
    pub fn best_moves(
        &self,
        state: &CongkakState,
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<(i32, Vec<Move>), CongkakSolveError> {
        let rules = &self.rules;
        let mover = rules.to_move(state).ok_or(CongkakSolveError::GameOver)?;
        let to_come = self.root_search(state, threads, stop, false)?.0;
        let mut search = Search::new(self, stop);
        let mut best = Vec::new();
        for kid in kids(rules, state, mover) {
            if search.reaches(&kid, to_come) {
                best.push(kid.mv);
            }
            if search.stopped {
                break;
            }
        }
        search.finish()?;
        Ok((stores_margin(rules, state, mover) + to_come, best))
    }

    /// The value still to come for the mover of `state` and, with
    /// `every_move`, each move's value (its gain included, the stores'
    /// margin before it not), found by `threads` threads.
    ///
    /// The position's own value comes first (on several threads, by
    /// [`CongkakSolver::split_mtdf`]). With `every_move` the threads then
    /// share out the moves, each move's search starting from the position's
    /// value: the best moves' value is that, and the others' first probe
    /// fails low at once on what the table learnt.
    fn root_search(
        &self,
        state: &CongkakState,
        threads: usize,
        stop: StopCondition<'_>,
        every_move: bool,
    ) -> Result<(i32, Vec<(Move, i32)>), CongkakSolveError> {
        let rules = &self.rules;
        let mover = rules.to_move(state).ok_or(CongkakSolveError::GameOver)?;
        let kids = kids(rules, state, mover);
        let root = if threads > 1 {
            self.split_mtdf(state, &kids, threads, stop)?
        } else {
            let mut search = Search::new(self, stop);
            let v = search.solve(state, 0);
            search.finish()?;
            v
        };
        if !every_move {
            return Ok((root, Vec::new()));
        }
        // The most promising moves first: extra turns, then gains.
        let mut queue: Vec<usize> = (0..kids.len()).collect();
        queue.sort_by_key(|&i| std::cmp::Reverse((kids[i].next == Next::Same, kids[i].gain)));
        let failed = AtomicBool::new(false);
        let next = AtomicUsize::new(0);
        let values: Vec<OnceLock<i32>> = kids.iter().map(|_| OnceLock::new()).collect();
        let work = || -> Result<(), CongkakSolveError> {
            let mut search = Search::new(self, stop);
            search.abort = Some(&failed);
            while let Some(&i) = queue.get(next.fetch_add(1, Ordering::Relaxed)) {
                let kid = &kids[i];
                let value = match kid.next {
                    Next::Over => kid.gain,
                    // No move is worth more than the root: start there.
                    Next::Same => through(kid, search.solve(&kid.child, root - kid.gain)),
                    Next::Other => through(kid, search.solve(&kid.child, kid.gain - root)),
                };
                if search.stopped {
                    break;
                }
                let _ = values[i].set(value);
            }
            search.finish()
        };
        run_on_threads(threads, &failed, work)?;
        let moves = kids
            .iter()
            .zip(values)
            .map(|(kid, v)| (kid.mv, v.into_inner().expect("every move was solved")))
            .collect();
        Ok((root, moves))
    }

    /// The value still to come for the mover of `state`, by MTD(f) with
    /// each probe's moves (`kids`) shared out among `threads` threads: once
    /// one move refutes the probe's window the others stop; when none does
    /// (the probes that prove an upper bound) every move must be searched
    /// anyway, and the threads split them.
    fn split_mtdf(
        &self,
        state: &CongkakState,
        kids: &[Kid],
        threads: usize,
        stop: StopCondition<'_>,
    ) -> Result<i32, CongkakSolveError> {
        let mover = self
            .rules
            .to_move(state)
            .ok_or(CongkakSolveError::GameOver)?;
        let reach = Holes::of(&self.rules, state, mover).seeds;
        // The last value each move gave: the most promising are tried first.
        let mut last: Vec<i32> = kids
            .iter()
            .map(|k| match k.next {
                Next::Same => 1000 + k.gain,
                _ => k.gain,
            })
            .collect();
        let (mut lower, mut upper) = (-reach, reach);
        let mut g = 0;
        while lower < upper {
            let beta = if g == lower { g + 1 } else { g };
            let mut order: Vec<usize> = (0..kids.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(last[i]));
            let next = AtomicUsize::new(0);
            let cut = AtomicBool::new(false);
            let found: Vec<OnceLock<i32>> = kids.iter().map(|_| OnceLock::new()).collect();
            let work = || -> Result<(), CongkakSolveError> {
                let mut search = Search::new(self, stop);
                search.abort = Some(&cut);
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let kid = &kids[i];
                    let v = match kid.next {
                        Next::Over => kid.gain,
                        Next::Same => through(
                            kid,
                            search.search(&kid.child, beta - 1 - kid.gain, beta - kid.gain),
                        ),
                        Next::Other => through(
                            kid,
                            search.search(&kid.child, kid.gain - beta, kid.gain - beta + 1),
                        ),
                    };
                    if search.stopped {
                        break;
                    }
                    let _ = found[i].set(v);
                    if v >= beta {
                        cut.store(true, Ordering::Relaxed);
                        break;
                    }
                }
                // A search abandoned because another thread refuted the
                // window is no failure.
                if search.stopped && cut.load(Ordering::Relaxed) && !stop.reached() {
                    search.stopped = false;
                }
                search.finish()
            };
            run_on_threads(threads, &cut, work)?;
            // Fail-soft: a cut's value is a lower bound; with no cut, every
            // move was searched and the best is an upper bound.
            g = found
                .iter()
                .filter_map(|v| v.get().copied())
                .max()
                .unwrap_or(lower);
            for (i, v) in found.iter().enumerate() {
                if let Some(&v) = v.get() {
                    last[i] = v;
                }
            }
            if g < beta {
                upper = g;
            } else {
                lower = g;
            }
        }
        Ok(lower)
    }

    /// Moves that keep the value `to_come` (still to come for the mover of
    /// `state`), to the end of the game: at each step the first legal move
    /// that does, so the line does not depend on the table's contents.
    fn principal_variation(
        &self,
        state: &CongkakState,
        mut to_come: i32,
        stop: StopCondition<'_>,
    ) -> Result<Vec<Move>, CongkakSolveError> {
        let rules = &self.rules;
        let mut search = Search::new(self, stop);
        let mut pv = Vec::new();
        let mut state = *state;
        while let Some(mover) = rules.to_move(&state) {
            let mut chosen = None;
            for kid in kids(rules, &state, mover) {
                let reaches = search.reaches(&kid, to_come);
                if search.stopped {
                    break;
                }
                if reaches {
                    chosen = Some(kid);
                    break;
                }
            }
            let Some(kid) = chosen else {
                search.finish()?;
                unreachable!("some move reaches the position's value");
            };
            pv.push(kid.mv);
            to_come = match kid.next {
                Next::Over => 0,
                Next::Same => to_come - kid.gain,
                Next::Other => kid.gain - to_come,
            };
            state = kid.child;
        }
        search.finish()?;
        Ok(pv)
    }
}

/// Runs `work` on this thread and `threads - 1` more; if some cannot
/// start, `abort` is raised so the others stop, and the error is returned.
fn run_on_threads<F>(threads: usize, abort: &AtomicBool, work: F) -> Result<(), CongkakSolveError>
where
    F: Fn() -> Result<(), CongkakSolveError> + Sync,
{
    std::thread::scope(|scope| {
        let helpers = (1..threads.max(1))
            .map(|_| std::thread::Builder::new().spawn_scoped(scope, &work))
            .collect::<Result<Vec<_>, _>>();
        let mine = match &helpers {
            Ok(_) => work(),
            Err(_) => {
                abort.store(true, Ordering::Relaxed);
                Ok(())
            }
        };
        let helpers = helpers
            .map_err(|e| CongkakSolveError::Resources(format!("cannot start threads: {e}")))?;
        for h in helpers {
            h.join().expect("a solver thread panicked")?;
        }
        mine
    })
}

/// Most moves a position has: one per hole.
const MAX_CHILDREN: usize = MAX_PITS;

/// One thread's search.
struct Search<'a> {
    solver: &'a CongkakSolver,
    stop: StopCondition<'a>,
    /// Raised when another thread no longer needs this search's result.
    abort: Option<&'a AtomicBool>,
    /// Positions visited.
    nodes: u64,
    /// Set once the stop condition (or `abort`) was met: values are then
    /// meaningless, and nothing more is stored.
    stopped: bool,
}

impl<'a> Search<'a> {
    fn new(solver: &'a CongkakSolver, stop: StopCondition<'a>) -> Search<'a> {
        Search {
            solver,
            stop,
            abort: None,
            nodes: 0,
            stopped: false,
        }
    }

    /// Adds this search's nodes to the solver's count; an error if it stopped.
    fn finish(self) -> Result<(), CongkakSolveError> {
        self.solver.nodes.fetch_add(self.nodes, Ordering::Relaxed);
        if self.stopped {
            Err(CongkakSolveError::Stopped)
        } else {
            Ok(())
        }
    }

    /// The exact value still to come of `state` (not over) for its mover,
    /// by MTD(f) starting from `guess`.
    fn solve(&mut self, state: &CongkakState, guess: i32) -> i32 {
        let rules = &self.solver.rules;
        let mover = rules.to_move(state).expect("solving a finished game");
        let reach = Holes::of(rules, state, mover).seeds;
        let (mut lower, mut upper) = (-reach, reach);
        let mut g = guess.clamp(lower, upper);
        while lower < upper && !self.stopped {
            let beta = if g == lower { g + 1 } else { g };
            g = self.search(state, beta - 1, beta);
            if g < beta {
                upper = g;
            } else {
                lower = g;
            }
        }
        lower
    }

    /// Whether `kid`'s move reaches `to_come`, the value still to come
    /// before it: one null-window probe.
    fn reaches(&mut self, kid: &Kid, to_come: i32) -> bool {
        match kid.next {
            Next::Over => kid.gain >= to_come,
            Next::Same => {
                let t = to_come - kid.gain;
                self.search(&kid.child, t - 1, t) >= t
            }
            Next::Other => {
                // gain - v >= to_come, that is v <= gain - to_come.
                let t = kid.gain - to_come;
                self.search(&kid.child, t, t + 1) <= t
            }
        }
    }

    /// The value still to come of `state` for its mover if it lies in
    /// `alpha+1..beta`; else a bound on the side it fell (fail-soft).
    fn search(&mut self, state: &CongkakState, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(STOP_INTERVAL)
            && (self.stop.reached() || self.abort.is_some_and(|a| a.load(Ordering::Relaxed)))
        {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let solver = self.solver;
        let rules = &solver.rules;
        let mover = rules.to_move(state).expect("searching a finished game");
        let holes = Holes::of(rules, state, mover);
        let nodes_before = self.nodes;
        let key = holes.key(solver.bits);
        let (mut lower, mut upper) = (-holes.seeds, holes.seeds);
        let mut tt_move = NO_MOVE;
        if let Some(e) = solver.table.probe(&key) {
            lower = lower.max(i32::from(e.lower));
            upper = upper.min(i32::from(e.upper));
            tt_move = e.best;
        }
        if lower >= beta || lower == upper {
            return lower;
        }
        if upper <= alpha {
            return upper;
        }
        alpha = alpha.max(lower);
        beta = beta.min(upper);

        // The children, kept apart from the small records that get sorted.
        let before = stores_margin(rules, state, mover);
        let mut states = [*state; MAX_CHILDREN];
        let mut order = [(0i32, 0u8, Next::Over, 0i32, 0u8); MAX_CHILDREN];
        let mut count = 0;
        for mv in rules.legal_moves(state) {
            let Move::Pit(pit) = mv else {
                unreachable!("Congkak has no swap")
            };
            let child = &mut states[count];
            rules.play_unchecked(child, mv);
            let gain = stores_margin(rules, child, mover) - before;
            let next = match rules.to_move(child) {
                None => Next::Over,
                Some(p) if p == mover => Next::Same,
                Some(_) => Next::Other,
            };
            // A finished game's value is its gain: a cutoff needs no search.
            if next == Next::Over && gain >= beta {
                self.record(&key, gain, upper, pit, nodes_before);
                return gain;
            }
            // Gain first, the hole nearest the store first among equals (as
            // for Kalah); an extra turn counts as 64 seeds more, since the
            // mover keeps the initiative and often chains further moves.
            let mut priority = gain * 64 + i32::from(pit);
            if next == Next::Same {
                priority += 1 << 12;
            }
            if pit == tt_move {
                priority += 1 << 16;
            }
            order[count] = (priority, count as u8, next, gain, pit);
            count += 1;
        }
        let order = &mut order[..count];
        order.sort_unstable_by_key(|o| std::cmp::Reverse(o.0));

        let (alpha0, beta0) = (alpha, beta);
        let mut best = i32::MIN;
        let mut best_move = NO_MOVE;
        for &(_, slot, next, gain, pit) in order.iter() {
            let child = &states[usize::from(slot)];
            let v = match next {
                Next::Over => gain,
                Next::Same => gain + self.search(child, alpha - gain, beta - gain),
                Next::Other => gain - self.search(child, gain - beta, gain - alpha),
            };
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_move = pit;
            }
            if best > alpha {
                alpha = best;
                if alpha >= beta {
                    break;
                }
            }
        }
        let (lo, hi) = if best <= alpha0 {
            (lower, best)
        } else if best >= beta0 {
            (best, upper)
        } else {
            (best, best)
        };
        self.record(&key, lo, hi, best_move, nodes_before);
        best
    }

    /// Stores what was learnt of `key`, with the work it took (so that the
    /// table keeps big subtrees over small ones).
    fn record(&self, key: &Key, lo: i32, hi: i32, best: u8, nodes_before: u64) {
        let work = 64 - (self.nodes - nodes_before).leading_zeros();
        self.solver
            .table
            .store(key, lo as i16, hi.max(lo) as i16, best, work as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrored_positions_share_a_key_and_the_stores_are_not_in_it() {
        let rules = CongkakRules::new(3, 2).unwrap();
        let a = rules.parse_position("1,2,0/0,3,1/4,1/0").unwrap();
        let b = rules.parse_position("0,3,1/1,2,0/0,5/1").unwrap();
        let c = rules.parse_position("1,2,0/0,1,3/4,1/0").unwrap();
        let bits = bits_for(rules.total_seeds());
        let key = |s: &CongkakState| {
            let mover = rules.to_move(s).unwrap();
            Holes::of(&rules, s, mover).key(bits)
        };
        assert_eq!(key(&a), key(&b));
        assert_ne!(key(&a), key(&c));
    }

    #[test]
    fn large_boards_hash_and_keep_different_holes_apart() {
        let rules = CongkakRules::new(15, 8).unwrap();
        let start = rules.start();
        let mut after = start;
        rules.play_unchecked(&mut after, Move::Pit(0));
        let bits = bits_for(rules.total_seeds());
        let k0 = Holes::of(&rules, &start, Player::ZERO).key(bits);
        let mover = rules.to_move(&after).unwrap();
        let k1 = Holes::of(&rules, &after, mover).key(bits);
        assert_ne!(k0, k1);
    }
}
