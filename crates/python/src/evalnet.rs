//! `mancala.EvalNet`: the learned evaluation of `minimax:eval=net:PATH`
//! from Python: read, build from NumPy arrays, save, evaluate, and the
//! input encoding a network is trained on, so that a network trained in
//! NumPy or PyTorch plays in the toolkit by its file's path.

use std::path::PathBuf;

use mancala_core::{Game, GameSpec};
use mancala_evalnet::{Inputs, Layer, ValueNet};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::game::{PyGame, PyState};
use crate::position::Pos;

/// Two NumPy arrays: a layer's `(weight, bias)`, or `net_inputs`' inputs
/// and stores.
type LayerArrays<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<f32>>);

/// A value network for alpha-beta (`minimax:eval=net:PATH`): a safetensors
/// file of `fc0 ... fcK` and `value` layers in `nn.Linear`'s layout, for
/// one game and board (see `docs/training.md`, "The file").
///
/// `EvalNet(path)` reads one (`ValueError` naming the tensor or entry that
/// is wrong); `EvalNet.from_layers(game, layers, buckets)` builds one from
/// `(weight, bias)` pairs of NumPy arrays; `save(path)` writes it.
/// `margin(state)` is its estimate of the final margin for the player to
/// move, in seeds, as the search uses it; `inputs(states)` is what it
/// reads, for training.
#[pyclass(name = "EvalNet", module = "mancala", frozen)]
pub struct PyEvalNet {
    net: ValueNet,
}

#[pymethods]
impl PyEvalNet {
    #[new]
    fn new(path: PathBuf) -> PyResult<PyEvalNet> {
        let net = ValueNet::load(&path).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyEvalNet { net })
    }

    /// A network for `game` (a `Game` or a spec) from its layers: a list of
    /// `(weight, bias)` float32 arrays, `weight` of shape `(outputs,
    /// inputs)`, the first reading `input_len(game, buckets)` inputs and
    /// the last giving one output; ReLU between them. `metadata` (a dict
    /// of strings) is kept in the file.
    #[staticmethod]
    #[pyo3(signature = (game, layers, buckets, metadata = None))]
    fn from_layers(
        game: &Bound<'_, PyAny>,
        layers: &Bound<'_, PyList>,
        buckets: usize,
        metadata: Option<std::collections::BTreeMap<String, String>>,
    ) -> PyResult<PyEvalNet> {
        let spec = spec_of(game)?;
        let inputs = inputs_for(&spec, buckets);
        let mut built = Vec::with_capacity(layers.len());
        for (k, pair) in layers.iter().enumerate() {
            let (weight, bias): (PyReadonlyArray2<'_, f32>, PyReadonlyArray1<'_, f32>) =
                pair.extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "layers[{k}]: a (weight, bias) pair of float32 arrays expected"
                    ))
                })?;
            let weight = weight.as_array();
            let (outputs, width) = weight.dim();
            built.push(Layer {
                inputs: width,
                outputs,
                weight: weight.iter().copied().collect(),
                bias: bias.as_array().iter().copied().collect(),
            });
        }
        let mut net =
            ValueNet::new(inputs, built).map_err(|e| PyValueError::new_err(e.to_string()))?;
        for (key, value) in metadata.unwrap_or_default() {
            net = net.with_metadata(&key, &value);
        }
        Ok(PyEvalNet { net })
    }

    /// Writes the network to `path` (a safetensors file).
    fn save(&self, path: PathBuf) -> PyResult<()> {
        self.net
            .save(&path)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The game the network reads (`kalah`, `oware` or `congkak`).
    #[getter]
    fn game(&self) -> String {
        self.net.inputs().game.clone()
    }

    /// Pits a row of the board it reads.
    #[getter]
    fn pits(&self) -> usize {
        self.net.inputs().pits
    }

    /// One-hot buckets a pit.
    #[getter]
    fn buckets(&self) -> usize {
        self.net.inputs().buckets
    }

    /// The hidden layers' widths.
    #[getter]
    fn hidden(&self) -> Vec<usize> {
        self.net.hidden()
    }

    /// The layers as `(weight, bias)` float32 arrays (copies), PyTorch's
    /// layout.
    fn layers<'py>(&self, py: Python<'py>) -> PyResult<Vec<LayerArrays<'py>>> {
        self.net
            .layers()
            .iter()
            .map(|l| {
                let weight = PyArray1::from_slice(py, &l.weight).reshape([l.outputs, l.inputs])?;
                Ok((weight, PyArray1::from_slice(py, &l.bias)))
            })
            .collect()
    }

    /// The estimated final margin of `state` for the player to move, in
    /// seeds (`ValueError` for a state of another game or board).
    fn margin(&self, state: &PyState) -> PyResult<f32> {
        mancala_core::with_game!(&state.spec, game => {
            self.net
                .inputs()
                .check(game)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Ok(self.net.margin(game, &state_of(game, state)))
        })
    }

    fn __repr__(&self) -> String {
        format!("EvalNet({})", self.net)
    }
}

/// `state`'s position as a position of `game` (its spec's game).
fn state_of<G: Game>(_game: &G, state: &PyState) -> G::State {
    let pos = state.pos.as_any().downcast_ref::<Pos<G>>();
    pos.expect("a state's position is of its spec's game")
        .state
        .clone()
}

/// A game spec from a `Game` or a spec string.
fn spec_of(game: &Bound<'_, PyAny>) -> PyResult<GameSpec> {
    match game.cast::<PyGame>() {
        Ok(g) => Ok(g.get().spec),
        Err(_) => crate::game::parse_spec(&game.extract::<String>()?),
    }
}

fn inputs_for(spec: &GameSpec, buckets: usize) -> Inputs {
    mancala_core::with_game!(spec, game => Inputs::for_game(game, buckets))
}

/// What a network with `buckets` buckets a pit reads of `states` (`State`s
/// or positions in the project's notation, of `game`): float32 `(n,
/// input_len)`, the one-hot pits (the mover's row, then the opponent's)
/// and the observation; and float32 `(n,)`, each position's stores'
/// difference for the mover, in seeds. A network's output `y` estimates
/// `(final margin - stores) / total seeds`, so train on `(values - stores)
/// / game.total_seeds()`.
#[pyfunction]
#[pyo3(signature = (game, states, buckets))]
pub fn net_inputs<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    states: &Bound<'py, PyAny>,
    buckets: usize,
) -> PyResult<LayerArrays<'py>> {
    let spec = spec_of(game)?;
    if !(2..=mancala_evalnet::MAX_BUCKETS).contains(&buckets) {
        return Err(PyValueError::new_err(format!(
            "buckets must be from 2 to {}, not {buckets}",
            mancala_evalnet::MAX_BUCKETS
        )));
    }
    let items: Vec<Bound<'py, PyAny>> = states.try_iter()?.collect::<PyResult<_>>()?;
    mancala_core::with_game!(&spec, g => {
        let inputs = Inputs::for_game(g, buckets);
        let width = inputs.len();
        let mut x = vec![0.0f32; items.len() * width];
        let mut stores = vec![0.0f32; items.len()];
        let mut obs = vec![0.0f32; inputs.observation];
        for (i, item) in items.iter().enumerate() {
            let state = if let Ok(s) = item.cast::<PyState>() {
                let s = s.borrow();
                if s.spec != spec {
                    return Err(PyValueError::new_err(format!(
                        "states[{i}] is a state of {}, not {spec}",
                        s.spec
                    )));
                }
                state_of(g, &s)
            } else if let Ok(text) = item.extract::<String>() {
                g.parse_position(&text)
                    .map_err(|e| PyValueError::new_err(format!("states[{i}]: {e}")))?
            } else {
                return Err(PyTypeError::new_err(format!(
                    "states[{i}]: a State or a position in notation expected"
                )));
            };
            stores[i] = inputs.encode(g, &state, &mut obs, &mut x[i * width..(i + 1) * width]);
        }
        let x = PyArray1::from_vec(py, x).reshape([items.len(), width])?;
        Ok((x, PyArray1::from_vec(py, stores)))
    })
}
