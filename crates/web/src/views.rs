//! Positions and moves as the API shows them ([`StateView`], [`PlyView`]),
//! and lines of moves replayed from a position. Every request carries the
//! position it is about, so the server keeps no games: any number of tabs,
//! undo and links cost it nothing.

use mancala_core::{Game, GameSpec, Move, Player, Setup};
use serde::Serialize;

use crate::sowing::{trace, Lift};
use crate::ApiError;

/// Most plies a line may have: far beyond any real game of the toolkit's
/// boards (Oware's default cap is 300), and a bound on a request's work.
pub const MAX_PLIES: usize = 2000;

/// One position, with what a client needs to draw it and move.
#[derive(Clone, Debug, Serialize)]
pub struct StateView {
    /// The game's canonical spec.
    pub game: String,
    /// The position in the project's notation.
    pub position: String,
    /// Pits per row.
    pub pits: usize,
    /// Player 0's pits, player 1's pits, store 0, store 1.
    pub board: Vec<u8>,
    /// The player to move, `None` once the game is over.
    pub to_move: Option<usize>,
    /// Whether the pie rule's swap may be played now.
    pub swap_available: bool,
    /// Each player's burnt holes (multi-round Congkak), as pit indices.
    pub burnt: [Vec<usize>; 2],
    /// The round of a multi-round game.
    pub round: Option<RoundView>,
    /// The legal moves in the project's notation.
    pub legal: Vec<String>,
    /// The result, once the game is over.
    pub outcome: Option<OutcomeView>,
}

/// The round of a multi-round game.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RoundView {
    /// The round, from 1.
    pub number: u16,
    /// Who moved first in it.
    pub first: usize,
}

/// How a game ended.
#[derive(Clone, Debug, Serialize)]
pub struct OutcomeView {
    /// Seeds credited to each player.
    pub scores: [u8; 2],
    /// The winner, `None` for a draw.
    pub winner: Option<usize>,
    /// Player 0's score minus player 1's.
    pub margin: i32,
    /// Why the game ended, as records write it.
    pub reason: String,
}

/// One move and what it did.
#[derive(Clone, Debug, Serialize)]
pub struct PlyView {
    /// The move in the project's notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Who played it.
    pub player: usize,
    /// Where its seeds went, lift by lift.
    pub sowing: Vec<Lift>,
    /// Whether it was the pie rule's swap.
    pub swap: bool,
    /// Whether the same player moves next.
    pub extra_turn: bool,
    /// Seeds that left the pits for the stores after the sowing.
    pub captured: u32,
    /// The position after it.
    pub state: StateView,
}

/// The view of `state`.
pub fn state_view<G: Game>(game: &G, state: &G::State) -> StateView {
    let setup = game.setup(state);
    let pits = game.pits();
    let burnt = |p: Player| {
        (0..pits.min(16))
            .filter(|&i| setup.burnt[p] & (1 << i) != 0)
            .collect()
    };
    StateView {
        game: game.to_string(),
        position: setup.to_string(),
        pits,
        board: setup.board(),
        to_move: setup.to_move.map(Player::index),
        swap_available: setup.swap_available,
        burnt: [burnt(Player::ZERO), burnt(Player::ONE)],
        round: setup.round.map(|r| RoundView {
            number: r.number,
            first: r.first.index(),
        }),
        legal: game
            .legal_moves(state)
            .into_iter()
            .map(|m| m.to_string())
            .collect(),
        outcome: game.outcome(state).map(|o| OutcomeView {
            scores: o.scores.0,
            winner: o.winner().map(Player::index),
            margin: o.margin(),
            reason: o.reason.to_string(),
        }),
    }
}

/// The position `text` of `game`, or its start when `None`.
pub fn position<G: Game>(game: &G, text: Option<&str>) -> Result<G::State, ApiError> {
    match text {
        None => Ok(game.start()),
        Some(text) => game
            .parse_position(text)
            .map_err(|e| ApiError::Unprocessable(format!("position `{text}`: {e}"))),
    }
}

/// The position reached by playing `moves` from `text` (the start when
/// `None`). Unlike a position alone it keeps the line's history, which
/// Oware's repetition rule and every game's `max_plies` count.
pub fn reach<G: Game>(
    game: &G,
    text: Option<&str>,
    moves: &[String],
) -> Result<G::State, ApiError> {
    if moves.len() > MAX_PLIES {
        return Err(ApiError::BadRequest(format!(
            "{} moves: a line has at most {MAX_PLIES}",
            moves.len()
        )));
    }
    let mut state = position(game, text)?;
    for (k, token) in moves.iter().enumerate() {
        let mv: Move = token
            .parse()
            .map_err(|e| ApiError::Unprocessable(format!("ply {}: move `{token}`: {e}", k + 1)))?;
        game.try_play(&mut state, mv)
            .map_err(|e| ApiError::Unprocessable(format!("ply {}: move `{token}`: {e}", k + 1)))?;
    }
    Ok(state)
}

/// Plays `token` in `state` and says what it did.
pub fn play<G: Game>(
    spec: &GameSpec,
    game: &G,
    state: &mut G::State,
    token: &str,
) -> Result<PlyView, ApiError> {
    let before = game.setup(state);
    let Some(player) = before.to_move else {
        return Err(ApiError::Unprocessable(format!(
            "move `{token}`: the game is over"
        )));
    };
    let mv: Move = token
        .parse()
        .map_err(|e| ApiError::Unprocessable(format!("move `{token}`: {e}")))?;
    if let Err(e) = game.try_play(state, mv) {
        let legal: Vec<String> = game
            .legal_moves(state)
            .into_iter()
            .map(|m| m.to_string())
            .collect();
        return Err(ApiError::Unprocessable(format!(
            "move `{token}`: {e} (legal: {})",
            legal.join(" ")
        )));
    }
    let sowing = trace(spec, &before, mv);
    let after = game.setup(state);
    Ok(PlyView {
        mv: mv.to_string(),
        player: player.index(),
        swap: mv == Move::Swap,
        extra_turn: after.to_move == Some(player) && mv != Move::Swap,
        captured: captured(&before, &sowing, &after),
        sowing,
        state: state_view(game, state),
    })
}

/// Seeds that reached the stores after the sowing: the stores' gain less
/// the seeds the sowing itself dropped in them.
fn captured(before: &Setup, sowing: &[Lift], after: &Setup) -> u32 {
    let pits = 2 * before.rows[Player::ZERO].len();
    let sown = sowing
        .iter()
        .flat_map(|l| &l.to)
        .filter(|&&c| c >= pits)
        .count();
    let gain: i64 = Player::BOTH
        .iter()
        .map(|&p| i64::from(after.stores[p]) - i64::from(before.stores[p]))
        .sum();
    u32::try_from(gain - sown as i64).unwrap_or(0)
}

/// A whole line: the start (`start`, or the game's) and every ply.
pub fn line<G: Game>(
    spec: &GameSpec,
    game: &G,
    start: Option<&str>,
    moves: &[String],
) -> Result<(StateView, Vec<PlyView>), ApiError> {
    if moves.len() > MAX_PLIES {
        return Err(ApiError::BadRequest(format!(
            "{} moves: a line has at most {MAX_PLIES}",
            moves.len()
        )));
    }
    let mut state = position(game, start)?;
    let first = state_view(game, &state);
    let plies = moves
        .iter()
        .enumerate()
        .map(|(k, token)| {
            play(spec, game, &mut state, token).map_err(|e| match e {
                ApiError::Unprocessable(why) => {
                    ApiError::Unprocessable(format!("ply {}: {why}", k + 1))
                }
                other => other,
            })
        })
        .collect::<Result<_, _>>()?;
    Ok((first, plies))
}
