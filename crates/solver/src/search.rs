//! The search: fail-soft alpha-beta on the margin still to come, driven by
//! MTD(f) null-window probes, over a shared table of exact bounds.
//!
//! A node's value is the margin the mover gains from here on with perfect
//! play (the stores' margin is added by the caller). A move's value is what
//! it puts in the stores at once (`gain`, captures and the final sweep
//! included) plus the child's value, negated when the turn passes.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use mancala_agents::StopCondition;
use mancala_core::{Move, Player};

use crate::endgame::Endgame;
use crate::game::{ExactGame, MAX_CHILDREN};
use crate::table::{Key, Table, NO_MOVE};
use crate::view::View;

/// Nodes between two looks at the stop condition.
const STOP_INTERVAL: u64 = 1 << 12;

/// Everything a search reads: rules, table, database.
pub(crate) struct Shared<'a, G: ExactGame> {
    pub rules: &'a G,
    pub table: &'a Table,
    pub endgame: Option<&'a Endgame<G>>,
    /// Bits per pit in table keys.
    pub bits: u32,
    /// Positions other threads are searching, when several threads search
    /// one tree together.
    pub busy: Option<&'a Busy>,
}

/// Positions being searched right now, by any thread: the heart of
/// ABDADA-style parallel search. Threads searching the same null-window
/// probe all take a node's first move, but put off a later move that
/// another thread is already searching and take the next one instead, so
/// they split the tree below any node that needs more than one move, and
/// what each finds reaches the others through the table.
///
/// A mark is a counter in a small hashed array: two positions sharing a
/// counter only make a thread put a move off needlessly, never wrongly.
pub(crate) struct Busy {
    marks: Vec<AtomicU8>,
}

/// Counters in a [`Busy`]: far more than the big nodes in flight at once.
const BUSY_SLOTS: usize = 1 << 16;

impl Busy {
    pub fn new() -> Busy {
        Busy {
            marks: (0..BUSY_SLOTS).map(|_| AtomicU8::new(0)).collect(),
        }
    }

    #[inline]
    fn slot(&self, key: &Key) -> &AtomicU8 {
        let h = (key[0] ^ key[1].rotate_left(17)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &self.marks[(h >> 48) as usize % BUSY_SLOTS]
    }

    #[inline]
    fn is_busy(&self, key: &Key) -> bool {
        self.slot(key).load(Ordering::Relaxed) > 0
    }

    /// Marks `key` as being searched until the mark is dropped.
    #[inline]
    fn mark(&self, key: &Key) -> BusyMark<'_> {
        let slot = self.slot(key);
        slot.fetch_add(1, Ordering::Relaxed);
        BusyMark(slot)
    }
}

/// A node's mark in [`Busy`], lifted however the node's search ends.
struct BusyMark<'a>(&'a AtomicU8);

impl Drop for BusyMark<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One thread's search.
pub(crate) struct Search<'a, G: ExactGame> {
    pub shared: &'a Shared<'a, G>,
    stop: StopCondition<'a>,
    /// Raised when another thread no longer needs this search's result.
    pub abort: Option<&'a AtomicBool>,
    /// Positions visited.
    pub nodes: u64,
    /// Set once the stop condition was met: values are then meaningless.
    pub stopped: bool,
    /// Positions [`Search::estimate`] valued by the heuristic, not exactly.
    pub horizon_leaves: u64,
    /// The search stops (as if `stop` were reached) past this many nodes:
    /// a budget that, unlike a time, gives the same result on any machine.
    pub node_limit: u64,
}

/// How the game goes on after a move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    /// The game is over: the move's value is its gain.
    Over,
    /// The mover moves again.
    Same,
    /// The opponent moves.
    Other,
}

/// A move of the node being searched; its position is `states[slot]`.
#[derive(Clone, Copy)]
struct Child {
    mv: Move,
    slot: u8,
    gain: i32,
    next: Next,
    priority: i32,
}

/// What a node's search needs besides its position, worked out once, by
/// its parent, which needs it too.
#[derive(Clone, Copy, Default)]
struct Node {
    /// Its table key.
    key: Key,
    /// How far its value can go either way ([`View::reach`]).
    reach: i32,
    /// Seeds in its pits.
    seeds: i32,
}

/// The endgame database, if there is one and it holds the position seen
/// as `view`, which has `seeds` seeds in its pits (no database holds a
/// position with a swap pending).
#[inline]
pub(crate) fn holding<'d, G: ExactGame>(
    db: Option<&'d Endgame<G>>,
    view: &View,
    seeds: i32,
) -> Option<&'d Endgame<G>> {
    db.filter(|db| view.swap == crate::view::NO_SWAP && seeds as usize <= db.max_seeds())
}

/// The mover's store minus the opponent's.
#[inline]
pub(crate) fn stores_margin<G: ExactGame>(rules: &G, state: &G::State, mover: Player) -> i32 {
    let s = rules.scores(state);
    i32::from(s[mover]) - i32::from(s[mover.opponent()])
}

/// Plays `mv` in `state` (whose mover is `mover`): the child, the gain and
/// who moves next.
#[inline]
fn play<G: ExactGame>(
    rules: &G,
    state: &G::State,
    mover: Player,
    mv: Move,
) -> (G::State, i32, Next) {
    let mut child = *state;
    rules.play_unchecked(&mut child, mv);
    let gain = stores_margin(rules, &child, mover) - stores_margin(rules, state, mover);
    let next = match rules.to_move(&child) {
        None => Next::Over,
        Some(p) if p == mover => Next::Same,
        Some(_) => Next::Other,
    };
    (child, gain, next)
}

impl<'a, G: ExactGame> Search<'a, G> {
    pub fn new(shared: &'a Shared<'a, G>, stop: StopCondition<'a>) -> Search<'a, G> {
        Search {
            shared,
            stop,
            abort: None,
            nodes: 0,
            stopped: false,
            horizon_leaves: 0,
            node_limit: u64::MAX,
        }
    }

    /// The exact value of `state` (not over) for its mover, by MTD(f)
    /// starting from `guess`.
    pub fn solve(&mut self, state: &G::State, guess: i32) -> i32 {
        let rules = self.shared.rules;
        let mover = rules.to_move(state).expect("solving a finished game");
        let reach = rules.view(state, mover).reach();
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

    /// Whether the value of `state` is at least `threshold`.
    pub fn at_least(&mut self, state: &G::State, threshold: i32) -> bool {
        self.search(state, threshold - 1, threshold) >= threshold
    }

    /// The value of `state` for its mover if it lies in `alpha+1..beta`; else
    /// a bound on the side it fell (fail-soft).
    pub fn search(&mut self, state: &G::State, alpha: i32, beta: i32) -> i32 {
        let shared = self.shared;
        let mover = shared
            .rules
            .to_move(state)
            .expect("searching a finished game");
        let view = shared.rules.view(state, mover);
        let seeds = view.seeds();
        if let Some(db) = holding(shared.endgame, &view, seeds) {
            self.nodes += 1;
            return db.lookup(view.board(), seeds as usize);
        }
        let node = Node {
            key: view.key(shared.bits),
            reach: view.reach(),
            seeds,
        };
        self.node(state, mover, &node, alpha, beta)
    }

    /// [`Search::search`] of a position not in the endgame database, whose
    /// mover is `mover`, described by `node`.
    fn node(
        &mut self,
        state: &G::State,
        mover: Player,
        node: &Node,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        self.nodes += 1;
        if (self.nodes.is_multiple_of(STOP_INTERVAL)
            && (self.stop.reached() || self.abort.is_some_and(|a| a.load(Ordering::Relaxed))))
            || self.nodes > self.node_limit
        {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let shared = self.shared;
        let rules = shared.rules;
        let key = &node.key;
        let nodes_before = self.nodes;
        let (mut lower, mut upper) = (-node.reach, node.reach);
        let mut tt_move = NO_MOVE;
        if let Some(e) = shared.table.probe(key) {
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

        let pits = rules.pits();
        let db = shared.endgame;
        // Enhanced transposition cutoffs cost a table probe per child: worth
        // it only where subtrees are big, far from the endgame database.
        let above_db = (node.seeds as usize).saturating_sub(db.map_or(0, Endgame::max_seeds));
        let etc = above_db >= G::ETC_MARGIN;
        // Child positions are kept apart from the list that gets sorted, so
        // sorting moves small records and no move is played twice.
        let mut states = [*state; MAX_CHILDREN];
        let mut children = [Child {
            mv: Move::Swap,
            slot: 0,
            gain: 0,
            next: Next::Over,
            priority: 0,
        }; MAX_CHILDREN];
        let mut kids = [Node::default(); MAX_CHILDREN];
        // Where each child is kept in the endgame database, if it is.
        let mut db_slots = [None; MAX_CHILDREN];
        // First every move is played and its child's database entry (or,
        // where every child's table entry is read for cutoffs, its table
        // bucket) is prefetched; only then is any of it read, so the
        // children's memory loads overlap instead of queueing.
        let mut count = 0;
        for mv in rules.legal_moves(state) {
            let (child, gain, next) = play(rules, state, mover, mv);
            if next != Next::Over {
                let child_mover = if next == Next::Same {
                    mover
                } else {
                    mover.opponent()
                };
                let view = rules.view(&child, child_mover);
                let seeds = view.seeds();
                match holding(db, &view, seeds) {
                    Some(db) => {
                        db_slots[count] = Some(db.slot(view.board(), seeds as usize));
                    }
                    None => {
                        kids[count] = Node {
                            key: view.key(shared.bits),
                            reach: view.reach(),
                            seeds,
                        };
                        // Only where every child's bucket is probed: the
                        // others' prefetches, mostly of children that are
                        // never searched, cost more than they save.
                        if etc {
                            shared.table.prefetch(&kids[count].key);
                        }
                    }
                }
            }
            states[count] = child;
            children[count] = Child {
                mv,
                slot: count as u8,
                gain,
                next,
                priority: 0,
            };
            count += 1;
        }
        let children = &mut children[..count];
        for c in children.iter_mut() {
            let slot = usize::from(c.slot);
            // A child in the endgame database needs no search.
            if let (Some(db), Some(at)) = (db, db_slots[slot]) {
                let v = db.value_at(at);
                c.gain = if c.next == Next::Same {
                    c.gain + v
                } else {
                    c.gain - v
                };
                c.next = Next::Over;
            }
            // Enhanced transposition cutoff: a child whose table bound
            // already refutes this node saves the search of the others.
            let known = match c.next {
                Next::Over => Some((c.gain, c.gain)),
                _ if etc => self.bounds(&kids[slot].key, c.next, c.gain),
                _ => None,
            };
            if let Some((lo, _)) = known {
                if lo >= beta {
                    self.record(key, lo, upper, c.mv, nodes_before);
                    return lo;
                }
            }
            let action = c.mv.action_index(pits) as u8;
            // Among moves of equal gain, the pit nearest the store first:
            // across boards this cut the nodes of a solve 3 to 15 times
            // against the farthest first.
            let mut priority = c.gain * 64 + i32::from(action);
            if c.next == Next::Same {
                priority += G::extra_turn_priority(i32::from(action));
            }
            if let Some((_, hi)) = known {
                // A move known to be poor goes last.
                if hi <= alpha {
                    priority -= 1 << 12;
                }
            }
            if action == tt_move {
                priority += 1 << 16;
            }
            c.priority = priority;
        }
        children.sort_unstable_by_key(|c| std::cmp::Reverse(c.priority));

        let (alpha0, beta0) = (alpha, beta);
        let mut best = i32::MIN;
        let mut best_move = NO_MOVE;
        // With other threads in the same tree, a big node tells them it is
        // being searched, and its later moves that another thread is on
        // are put off until the rest are done (see `Busy`).
        let busy = shared.busy.filter(|_| above_db >= G::SPLIT_MARGIN);
        let _mark = busy.map(|b| b.mark(key));
        // First every move in order, except the put-off ones; then those.
        let mut put_off = [0u8; MAX_CHILDREN];
        let mut put_off_count = 0;
        let n = children.len();
        let mut k = 0;
        while k < n + put_off_count {
            let i = if k < n {
                k
            } else {
                usize::from(put_off[k - n])
            };
            k += 1;
            let c = &children[i];
            let slot = usize::from(c.slot);
            if let Some(b) = busy {
                if k <= n && c.next != Next::Over && b.is_busy(&kids[slot].key) {
                    put_off[put_off_count] = i as u8;
                    put_off_count += 1;
                    continue;
                }
            }
            let v = match c.next {
                Next::Over => c.gain,
                Next::Same => {
                    c.gain
                        + self.node(
                            &states[slot],
                            mover,
                            &kids[slot],
                            alpha - c.gain,
                            beta - c.gain,
                        )
                }
                Next::Other => {
                    c.gain
                        - self.node(
                            &states[slot],
                            mover.opponent(),
                            &kids[slot],
                            c.gain - beta,
                            c.gain - alpha,
                        )
                }
            };
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_move = c.mv.action_index(pits) as u8;
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
        let work = 64 - (self.nodes - nodes_before).leading_zeros();
        shared
            .table
            .store(key, lo as i16, hi as i16, best_move, work as u8);
        best
    }

    /// What the table knows of a move's value: its child's bounds (the
    /// child's key is `key`) shifted by the gain, negated when the turn
    /// passes.
    #[inline]
    fn bounds(&self, key: &Key, next: Next, gain: i32) -> Option<(i32, i32)> {
        let e = self.shared.table.probe(key)?;
        let (lo, hi) = (i32::from(e.lower), i32::from(e.upper));
        Some(match next {
            Next::Same => (gain + lo, gain + hi),
            _ => (gain - hi, gain - lo),
        })
    }

    /// A heuristic guess at the value of `state` (not over) for its mover,
    /// for MTD(f) to start from: alpha-beta `depth` moves deep, exact at
    /// the game's end and where the endgame database holds a position, and
    /// at the horizon each row's seeds counted half to its owner (a third
    /// and two thirds did no better on the boards solved; each such guess
    /// is counted in `horizon_leaves`). Nothing
    /// is read from or stored in the table: the guess is never taken as
    /// exact.
    pub fn estimate(&mut self, state: &G::State, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(STOP_INTERVAL) && self.stop.reached() {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let rules = self.shared.rules;
        let mover = rules.to_move(state).expect("estimating a finished game");
        let view = rules.view(state, mover);
        let seeds = view.seeds();
        if let Some(db) = holding(self.shared.endgame, &view, seeds) {
            return db.lookup(view.board(), seeds as usize);
        }
        if depth == 0 {
            self.horizon_leaves += 1;
            let own: i32 = view.board()[..rules.pits()]
                .iter()
                .map(|&c| i32::from(c))
                .sum();
            return (2 * own - seeds) / 2;
        }
        let mut best = i32::MIN;
        for mv in rules.legal_moves(state) {
            let (child, gain, next) = play(rules, state, mover, mv);
            let v = match next {
                Next::Over => gain,
                Next::Same => gain + self.estimate(&child, depth - 1, alpha - gain, beta - gain),
                Next::Other => gain - self.estimate(&child, depth - 1, gain - beta, gain - alpha),
            };
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    fn record(&self, key: &Key, lo: i32, hi: i32, mv: Move, nodes_before: u64) {
        let work = 64 - (self.nodes - nodes_before).leading_zeros();
        let pits = self.shared.rules.pits();
        self.shared.table.store(
            key,
            lo as i16,
            hi.max(lo) as i16,
            mv.action_index(pits) as u8,
            work as u8,
        );
    }
}

/// The children of `state` (whose mover is `mover`) with their gains.
pub(crate) fn children<G: ExactGame>(
    rules: &G,
    state: &G::State,
    mover: Player,
) -> Vec<(Move, G::State, i32, bool)> {
    rules
        .legal_moves(state)
        .into_iter()
        .map(|mv| {
            let (child, gain, next) = play(rules, state, mover, mv);
            (mv, child, gain, next == Next::Other)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Table;
    use mancala_core::{Game, KalahRules, KalahState};

    /// The value still to come for the mover, by plain exhaustive minimax.
    fn plain(rules: &KalahRules, state: &KalahState) -> i32 {
        let mover = rules.to_move(state).unwrap();
        rules
            .legal_moves(state)
            .into_iter()
            .map(|mv| match play(rules, state, mover, mv) {
                (_, gain, Next::Over) => gain,
                (child, gain, Next::Same) => gain + plain(rules, &child),
                (child, gain, Next::Other) => gain - plain(rules, &child),
            })
            .max()
            .unwrap()
    }

    fn shared<'a>(rules: &'a KalahRules, table: &'a Table) -> Shared<'a, KalahRules> {
        Shared {
            rules,
            table,
            endgame: None,
            bits: crate::view::bits_for(rules.total_seeds()),
            busy: None,
        }
    }

    #[test]
    fn an_estimate_deep_enough_to_reach_every_end_is_the_exact_value() {
        let table = Table::new(1).unwrap();
        for (pits, seeds) in [(2, 2), (3, 2), (3, 3), (4, 1)] {
            for pie in [false, true] {
                let mut rules = KalahRules::new(pits, seeds).unwrap();
                rules.pie = pie;
                let shared = shared(&rules, &table);
                let mut search = Search::new(&shared, StopCondition::NEVER);
                let start = rules.start();
                let estimate = search.estimate(&start, 200, -1000, 1000);
                assert_eq!(estimate, plain(&rules, &start), "{rules}");
                assert_eq!(search.horizon_leaves, 0, "{rules}");
            }
        }
    }

    #[test]
    fn at_its_horizon_the_estimate_counts_half_of_each_row_to_its_owner() {
        let rules = KalahRules::new(3, 3).unwrap();
        let table = Table::new(1).unwrap();
        let shared = shared(&rules, &table);
        let mut search = Search::new(&shared, StopCondition::NEVER);
        // Player 0 to move with 7 seeds in their row, 3 in the opponent's.
        let state = rules.parse_position("3,0,4/1,1,1/4,4/0").unwrap();
        assert_eq!(search.estimate(&state, 0, -1000, 1000), (7 - 3) / 2);
        assert_eq!(search.horizon_leaves, 1);
        // The rows swapped, player 1 to move: the mover's row is theirs.
        let theirs = rules.parse_position("1,1,1/3,0,4/4,4/1").unwrap();
        assert_eq!(search.estimate(&theirs, 0, -1000, 1000), (7 - 3) / 2);
        // Player 1 to move with the smaller row: the count is negative.
        let behind = rules.parse_position("3,0,4/1,1,1/4,4/1").unwrap();
        assert_eq!(search.estimate(&behind, 0, -1000, 1000), -(7 - 3) / 2);
        // One move deep: pit 1 sows its last seed in the store (+1) for an
        // extra turn on 0,1,5 against 1,1,1, counted (6 - 3) / 2 = +1; pit 3
        // puts one seed in the store and three in the opponent's row, who
        // moves on 3,0,0 against 2,2,2: 1 - (6 - 3) / 2 = 0.
        assert_eq!(search.estimate(&state, 1, -1000, 1000), 1 + (6 - 3) / 2);
    }
}
