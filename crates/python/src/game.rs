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
    /// the swap (`pits`) where the pie rule offers it. Empty once over.
    fn legal_actions(&self) -> Vec<usize> {
        let pits = self.pits();
        self.pos
            .legal()
            .into_iter()
            .map(|m| m.action_index(pits))
            .collect()
    }

    /// A boolean NumPy array of `num_distinct_actions()` entries, true
    /// for each legal action.
    fn legal_actions_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let pits = self.pits();
        let mut mask = vec![false; pits + 1];
        for m in self.pos.legal() {
            mask[m.action_index(pits)] = true;
        }
        PyArray1::from_vec(py, mask)
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
            Some(p @ (0 | 1)) => position::observe_for(
                self.pos.as_ref(),
                self.pits(),
                Player::new(p as usize),
                &mut out,
            ),
            Some(p) => {
                return Err(PyValueError::new_err(format!(
                    "player {p} does not exist: players are 0 and 1"
                )))
            }
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
    fn action_to_string(&self, action: i64) -> PyResult<String> {
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
    let mut state = match notation {
        None => game.new_initial_state(),
        Some(text) => game.state_from(text)?,
    };
    for a in history {
        state.apply(a)?;
    }
    Ok(state)
}
