//! What the generic exact search needs of a game: [`ExactGame`].
//!
//! The search ([`crate::Solver`]) works on the margin *still to come*: a
//! position's value is the stores' margin plus what the rest of the game
//! adds to it, and only the second part is searched, tabled and kept in
//! endgame databases. That is sound for a game whose rest depends on the
//! pits and the player to move alone (plus, in Kalah, a pending pie swap),
//! never on what the stores hold: Kalah under every option, and Congkak in
//! a single round (see [`crate::congkak`]). Oware's values depend on the
//! positions seen since the last capture, so it has its own search
//! ([`crate::oware`]) behind the same [`crate::ExactSolver`] interface.

use mancala_core::{CongkakRules, Game, KalahRules, Player, Setup, MAX_PITS};

use crate::view::{View, NO_SWAP, SWAP_NEXT, SWAP_NOW};
use crate::Solvable;

/// A store-free game: one whose rest, and what it adds to each store,
/// depends only on the view of a position from its mover's side
/// ([`View`]: the two rows and a pending swap), so that one generic,
/// monomorphised search solves it (its table keyed by the view, its
/// bound on what is still to come the view's seeds, its endgame database
/// indexed by the view's cells).
///
/// `Position` is the game's state, named again so that the search can
/// copy states (every state of these games is a small `Copy` value).
pub trait ExactGame: Solvable + Game<State = <Self as ExactGame>::Position> {
    /// The game's state.
    type Position: Copy + Send + Sync;

    /// `state` (not over) seen from `mover`'s side.
    fn view(&self, state: &Self::State, mover: Player) -> View;

    /// The ordering bonus of a move that earns an extra turn, on top of its
    /// gain (64 a seed) and its pit (`action`): each game's was measured
    /// on its own boards.
    fn extra_turn_priority(action: i32) -> i32;

    /// Seeds in the default endgame database are at most the board's seeds
    /// divided by this ([`crate::SolverOptions::for_rules`]).
    const DATABASE_SHARE: usize;

    /// Most positions the default endgame database holds (one byte each).
    const DATABASE_POSITIONS: u64;

    /// Enhanced transposition cutoffs (and, with several threads, the
    /// marks that split the tree among them) are tried in positions with
    /// at least this many seeds more than the endgame database holds:
    /// they cost a table probe per child, worth it only where subtrees
    /// are big.
    const ETC_MARGIN: usize;

    /// With several threads, nodes with at least this many seeds more
    /// than the endgame database holds are marked as being searched, so
    /// that the other threads put their moves off (see `Busy`): the marks
    /// are what splits the tree among the threads, so they must reach deep
    /// enough that each thread has subtrees of its own, and no deeper than
    /// a subtree is worth a mark. The enhanced cutoffs' margin unless a
    /// game measured better.
    const SPLIT_MARGIN: usize = Self::ETC_MARGIN;

    /// Seeds above the endgame database from which a position's search
    /// starts from a heuristic guess rather than 0 (see
    /// `Solver::first_guess`): on smaller positions the guess costs more
    /// than the probes it saves.
    const GUESS_MARGIN: usize;

    /// What a database's values depend on besides its fullest level: the
    /// game, the pit count and the rules that change play. Part of a saved
    /// database's header and file name, so that no game reads another's.
    fn database_fingerprint(&self) -> String;

    /// The rules a database of positions of up to `max_seeds` seeds plays
    /// by: these, without what a database position never has (a pending
    /// swap), and with room for `max_seeds` seeds in the pits.
    fn database_rules(&self, max_seeds: usize) -> Self;

    /// The position, player 0 to move, whose rows are `board` (player 0's
    /// row, then player 1's), or `None` when no play goes on there (such a
    /// placement is never looked up). Called on
    /// [`ExactGame::database_rules`]. The stores hold whatever the rules
    /// need (only the margins that moves add are read), except in a
    /// position the rules end at once: its stores must start empty, so
    /// that their margin is what the end added.
    fn database_position(&self, board: &[u8]) -> Option<Self::State>;

    /// Table keys one placement of seeds in the pits can have: views that
    /// differ only in what [`View`] holds besides the board (a pending
    /// swap). Sizes the default table ([`crate::table_mib_for`]).
    fn keys_per_board(&self) -> u64 {
        1
    }
}

impl ExactGame for KalahRules {
    type Position = mancala_core::KalahState;

    #[inline]
    fn view(&self, state: &Self::State, mover: Player) -> View {
        let swap = match (self.swap_pending(state), mover) {
            (false, _) => NO_SWAP,
            (true, Player::ZERO) => SWAP_NEXT,
            (true, _) => SWAP_NOW,
        };
        // The swap exchanges the stores: only then does what is still to
        // come depend on them (and only then are they read, off the hot path).
        let margin = if swap == NO_SWAP {
            0
        } else {
            let s = self.scores(state);
            i16::from(s[mover]) - i16::from(s[mover.opponent()])
        };
        View::from_rows(
            self.row(state, mover),
            self.row(state, mover.opponent()),
            swap,
            margin,
        )
    }

    #[inline]
    fn extra_turn_priority(action: i32) -> i32 {
        // Extra turns first, the one nearest the store first: it leaves the
        // others' seed counts, and so their extra turns, as they were.
        1024 + 2 * action
    }

    // Past half, a bigger database costs more to build than the search it
    // saves: on Kalah(5,3) a 26-seed database took two minutes for a
    // search of under a millisecond.
    const DATABASE_SHARE: usize = 2;

    const DATABASE_POSITIONS: u64 = crate::DEFAULT_ENDGAME_POSITIONS;

    const ETC_MARGIN: usize = 6;

    // Kalah(6,4)'s start, 24 to 26 seeds above the usual databases, is
    // solved in 2 to 7 s on two threads and gained nothing (its probes
    // below the value are cheap) for the guess's 0.5 to 0.8 s; Kalah(6,5)'s,
    // 34 to 36 above, took two or three probes instead of six or seven,
    // and 15 minutes instead of 21 to 45.
    const GUESS_MARGIN: usize = 28;

    fn database_fingerprint(&self) -> String {
        format!(
            "kalah-pits{}-{}-{}-{}",
            self.pits(),
            if self.empty_capture {
                "empty_capture"
            } else {
                "standard_capture"
            },
            format!("{:?}", self.game_end).to_lowercase(),
            format!("{:?}", self.leftover).to_lowercase(),
        )
    }

    fn database_rules(&self, _max_seeds: usize) -> KalahRules {
        // Kalah's positions take any seed count.
        let mut rules = *self;
        rules.pie = false;
        rules
    }

    fn database_position(&self, board: &[u8]) -> Option<Self::State> {
        let n = self.pits();
        Some(self.position_unchecked([&board[..n], &board[n..]], [0, 0], Player::ZERO))
    }

    fn keys_per_board(&self) -> u64 {
        // With the pie rule a board is also seen with the swap to come and
        // with the swap now. From one start the margin a pending swap keys
        // is set by the board: in the opening turn only the first player's
        // store changes, by what left the pits.
        if self.pie {
            3
        } else {
            1
        }
    }
}

impl ExactGame for CongkakRules {
    type Position = mancala_core::CongkakState;

    #[inline]
    fn view(&self, state: &Self::State, mover: Player) -> View {
        let rows = self.setup(state).rows;
        View::from_rows(&rows[mover], &rows[mover.opponent()], NO_SWAP, 0)
    }

    #[inline]
    fn extra_turn_priority(_action: i32) -> i32 {
        // As 64 seeds more: the mover keeps the initiative and often
        // chains further moves.
        1 << 12
    }

    // Congkak's moves cost several Kalah moves (relays, laps), and so does
    // each database position: a quarter of the seeds keeps the build well
    // under the search it saves on the boards measured.
    const DATABASE_SHARE: usize = 4;

    // A Congkak position costs the build several Kalah ones, and Congkak's
    // searches are shorter: 2^25 positions (13 seeds on 7 holes a row,
    // 16 on 6) are built in about a minute and kept between runs.
    const DATABASE_POSITIONS: u64 = 1 << 25;

    // Measured from the start, one thread, no database: 3 x 2 (12 seeds)
    // and 4 x 2 (16) took 139 and 423 nodes with cutoffs from 6 seeds up,
    // 140 and 433 without, and with a database of 12 seeds 5 x 5 took
    // 15,930 with them against 15,777 without, 6 x 4 278,572 against
    // 280,420: a Congkak child's table probe pays only far above the
    // database, and small boards keep their search as it was.
    const ETC_MARGIN: usize = 20;

    // Congkak's small boards (4 x 5, 40 seeds, 30 above its database)
    // are solved in a few thousand nodes: the guess's search would cost
    // ten times that. Nor did it pay on the big ones measured, whose
    // starts are worth a wipe-out that probes from 0 reach cheaply: on
    // 6 x 7 (68 seeds above the database) the start's value took 1.07 s
    // and 8.75 M nodes with the guess against 0.10 s and 164 K without,
    // on 7 x 6 (also 68 above) 1.18 s against 0.82 s; and the guess is
    // searched on one thread, so it kept a second one idle.
    const GUESS_MARGIN: usize = 72;

    fn database_fingerprint(&self) -> String {
        format!(
            "congkak-pits{}-{}-{}-one_round",
            self.pits(),
            if self.empty_capture {
                "empty_capture"
            } else {
                "standard_capture"
            },
            format!("{:?}", self.game_end).to_lowercase(),
        )
    }

    fn database_rules(&self, max_seeds: usize) -> CongkakRules {
        // Nothing in a single round reads the seeds per hole but the start:
        // enough of them that the board's seeds cover any database level.
        let holes = 2 * self.pits();
        let seeds = self.seeds().max(max_seeds.div_ceil(holes)).max(1);
        let mut rules = CongkakRules::new(self.pits(), seeds)
            .expect("at most MAX_DB_SEEDS + 2 * MAX_PITS seeds, within the engine's 255");
        rules.empty_capture = self.empty_capture;
        rules.game_end = self.game_end;
        rules
    }

    fn database_position(&self, board: &[u8]) -> Option<Self::State> {
        let n = self.pits();
        let in_pits: usize = board.iter().map(|&c| usize::from(c)).sum();
        let rest = u8::try_from(self.total_seeds().checked_sub(in_pits)?).ok()?;
        let setup = Setup {
            rows: mancala_core::ByPlayer::new_with(|p| {
                board[p.index() * n..(p.index() + 1) * n].to_vec()
            }),
            stores: mancala_core::ByPlayer::new_with(|p| if p == Player::ZERO { rest } else { 0 }),
            to_move: Some(Player::ZERO),
            swap_available: false,
            burnt: mancala_core::ByPlayer::new_with(|_| 0),
            round: None,
        };
        // A placement where the round is already over is refused: play
        // never reaches it as a position to move from.
        self.from_setup(&setup).ok()
    }
}

/// Most moves a position of any [`ExactGame`] has: every pit, and the swap.
pub(crate) const MAX_CHILDREN: usize = MAX_PITS + 1;
