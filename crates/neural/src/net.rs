//! The policy–value network: a residual MLP over the game's observation.

use std::path::Path;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use tch::nn::{self, Module};
use tch::{Device, Kind, Tensor};

use crate::NeuralError;

/// Sizes of a network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetShape {
    /// Observation length (the game's `observation_len`).
    pub inputs: usize,
    /// Policy length (the game's `num_actions`).
    pub actions: usize,
    /// Width of the hidden layers.
    pub hidden: usize,
    /// Residual blocks (two layers each).
    pub blocks: usize,
}

/// What a model file says about itself, stored inside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// The game spec the network was trained for.
    pub game: String,
    /// Its sizes.
    pub shape: NetShape,
}

/// Name of the tensor that carries [`ModelInfo`] as JSON bytes.
const INFO_TENSOR: &str = "__model_info__";

/// A residual MLP: input layer, `blocks` residual blocks, then a policy
/// head (one logit per action) and a value head (tanh, from the mover's side).
#[derive(Debug)]
pub struct PolicyValueNet {
    vs: nn::VarStore,
    input: nn::Linear,
    blocks: Vec<(nn::Linear, nn::Linear)>,
    policy: nn::Linear,
    value_hidden: nn::Linear,
    value: nn::Linear,
    info: ModelInfo,
}

impl PolicyValueNet {
    /// A freshly initialised network on `device`, seeded by `seed`.
    pub fn new(info: ModelInfo, device: Device, seed: u64) -> PolicyValueNet {
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let s = info.shape;
        let input = nn::linear(
            &root / "input",
            s.inputs as i64,
            s.hidden as i64,
            Default::default(),
        );
        let blocks = (0..s.blocks)
            .map(|b| {
                let p = &root / format!("block{b}");
                (
                    nn::linear(
                        &p / "fc1",
                        s.hidden as i64,
                        s.hidden as i64,
                        Default::default(),
                    ),
                    nn::linear(
                        &p / "fc2",
                        s.hidden as i64,
                        s.hidden as i64,
                        Default::default(),
                    ),
                )
            })
            .collect();
        let policy = nn::linear(
            &root / "policy",
            s.hidden as i64,
            s.actions as i64,
            Default::default(),
        );
        let value_hidden = nn::linear(
            &root / "value_hidden",
            s.hidden as i64,
            (s.hidden / 2).max(8) as i64,
            Default::default(),
        );
        let value = nn::linear(
            &root / "value",
            (s.hidden / 2).max(8) as i64,
            1,
            Default::default(),
        );
        let net = PolicyValueNet {
            vs,
            input,
            blocks,
            policy,
            value_hidden,
            value,
            info,
        };
        // Drawn from our own generator rather than libtorch's, which is one
        // for the whole process: two networks made at once on two threads
        // (tests, or a tool training several) would take each other's numbers.
        let mut rng = SmallRng::seed_from_u64(seed);
        tch::no_grad(|| {
            for layer in net.layers() {
                // libtorch's own default for linear layers: uniform in
                // ±1/sqrt(fan_in) for the weights and the biases.
                let fan_in = layer.ws.size()[1] as f64;
                let bound = 1.0 / fan_in.sqrt();
                for t in [
                    &layer.ws,
                    layer.bs.as_ref().expect("linear layers have biases"),
                ] {
                    let n = t.numel();
                    let values: Vec<f32> = (0..n)
                        .map(|_| rng.random_range(-bound..bound) as f32)
                        .collect();
                    let mut t = t.shallow_clone();
                    t.copy_(
                        &Tensor::from_slice(&values)
                            .view(t.size().as_slice())
                            .to_device(device),
                    );
                }
            }
        });
        net
    }

    /// Every linear layer, input to outputs.
    fn layers(&self) -> Vec<&nn::Linear> {
        let mut layers = vec![&self.input];
        for (fc1, fc2) in &self.blocks {
            layers.push(fc1);
            layers.push(fc2);
        }
        layers.extend([&self.policy, &self.value_hidden, &self.value]);
        layers
    }

    /// The same network for the plain-Rust forward pass
    /// ([`mancala_evalnet::PolicyValueNet`]): what `mancala export-net`
    /// writes as safetensors, so that it plays without libtorch.
    ///
    /// # Errors
    /// [`NeuralError::Torch`] if a tensor cannot be read back.
    pub fn to_plain(&self) -> Result<mancala_evalnet::PolicyValueNet, NeuralError> {
        let layer = |l: &nn::Linear| -> Result<mancala_evalnet::Layer, NeuralError> {
            let values = |t: &Tensor| -> Result<Vec<f32>, NeuralError> {
                Ok(Vec::<f32>::try_from(
                    t.to_device(Device::Cpu).to_kind(Kind::Float).flatten(0, -1),
                )?)
            };
            let size = l.ws.size();
            Ok(mancala_evalnet::Layer {
                inputs: size[1] as usize,
                outputs: size[0] as usize,
                weight: values(&l.ws)?,
                bias: values(l.bs.as_ref().expect("linear layers have biases"))?,
            })
        };
        let blocks = self
            .blocks
            .iter()
            .map(|(fc1, fc2)| Ok((layer(fc1)?, layer(fc2)?)))
            .collect::<Result<Vec<_>, NeuralError>>()?;
        let layers = mancala_evalnet::PolicyLayers {
            input: layer(&self.input)?,
            blocks,
            policy: layer(&self.policy)?,
            value_hidden: layer(&self.value_hidden)?,
            value: layer(&self.value)?,
        };
        mancala_evalnet::PolicyValueNet::new(&self.info.game, layers)
            .map_err(|e| NeuralError::Mismatch(format!("the network does not convert: {e}")))
    }

    /// What the network is for.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// The device it lives on.
    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// The variables (for the optimiser).
    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }

    /// `(policy logits [batch, actions], value [batch] in -1..1)` for
    /// observations `x` of shape `[batch, inputs]`.
    pub fn forward(&self, x: &Tensor) -> (Tensor, Tensor) {
        let mut h = self.input.forward(x).relu();
        for (fc1, fc2) in &self.blocks {
            let r = fc2.forward(&fc1.forward(&h).relu());
            h = (h + r).relu();
        }
        let logits = self.policy.forward(&h);
        let value = self
            .value
            .forward(&self.value_hidden.forward(&h).relu())
            .tanh()
            .squeeze_dim(-1);
        (logits, value)
    }

    /// Runs the network without gradients on `batch` observations laid end
    /// to end in `obs`; returns the logits (row-major) and the values.
    ///
    /// # Errors
    /// [`NeuralError::Mismatch`] if `obs` does not hold `batch`
    /// observations; [`NeuralError::Torch`] if libtorch fails.
    pub fn infer(&self, obs: &[f32], batch: usize) -> Result<(Vec<f32>, Vec<f32>), NeuralError> {
        let inputs = self.info.shape.inputs;
        if obs.len() != batch * inputs {
            return Err(NeuralError::Mismatch(format!(
                "{} numbers given for {batch} observations of {inputs}",
                obs.len()
            )));
        }
        tch::no_grad(|| {
            let x = Tensor::from_slice(obs)
                .view([batch as i64, self.info.shape.inputs as i64])
                .to_device(self.device());
            let (logits, value) = self.forward(&x);
            let logits: Vec<f32> = Vec::try_from(
                logits
                    .to_device(Device::Cpu)
                    .to_kind(Kind::Float)
                    .flatten(0, -1),
            )?;
            let value: Vec<f32> = Vec::try_from(
                value
                    .to_device(Device::Cpu)
                    .to_kind(Kind::Float)
                    .flatten(0, -1),
            )?;
            Ok((logits, value))
        })
    }

    /// Every variable by name, plus the model info, ready to save.
    fn named_tensors(&self) -> Vec<(String, Tensor)> {
        let mut named: Vec<(String, Tensor)> = self.vs.variables().into_iter().collect();
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let json = serde_json::to_vec(&self.info).expect("model info serialises");
        named.push((INFO_TENSOR.to_string(), Tensor::from_slice(&json)));
        named
    }

    /// Saves weights and model info to one file.
    ///
    /// # Errors
    /// [`NeuralError::Torch`] if the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), NeuralError> {
        let named = self.named_tensors();
        let refs: Vec<(&str, &Tensor)> = named.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let tmp = path.with_extension("tmp");
        Tensor::save_multi(&refs, &tmp)?;
        std::fs::rename(&tmp, path).map_err(|e| NeuralError::io(path, e))
    }

    /// The saved form as bytes (to hand a copy of the network to another thread).
    ///
    /// # Errors
    /// [`NeuralError::Torch`] if libtorch fails.
    pub fn to_bytes(&self) -> Result<Vec<u8>, NeuralError> {
        let named = self.named_tensors();
        let refs: Vec<(&str, &Tensor)> = named.iter().map(|(n, t)| (n.as_str(), t)).collect();
        let mut bytes = Vec::new();
        Tensor::save_multi_to_stream(&refs, &mut bytes)?;
        Ok(bytes)
    }

    /// Loads a model file onto `device`.
    ///
    /// # Errors
    /// [`NeuralError::BadModel`] for a file that is not a model of this
    /// program (or is damaged), [`NeuralError::Io`] if it cannot be read.
    pub fn load(path: &Path, device: Device) -> Result<PolicyValueNet, NeuralError> {
        let bytes = std::fs::read(path).map_err(|e| NeuralError::io(path, e))?;
        PolicyValueNet::from_bytes(&bytes, device).map_err(|e| match e {
            NeuralError::BadModel { why, .. } => NeuralError::BadModel {
                path: path.display().to_string(),
                why,
            },
            other => other,
        })
    }

    /// Builds a network from [`PolicyValueNet::to_bytes`]'s output.
    ///
    /// # Errors
    /// [`NeuralError::BadModel`] for bytes that are not such a model.
    pub fn from_bytes(bytes: &[u8], device: Device) -> Result<PolicyValueNet, NeuralError> {
        let bad = |why: String| NeuralError::BadModel {
            path: "(in memory)".into(),
            why,
        };
        let named = Tensor::load_multi_from_stream(std::io::Cursor::new(bytes))
            .map_err(|e| bad(format!("not a model file: {e}")))?;
        let info_tensor = named
            .iter()
            .find(|(n, _)| n == INFO_TENSOR)
            .map(|(_, t)| t)
            .ok_or_else(|| bad("no model information inside (not written by mancala)".into()))?;
        let json: Vec<u8> =
            Vec::try_from(info_tensor).map_err(|e: tch::TchError| bad(e.to_string()))?;
        let info: ModelInfo = serde_json::from_slice(&json)
            .map_err(|e| bad(format!("unreadable model information: {e}")))?;
        let net = PolicyValueNet::new(info, device, 0);
        let mut vars = net.vs.variables();
        tch::no_grad(|| -> Result<(), NeuralError> {
            for (name, var) in vars.iter_mut() {
                let saved = named
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, t)| t)
                    .ok_or_else(|| bad(format!("weight '{name}' is missing")))?;
                if saved.size() != var.size() {
                    return Err(bad(format!(
                        "weight '{name}' has shape {:?}, the network needs {:?}",
                        saved.size(),
                        var.size()
                    )));
                }
                var.f_copy_(saved)?;
            }
            Ok(())
        })?;
        Ok(net)
    }

    /// Copies another network's weights into this one (same shape).
    ///
    /// # Errors
    /// [`NeuralError::Torch`] if the shapes differ.
    pub fn copy_from(&mut self, other: &PolicyValueNet) -> Result<(), NeuralError> {
        self.vs.copy(&other.vs)?;
        Ok(())
    }
}
