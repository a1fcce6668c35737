//! The replay buffer: the most recent self-play positions.

use std::path::Path;

use rand::Rng;
use tch::{Kind, Tensor};

use crate::NeuralError;

/// One training example.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Observation from the mover's side.
    pub obs: Vec<f32>,
    /// Visit distribution over the actions.
    pub policy: Vec<f32>,
    /// Game result (or margin) from the mover's side, in -1..1.
    pub value: f32,
}

/// A ring buffer of samples stored as flat arrays.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayBuffer {
    inputs: usize,
    actions: usize,
    capacity: usize,
    obs: Vec<f32>,
    policy: Vec<f32>,
    value: Vec<f32>,
    /// Slot the next sample overwrites once full.
    next: usize,
}

impl ReplayBuffer {
    /// An empty buffer for `capacity` samples.
    pub fn new(inputs: usize, actions: usize, capacity: usize) -> ReplayBuffer {
        ReplayBuffer {
            inputs,
            actions,
            capacity,
            obs: Vec::new(),
            policy: Vec::new(),
            value: Vec::new(),
            next: 0,
        }
    }

    /// Samples held.
    pub fn len(&self) -> usize {
        self.value.len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }

    /// Adds a sample, replacing the oldest when full.
    pub fn push(&mut self, s: &Sample) {
        debug_assert_eq!(s.obs.len(), self.inputs);
        debug_assert_eq!(s.policy.len(), self.actions);
        if self.len() < self.capacity {
            self.obs.extend_from_slice(&s.obs);
            self.policy.extend_from_slice(&s.policy);
            self.value.push(s.value);
        } else {
            let i = self.next;
            self.obs[i * self.inputs..(i + 1) * self.inputs].copy_from_slice(&s.obs);
            self.policy[i * self.actions..(i + 1) * self.actions].copy_from_slice(&s.policy);
            self.value[i] = s.value;
            self.next = (self.next + 1) % self.capacity;
        }
    }

    /// A random batch (with replacement) as tensors `(obs, policy, value)` on the CPU.
    pub fn batch<R: Rng>(&self, size: usize, rng: &mut R) -> (Tensor, Tensor, Tensor) {
        let mut obs = Vec::with_capacity(size * self.inputs);
        let mut policy = Vec::with_capacity(size * self.actions);
        let mut value = Vec::with_capacity(size);
        for _ in 0..size {
            let i = rng.random_range(0..self.len());
            obs.extend_from_slice(&self.obs[i * self.inputs..(i + 1) * self.inputs]);
            policy.extend_from_slice(&self.policy[i * self.actions..(i + 1) * self.actions]);
            value.push(self.value[i]);
        }
        (
            Tensor::from_slice(&obs).view([size as i64, self.inputs as i64]),
            Tensor::from_slice(&policy).view([size as i64, self.actions as i64]),
            Tensor::from_slice(&value),
        )
    }

    /// Saves the buffer.
    ///
    /// # Errors
    /// [`NeuralError::Torch`] if the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), NeuralError> {
        let meta = Tensor::from_slice(&[
            self.inputs as i64,
            self.actions as i64,
            self.capacity as i64,
            self.next as i64,
        ]);
        let obs = Tensor::from_slice(&self.obs);
        let policy = Tensor::from_slice(&self.policy);
        let value = Tensor::from_slice(&self.value);
        let tmp = path.with_extension("tmp");
        Tensor::save_multi(
            &[
                ("meta", &meta),
                ("obs", &obs),
                ("policy", &policy),
                ("value", &value),
            ],
            &tmp,
        )?;
        std::fs::rename(&tmp, path).map_err(|e| NeuralError::io(path, e))
    }

    /// Loads a buffer saved by [`ReplayBuffer::save`], checking its sizes.
    ///
    /// # Errors
    /// [`NeuralError::Checkpoint`] for a damaged or mismatched file.
    pub fn load(
        path: &Path,
        inputs: usize,
        actions: usize,
        capacity: usize,
    ) -> Result<ReplayBuffer, NeuralError> {
        let bad = |why: String| NeuralError::Checkpoint {
            path: path.display().to_string(),
            why,
        };
        let named =
            Tensor::load_multi(path).map_err(|e| bad(format!("unreadable replay buffer: {e}")))?;
        let get = |name: &str| -> Result<&Tensor, NeuralError> {
            named
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t)
                .ok_or_else(|| bad(format!("replay buffer has no '{name}'")))
        };
        let meta: Vec<i64> = Vec::try_from(get("meta")?.to_kind(Kind::Int64))
            .map_err(|e: tch::TchError| bad(e.to_string()))?;
        if meta.len() != 4 || meta[0] as usize != inputs || meta[1] as usize != actions {
            return Err(bad(format!(
                "replay buffer holds positions of another game (sizes {meta:?}, expected {inputs} inputs and {actions} actions)"
            )));
        }
        let floats = |name: &str| -> Result<Vec<f32>, NeuralError> {
            Vec::try_from(get(name)?.to_kind(Kind::Float))
                .map_err(|e: tch::TchError| bad(e.to_string()))
        };
        let (obs, policy, value) = (floats("obs")?, floats("policy")?, floats("value")?);
        let n = value.len();
        if obs.len() != n * inputs || policy.len() != n * actions || n > meta[2] as usize {
            return Err(bad("replay buffer arrays disagree in length".into()));
        }
        let mut buffer = ReplayBuffer {
            inputs,
            actions,
            capacity: meta[2] as usize,
            obs,
            policy,
            value,
            next: meta[3] as usize,
        };
        // A changed capacity keeps the newest samples that fit.
        if capacity != buffer.capacity {
            let samples: Vec<Sample> = buffer.samples_oldest_first();
            buffer = ReplayBuffer::new(inputs, actions, capacity);
            for s in samples.iter().skip(samples.len().saturating_sub(capacity)) {
                buffer.push(s);
            }
        }
        Ok(buffer)
    }

    fn samples_oldest_first(&self) -> Vec<Sample> {
        let n = self.len();
        let start = if n < self.capacity { 0 } else { self.next };
        (0..n)
            .map(|k| {
                let i = (start + k) % n.max(1);
                Sample {
                    obs: self.obs[i * self.inputs..(i + 1) * self.inputs].to_vec(),
                    policy: self.policy[i * self.actions..(i + 1) * self.actions].to_vec(),
                    value: self.value[i],
                }
            })
            .collect()
    }
}
