//! Training a value network on labelled positions, in plain Rust: a
//! network this small trains at hundreds of thousands of positions a
//! second on one core, so the default build can train one without
//! libtorch, and the same seed gives the same network on any machine.
//!
//! The loss is the mean squared error between the network's output and
//! each example's target (the final margin of perfect play minus the
//! stores' difference, over the seeds: what [`ValueNet::forward`]
//! returns), minimised with Adam on shuffled minibatches.

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::{EvalNetError, Inputs, Layer, ValueNet};

/// One position encoded for training.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    /// The one-hot entries set (one a pit, mover's pits first).
    pub hot: Vec<u16>,
    /// The game's observation.
    pub observation: Vec<f32>,
    /// What the network should output.
    pub target: f32,
}

impl Example {
    /// `state` with its final margin of perfect play for the mover, in
    /// seeds.
    ///
    /// # Panics
    /// If `inputs` do not fit `game` ([`Inputs::check`]).
    pub fn new<G: mancala_core::Game>(
        inputs: &Inputs,
        game: &G,
        state: &G::State,
        margin: f32,
    ) -> Example {
        let mut observation = vec![0.0; inputs.observation];
        let mut full = vec![0.0; inputs.len()];
        let stores = inputs.encode(game, state, &mut observation, &mut full);
        let hot = full[..inputs.one_hot_len()]
            .iter()
            .enumerate()
            .filter(|(_, &v)| v != 0.0)
            .map(|(i, _)| i as u16)
            .collect();
        Example {
            hot,
            observation,
            target: (margin - stores) / game.total_seeds() as f32,
        }
    }
}

/// How to train.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainOptions {
    /// Widths of the hidden layers.
    pub hidden: Vec<usize>,
    /// Passes over the training examples.
    pub epochs: u32,
    /// Examples a step.
    pub batch: usize,
    /// Adam's step size.
    pub learning_rate: f32,
    /// The step size falls linearly to this share of it by the last epoch.
    pub final_rate_share: f32,
    /// Seed of the first weights and of the order of examples.
    pub seed: u64,
}

impl Default for TrainOptions {
    fn default() -> TrainOptions {
        TrainOptions {
            hidden: vec![64, 32],
            epochs: 20,
            batch: 256,
            learning_rate: 1e-3,
            final_rate_share: 0.1,
            seed: 1,
        }
    }
}

/// What an epoch ended with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// The epoch, from 1.
    pub epoch: u32,
    /// Root mean squared error on the training examples during the epoch,
    /// in seeds.
    pub train_rmse: f64,
    /// The same on the held-out examples after the epoch.
    pub validation_rmse: f64,
    /// Mean absolute error on the held-out examples, in seeds.
    pub validation_mae: f64,
}

/// Adam's moments of one parameter vector.
struct Moments {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl Moments {
    fn new(n: usize) -> Moments {
        Moments {
            m: vec![0.0; n],
            v: vec![0.0; n],
        }
    }

    /// One Adam step of `params` along `grad` (step `t`, from 1).
    fn step(&mut self, params: &mut [f32], grad: &[f32], rate: f32, t: i32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        const EPS: f32 = 1e-8;
        let c1 = 1.0 - B1.powi(t);
        let c2 = 1.0 - B2.powi(t);
        for (((p, g), m), v) in params
            .iter_mut()
            .zip(grad)
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            *m = B1 * *m + (1.0 - B1) * g;
            *v = B2 * *v + (1.0 - B2) * g * g;
            *p -= rate * (*m / c1) / ((*v / c2).sqrt() + EPS);
        }
    }
}

/// The network being trained: the first layer input-major (a one-hot
/// entry's weights and gradient are one row), the rest as in the file.
struct Trainee {
    inputs: Inputs,
    widths: Vec<usize>,
    /// `inputs.len() * widths[0]`, input-major.
    first: Vec<f32>,
    first_bias: Vec<f32>,
    /// Layers after the first, `value` last.
    rest: Vec<Layer>,
}

/// One example's activations through the network.
struct Pass {
    /// Post-ReLU activations of each hidden layer.
    hidden: Vec<Vec<f32>>,
    output: f32,
}

impl Trainee {
    fn from_net(net: &ValueNet) -> Trainee {
        let first = &net.layers[0];
        Trainee {
            inputs: net.inputs.clone(),
            widths: net.hidden(),
            first: net.first_by_input.clone(),
            first_bias: first.bias.clone(),
            rest: net.layers[1..].to_vec(),
        }
    }

    fn to_net(&self) -> Result<ValueNet, EvalNetError> {
        let width = self.widths[0];
        let n_in = self.inputs.len();
        let mut weight = vec![0.0; n_in * width];
        for input in 0..n_in {
            for unit in 0..width {
                weight[unit * n_in + input] = self.first[input * width + unit];
            }
        }
        let mut layers = vec![Layer {
            inputs: n_in,
            outputs: width,
            weight,
            bias: self.first_bias.clone(),
        }];
        layers.extend(self.rest.iter().cloned());
        ValueNet::new(self.inputs.clone(), layers)
    }

    fn forward(&self, ex: &Example) -> Pass {
        let width = self.widths[0];
        let mut h = self.first_bias.clone();
        for &i in &ex.hot {
            let row = usize::from(i) * width;
            for (v, w) in h.iter_mut().zip(&self.first[row..row + width]) {
                *v += w;
            }
        }
        let dense = self.inputs.one_hot_len();
        for (i, &x) in ex.observation.iter().enumerate() {
            if x != 0.0 {
                let row = (dense + i) * width;
                for (v, w) in h.iter_mut().zip(&self.first[row..row + width]) {
                    *v += x * w;
                }
            }
        }
        h.iter_mut().for_each(|v| *v = v.max(0.0));
        let mut hidden = vec![h];
        let last = self.rest.len() - 1;
        for (k, layer) in self.rest.iter().enumerate() {
            let mut out = vec![0.0; layer.outputs];
            layer.apply(hidden.last().expect("a first layer"), &mut out);
            if k < last {
                out.iter_mut().for_each(|v| *v = v.max(0.0));
                hidden.push(out);
            } else {
                return Pass {
                    hidden,
                    output: out[0],
                };
            }
        }
        unreachable!("the value layer ends the network")
    }
}

/// Gradients of every parameter, in the trainee's layout.
struct Grads {
    first: Vec<f32>,
    first_bias: Vec<f32>,
    rest: Vec<(Vec<f32>, Vec<f32>)>,
}

impl Grads {
    fn zeros(t: &Trainee) -> Grads {
        Grads {
            first: vec![0.0; t.first.len()],
            first_bias: vec![0.0; t.first_bias.len()],
            rest: t
                .rest
                .iter()
                .map(|l| (vec![0.0; l.weight.len()], vec![0.0; l.bias.len()]))
                .collect(),
        }
    }

    fn clear(&mut self) {
        self.first.fill(0.0);
        self.first_bias.fill(0.0);
        for (w, b) in &mut self.rest {
            w.fill(0.0);
            b.fill(0.0);
        }
    }

    /// Adds the gradient of `scale * (output - target)^2 / 2`'s
    /// derivative, `d_output`, through `pass` of `ex`.
    fn add(&mut self, t: &Trainee, ex: &Example, pass: &Pass, d_output: f32) {
        let mut delta = vec![d_output];
        for k in (0..t.rest.len()).rev() {
            let layer = &t.rest[k];
            let below = &pass.hidden[k];
            let (gw, gb) = &mut self.rest[k];
            let mut back = vec![0.0; layer.inputs];
            for (o, &d) in delta.iter().enumerate() {
                if d == 0.0 {
                    continue;
                }
                gb[o] += d;
                let row = o * layer.inputs;
                for i in 0..layer.inputs {
                    gw[row + i] += d * below[i];
                    back[i] += d * layer.weight[row + i];
                }
            }
            // Through the ReLU of the layer below.
            for (b, &a) in back.iter_mut().zip(below) {
                if a <= 0.0 {
                    *b = 0.0;
                }
            }
            delta = back;
        }
        let width = t.widths[0];
        for (g, d) in self.first_bias.iter_mut().zip(&delta) {
            *g += d;
        }
        for &i in &ex.hot {
            let row = usize::from(i) * width;
            for (g, d) in self.first[row..row + width].iter_mut().zip(&delta) {
                *g += d;
            }
        }
        let dense = t.inputs.one_hot_len();
        for (i, &x) in ex.observation.iter().enumerate() {
            if x != 0.0 {
                let row = (dense + i) * width;
                for (g, d) in self.first[row..row + width].iter_mut().zip(&delta) {
                    *g += x * d;
                }
            }
        }
    }
}

/// Root mean squared and mean absolute error of `net` on `examples`, in
/// seeds (`total` seeds in the game).
fn errors(t: &Trainee, examples: &[Example], total: f32) -> (f64, f64) {
    if examples.is_empty() {
        return (0.0, 0.0);
    }
    let (mut sq, mut abs) = (0.0f64, 0.0f64);
    for ex in examples {
        let e = f64::from((t.forward(ex).output - ex.target) * total);
        sq += e * e;
        abs += e.abs();
    }
    let n = examples.len() as f64;
    ((sq / n).sqrt(), abs / n)
}

/// Trains a network for `inputs` on `train`, reporting each epoch's errors
/// on `validation` to `report`; `total` is the game's seeds (errors are
/// reported in seeds). The result depends only on the examples, their
/// order and the options.
///
/// # Errors
/// [`EvalNetError`] for hidden widths out of bounds.
pub fn train(
    inputs: Inputs,
    train: &[Example],
    validation: &[Example],
    total: f32,
    options: &TrainOptions,
    report: &mut dyn FnMut(EpochReport),
) -> Result<ValueNet, EvalNetError> {
    let start = ValueNet::seeded(inputs, &options.hidden, options.seed)?;
    let mut t = Trainee::from_net(&start);
    let mut grads = Grads::zeros(&t);
    let mut first_m = Moments::new(t.first.len());
    let mut first_bias_m = Moments::new(t.first_bias.len());
    let mut rest_m: Vec<(Moments, Moments)> = t
        .rest
        .iter()
        .map(|l| (Moments::new(l.weight.len()), Moments::new(l.bias.len())))
        .collect();
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut rng = SmallRng::seed_from_u64(options.seed);
    let batch = options.batch.max(1);
    let steps_total = (options.epochs as usize * train.len().div_ceil(batch)).max(1);
    let mut step = 0i32;
    for epoch in 1..=options.epochs {
        order.shuffle(&mut rng);
        let mut sq = 0.0f64;
        for chunk in order.chunks(batch) {
            grads.clear();
            let scale = 1.0 / chunk.len() as f32;
            for &i in chunk {
                let ex = &train[i];
                let pass = t.forward(ex);
                let err = pass.output - ex.target;
                sq += f64::from(err * total).powi(2);
                grads.add(&t, ex, &pass, err * scale);
            }
            step += 1;
            let progress = step as f32 / steps_total as f32;
            let rate = options.learning_rate
                * (1.0 - (1.0 - options.final_rate_share) * progress.min(1.0));
            first_m.step(&mut t.first, &grads.first, rate, step);
            first_bias_m.step(&mut t.first_bias, &grads.first_bias, rate, step);
            for ((layer, (gw, gb)), (mw, mb)) in t.rest.iter_mut().zip(&grads.rest).zip(&mut rest_m)
            {
                mw.step(&mut layer.weight, gw, rate, step);
                mb.step(&mut layer.bias, gb, rate, step);
            }
        }
        let (validation_rmse, validation_mae) = errors(&t, validation, total);
        report(EpochReport {
            epoch,
            train_rmse: (sq / train.len().max(1) as f64).sqrt(),
            validation_rmse,
            validation_mae,
        });
    }
    t.to_net()
}
