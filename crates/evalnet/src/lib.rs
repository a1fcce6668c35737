//! A small value network for alpha-beta, run in plain Rust: the evaluation
//! that `minimax:eval=net:PATH` puts at the leaves of its search instead of
//! counting stores.
//!
//! The network reads a position from the mover's side and estimates what
//! is still to come: the final margin of perfect play minus the stores'
//! difference now, over the game's seeds. The stores are added back
//! exactly, so the network learns only the part that search cannot count
//! ([`ValueNet::margin`]).
//!
//! # Inputs
//! For a game of `pits` pits a row, with `buckets` buckets a pit and the
//! game's observation of length `observation` ([`Game::observe`]):
//! - `2 * pits * buckets` one-hot entries: for the mover's pits, then the
//!   opponent's, entry `pit * buckets + min(seeds, buckets - 1)` is 1. A
//!   pit's exact count is what decides sowing (a pit of `pits - i` seeds
//!   ends in the store; a count of 0 can be captured into), which a plain
//!   fraction makes a network learn the hard way.
//! - then the observation itself (seeds over the total, stores, the extra
//!   entries of each game).
//!
//! The first layer adds one row of weights for each of the `2 * pits`
//! one-hot entries that are set, instead of multiplying a mostly zero
//! vector ([`ValueNet::margin`] costs about what a dense layer over the
//! observation alone would).
//!
//! # File format
//! [safetensors](https://huggingface.co/docs/safetensors), little-endian
//! `F32` tensors in PyTorch's `nn.Linear` layout (`weight` is
//! `[outputs, inputs]`):
//!
//! | tensor | shape |
//! |---|---|
//! | `fc0.weight`, `fc0.bias` | `[h0, 2 * pits * buckets + observation]`, `[h0]` |
//! | `fc{k}.weight`, `fc{k}.bias` (k = 1, 2, ...) | `[hk, h(k-1)]`, `[hk]` |
//! | `value.weight`, `value.bias` | `[1, h_last]`, `[1]` |
//!
//! A ReLU follows each `fc` layer; `value` is linear. The header's
//! metadata holds `format` = [`FORMAT`], `game` (the game's name), `pits`,
//! `buckets` and `observation`; any other metadata (a training log's
//! summary, say) is kept and ignored. A file with a tensor missing, a shape
//! or type that does not fit, a value that is not finite or a tensor of any
//! other name is refused, naming the tensor.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::Path;

use mancala_core::Game;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};
use thiserror::Error;

pub mod policy;
pub mod train;

pub use policy::{
    network_kind, read_policy_file, NetworkKind, PolicyLayers, PolicyShape, PolicyValueNet,
    POLICY_FORMAT,
};
pub use train::{train, EpochReport, Example, TrainOptions};

/// The bytes of the file at `path`, refused past [`MAX_FILE_BYTES`]
/// (checked before reading and again while reading: the file may grow).
pub(crate) fn read_bounded(path: &Path) -> Result<Vec<u8>, EvalNetError> {
    let shown = path.display().to_string();
    let io = |source| EvalNetError::Io {
        path: shown.clone(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let bytes = file.metadata().map_err(io)?.len();
    let too_large = |bytes| EvalNetError::TooLarge {
        path: shown.clone(),
        bytes,
        max: MAX_FILE_BYTES,
    };
    if bytes > MAX_FILE_BYTES {
        return Err(too_large(bytes));
    }
    let mut data = Vec::with_capacity(bytes as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(io)?;
    if data.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(data.len() as u64));
    }
    Ok(data)
}

/// The `format` metadata of a value network file.
pub const FORMAT: &str = "mancala-evalnet-1";
/// The largest file [`ValueNet::load`] reads: far above any network that
/// alpha-beta could afford to evaluate at every leaf.
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// The widest layer a network may have (the forward pass keeps a layer on
/// the stack).
pub const MAX_WIDTH: usize = 1024;
/// The longest observation a network may read.
pub const MAX_OBSERVATION: usize = 256;
/// The most one-hot buckets a pit may have.
pub const MAX_BUCKETS: usize = 64;

/// Why a network was refused.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum EvalNetError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What failed.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_FILE_BYTES`].
    #[error("{path}: {bytes} bytes, more than the {max} bytes a network file may have")]
    TooLarge {
        /// The file.
        path: String,
        /// Its size.
        bytes: u64,
        /// The most accepted.
        max: u64,
    },
    /// The bytes are not a safetensors file.
    #[error("not a safetensors file: {0}")]
    NotSafetensors(String),
    /// A metadata entry is missing or wrong.
    #[error("metadata `{key}`: {why}")]
    Metadata {
        /// The entry.
        key: &'static str,
        /// What is wrong.
        why: String,
    },
    /// A tensor is missing, of another type or shape, or holds a value
    /// that is not finite; or the file holds a tensor of no known name.
    #[error("tensor `{name}`: {why}")]
    Tensor {
        /// The tensor.
        name: String,
        /// What is wrong.
        why: String,
    },
    /// The network was trained for another game or board.
    #[error("the network is for {net}, not {game}")]
    WrongGame {
        /// What the network reads.
        net: String,
        /// The game asked of it.
        game: String,
    },
}

/// What a network reads: the game, its board and the input encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inputs {
    /// The game's name (`kalah`, `oware`, `congkak`).
    pub game: String,
    /// Pits in a row.
    pub pits: usize,
    /// One-hot buckets a pit (counts from 0 to `buckets - 1`, the last
    /// bucket holding every larger count too).
    pub buckets: usize,
    /// Length of the game's observation ([`Game::observation_len`]).
    pub observation: usize,
}

impl Inputs {
    /// The inputs of a network for `game` with `buckets` buckets a pit.
    pub fn for_game<G: Game>(game: &G, buckets: usize) -> Inputs {
        Inputs {
            game: game.name().to_string(),
            pits: game.pits(),
            buckets,
            observation: game.observation_len(),
        }
    }

    /// Entries of the one-hot part.
    pub fn one_hot_len(&self) -> usize {
        2 * self.pits * self.buckets
    }

    /// Length of the whole input vector.
    pub fn len(&self) -> usize {
        self.one_hot_len() + self.observation
    }

    /// Whether the input vector is empty (never, for a real game).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks that a network with these inputs can read `game`'s positions.
    ///
    /// # Errors
    /// [`EvalNetError::WrongGame`] naming both.
    pub fn check<G: Game>(&self, game: &G) -> Result<(), EvalNetError> {
        if self.game != game.name()
            || self.pits != game.pits()
            || self.observation != game.observation_len()
        {
            return Err(EvalNetError::WrongGame {
                net: self.to_string(),
                game: format!(
                    "{game} ({} pits a row, an observation of {})",
                    game.pits(),
                    game.observation_len()
                ),
            });
        }
        Ok(())
    }

    /// Writes the whole input vector of `state` (mover's side) into `out`,
    /// of length [`Inputs::len`], for training; `obs` is scratch of length
    /// `observation`. Returns the stores' difference for the mover, in
    /// seeds, which the network's estimate is added to.
    ///
    /// # Panics
    /// If the lengths do not fit or the network was made for another game.
    pub fn encode<G: Game>(
        &self,
        game: &G,
        state: &G::State,
        obs: &mut [f32],
        out: &mut [f32],
    ) -> f32 {
        game.observe(state, obs);
        out.fill(0.0);
        let total = game.total_seeds() as f32;
        for (pit, &x) in obs[..2 * self.pits].iter().enumerate() {
            out[pit * self.buckets + self.bucket(x, total)] = 1.0;
        }
        out[self.one_hot_len()..].copy_from_slice(obs);
        stores(obs, self.pits, total)
    }

    /// The bucket of a pit whose observation is `x` (seeds over `total`).
    #[inline]
    fn bucket(&self, x: f32, total: f32) -> usize {
        ((x * total).round() as usize).min(self.buckets - 1)
    }
}

impl fmt::Display for Inputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({} pits a row, an observation of {}, {} buckets a pit)",
            self.game, self.pits, self.observation, self.buckets
        )
    }
}

/// One dense layer: `outputs` rows of `inputs` weights, PyTorch's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    /// Units in.
    pub inputs: usize,
    /// Units out.
    pub outputs: usize,
    /// `outputs * inputs` weights, row by row.
    pub weight: Vec<f32>,
    /// `outputs` biases.
    pub bias: Vec<f32>,
}

impl Layer {
    /// `out = weight * x + bias`.
    #[inline]
    pub(crate) fn apply(&self, x: &[f32], out: &mut [f32]) {
        for ((o, row), b) in out
            .iter_mut()
            .zip(self.weight.chunks_exact(self.inputs))
            .zip(&self.bias)
        {
            *o = b + dot(row, x);
        }
    }

    /// [`Layer::apply`] to `rows` inputs laid end to end, writing `rows`
    /// outputs end to end: each weight row is read once for all the inputs
    /// (a wide layer's weights do not fit the cache; a batch reads them
    /// once instead of once a position).
    pub(crate) fn apply_rows(&self, x: &[f32], rows: usize, out: &mut [f32]) {
        for (o, (row, b)) in self
            .weight
            .chunks_exact(self.inputs)
            .zip(&self.bias)
            .enumerate()
        {
            for r in 0..rows {
                out[r * self.outputs + o] =
                    b + dot(row, &x[r * self.inputs..(r + 1) * self.inputs]);
            }
        }
    }
}

/// A dot product in eight lanes, which the compiler turns into vector
/// instructions (a plain fold must keep the order of its additions).
#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (a8, a_rest) = a.split_at(a.len() - a.len() % 8);
    let (b8, b_rest) = b.split_at(a8.len());
    for (x, y) in a8.chunks_exact(8).zip(b8.chunks_exact(8)) {
        for k in 0..8 {
            lanes[k] += x[k] * y[k];
        }
    }
    let mut sum = lanes.iter().sum::<f32>();
    for (x, y) in a_rest.iter().zip(b_rest) {
        sum += x * y;
    }
    sum
}

/// A value network: the layers of the file, the first kept input-major so
/// that a one-hot entry's weights are one contiguous row.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueNet {
    inputs: Inputs,
    /// The `fc` layers then `value`, as in the file.
    layers: Vec<Layer>,
    /// `fc0`'s weights transposed: row `i` holds input `i`'s weight into
    /// each of `fc0`'s units.
    first_by_input: Vec<f32>,
    /// Metadata beyond the format's own, kept for the file written back.
    extra: Vec<(String, String)>,
}

impl ValueNet {
    /// A network from its layers (the `fc` layers then the value layer).
    ///
    /// # Errors
    /// [`EvalNetError::Tensor`] for layers whose sizes do not chain, a
    /// value layer of more than one output or a value that is not finite;
    /// [`EvalNetError::Metadata`] for inputs out of bounds.
    pub fn new(inputs: Inputs, layers: Vec<Layer>) -> Result<ValueNet, EvalNetError> {
        check_inputs(&inputs)?;
        let mut expected = inputs.len();
        for (k, layer) in layers.iter().enumerate() {
            let name = layer_name(k, layers.len());
            let last = k + 1 == layers.len();
            let outputs_ok = if last {
                layer.outputs == 1
            } else {
                (1..=MAX_WIDTH).contains(&layer.outputs)
            };
            if layer.inputs != expected
                || !outputs_ok
                || layer.weight.len() != layer.inputs * layer.outputs
                || layer.bias.len() != layer.outputs
            {
                return Err(EvalNetError::Tensor {
                    name: format!("{name}.weight"),
                    why: format!(
                        "{} weights for {} outputs of {} inputs, expected {} inputs{}",
                        layer.weight.len(),
                        layer.outputs,
                        layer.inputs,
                        expected,
                        if last {
                            " and 1 output".to_string()
                        } else {
                            format!(" and 1 to {MAX_WIDTH} outputs")
                        }
                    ),
                });
            }
            for (part, values) in [("weight", &layer.weight), ("bias", &layer.bias)] {
                if let Some(i) = values.iter().position(|v| !v.is_finite()) {
                    return Err(EvalNetError::Tensor {
                        name: format!("{name}.{part}"),
                        why: format!("entry {i} is {}, not a finite number", values[i]),
                    });
                }
            }
            expected = layer.outputs;
        }
        if layers.len() < 2 {
            return Err(EvalNetError::Tensor {
                name: "fc0.weight".into(),
                why: "missing: a network has at least one hidden layer and the value layer".into(),
            });
        }
        let first = &layers[0];
        let mut first_by_input = vec![0.0; first.weight.len()];
        for (unit, row) in first.weight.chunks_exact(first.inputs).enumerate() {
            for (input, &w) in row.iter().enumerate() {
                first_by_input[input * first.outputs + unit] = w;
            }
        }
        Ok(ValueNet {
            inputs,
            layers,
            first_by_input,
            extra: Vec::new(),
        })
    }

    /// A network of seeded random weights (uniform within one over the
    /// square root of each layer's inputs) with these hidden widths: for
    /// tests, and a start that training moves away from.
    ///
    /// # Errors
    /// As [`ValueNet::new`], for widths out of bounds.
    pub fn seeded(inputs: Inputs, hidden: &[usize], seed: u64) -> Result<ValueNet, EvalNetError> {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut layers = Vec::new();
        let mut fan_in = inputs.len();
        for &outputs in hidden.iter().chain(std::iter::once(&1)) {
            let scale = 1.0 / (fan_in.max(1) as f32).sqrt();
            layers.push(Layer {
                inputs: fan_in,
                outputs,
                weight: (0..fan_in * outputs)
                    .map(|_| rng.random_range(-scale..scale))
                    .collect(),
                bias: (0..outputs).map(|_| rng.random_range(-0.1..0.1)).collect(),
            });
            fan_in = outputs;
        }
        ValueNet::new(inputs, layers)
    }

    /// What the network reads.
    pub fn inputs(&self) -> &Inputs {
        &self.inputs
    }

    /// The layers, `fc0` first and the value layer last.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Widths of the hidden layers, as in `64x32`.
    pub fn hidden(&self) -> Vec<usize> {
        self.layers[..self.layers.len() - 1]
            .iter()
            .map(|l| l.outputs)
            .collect()
    }

    /// Multiply–adds of one evaluation (the one-hot part counted as the
    /// additions it costs).
    pub fn cost(&self) -> usize {
        let first = &self.layers[0];
        first.outputs * (2 * self.inputs.pits + self.inputs.observation)
            + self.layers[1..]
                .iter()
                .map(|l| l.inputs * l.outputs)
                .sum::<usize>()
    }

    /// Metadata beyond the format's own (kept from the file, written back).
    pub fn extra_metadata(&self) -> &[(String, String)] {
        &self.extra
    }

    /// This network with `key = value` added to its extra metadata.
    pub fn with_metadata(mut self, key: &str, value: &str) -> ValueNet {
        self.extra.retain(|(k, _)| k != key);
        self.extra.push((key.to_string(), value.to_string()));
        self
    }

    /// The network's raw output for `state` (mover's side): the final
    /// margin still to come beyond the stores' difference, over the seeds.
    /// Together with that difference, in seeds, as `(output, stores)`.
    ///
    /// The caller has checked the network against the game
    /// ([`Inputs::check`]).
    #[inline]
    pub fn forward<G: Game>(&self, game: &G, state: &G::State) -> (f32, f32) {
        SCRATCH.with(|cell| {
            let mut scratch = cell.borrow_mut();
            self.forward_in(&mut scratch, game, state)
        })
    }

    fn forward_in<G: Game>(&self, scratch: &mut Scratch, game: &G, state: &G::State) -> (f32, f32) {
        let inputs = &self.inputs;
        let first = &self.layers[0];
        let width = first.outputs;
        let widest = self.layers.iter().map(|l| l.outputs).max().unwrap_or(1);
        scratch.fit(inputs.observation, widest);
        let Scratch { obs, a, b } = scratch;
        let obs = &mut obs[..inputs.observation];
        game.observe(state, obs);
        let total = game.total_seeds() as f32;
        let h = &mut a[..width];
        h.copy_from_slice(&first.bias);
        for (pit, &x) in obs[..2 * inputs.pits].iter().enumerate() {
            let row = (pit * inputs.buckets + inputs.bucket(x, total)) * width;
            for (v, w) in h.iter_mut().zip(&self.first_by_input[row..row + width]) {
                *v += w;
            }
        }
        let dense = inputs.one_hot_len() * width;
        for (i, &x) in obs.iter().enumerate() {
            if x != 0.0 {
                let row = dense + i * width;
                for (v, w) in h.iter_mut().zip(&self.first_by_input[row..row + width]) {
                    *v += x * w;
                }
            }
        }
        relu(h);
        // The remaining layers, ping-ponging between the two buffers.
        let (mut cur, mut next) = (a, b);
        let mut len = width;
        let last = self.layers.len() - 1;
        for (k, layer) in self.layers.iter().enumerate().skip(1) {
            layer.apply(&cur[..len], &mut next[..layer.outputs]);
            len = layer.outputs;
            if k < last {
                relu(&mut next[..len]);
            }
            std::mem::swap(&mut cur, &mut next);
        }
        (cur[0], stores(obs, inputs.pits, total))
    }

    /// The estimated final margin of `state` for the player to move, in
    /// seeds: the stores' difference plus what the network expects still
    /// to come.
    #[inline]
    pub fn margin<G: Game>(&self, game: &G, state: &G::State) -> f32 {
        let (output, stores) = self.forward(game, state);
        stores + output * game.total_seeds() as f32
    }

    /// Reads a network file.
    ///
    /// # Errors
    /// [`EvalNetError::Io`], [`EvalNetError::TooLarge`], and what
    /// [`ValueNet::from_bytes`] refuses.
    pub fn load(path: &Path) -> Result<ValueNet, EvalNetError> {
        ValueNet::from_bytes(&read_bounded(path)?)
    }

    /// Reads a network from the bytes of a file.
    ///
    /// # Errors
    /// [`EvalNetError::NotSafetensors`], [`EvalNetError::Metadata`] or
    /// [`EvalNetError::Tensor`], saying what does not fit.
    pub fn from_bytes(data: &[u8]) -> Result<ValueNet, EvalNetError> {
        let (_, header) = SafeTensors::read_metadata(data)
            .map_err(|e| EvalNetError::NotSafetensors(e.to_string()))?;
        let tensors = SafeTensors::deserialize(data)
            .map_err(|e| EvalNetError::NotSafetensors(e.to_string()))?;
        let meta = header.metadata().clone().unwrap_or_default();
        let inputs = read_inputs(&meta)?;
        let mut extra: Vec<(String, String)> = meta
            .into_iter()
            .filter(|(k, _)| !OWN_METADATA.contains(&k.as_str()))
            .collect();
        extra.sort();

        let mut hidden = 0;
        while tensors.tensor(&format!("fc{hidden}.weight")).is_ok() {
            hidden += 1;
        }
        let mut layers = Vec::new();
        let mut inputs_len = inputs.len();
        for k in 0..=hidden {
            let name = layer_name(k, hidden + 1);
            let weight = read_tensor(&tensors, &format!("{name}.weight"))?;
            let bias = read_tensor(&tensors, &format!("{name}.bias"))?;
            let outputs = match (weight.0.as_slice(), bias.0.as_slice()) {
                ([o, i], [ob]) if *i == inputs_len && o == ob => *o,
                _ => {
                    return Err(EvalNetError::Tensor {
                        name: format!("{name}.weight"),
                        why: format!(
                            "shapes {:?} and {:?} (bias), expected [N, {inputs_len}] and [N]",
                            weight.0, bias.0
                        ),
                    })
                }
            };
            layers.push(Layer {
                inputs: inputs_len,
                outputs,
                weight: weight.1,
                bias: bias.1,
            });
            inputs_len = outputs;
        }
        let known = 2 * (hidden + 1);
        if tensors.len() != known {
            let unknown = tensors
                .names()
                .into_iter()
                .find(|n| !is_layer_tensor(n, hidden))
                .cloned()
                .unwrap_or_default();
            return Err(EvalNetError::Tensor {
                name: unknown,
                why: format!(
                    "not a tensor of this network ({known} expected: fc0 to fc{} and value, \
                     weight and bias each)",
                    hidden.saturating_sub(1)
                ),
            });
        }
        let mut net = ValueNet::new(inputs, layers)?;
        net.extra = extra;
        Ok(net)
    }

    /// The network as the bytes of a safetensors file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut meta: HashMap<String, String> = self.extra.iter().cloned().collect();
        meta.insert("format".into(), FORMAT.into());
        meta.insert("game".into(), self.inputs.game.clone());
        meta.insert("pits".into(), self.inputs.pits.to_string());
        meta.insert("buckets".into(), self.inputs.buckets.to_string());
        meta.insert("observation".into(), self.inputs.observation.to_string());
        let n = self.layers.len();
        let named: Vec<(String, &Layer)> = self
            .layers
            .iter()
            .enumerate()
            .map(|(k, layer)| (layer_name(k, n), layer))
            .collect();
        layers_file(&named, meta)
    }

    /// Writes the network to `path`.
    ///
    /// # Errors
    /// [`EvalNetError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), EvalNetError> {
        write_file(path, &self.to_bytes())
    }
}

/// The bytes of a safetensors file of `layers` (each layer `name` as the
/// `F32` tensors `{name}.weight` and `{name}.bias`) with `meta`.
pub(crate) fn layers_file(layers: &[(String, &Layer)], meta: HashMap<String, String>) -> Vec<u8> {
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = layers
        .iter()
        .flat_map(|(name, l)| {
            [
                (
                    format!("{name}.weight"),
                    vec![l.outputs, l.inputs],
                    le_bytes(&l.weight),
                ),
                (format!("{name}.bias"), vec![l.outputs], le_bytes(&l.bias)),
            ]
        })
        .collect();
    let views: Vec<(String, TensorView<'_>)> = bytes
        .iter()
        .map(|(name, shape, data)| {
            let view = TensorView::new(Dtype::F32, shape.clone(), data)
                .expect("a layer's bytes fit its shape");
            (name.clone(), view)
        })
        .collect();
    safetensors::serialize(views, &Some(meta)).expect("f32 tensors serialize")
}

/// Writes a network file.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), EvalNetError> {
    std::fs::write(path, bytes).map_err(|source| EvalNetError::Io {
        path: path.display().to_string(),
        source,
    })
}

impl fmt::Display for ValueNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hidden: Vec<String> = self.hidden().iter().map(usize::to_string).collect();
        write!(
            f,
            "{} -> {} -> 1 on {}",
            self.inputs.len(),
            hidden.join("x"),
            self.inputs
        )
    }
}

/// The metadata keys the format itself uses.
const OWN_METADATA: [&str; 5] = ["format", "game", "pits", "buckets", "observation"];

/// `fc{k}`, or `value` for the last layer.
fn layer_name(k: usize, layers: usize) -> String {
    if k + 1 == layers {
        "value".to_string()
    } else {
        format!("fc{k}")
    }
}

fn is_layer_tensor(name: &str, hidden: usize) -> bool {
    (0..hidden)
        .map(|k| format!("fc{k}"))
        .chain(std::iter::once("value".to_string()))
        .any(|l| name == format!("{l}.weight") || name == format!("{l}.bias"))
}

/// Buffers of a forward pass, one set a thread, grown to the largest
/// network met: a pass allocates nothing and zeroes nothing.
#[derive(Default)]
struct Scratch {
    obs: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
}

impl Scratch {
    #[inline]
    fn fit(&mut self, observation: usize, width: usize) {
        if self.obs.len() < observation {
            self.obs.resize(observation, 0.0);
        }
        if self.a.len() < width {
            self.a.resize(width, 0.0);
            self.b.resize(width, 0.0);
        }
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// The stores' difference for the mover, in whole seeds, from an
/// observation (whose entries are seeds over the total).
#[inline]
fn stores(obs: &[f32], pits: usize, total: f32) -> f32 {
    ((obs[2 * pits] - obs[2 * pits + 1]) * total).round()
}

pub(crate) fn relu(v: &mut [f32]) {
    for x in v {
        *x = x.max(0.0);
    }
}

pub(crate) fn le_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn check_inputs(inputs: &Inputs) -> Result<(), EvalNetError> {
    let bad = |key, why: String| Err(EvalNetError::Metadata { key, why });
    if inputs.pits == 0 || inputs.pits > 64 {
        return bad("pits", format!("{}, expected 1 to 64", inputs.pits));
    }
    if inputs.buckets == 0 || inputs.buckets > MAX_BUCKETS {
        return bad(
            "buckets",
            format!("{}, expected 1 to {MAX_BUCKETS}", inputs.buckets),
        );
    }
    if inputs.observation < 2 * inputs.pits + 2 || inputs.observation > MAX_OBSERVATION {
        return bad(
            "observation",
            format!(
                "{}, expected {} to {MAX_OBSERVATION} (the pits and stores at least)",
                inputs.observation,
                2 * inputs.pits + 2
            ),
        );
    }
    Ok(())
}

fn read_inputs(meta: &HashMap<String, String>) -> Result<Inputs, EvalNetError> {
    let get = |key: &'static str| {
        meta.get(key).ok_or_else(|| EvalNetError::Metadata {
            key,
            why: "missing: not a value network of this toolkit".into(),
        })
    };
    let number = |key: &'static str| -> Result<usize, EvalNetError> {
        let text = get(key)?;
        text.parse().map_err(|_| EvalNetError::Metadata {
            key,
            why: format!("'{text}' is not a whole number"),
        })
    };
    let format = get("format")?;
    if format != FORMAT {
        return Err(EvalNetError::Metadata {
            key: "format",
            why: format!("'{format}', expected '{FORMAT}'"),
        });
    }
    let inputs = Inputs {
        game: get("game")?.clone(),
        pits: number("pits")?,
        buckets: number("buckets")?,
        observation: number("observation")?,
    };
    check_inputs(&inputs)?;
    Ok(inputs)
}

/// A tensor's shape and values, refused unless it is `F32`.
pub(crate) fn read_tensor(
    tensors: &SafeTensors<'_>,
    name: &str,
) -> Result<(Vec<usize>, Vec<f32>), EvalNetError> {
    let view = tensors.tensor(name).map_err(|_| EvalNetError::Tensor {
        name: name.to_string(),
        why: "missing".into(),
    })?;
    if view.dtype() != Dtype::F32 {
        return Err(EvalNetError::Tensor {
            name: name.to_string(),
            why: format!("type {:?}, expected F32", view.dtype()),
        });
    }
    let values = view
        .data()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Ok((view.shape().to_vec(), values))
}

#[cfg(test)]
mod tests;
