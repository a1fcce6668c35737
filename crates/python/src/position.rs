//! One position of any game behind one object-safe interface, so that the
//! Python classes need no type parameter: [`Position`] is written once,
//! generically, for every [`Game`], and the classes hold a
//! `Box<dyn Position>`.

use std::any::Any;

use mancala_core::{ByPlayer, Game, GameSpec, IllegalMove, Move, MoveSet, Outcome, Player, Setup};

/// A position of some game with its rules: what a `mancala.State` holds.
pub trait Position: Send + Sync {
    /// A copy of the position.
    fn boxed_clone(&self) -> Box<dyn Position>;
    /// The player to move, `None` once the game is over.
    fn to_move(&self) -> Option<Player>;
    /// The moves of the player to move.
    fn legal(&self) -> MoveSet;
    /// Plays `mv` if it is legal; the position is unchanged otherwise.
    fn play(&mut self, mv: Move) -> Result<(), IllegalMove>;
    /// The result, once the game is over.
    fn outcome(&self) -> Option<Outcome>;
    /// Seeds in each store (or captured), leftovers not counted.
    fn scores(&self) -> ByPlayer<u8>;
    /// The position as plain data.
    fn setup(&self) -> Setup;
    /// Writes the network input (the neural crate's encoding) into `out`.
    fn observe(&self, out: &mut [f32]);
    /// A key equal for equal positions (for `__hash__`).
    fn key(&self) -> u64;
    /// Whether `other` is the same position (of the same game: the caller
    /// compares the rules).
    fn same_as(&self, other: &dyn Position) -> bool;
    /// The concrete `Pos<G>`, for code generic over the game (agents, the
    /// solver) to downcast to.
    fn as_any(&self) -> &dyn Any;
}

/// The rules and the state of one game.
#[derive(Clone, Debug)]
pub struct Pos<G: Game> {
    /// The rules.
    pub game: G,
    /// The position.
    pub state: G::State,
}

impl<G: Game> Position for Pos<G> {
    fn boxed_clone(&self) -> Box<dyn Position> {
        Box::new(self.clone())
    }
    fn to_move(&self) -> Option<Player> {
        self.game.to_move(&self.state)
    }
    fn legal(&self) -> MoveSet {
        self.game.legal_moves(&self.state)
    }
    fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        self.game.try_play(&mut self.state, mv)
    }
    fn outcome(&self) -> Option<Outcome> {
        self.game.outcome(&self.state)
    }
    fn scores(&self) -> ByPlayer<u8> {
        self.game.scores(&self.state)
    }
    fn setup(&self) -> Setup {
        self.game.setup(&self.state)
    }
    fn observe(&self, out: &mut [f32]) {
        self.game.observe(&self.state, out);
    }
    fn key(&self) -> u64 {
        self.game.key(&self.state)
    }
    fn same_as(&self, other: &dyn Position) -> bool {
        other
            .as_any()
            .downcast_ref::<Pos<G>>()
            .is_some_and(|o| o.state == self.state)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The start of `spec`'s game.
pub fn start(spec: &GameSpec) -> Box<dyn Position> {
    mancala_core::with_game!(spec, game => Box::new(Pos { game: *game, state: game.start() }))
}

/// A position of `spec`'s game read from the project's notation.
pub fn parse(spec: &GameSpec, text: &str) -> Result<Box<dyn Position>, String> {
    mancala_core::with_game!(spec, game => game
        .parse_position(text)
        .map(|state| Box::new(Pos { game: *game, state }) as Box<dyn Position>)
        .map_err(|e| e.to_string()))
}

/// `spec`'s number of distinct actions: one per pit, then the swap.
pub fn num_actions(spec: &GameSpec) -> usize {
    mancala_core::with_game!(spec, game => game.num_actions())
}

/// `spec`'s observation length.
pub fn observation_len(spec: &GameSpec) -> usize {
    mancala_core::with_game!(spec, game => game.observation_len())
}

/// `spec`'s pits per row.
pub fn pits(spec: &GameSpec) -> usize {
    mancala_core::with_game!(spec, game => game.pits())
}

/// Writes `pos`'s observation from `viewer`'s point of view: the game's
/// encoding is the mover's (player 0's once over), so for the other player
/// the two rows, the two stores and (multi-round Congkak) the two sets of
/// burnt holes change places; the extra entry is the position's.
pub fn observe_for(pos: &dyn Position, pits: usize, viewer: Player, out: &mut [f32]) {
    pos.observe(out);
    if pos.to_move().unwrap_or(Player::ZERO) == viewer {
        return;
    }
    let (own, rest) = out.split_at_mut(pits);
    own.swap_with_slice(&mut rest[..pits]);
    out.swap(2 * pits, 2 * pits + 1);
    let burnt = 2 * pits + 3;
    if out.len() >= burnt + 2 * pits {
        let (own, rest) = out[burnt..].split_at_mut(pits);
        own.swap_with_slice(&mut rest[..pits]);
    }
}

/// Each player's result of a finished game: 1 for the winner, -1 for the
/// loser, 0 each for a draw (and for a game not over).
pub fn returns(outcome: Option<Outcome>) -> [f32; 2] {
    match outcome.and_then(|o| o.winner()) {
        Some(Player::ZERO) => [1.0, -1.0],
        Some(_) => [-1.0, 1.0],
        None => [0.0, 0.0],
    }
}
