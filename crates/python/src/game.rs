//! `mancala.Game` and `mancala.State`: the rules and one position, in the
//! shape of OpenSpiel's `pyspiel.Game` and `pyspiel.State`.

use std::sync::Arc;

use mancala_core::{GameSpec, Move, Player};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::position::{self, Position};

/// OpenSpiel's player id of a finished game (`pyspiel.PlayerId.TERMINAL`).
pub const TERMINAL: i64 = -4;

/// Reads a game spec as the command line's `--game` does.
pub fn parse_spec(text: &str) -> PyResult<GameSpec> {
    text.parse::<GameSpec>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The rules of one game: Kalah with any board and rule options, Oware or
/// Congkak, from a game spec such as `"kalah:pits=6,seeds=4,pie=true"`
/// (every spec `mancala --game` takes; a bad one raises `ValueError` with
/// the command line's message).
///
/// Actions are integers: `0 .. pits-1` sow the mover's pits 1 to `pits`
/// (in sowing order), and `pits` is the pie rule's swap.
#[pyclass(name = "Game", module = "mancala", frozen)]
#[derive(Clone)]
pub struct PyGame {
    pub spec: GameSpec,
}

#[pymethods]
impl PyGame {
    #[new]
    fn new(spec: &str) -> PyResult<PyGame> {
        Ok(PyGame {
            spec: parse_spec(spec)?,
        })
    }

    /// The game's name: `kalah`, `oware` or `congkak`.
    #[getter]
    fn name(&self) -> &'static str {
        mancala_core::with_game!(&self.spec, game => mancala_core::Game::name(game))
    }

    /// Pits in each player's row.
    #[getter]
    fn pits(&self) -> usize {
        position::pits(&self.spec)
    }

    /// Seeds on the board at the start.
    #[getter]
    fn total_seeds(&self) -> usize {
        mancala_core::with_game!(&self.spec, game => mancala_core::Game::total_seeds(game))
    }

    /// The starting position.
    fn new_initial_state(&self) -> PyState {
        PyState::new(self.spec, position::start(&self.spec), None)
    }

    /// A position written in the project's notation (as `mancala show
    /// --position` reads it), e.g. `"4,4,4/4,4,4/0,0/0"`; `ValueError` for
    /// text that cannot be read or a position these rules do not allow.
    /// Its history starts there.
    fn state_from(&self, notation: &str) -> PyResult<PyState> {
        let pos = position::parse(&self.spec, notation).map_err(PyValueError::new_err)?;
        Ok(PyState::new(self.spec, pos, Some(notation.trim().into())))
    }

    /// Number of distinct actions: `pits + 1` (the last is the swap).
    fn num_distinct_actions(&self) -> usize {
        position::num_actions(&self.spec)
    }

    /// Shape of `State.observation_tensor()`: `(2 * pits + 3,)`, plus
    /// `2 * pits` in multi-round Congkak.
    fn observation_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, [position::observation_len(&self.spec)])
    }

    /// Always 2.
    fn num_players(&self) -> usize {
        2
    }

    // OpenSpiel's `pyspiel.Game` interface, so that code written for
    // `pyspiel.load_game(...)` runs on these games unchanged.

    /// OpenSpiel's game type: the `pyspiel.GameType` the games are
    /// registered with when `open_spiel` is installed, else an object with
    /// the same fields (`mancala.openspiel`).
    fn get_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("mancala._spiel")?
            .getattr("game_type")?
            .call1((self.name(),))
    }

    /// Every rule option with its value, defaults included, as OpenSpiel's
    /// `get_parameters()` gives them (`{"pits": 6, "seeds": 4, "pie":
    /// False, ...}`).
    fn get_parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("mancala._spiel")?
            .getattr("parameters")?
            .call1((self.spec.to_string(),))
    }

    /// The return of a win: 1.
    fn max_utility(&self) -> f64 {
        1.0
    }

    /// The return of a loss: -1.
    fn min_utility(&self) -> f64 {
        -1.0
    }

    /// Returns always sum to 0 (a zero-sum game).
    fn utility_sum(&self) -> f64 {
        0.0
    }

    /// The most moves a game can last (a bound that no game exceeds: see
    /// "How long a game lasts" in the rules; Oware's `max_plies`).
    fn max_game_length(&self) -> u64 {
        mancala_core::with_game!(&self.spec, game => mancala_core::Game::max_game_length(game))
    }

    /// As `max_game_length()`: every move is a player's.
    fn max_move_number(&self) -> u64 {
        self.max_game_length()
    }

    /// No chance nodes: 0.
    fn max_chance_outcomes(&self) -> usize {
        0
    }

    /// `[observation length]`, as OpenSpiel's list.
    fn observation_tensor_shape(&self) -> Vec<usize> {
        vec![position::observation_len(&self.spec)]
    }

    /// Entries of `State.observation_tensor()`.
    fn observation_tensor_size(&self) -> usize {
        position::observation_len(&self.spec)
    }

    /// The state that `State.serialize()` wrote; `ValueError` for text
    /// that is not one of this game's.
    fn deserialize_state(&self, text: &str) -> PyResult<PyState> {
        let (origin, actions) = match text.strip_prefix(SERIAL_POSITION) {
            Some(rest) => {
                let (first, rest) = rest.split_once('\n').unwrap_or((rest, ""));
                (Some(first), rest)
            }
            None => (None, text),
        };
        let history = actions
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| {
                l.parse::<i64>().map_err(|_| {
                    PyValueError::new_err(format!("not a serialized state: {l:?} is not an action"))
                })
            })
            .collect::<PyResult<Vec<i64>>>()?;
        self.replay(origin, &history)
    }

    fn __str__(&self) -> String {
        self.spec.to_string()
    }

    fn __repr__(&self) -> String {
        format!("mancala.Game({:?})", self.spec.to_string())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyGame>()
            .is_ok_and(|o| o.get().spec == self.spec)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.spec.hash(&mut h);
        h.finish()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((py.get_type::<PyGame>().into_any(), (self.spec.to_string(),)))
    }
}

/// What starts a serialized state that begins at a position read by
/// `state_from` (one from the start is its actions alone, one a line, as
/// OpenSpiel writes them).
const SERIAL_POSITION: &str = "position=";

impl PyGame {
    /// The state `history` leads to from `origin` (the start: `None`).
    fn replay(&self, origin: Option<&str>, history: &[i64]) -> PyResult<PyState> {
        let mut state = match origin {
            None => self.new_initial_state(),
            Some(text) => self.state_from(text)?,
        };
        for &a in history {
            state.apply(a)?;
        }
        Ok(state)
    }
}

/// One position of a game and the actions that led to it.
///
/// `current_player()` is 0 or 1, or `mancala.TERMINAL` (-4, as OpenSpiel's)
/// once the game is over. After an action, ask again: a Kalah move that
/// ends in the mover's store earns an extra turn.
#[pyclass(name = "State", module = "mancala")]
pub struct PyState {
    pub spec: GameSpec,
    pub pos: Box<dyn Position>,
    /// The position the history starts from, `None` for the start.
    pub origin: Option<Arc<str>>,
    /// Actions applied since.
    pub history: Vec<usize>,
    /// The last move and who played it, marked when the board is drawn.
    pub last: Option<(Player, Move)>,
}

impl PyState {
    pub fn new(spec: GameSpec, pos: Box<dyn Position>, origin: Option<Arc<str>>) -> PyState {
        PyState {
            spec,
            pos,
            origin,
            history: Vec::new(),
            last: None,
        }
    }

    fn pits(&self) -> usize {
        position::pits(&self.spec)
    }

    /// The move of action id `action`, or `ValueError` if there is none.
    pub fn move_of(&self, action: i64) -> PyResult<Move> {
        move_of_action(action, self.pits())
    }

    /// Plays `action` if it is legal, else `ValueError` with the command
    /// line's message (the state is unchanged).
    pub fn apply(&mut self, action: i64) -> PyResult<()> {
        let mv = self.move_of(action)?;
        let mover = self.pos.to_move();
        self.pos
            .play(mv)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        self.history.push(mv.action_index(self.pits()));
        self.last = mover.map(|p| (p, mv));
        Ok(())
    }

    /// Whether `player` (any player: `None`) is the one to move; the
    /// game's end is no one's move.
    fn is_to_move(&self, player: Option<i64>) -> PyResult<bool> {
        let mover = self.pos.to_move().map(|p| p.index() as i64);
        Ok(match player {
            None => mover.is_some(),
            Some(p) => {
                check_player(p)?;
                mover == Some(p)
            }
        })
    }
}

/// `player` as an index, or `ValueError` unless it is 0 or 1.
fn check_player(player: i64) -> PyResult<usize> {
    match player {
        0 | 1 => Ok(player as usize),
        _ => Err(PyValueError::new_err(format!(
            "player {player} does not exist: players are 0 and 1"
        ))),
    }
}

/// The move of action id `action` on a board of `pits` pits.
pub fn move_of_action(action: i64, pits: usize) -> PyResult<Move> {
    match usize::try_from(action) {
        Ok(a) if a <= pits => Ok(Move::from_action_index(a, pits)),
        _ => Err(PyValueError::new_err(format!(
            "action {action} does not exist: actions are 0..={pits} \
             (0..={} sow pits 1..={pits}, {pits} is the swap)",
            pits - 1
        ))),
    }
}

#[pymethods]
impl PyState {
    /// The game these rules belong to.
    fn get_game(&self) -> PyGame {
        PyGame { spec: self.spec }
    }

    /// The player to move (0 or 1), or `mancala.TERMINAL` (-4) once the
    /// game is over.
    fn current_player(&self) -> i64 {
        self.pos.to_move().map_or(TERMINAL, |p| p.index() as i64)
    }

    /// Whether the game is over.
    fn is_terminal(&self) -> bool {
        self.pos.to_move().is_none()
    }

    /// The legal actions, ascending: pits `0..pits` (pit 1 is 0), then
    /// the swap (`pits`) where the pie rule offers it. Empty once over,
    /// and (as OpenSpiel's) for a `player` who is not to move.
    #[pyo3(signature = (player = None))]
    fn legal_actions(&self, player: Option<i64>) -> PyResult<Vec<usize>> {
        if !self.is_to_move(player)? {
            return Ok(Vec::new());
        }
        let pits = self.pits();
        Ok(self
            .pos
            .legal()
            .into_iter()
            .map(|m| m.action_index(pits))
            .collect())
    }

    /// A boolean NumPy array of `num_distinct_actions()` entries, true
    /// for each legal action (all false for a `player` not to move).
    #[pyo3(signature = (player = None))]
    fn legal_actions_mask<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let pits = self.pits();
        let mut mask = vec![false; pits + 1];
        if self.is_to_move(player)? {
            for m in self.pos.legal() {
                mask[m.action_index(pits)] = true;
            }
        }
        Ok(PyArray1::from_vec(py, mask))
    }

    /// Plays `action` (an action id); `ValueError` for an action that does
    /// not exist or is not legal here, with the legal moves in the message.
    fn apply_action(&mut self, action: i64) -> PyResult<()> {
        self.apply(action)
    }

    /// A copy, history included.
    fn clone(&self) -> PyState {
        PyState {
            spec: self.spec,
            pos: self.pos.boxed_clone(),
            origin: self.origin.clone(),
            history: self.history.clone(),
            last: self.last,
        }
    }

    fn __copy__(&self) -> PyState {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyState {
        self.clone()
    }

    /// The result for each player: `[1.0, -1.0]` when player 0 won,
    /// `[0.0, 0.0]` for a draw or an unfinished game.
    fn returns(&self) -> [f32; 2] {
        position::returns(self.pos.outcome())
    }

    /// Player 0's seeds minus player 1's: the final margin once the game
    /// is over (leftovers counted as the rules say), else the difference
    /// of the stores so far.
    fn margin(&self) -> i64 {
        match self.pos.outcome() {
            Some(o) => i64::from(o.margin()),
            None => {
                let s = self.pos.scores();
                i64::from(s[Player::ZERO]) - i64::from(s[Player::ONE])
            }
        }
    }

    /// Seeds in each player's store (Oware: captured) now, `[p0, p1]`;
    /// once over, the final scores.
    fn scores(&self) -> [u32; 2] {
        let scores = match self.pos.outcome() {
            Some(o) => o.scores,
            None => self.pos.scores(),
        };
        // As ints: PyO3 would turn bytes-sized numbers into `bytes`.
        scores.0.map(u32::from)
    }

    /// The seeds of each pit, `[player 0's row, player 1's row]`, each in
    /// sowing order from pit 1 (burnt Congkak holes hold 0).
    fn rows(&self) -> [Vec<u32>; 2] {
        self.pos
            .setup()
            .rows
            .0
            .map(|row| row.into_iter().map(u32::from).collect())
    }

    /// The network input of the neural crate as a float32 NumPy array of
    /// `game.observation_shape()`, from the mover's point of view (player
    /// 0's once over) unless `player` says whose: own pits, the opponent's
    /// pits, own store, the opponent's store, then one entry (1 when the
    /// swap is offered; Oware: the share of `max_plies` played), every
    /// count divided by the board's seeds (multi-round Congkak: the share
    /// of `max_rounds` played, then each player's burnt holes).
    #[pyo3(signature = (player = None))]
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let mut out = vec![0f32; position::observation_len(&self.spec)];
        match player {
            None => self.pos.observe(&mut out),
            Some(p) => position::observe_for(
                self.pos.as_ref(),
                self.pits(),
                Player::new(check_player(p)?),
                &mut out,
            ),
        }
        Ok(PyArray1::from_vec(py, out))
    }

    /// The position in the project's notation, which `game.state_from`
    /// and `mancala show --position` read back.
    fn to_notation(&self) -> String {
        self.pos.setup().to_string()
    }

    /// The actions applied since the start (or the position read).
    fn history(&self) -> Vec<usize> {
        self.history.clone()
    }

    /// An action as people write it: the pit number from 1, or `swap`.
    /// Takes `(action)` or, as OpenSpiel's, `(player, action)`.
    #[pyo3(signature = (first, second = None))]
    fn action_to_string(&self, first: i64, second: Option<i64>) -> PyResult<String> {
        let action = match second {
            Some(action) => {
                check_player(first)?;
                action
            }
            None => first,
        };
        Ok(self.move_of(action)?.to_string())
    }

    /// The action id of a move as people write it (`"3"`, `"swap"`).
    fn string_to_action(&self, text: &str) -> PyResult<usize> {
        let mv = Move::parse_human(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let pits = self.pits();
        if matches!(mv, Move::Pit(p) if usize::from(p) >= pits) {
            return Err(PyValueError::new_err(format!(
                "no pit {mv} on a board of {pits} pits"
            )));
        }
        Ok(mv.action_index(pits))
    }

    // OpenSpiel's `pyspiel.State` interface.

    /// Never: these games have no chance.
    fn is_chance_node(&self) -> bool {
        false
    }

    /// Never: the players take turns.
    fn is_simultaneous_node(&self) -> bool {
        false
    }

    /// Whether a player is to move (the game is not over).
    fn is_player_node(&self) -> bool {
        !self.is_terminal()
    }

    /// The returns once the game is over, else `[0.0, 0.0]`: the only
    /// reward is the result (OpenSpiel's terminal reward model).
    fn rewards(&self) -> [f32; 2] {
        self.returns()
    }

    /// `returns()[player]`.
    fn player_return(&self, player: i64) -> PyResult<f32> {
        Ok(self.returns()[check_player(player)?])
    }

    /// `rewards()[player]`.
    fn player_reward(&self, player: i64) -> PyResult<f32> {
        self.player_return(player)
    }

    /// A copy with `action` applied (this state is unchanged).
    fn child(&self, action: i64) -> PyResult<PyState> {
        let mut child = self.clone();
        child.apply(action)?;
        Ok(child)
    }

    /// Moves played since the start (or the position read).
    fn move_number(&self) -> usize {
        self.history.len()
    }

    /// Takes back the last action, which `player` played; `ValueError` if
    /// that is not the last action or there is none.
    fn undo_action(&mut self, player: i64, action: i64) -> PyResult<()> {
        let last = self.history.last().copied();
        let by = self.last.map(|(p, _)| p.index() as i64);
        if last.map(|a| a as i64) != Some(action) || by != Some(player) {
            return Err(PyValueError::new_err(match (last, by) {
                (Some(a), Some(p)) => format!(
                    "cannot undo action {action} of player {player}: the last action is {a}, \
                     played by player {p}"
                ),
                _ => "cannot undo: no action has been applied to this state".to_string(),
            }));
        }
        let history: Vec<i64> = self.history[..self.history.len() - 1]
            .iter()
            .map(|&a| a as i64)
            .collect();
        *self = self.get_game().replay(self.origin.as_deref(), &history)?;
        Ok(())
    }

    /// A string that `game.deserialize_state` reads back: the actions, one
    /// a line, as OpenSpiel writes them (after `position=NOTATION` for a
    /// state that began at a position read).
    fn serialize(&self) -> String {
        let mut text = match &self.origin {
            Some(origin) => format!("{SERIAL_POSITION}{origin}\n"),
            None => String::new(),
        };
        for a in &self.history {
            text.push_str(&a.to_string());
            text.push('\n');
        }
        text
    }

    /// The actions so far, as OpenSpiel's `history_str()`: `"2, 5, 0"`.
    fn history_str(&self) -> String {
        let parts: Vec<String> = self.history.iter().map(usize::to_string).collect();
        parts.join(", ")
    }

    /// What a player sees: the whole position (the game has no hidden
    /// information), in the project's notation. The same for both players.
    #[pyo3(signature = (player = None))]
    fn observation_string(&self, player: Option<i64>) -> PyResult<String> {
        if let Some(p) = player {
            check_player(p)?;
        }
        Ok(self.to_notation())
    }

    /// What a player knows: everything that happened, the serialized
    /// state on one line.
    #[pyo3(signature = (player = None))]
    fn information_state_string(&self, player: Option<i64>) -> PyResult<String> {
        if let Some(p) = player {
            check_player(p)?;
        }
        Ok(self.serialize().trim_end().replace('\n', " "))
    }

    /// `pits + 1`, as the game's.
    fn num_distinct_actions(&self) -> usize {
        position::num_actions(&self.spec)
    }

    /// Always 2.
    fn num_players(&self) -> usize {
        2
    }

    /// The board as `mancala show` draws it, the last move marked.
    fn __str__(&self) -> String {
        mancala_core::board::render(&self.pos.setup(), self.last)
    }

    fn __repr__(&self) -> String {
        format!(
            "mancala.State({:?}, {:?})",
            self.spec.to_string(),
            self.pos.setup().to_string()
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyState>().is_ok_and(|o| {
            let o = o.borrow();
            o.spec == self.spec && o.pos.same_as(self.pos.as_ref())
        })
    }

    fn __hash__(&self) -> u64 {
        self.pos.key()
    }

    /// Pickling: the game, the position the history starts from (the
    /// start, or the one read by `state_from`) and the actions since,
    /// replayed on loading (so that an Oware state keeps what it has seen).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Pickled<'py>> {
        let restore = py.import("mancala._mancala")?.getattr("_restore_state")?;
        Ok((
            restore,
            (
                self.spec.to_string(),
                self.origin.as_deref().map(str::to_string),
                self.history.clone(),
            ),
        ))
    }
}

/// What pickles a state: the function that rebuilds it and its arguments
/// (the spec, the notation the history starts from, the actions).
type Pickled<'py> = (Bound<'py, PyAny>, (String, Option<String>, Vec<usize>));

/// Rebuilds a pickled state: the position `notation` of `spec`, then
/// `history` applied (`notation` `None`: from the start).
#[pyfunction]
pub fn _restore_state(spec: &str, notation: Option<&str>, history: Vec<i64>) -> PyResult<PyState> {
    let game = PyGame {
        spec: parse_spec(spec)?,
    };
    game.replay(notation, &history)
}
