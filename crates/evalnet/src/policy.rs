//! The policy–value network of the `neural` agent, run in plain Rust: the
//! residual MLP that AlphaZero-style training writes, read from a
//! safetensors file, so that a trained network plays (in tournaments, the
//! web app, `analyze accuracy`, the Python package) without libtorch.
//!
//! # The network
//! It reads a position's observation ([`Game::observe`], the mover's side)
//! and gives one logit per action and a value in -1..1 for the mover:
//!
//! ```text
//! h = relu(input(x))
//! for each block: h = relu(h + fc2(relu(fc1(h))))
//! logits = policy(h)
//! value = tanh(value(relu(value_hidden(h))))
//! ```
//!
//! # File format
//! Little-endian `F32` tensors in PyTorch's `nn.Linear` layout (`weight`
//! is `[outputs, inputs]`), named as a PyTorch module of that structure
//! names them in its `state_dict`, with `hidden` units and `blocks` blocks:
//!
//! | tensor | shape |
//! |---|---|
//! | `input.weight`, `input.bias` | `[hidden, inputs]`, `[hidden]` |
//! | `block{b}.fc1.weight`, `block{b}.fc2.weight` (and `.bias`) | `[hidden, hidden]`, `[hidden]` |
//! | `policy.weight`, `policy.bias` | `[actions, hidden]`, `[actions]` |
//! | `value_hidden.weight`, `value_hidden.bias` | `[v, hidden]`, `[v]` |
//! | `value.weight`, `value.bias` | `[1, v]`, `[1]` |
//!
//! The header's metadata holds `format` = [`POLICY_FORMAT`] and `game`,
//! the game spec it was trained for (`kalah:pits=6,seeds=4`); other
//! metadata is kept. The sizes are read from the tensors; a file with a
//! tensor missing, a shape that does not chain, a value that is not finite
//! or a tensor of another name is refused, naming the tensor.

use std::collections::HashMap;
use std::path::Path;

use mancala_core::Game;
use safetensors::SafeTensors;

use crate::{
    layers_file, read_bounded, read_tensor, relu, write_file, EvalNetError, Layer, MAX_WIDTH,
};

/// The `format` metadata of a policy–value network file.
pub const POLICY_FORMAT: &str = "mancala-pvnet-1";

/// The most residual blocks a network may have.
pub const MAX_BLOCKS: usize = 64;

/// The sizes of a policy–value network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyShape {
    /// Observation length (the game's `observation_len`).
    pub inputs: usize,
    /// Policy length (the game's `num_actions`).
    pub actions: usize,
    /// Width of the hidden layers.
    pub hidden: usize,
    /// Residual blocks (two layers each).
    pub blocks: usize,
    /// Width of the value head's hidden layer.
    pub value_hidden: usize,
}

/// A residual MLP with a policy head and a value head, in plain Rust.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyValueNet {
    /// The game spec it was trained for.
    game: String,
    shape: PolicyShape,
    input: Layer,
    blocks: Vec<(Layer, Layer)>,
    policy: Layer,
    value_hidden: Layer,
    value: Layer,
    /// Metadata beyond the format's own, kept for the file written back.
    extra: Vec<(String, String)>,
}

/// The layers of a network by name, as a file holds them.
pub struct PolicyLayers {
    /// `input`.
    pub input: Layer,
    /// `block{b}.fc1` and `block{b}.fc2`.
    pub blocks: Vec<(Layer, Layer)>,
    /// `policy`.
    pub policy: Layer,
    /// `value_hidden`.
    pub value_hidden: Layer,
    /// `value`.
    pub value: Layer,
}

impl PolicyValueNet {
    /// A network for `game` (a game spec) from its layers.
    ///
    /// # Errors
    /// [`EvalNetError::Tensor`] naming the first layer whose sizes do not
    /// chain or that holds a value that is not finite.
    pub fn new(game: &str, layers: PolicyLayers) -> Result<PolicyValueNet, EvalNetError> {
        let PolicyLayers {
            input,
            blocks,
            policy,
            value_hidden,
            value,
        } = layers;
        let hidden = input.outputs;
        let shape = PolicyShape {
            inputs: input.inputs,
            actions: policy.outputs,
            hidden,
            blocks: blocks.len(),
            value_hidden: value_hidden.outputs,
        };
        if blocks.len() > MAX_BLOCKS {
            return Err(EvalNetError::Tensor {
                name: format!("block{MAX_BLOCKS}.fc1.weight"),
                why: format!("{} blocks, at most {MAX_BLOCKS}", blocks.len()),
            });
        }
        check_layer("input", &input, input.inputs, 1..=MAX_WIDTH)?;
        for (b, (fc1, fc2)) in blocks.iter().enumerate() {
            check_layer(&format!("block{b}.fc1"), fc1, hidden, hidden..=hidden)?;
            check_layer(&format!("block{b}.fc2"), fc2, hidden, hidden..=hidden)?;
        }
        check_layer("policy", &policy, hidden, 1..=MAX_WIDTH)?;
        check_layer("value_hidden", &value_hidden, hidden, 1..=MAX_WIDTH)?;
        check_layer("value", &value, value_hidden.outputs, 1..=1)?;
        Ok(PolicyValueNet {
            game: game.to_string(),
            shape,
            input,
            blocks,
            policy,
            value_hidden,
            value,
            extra: Vec::new(),
        })
    }

    /// The game spec it was trained for.
    pub fn game(&self) -> &str {
        &self.game
    }

    /// Its sizes.
    pub fn shape(&self) -> PolicyShape {
        self.shape
    }

    /// The same network with a metadata entry to keep in its file.
    pub fn with_metadata(mut self, key: &str, value: &str) -> PolicyValueNet {
        self.extra.retain(|(k, _)| k != key);
        self.extra.push((key.to_string(), value.to_string()));
        self.extra.sort();
        self
    }

    /// Checks that the network reads `game`'s observations and gives its
    /// actions.
    ///
    /// # Errors
    /// [`EvalNetError::WrongGame`] naming both.
    pub fn check<G: Game>(&self, game: &G) -> Result<(), EvalNetError> {
        let s = self.shape;
        if s.inputs != game.observation_len() || s.actions != game.num_actions() {
            return Err(EvalNetError::WrongGame {
                net: format!("{} ({} inputs, {} actions)", self.game, s.inputs, s.actions),
                game: format!(
                    "{game} ({} inputs, {} actions)",
                    game.observation_len(),
                    game.num_actions()
                ),
            });
        }
        Ok(())
    }

    /// The logits (one per action, into `logits`) and the value for the
    /// mover (-1..1) of one observation.
    ///
    /// # Panics
    /// If `observation` or `logits` is not of the network's sizes.
    pub fn forward(&self, observation: &[f32], logits: &mut [f32]) -> f32 {
        let mut value = [0.0];
        self.forward_rows(observation, logits, &mut value);
        value[0]
    }

    /// [`PolicyValueNet::forward`] of several observations laid end to
    /// end, their logits and values written end to end: the weights are
    /// read once for all of them, which is what makes a batch cheaper
    /// than as many single calls.
    ///
    /// # Panics
    /// If the slices are not of the network's sizes for one batch.
    pub fn forward_rows(&self, observations: &[f32], logits: &mut [f32], values: &mut [f32]) {
        let s = self.shape;
        let rows = values.len();
        assert_eq!(observations.len(), rows * s.inputs, "observation lengths");
        assert_eq!(logits.len(), rows * s.actions, "logit lengths");
        let mut h = vec![0.0; rows * s.hidden];
        let mut a = vec![0.0; rows * s.hidden];
        let mut r = vec![0.0; rows * s.hidden];
        self.input.apply_rows(observations, rows, &mut h);
        relu(&mut h);
        for (fc1, fc2) in &self.blocks {
            fc1.apply_rows(&h, rows, &mut a);
            relu(&mut a);
            fc2.apply_rows(&a, rows, &mut r);
            for (x, y) in h.iter_mut().zip(&r) {
                *x += y;
            }
            relu(&mut h);
        }
        self.policy.apply_rows(&h, rows, logits);
        let mut v = vec![0.0; rows * s.value_hidden];
        self.value_hidden.apply_rows(&h, rows, &mut v);
        relu(&mut v);
        self.value.apply_rows(&v, rows, values);
        for v in values.iter_mut() {
            *v = v.tanh();
        }
    }

    /// Reads a network file.
    ///
    /// # Errors
    /// [`EvalNetError::Io`], [`EvalNetError::TooLarge`], and what
    /// [`PolicyValueNet::from_bytes`] refuses.
    pub fn load(path: &Path) -> Result<PolicyValueNet, EvalNetError> {
        PolicyValueNet::from_bytes(&read_bounded(path)?)
    }

    /// Reads a network from the bytes of a file.
    ///
    /// # Errors
    /// [`EvalNetError::NotSafetensors`], [`EvalNetError::Metadata`] or
    /// [`EvalNetError::Tensor`], saying what does not fit.
    pub fn from_bytes(data: &[u8]) -> Result<PolicyValueNet, EvalNetError> {
        let (_, header) = SafeTensors::read_metadata(data)
            .map_err(|e| EvalNetError::NotSafetensors(e.to_string()))?;
        let tensors = SafeTensors::deserialize(data)
            .map_err(|e| EvalNetError::NotSafetensors(e.to_string()))?;
        let meta = header.metadata().clone().unwrap_or_default();
        let game = read_game(&meta)?;
        let layer = |name: &str| read_layer(&tensors, name);
        let mut blocks = Vec::new();
        while blocks.len() <= MAX_BLOCKS
            && tensors
                .tensor(&format!("block{}.fc1.weight", blocks.len()))
                .is_ok()
        {
            let b = blocks.len();
            blocks.push((
                layer(&format!("block{b}.fc1"))?,
                layer(&format!("block{b}.fc2"))?,
            ));
        }
        let layers = PolicyLayers {
            input: layer("input")?,
            blocks,
            policy: layer("policy")?,
            value_hidden: layer("value_hidden")?,
            value: layer("value")?,
        };
        let names = layer_names(layers.blocks.len());
        if let Some(unknown) = tensors.names().into_iter().find(|n| {
            !names
                .iter()
                .any(|l| **n == format!("{l}.weight") || **n == format!("{l}.bias"))
        }) {
            return Err(EvalNetError::Tensor {
                name: unknown.clone(),
                why: "not a tensor of this network (input, block{b}.fc1/fc2, policy, \
                      value_hidden and value, weight and bias each)"
                    .into(),
            });
        }
        let mut net = PolicyValueNet::new(&game, layers)?;
        net.extra = meta
            .into_iter()
            .filter(|(k, _)| k != "format" && k != "game")
            .collect();
        net.extra.sort();
        Ok(net)
    }

    /// The network as the bytes of a safetensors file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut meta: HashMap<String, String> = self.extra.iter().cloned().collect();
        meta.insert("format".into(), POLICY_FORMAT.into());
        meta.insert("game".into(), self.game.clone());
        let mut layers: Vec<(String, &Layer)> = vec![("input".into(), &self.input)];
        for (b, (fc1, fc2)) in self.blocks.iter().enumerate() {
            layers.push((format!("block{b}.fc1"), fc1));
            layers.push((format!("block{b}.fc2"), fc2));
        }
        layers.push(("policy".into(), &self.policy));
        layers.push(("value_hidden".into(), &self.value_hidden));
        layers.push(("value".into(), &self.value));
        layers_file(&layers, meta)
    }

    /// Writes the network to `path`.
    ///
    /// # Errors
    /// [`EvalNetError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), EvalNetError> {
        write_file(path, &self.to_bytes())
    }
}

/// Which of the toolkit's networks a file holds, by its metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetworkKind {
    /// A policy–value network ([`POLICY_FORMAT`]).
    Policy,
    /// A value network for alpha-beta ([`crate::FORMAT`]).
    Value,
    /// Anything else: another format (a libtorch model), or a safetensors
    /// file of no format of ours.
    Other,
}

/// Which network the bytes of a file hold.
pub fn network_kind(data: &[u8]) -> NetworkKind {
    let Ok((_, header)) = SafeTensors::read_metadata(data) else {
        return NetworkKind::Other;
    };
    match header.metadata().as_ref().and_then(|m| m.get("format")) {
        Some(f) if f == POLICY_FORMAT => NetworkKind::Policy,
        Some(f) if f == crate::FORMAT => NetworkKind::Value,
        _ => NetworkKind::Other,
    }
}

/// The policy–value network at `path` if the file is one: `Ok(None)` for
/// a file of another kind or larger than any network of this format
/// (a libtorch model, which another reader takes).
///
/// # Errors
/// [`EvalNetError::Io`] for a file that cannot be read;
/// [`EvalNetError::Metadata`] for a value network (it plays in alpha-beta,
/// not here); what [`PolicyValueNet::from_bytes`] refuses of a file that
/// says it is a policy–value network.
pub fn read_policy_file(path: &Path) -> Result<Option<PolicyValueNet>, EvalNetError> {
    let data = match read_bounded(path) {
        Ok(data) => data,
        Err(EvalNetError::TooLarge { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    match network_kind(&data) {
        NetworkKind::Policy => PolicyValueNet::from_bytes(&data).map(Some),
        NetworkKind::Value => Err(EvalNetError::Metadata {
            key: "format",
            why: format!(
                "a value network for alpha-beta, not a policy-value network: play it as \
                 minimax:eval=net:{}",
                path.display()
            ),
        }),
        NetworkKind::Other => Ok(None),
    }
}

/// The layer names of a network of `blocks` blocks.
fn layer_names(blocks: usize) -> Vec<String> {
    let mut names = vec!["input".to_string()];
    for b in 0..blocks {
        names.push(format!("block{b}.fc1"));
        names.push(format!("block{b}.fc2"));
    }
    names.extend(["policy", "value_hidden", "value"].map(String::from));
    names
}

fn read_game(meta: &HashMap<String, String>) -> Result<String, EvalNetError> {
    let get = |key: &'static str| {
        meta.get(key).ok_or_else(|| EvalNetError::Metadata {
            key,
            why: "missing: not a policy-value network of this toolkit".into(),
        })
    };
    let format = get("format")?;
    if format != POLICY_FORMAT {
        return Err(EvalNetError::Metadata {
            key: "format",
            why: format!("'{format}', expected '{POLICY_FORMAT}'"),
        });
    }
    Ok(get("game")?.clone())
}

/// The layer `name` of a file: its weight and bias, of shapes that fit
/// each other (how they chain is checked by [`PolicyValueNet::new`]).
fn read_layer(tensors: &SafeTensors<'_>, name: &str) -> Result<Layer, EvalNetError> {
    let (weight_shape, weight) = read_tensor(tensors, &format!("{name}.weight"))?;
    let (bias_shape, bias) = read_tensor(tensors, &format!("{name}.bias"))?;
    match (weight_shape.as_slice(), bias_shape.as_slice()) {
        ([outputs, inputs], [b]) if outputs == b => Ok(Layer {
            inputs: *inputs,
            outputs: *outputs,
            weight,
            bias,
        }),
        _ => Err(EvalNetError::Tensor {
            name: format!("{name}.weight"),
            why: format!(
                "shapes {weight_shape:?} and {bias_shape:?} (bias), expected [N, M] and [N]"
            ),
        }),
    }
}

/// Checks that `layer` reads `inputs` units, gives a number of outputs in
/// `outputs`, and holds only finite values.
fn check_layer(
    name: &str,
    layer: &Layer,
    inputs: usize,
    outputs: std::ops::RangeInclusive<usize>,
) -> Result<(), EvalNetError> {
    if layer.inputs != inputs
        || !outputs.contains(&layer.outputs)
        || !(1..=MAX_WIDTH).contains(&layer.inputs)
        || layer.weight.len() != layer.inputs * layer.outputs
        || layer.bias.len() != layer.outputs
    {
        return Err(EvalNetError::Tensor {
            name: format!("{name}.weight"),
            why: format!(
                "{} weights for {} outputs of {} inputs, expected {inputs} inputs and {} to {} \
                 outputs",
                layer.weight.len(),
                layer.outputs,
                layer.inputs,
                outputs.start(),
                outputs.end()
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::le_bytes;
    use mancala_core::KalahRules;
    use safetensors::tensor::TensorView;
    use safetensors::Dtype;

    /// A layer whose weights follow a pattern (no two alike), scaled.
    fn layer(inputs: usize, outputs: usize, scale: f32) -> Layer {
        Layer {
            inputs,
            outputs,
            weight: (0..inputs * outputs)
                .map(|i| ((i * 7919 % 13) as f32 - 6.0) * scale)
                .collect(),
            bias: (0..outputs).map(|i| (i as f32 - 1.0) * scale).collect(),
        }
    }

    fn small(blocks: usize) -> PolicyLayers {
        PolicyLayers {
            input: layer(4, 3, 0.1),
            blocks: (0..blocks)
                .map(|_| (layer(3, 3, 0.05), layer(3, 3, -0.07)))
                .collect(),
            policy: layer(3, 2, 0.2),
            value_hidden: layer(3, 2, 0.3),
            value: layer(2, 1, 0.4),
        }
    }

    /// `weight * x + bias`, written out.
    fn dense(l: &Layer, x: &[f32]) -> Vec<f32> {
        (0..l.outputs)
            .map(|o| {
                l.bias[o]
                    + (0..l.inputs)
                        .map(|i| l.weight[o * l.inputs + i] * x[i])
                        .sum::<f32>()
            })
            .collect()
    }

    fn relu_of(v: Vec<f32>) -> Vec<f32> {
        v.into_iter().map(|x| x.max(0.0)).collect()
    }

    #[test]
    fn the_forward_pass_is_the_residual_mlp_written_out() {
        let net = PolicyValueNet::new("kalah", small(2)).unwrap();
        let l = small(2);
        let x = [0.5, -1.0, 0.25, 2.0];
        let mut h = relu_of(dense(&l.input, &x));
        for (fc1, fc2) in &l.blocks {
            let r = dense(fc2, &relu_of(dense(fc1, &h)));
            h = relu_of(h.iter().zip(&r).map(|(a, b)| a + b).collect());
        }
        let logits = dense(&l.policy, &h);
        let value = dense(&l.value, &relu_of(dense(&l.value_hidden, &h)))[0].tanh();
        let mut out = [0.0; 2];
        let v = net.forward(&x, &mut out);
        assert!((v - value).abs() < 1e-6, "{v} {value}");
        for (a, b) in out.iter().zip(&logits) {
            assert!((a - b).abs() < 1e-6, "{a} {b}");
        }
    }

    #[test]
    fn a_batch_gives_what_each_row_gives_alone() {
        let net = PolicyValueNet::new("kalah", small(2)).unwrap();
        let x: Vec<f32> = (0..5 * 4).map(|i| (i as f32 * 0.37).sin()).collect();
        let (mut logits, mut values) = (vec![0.0; 5 * 2], vec![0.0; 5]);
        net.forward_rows(&x, &mut logits, &mut values);
        for r in 0..5 {
            let mut one = [0.0; 2];
            let v = net.forward(&x[r * 4..(r + 1) * 4], &mut one);
            assert_eq!(v, values[r]);
            assert_eq!(one, logits[r * 2..(r + 1) * 2]);
        }
    }

    #[test]
    fn a_file_reads_back_as_the_network_it_was() {
        let net = PolicyValueNet::new("kalah:pits=4,seeds=3", small(3))
            .unwrap()
            .with_metadata("trained_by", "a test");
        let bytes = net.to_bytes();
        assert_eq!(network_kind(&bytes), NetworkKind::Policy);
        let back = PolicyValueNet::from_bytes(&bytes).unwrap();
        assert_eq!(back, net);
        assert_eq!(back.shape().blocks, 3);
        assert_eq!(back.game(), "kalah:pits=4,seeds=3");
    }

    /// The bytes of `net` with `edit` applied to its tensors (name, shape,
    /// values) before they are written.
    fn edited(edit: impl Fn(&mut Vec<(String, Vec<usize>, Vec<f32>)>)) -> Vec<u8> {
        let net = PolicyValueNet::new("kalah", small(2)).unwrap();
        let data = net.to_bytes();
        let tensors = SafeTensors::deserialize(&data).unwrap();
        let mut all: Vec<(String, Vec<usize>, Vec<f32>)> = tensors
            .names()
            .into_iter()
            .map(|n| {
                let (shape, values) = read_tensor(&tensors, n).unwrap();
                (n.clone(), shape, values)
            })
            .collect();
        edit(&mut all);
        let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = all
            .into_iter()
            .map(|(n, s, v)| (n, s, le_bytes(&v)))
            .collect();
        let views: Vec<(String, TensorView<'_>)> = bytes
            .iter()
            .map(|(n, s, d)| {
                (
                    n.clone(),
                    TensorView::new(Dtype::F32, s.clone(), d).unwrap(),
                )
            })
            .collect();
        let meta: HashMap<String, String> = [
            ("format".to_string(), POLICY_FORMAT.to_string()),
            ("game".into(), "kalah".into()),
        ]
        .into_iter()
        .collect();
        safetensors::serialize(views, &Some(meta)).unwrap()
    }

    fn refusal(data: &[u8]) -> String {
        PolicyValueNet::from_bytes(data).unwrap_err().to_string()
    }

    #[test]
    fn a_damaged_file_is_refused_naming_the_tensor() {
        let missing = edited(|t| t.retain(|(n, _, _)| n != "block1.fc2.bias"));
        assert!(
            refusal(&missing).starts_with("tensor `block1.fc2.bias`: missing"),
            "{}",
            refusal(&missing)
        );
        let extra = edited(|t| t.push(("extra.weight".into(), vec![1], vec![0.0])));
        assert!(
            refusal(&extra).starts_with("tensor `extra.weight`: not a tensor"),
            "{}",
            refusal(&extra)
        );
        let nan = edited(|t| {
            let policy = t.iter_mut().find(|(n, _, _)| n == "policy.weight").unwrap();
            policy.2[3] = f32::NAN;
        });
        assert!(
            refusal(&nan).contains("`policy.weight`: entry 3 is NaN"),
            "{}",
            refusal(&nan)
        );
        let wide = edited(|t| {
            let fc1 = t
                .iter_mut()
                .find(|(n, _, _)| n == "block0.fc1.weight")
                .unwrap();
            fc1.1 = vec![4, 3];
            fc1.2.extend([0.0; 3]);
        });
        assert!(
            refusal(&wide).starts_with("tensor `block0.fc1.weight`"),
            "{}",
            refusal(&wide)
        );
        let mut value = PolicyValueNet::new("kalah", small(1)).unwrap().to_bytes();
        value.truncate(value.len() - 3);
        assert!(
            refusal(&value).starts_with("not a safetensors file"),
            "{}",
            refusal(&value)
        );
    }

    #[test]
    fn check_names_the_game_a_network_was_trained_for() {
        let kalah = KalahRules::new(4, 3).unwrap();
        let net = PolicyValueNet::new("kalah:pits=5", small(0)).unwrap();
        let e = net.check(&kalah).unwrap_err().to_string();
        assert!(e.contains("kalah:pits=5 (4 inputs, 2 actions)"), "{e}");
    }
}
