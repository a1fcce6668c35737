//! AlphaZero-style training: self-play with PUCT guided by the best network,
//! a replay buffer, Adam on policy cross-entropy plus value MSE, gating of
//! each new network against the best, evaluation against fixed baselines,
//! a CSV log and checkpoints that resume exactly.
//!
//! Output folder:
//! - `log.csv`: one row per generation;
//! - `best.ot`: the best network so far (a model for `neural:model=...`),
//!   and `best.safetensors`, the same network for the plain-Rust forward
//!   pass (plays in every build, without libtorch);
//! - `checkpoint/`: `net.ot` (the network in training), `best.ot`,
//!   `adam.ot` (optimiser moments), `buffer.ot` (replay buffer) and
//!   `state.json` (generation, elapsed time, the config).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use mancala_agents::{derive_seed, Agent, AgentSpec};
use mancala_arena::{
    pairs, random_openings, schedule, Arena, Format, GameRecord, Players, RunOptions,
};
use mancala_core::Game;
use mancala_solver::positions::{Agreement, ExactPositions};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor};

use crate::buffer::{ReplayBuffer, Sample};
use crate::config::{TrainConfig, ValueTarget};
use crate::net::{ModelInfo, NetShape, PolicyValueNet};
use crate::selfplay::{self, SelfPlay};
use crate::targets::ExactTargets;
use crate::{NeuralError, NeuralSpec};
use mancala_agents::policy::{preferred, priors_and_value};

/// Adam's constants.
const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPSILON: f64 = 1e-8;

/// What the trainer reports as it goes.
#[derive(Clone, Debug)]
pub enum TrainEvent {
    /// A generation begins; `games` self-play games follow.
    Generation {
        /// Its number, from 1.
        generation: u32,
        /// Self-play games in it.
        games: u32,
    },
    /// One self-play game finished.
    SelfPlayGame,
    /// A generation ended, with its log row.
    Done(GenerationLog),
}

/// One row of `log.csv`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct GenerationLog {
    /// Generation number, from 1.
    pub generation: u32,
    /// Seconds since the run began (resumed runs included).
    pub elapsed_s: f64,
    /// Self-play games this generation.
    pub selfplay_games: u32,
    /// Positions they gave.
    pub positions: u64,
    /// Positions in the replay buffer.
    pub buffer: u64,
    /// Mean policy cross-entropy over the generation's training steps.
    pub policy_loss: f64,
    /// Mean value MSE.
    pub value_loss: f64,
    /// The new network's score against the best one.
    pub gate_score: f64,
    /// Whether it replaced the best one.
    pub promoted: bool,
    /// The best network's score against each baseline, `;`-separated `spec=score`.
    pub baselines: String,
    /// Seconds of self-play (logs of older versions lack the timings: 0).
    #[serde(default)]
    pub selfplay_s: f64,
    /// Self-play network evaluations per second.
    #[serde(default)]
    pub evals_per_s: f64,
    /// Seconds of training steps.
    #[serde(default)]
    pub train_s: f64,
    /// Seconds of gating and baseline games.
    #[serde(default)]
    pub eval_s: f64,
    /// With `exact_positions`: the fraction of those positions where the
    /// newly trained network's raw policy prefers a best move.
    #[serde(default)]
    pub exact_top1: Option<f64>,
    /// With `exact_positions`: the mean final margin its preferred move
    /// gives away against perfect play, in seeds.
    #[serde(default)]
    pub exact_loss: Option<f64>,
    /// With `exact_positions` and `value_target = "margin"`: the mean
    /// difference between its value head's margin and the exact value, in
    /// seeds.
    #[serde(default)]
    pub exact_value_error: Option<f64>,
    /// With `exact_nodes`: the fraction of the generation's self-play
    /// positions whose targets are perfect play's.
    #[serde(default)]
    pub exact_targets: Option<f64>,
}

/// What a round of self-play cost (`mancala train --bench`).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct SelfPlayStats {
    /// Games played.
    pub games: u32,
    /// Positions searched (one training sample each).
    pub positions: u64,
    /// Network evaluations (leaves of the searches).
    pub evaluations: u64,
    /// Network calls they took.
    pub batches: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl SelfPlayStats {
    /// Network evaluations per second.
    pub fn evaluations_per_second(&self) -> f64 {
        self.evaluations as f64 / self.seconds.max(f64::MIN_POSITIVE)
    }

    /// Positions per second.
    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.seconds.max(f64::MIN_POSITIVE)
    }

    /// Mean evaluations per network call.
    pub fn mean_batch(&self) -> f64 {
        self.evaluations as f64 / self.batches.max(1) as f64
    }
}

/// Adam's moment estimates, one pair per variable, by variable name.
struct Adam {
    names: Vec<String>,
    m: Vec<Tensor>,
    v: Vec<Tensor>,
    step: i64,
}

impl Adam {
    fn new(net: &PolicyValueNet) -> Adam {
        let mut names: Vec<String> = net.var_store().variables().into_keys().collect();
        names.sort();
        let vars = net.var_store().variables();
        let zeros = |n: &String| vars[n].zeros_like();
        Adam {
            m: names.iter().map(zeros).collect(),
            v: names.iter().map(zeros).collect(),
            names,
            step: 0,
        }
    }

    /// One decoupled-weight-decay Adam step on the gradients now in `net`.
    fn step(&mut self, net: &PolicyValueNet, lr: f64, weight_decay: f64) {
        self.step += 1;
        let vars = net.var_store().variables();
        let bias1 = 1.0 - BETA1.powi(self.step as i32);
        let bias2 = 1.0 - BETA2.powi(self.step as i32);
        tch::no_grad(|| {
            for (i, name) in self.names.iter().enumerate() {
                let mut p = vars[name].shallow_clone();
                let g = p.grad();
                if !g.defined() {
                    continue;
                }
                let m = &mut self.m[i];
                let v = &mut self.v[i];
                *m = &*m * BETA1 + &g * (1.0 - BETA1);
                *v = &*v * BETA2 + &g * &g * (1.0 - BETA2);
                let update = (&*m / bias1) / ((&*v / bias2).sqrt() + EPSILON);
                let new = &p * (1.0 - lr * weight_decay) - update * lr;
                p.copy_(&new);
            }
        });
    }

    fn save(&self, path: &Path) -> Result<(), NeuralError> {
        let step = Tensor::from_slice(&[self.step]);
        let mut named: Vec<(String, &Tensor)> = vec![("step".into(), &step)];
        for (i, n) in self.names.iter().enumerate() {
            named.push((format!("m.{n}"), &self.m[i]));
            named.push((format!("v.{n}"), &self.v[i]));
        }
        let refs: Vec<(&str, &Tensor)> = named.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        let tmp = path.with_extension("tmp");
        Tensor::save_multi(&refs, &tmp)?;
        std::fs::rename(&tmp, path).map_err(|e| NeuralError::io(path, e))
    }

    fn load(&mut self, path: &Path, device: Device) -> Result<(), NeuralError> {
        let bad = |why: String| NeuralError::Checkpoint {
            path: path.display().to_string(),
            why,
        };
        let named = Tensor::load_multi(path)
            .map_err(|e| bad(format!("unreadable optimiser state: {e}")))?;
        let find = |name: &str| named.iter().find(|(n, _)| n == name).map(|(_, t)| t);
        let step = find("step").ok_or_else(|| bad("optimiser state has no step count".into()))?;
        self.step = step.int64_value(&[0]);
        for (i, n) in self.names.iter().enumerate() {
            for (kind, slot) in [("m", &mut self.m[i]), ("v", &mut self.v[i])] {
                let t = find(&format!("{kind}.{n}"))
                    .ok_or_else(|| bad(format!("optimiser state has no '{kind}.{n}'")))?;
                if t.size() != slot.size() {
                    return Err(bad(format!(
                        "optimiser state '{kind}.{n}' has the wrong shape"
                    )));
                }
                *slot = t.to_device(device);
            }
        }
        Ok(())
    }
}

/// What `state.json` keeps.
#[derive(Serialize, Deserialize)]
struct TrainState {
    generation: u32,
    elapsed_s: f64,
    game: String,
    config: TrainConfig,
}

/// A training run over game `G`.
pub struct Trainer<'a, G: Game> {
    game: &'a G,
    game_spec: String,
    config: TrainConfig,
    dir: PathBuf,
    device: Device,
    net: PolicyValueNet,
    best: Arc<Vec<u8>>,
    adam: Adam,
    buffer: ReplayBuffer,
    generation: u32,
    elapsed_before: f64,
    /// The positions of `exact_positions`, read and checked once.
    exact: Option<(ExactPositions, Vec<G::State>)>,
    /// The solver of `exact_nodes`' perfect-play targets.
    targets: Option<ExactTargets<G>>,
}

impl<'a, G: mancala_solver::Solvable> Trainer<'a, G> {
    /// A new run, or (with `resume`) the run checkpointed in the output folder.
    ///
    /// # Errors
    /// [`NeuralError::Checkpoint`] for a checkpoint that is missing, damaged
    /// or of another config; [`NeuralError::Io`] for an unusable folder.
    pub fn new(
        game: &'a G,
        game_spec: &str,
        config: TrainConfig,
        dir: &Path,
        device: Device,
        resume: bool,
    ) -> Result<Trainer<'a, G>, NeuralError> {
        let info = ModelInfo {
            game: game_spec.to_string(),
            shape: NetShape {
                inputs: game.observation_len(),
                actions: game.num_actions(),
                hidden: config.hidden,
                blocks: config.blocks,
            },
        };
        let net = PolicyValueNet::new(info.clone(), device, config.seed);
        let adam = Adam::new(&net);
        let buffer = ReplayBuffer::new(info.shape.inputs, info.shape.actions, config.buffer_size);
        let best = Arc::new(net.to_bytes()?);
        let exact = match &config.exact_positions {
            Some(path) => Some(load_exact(game, game_spec, path)?),
            None => None,
        };
        let targets = ExactTargets::new(game, &config)?;
        let mut trainer = Trainer {
            game,
            game_spec: game_spec.to_string(),
            config,
            dir: dir.to_path_buf(),
            device,
            net,
            best,
            adam,
            buffer,
            generation: 0,
            elapsed_before: 0.0,
            exact,
            targets,
        };
        let checkpoint = dir.join("checkpoint");
        if resume {
            trainer.load_checkpoint(&checkpoint)?;
        } else if checkpoint.join("state.json").exists() {
            return Err(NeuralError::Checkpoint {
                path: checkpoint.display().to_string(),
                why: "a run is already there: continue it with --resume, or choose another name or output".into(),
            });
        }
        Ok(trainer)
    }

    /// Generations completed so far.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// The network in training.
    pub fn network(&self) -> &PolicyValueNet {
        &self.net
    }

    fn load_checkpoint(&mut self, dir: &Path) -> Result<(), NeuralError> {
        let bad = |why: String| NeuralError::Checkpoint {
            path: dir.display().to_string(),
            why,
        };
        let state_path = dir.join("state.json");
        let text = std::fs::read_to_string(&state_path)
            .map_err(|e| bad(format!("cannot read state.json: {e}")))?;
        let state: TrainState =
            serde_json::from_str(&text).map_err(|e| bad(format!("damaged state.json: {e}")))?;
        if state.game != self.game_spec {
            return Err(bad(format!(
                "it trains {}, the config says {}",
                state.game, self.game_spec
            )));
        }
        if state.config.resume_identity() != self.config.resume_identity() {
            return Err(bad(
                "the config changed since the checkpoint (only generations, time_limit, workers, batch_games, eval_every and output may change)".into(),
            ));
        }
        let load_net = |name: &str| -> Result<PolicyValueNet, NeuralError> {
            let net = PolicyValueNet::load(&dir.join(name), self.device)
                .map_err(|e| bad(e.to_string()))?;
            if net.info() != self.net.info() {
                return Err(bad(format!("{name} is a network of another shape or game")));
            }
            Ok(net)
        };
        let net = load_net("net.ot")?;
        let best = load_net("best.ot")?;
        self.net.copy_from(&net)?;
        self.best = Arc::new(best.to_bytes()?);
        self.adam.load(&dir.join("adam.ot"), self.device)?;
        let s = self.net.info().shape;
        self.buffer = ReplayBuffer::load(
            &dir.join("buffer.ot"),
            s.inputs,
            s.actions,
            self.config.buffer_size,
        )?;
        self.generation = state.generation;
        self.elapsed_before = state.elapsed_s;
        Ok(())
    }

    fn save_checkpoint(&self, elapsed_s: f64) -> Result<(), NeuralError> {
        let dir = self.dir.join("checkpoint");
        std::fs::create_dir_all(&dir).map_err(|e| NeuralError::io(&dir, e))?;
        self.net.save(&dir.join("net.ot"))?;
        let best = PolicyValueNet::from_bytes(&self.best, Device::Cpu)?;
        best.save(&dir.join("best.ot"))?;
        best.save(&self.dir.join("best.ot"))?;
        let plain = self.dir.join("best.safetensors");
        best.to_plain()?
            .save(&plain)
            .map_err(|e| NeuralError::Mismatch(format!("{}: {e}", plain.display())))?;
        self.adam.save(&dir.join("adam.ot"))?;
        self.buffer.save(&dir.join("buffer.ot"))?;
        // state.json last: a checkpoint counts only once it is complete.
        let state = TrainState {
            generation: self.generation,
            elapsed_s,
            game: self.game_spec.clone(),
            config: self.config.clone(),
        };
        let path = dir.join("state.json");
        let tmp = dir.join("state.json.tmp");
        std::fs::write(
            &tmp,
            serde_json::to_string_pretty(&state).expect("state serialises"),
        )
        .map_err(|e| NeuralError::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| NeuralError::io(&path, e))
    }

    /// Runs generations until `config.generations`, the time limit, or `stop`.
    /// Each finished generation is logged and checkpointed.
    ///
    /// # Errors
    /// Any [`NeuralError`] of the steps; the last checkpoint stays usable.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        on_event: &(dyn Fn(TrainEvent) + Sync),
    ) -> Result<(), NeuralError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| NeuralError::io(&self.dir, e))?;
        let started = Instant::now();
        let limit = self.config.time_limit();
        while self.generation < self.config.generations && !stop.load(Ordering::Relaxed) {
            let elapsed = self.elapsed_before + started.elapsed().as_secs_f64();
            if limit.is_some_and(|l| elapsed >= l.as_secs_f64()) {
                break;
            }
            let generation = self.generation + 1;
            on_event(TrainEvent::Generation {
                generation,
                games: self.config.games_per_generation,
            });
            let games = self.config.games_per_generation;
            let t0 = Instant::now();
            let Some((samples, (evaluations, _, exact_samples))) =
                self.self_play(generation, games, stop, on_event)?
            else {
                break;
            };
            let selfplay_s = t0.elapsed().as_secs_f64();
            let positions = samples.len() as u64;
            for s in &samples {
                self.buffer.push(s);
            }
            let t0 = Instant::now();
            let (policy_loss, value_loss) = self.train_steps(generation);
            let train_s = t0.elapsed().as_secs_f64();
            let exact = self.exact_scores()?;
            let t0 = Instant::now();
            let candidate = Arc::new(self.net.to_bytes()?);
            let gate_score = self.score(
                NeuralSpec::from_bytes(
                    candidate.clone(),
                    self.net.info().clone(),
                    self.config.eval_sims,
                    self.config.c_puct,
                ),
                GateOpponent::Best,
                self.config.gate_games,
                derive_seed(self.config.seed, u64::from(generation) << 32 | 1),
            )?;
            let promoted = gate_score > self.config.gate_threshold;
            if promoted {
                self.best = candidate;
            }
            let mut baselines = Vec::new();
            let every = self.config.eval_every.max(1);
            if self.config.eval_games > 0 && (generation - 1).is_multiple_of(every) {
                for (k, baseline) in self.config.baselines.clone().iter().enumerate() {
                    let spec: AgentSpec = baseline.parse()?;
                    let s = self.score(
                        NeuralSpec::from_bytes(
                            self.best.clone(),
                            self.net.info().clone(),
                            self.config.eval_sims,
                            self.config.c_puct,
                        ),
                        GateOpponent::Classical(spec),
                        self.config.eval_games,
                        derive_seed(
                            self.config.seed,
                            u64::from(generation) << 32 | (2 + k as u64),
                        ),
                    )?;
                    baselines.push(format!("{baseline}={s:.3}"));
                }
            }
            self.generation = generation;
            let elapsed_s = self.elapsed_before + started.elapsed().as_secs_f64();
            let row = GenerationLog {
                generation,
                elapsed_s,
                selfplay_games: self.config.games_per_generation,
                positions,
                buffer: self.buffer.len() as u64,
                policy_loss,
                value_loss,
                gate_score,
                promoted,
                baselines: baselines.join(";"),
                selfplay_s,
                evals_per_s: evaluations as f64 / selfplay_s.max(f64::MIN_POSITIVE),
                train_s,
                eval_s: t0.elapsed().as_secs_f64(),
                exact_top1: exact.map(|e| e.0.top1()),
                exact_loss: exact.map(|e| e.0.mean_loss()),
                exact_value_error: exact.and_then(|e| e.1),
                exact_targets: self
                    .targets
                    .as_ref()
                    .map(|_| exact_samples as f64 / positions.max(1) as f64),
            };
            self.append_log(&row)?;
            self.save_checkpoint(elapsed_s)?;
            on_event(TrainEvent::Done(row));
        }
        Ok(())
    }

    fn append_log(&self, row: &GenerationLog) -> Result<(), NeuralError> {
        let path = self.dir.join("log.csv");
        let exists = path.exists();
        if exists {
            upgrade_log(&path)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| NeuralError::io(&path, e))?;
        let mut w = csv::WriterBuilder::new()
            .has_headers(!exists)
            .from_writer(file);
        w.serialize(row)
            .and_then(|()| w.flush().map_err(csv::Error::from))
            .map_err(|e| NeuralError::io(&path, std::io::Error::other(e.to_string())))
    }

    /// Plays `games` self-play games with the best network, as generation
    /// `generation + 1` of the run would, keeps nothing, and says what they
    /// cost: the self-play throughput of this config on this machine.
    ///
    /// # Errors
    /// [`NeuralError`] if the network fails.
    pub fn bench_self_play(
        &self,
        games: u32,
        stop: &AtomicBool,
        on_event: &(dyn Fn(TrainEvent) + Sync),
    ) -> Result<SelfPlayStats, NeuralError> {
        let t0 = Instant::now();
        let played = self.self_play(self.generation + 1, games, stop, on_event)?;
        let (positions, (evaluations, batches, _)) = match played {
            Some((samples, counts)) => (samples.len() as u64, counts),
            None => (0, (0, 0, 0)),
        };
        Ok(SelfPlayStats {
            games,
            positions,
            evaluations,
            batches,
            seconds: t0.elapsed().as_secs_f64(),
        })
    }

    /// Plays `games` self-play games of generation `generation` with the
    /// best network; returns their samples, with the evaluations and
    /// network calls they took; `None` if stopped.
    #[allow(clippy::type_complexity)]
    fn self_play(
        &self,
        generation: u32,
        games: u32,
        stop: &AtomicBool,
        on_event: &(dyn Fn(TrainEvent) + Sync),
    ) -> Result<Option<(Vec<Sample>, (u64, u64, u64))>, NeuralError> {
        let groups = selfplay::groups(games as usize, self.config.batch_games);
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<(usize, Vec<Sample>)>> =
            Mutex::new(Vec::with_capacity(games as usize));
        let (evaluations, batches, exact) =
            (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
        let failure: Mutex<Option<NeuralError>> = Mutex::new(None);
        let failed = AtomicBool::new(false);
        let workers = self.config.workers.clamp(1, groups.len().max(1));
        // The workers see only what is `Sync`: the rules, the config and the
        // best network's bytes (each thread loads its own copy).
        let (game, config, best, device) = (self.game, &self.config, &self.best, self.device);
        let plays = SelfPlay {
            game,
            config,
            targets: self.targets.as_ref(),
        };
        let seed_of = |i: usize| {
            derive_seed(
                config.seed,
                u64::from(generation) << 32 | i as u64 | 1 << 31,
            )
        };
        std::thread::scope(|scope| {
            for _ in 0..workers {
                let (next, results, groups, failure, failed) =
                    (&next, &results, &groups, &failure, &failed);
                let (evaluations, batches, exact, seed_of, plays) =
                    (&evaluations, &batches, &exact, &seed_of, &plays);
                scope.spawn(move || {
                    // One thread per core already: libtorch's own threads
                    // would only contend with the other workers.
                    tch::set_num_threads(1);
                    let fail = |e: NeuralError| {
                        failure
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .get_or_insert(e);
                        failed.store(true, Ordering::Relaxed);
                    };
                    let net = match PolicyValueNet::from_bytes(best, device) {
                        Ok(net) => net,
                        Err(e) => return fail(e),
                    };
                    loop {
                        let g = next.fetch_add(1, Ordering::Relaxed);
                        let Some(indices) = groups.get(g) else { break };
                        let played = plays.play_group(
                            &net,
                            indices.clone(),
                            seed_of,
                            || stop.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed),
                            || on_event(TrainEvent::SelfPlayGame),
                        );
                        match played {
                            Ok(Some(group)) => {
                                evaluations.fetch_add(group.evaluations, Ordering::Relaxed);
                                batches.fetch_add(group.batches, Ordering::Relaxed);
                                exact.fetch_add(group.exact, Ordering::Relaxed);
                                results
                                    .lock()
                                    .unwrap_or_else(|p| p.into_inner())
                                    .extend(group.games);
                            }
                            Ok(None) => break,
                            Err(e) => return fail(e),
                        }
                    }
                });
            }
        });
        if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        let counts = (
            evaluations.into_inner(),
            batches.into_inner(),
            exact.into_inner(),
        );
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let mut results = results.into_inner().unwrap_or_else(|p| p.into_inner());
        // Game order, not finishing order, so the buffer does not depend on threads.
        results.sort_by_key(|(i, _)| *i);
        let samples = results.into_iter().flat_map(|(_, s)| s).collect();
        Ok(Some((samples, counts)))
    }
}

/// One Adam step of `net` on a minibatch `(obs, pi, z)`: cross-entropy
/// of the policy against `pi` plus the squared error of the value against
/// `z`. Returns the two losses.
fn fit_batch(
    net: &PolicyValueNet,
    adam: &mut Adam,
    config: &TrainConfig,
    device: Device,
    (obs, pi, z): (Tensor, Tensor, Tensor),
) -> (f64, f64) {
    let (obs, pi, z) = (
        obs.to_device(device),
        pi.to_device(device),
        z.to_device(device),
    );
    let (logits, value) = net.forward(&obs);
    let policy_loss = -(pi * logits.log_softmax(-1, Kind::Float))
        .sum_dim_intlist(-1, false, Kind::Float)
        .mean(Kind::Float);
    let value_loss = (value - z).square().mean(Kind::Float);
    let loss = &policy_loss + &value_loss;
    for mut v in net.var_store().trainable_variables() {
        v.zero_grad();
    }
    loss.backward();
    adam.step(net, config.learning_rate, config.weight_decay);
    (policy_loss.double_value(&[]), value_loss.double_value(&[]))
}

/// What a warm start did (see [`Trainer::warm_start`]).
#[derive(Clone, Debug, PartialEq)]
pub struct WarmStartLog {
    /// Labelled positions trained on.
    pub positions: usize,
    /// Minibatches.
    pub steps: usize,
    /// Mean policy loss (cross-entropy against the best moves) over the
    /// first tenth of the steps and over the last tenth.
    pub policy_loss: (f64, f64),
    /// Mean value loss (squared error) over the first and the last tenth.
    pub value_loss: (f64, f64),
    /// Seconds it took.
    pub seconds: f64,
}

impl<G: Game> Trainer<'_, G> {
    /// Trains the new network on `samples` (exact labels, made by
    /// [`crate::targets::ExactTarget::sample`]) for `warm_start_steps`
    /// minibatches and makes it the best network, so that the first
    /// generation's self-play starts from what perfect play taught it
    /// rather than from random weights.
    ///
    /// # Errors
    /// [`NeuralError::Config`] for a run already begun (a warm start is
    /// for a new one) or no samples; [`NeuralError::Torch`] when the
    /// network cannot be copied.
    pub fn warm_start(&mut self, samples: Vec<Sample>) -> Result<WarmStartLog, NeuralError> {
        let bad = |why: &str| NeuralError::Config {
            path: self.config.name.clone(),
            why: format!("key `warm_start`: {why}"),
        };
        if self.generation > 0 {
            return Err(bad("a warm start is for a new run, not one resumed"));
        }
        if samples.is_empty() {
            return Err(bad(
                "the folders hold no position with every move settled to train on",
            ));
        }
        let started = Instant::now();
        let s = self.net.info().shape;
        let positions = samples.len();
        let mut labelled = ReplayBuffer::new(s.inputs, s.actions, positions);
        // Each sample's arrays are freed once copied: a million positions
        // are held once, not twice.
        for sample in samples {
            labelled.push(&sample);
        }
        let mut rng = SmallRng::seed_from_u64(derive_seed(self.config.seed, 5 << 30));
        let steps = self.config.warm_start_steps;
        let tenth = (steps / 10).max(1);
        let (mut first, mut last) = ((0.0, 0.0), (0.0, 0.0));
        for step in 0..steps {
            let batch = labelled.batch(self.config.batch_size, &mut rng);
            let (pl, vl) = fit_batch(&self.net, &mut self.adam, &self.config, self.device, batch);
            if step < tenth {
                first = (first.0 + pl, first.1 + vl);
            }
            if step >= steps - tenth {
                last = (last.0 + pl, last.1 + vl);
            }
        }
        self.best = Arc::new(self.net.to_bytes()?);
        let n = tenth as f64;
        Ok(WarmStartLog {
            positions,
            steps,
            policy_loss: (first.0 / n, last.0 / n),
            value_loss: (first.1 / n, last.1 / n),
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// The generation's training steps; returns the mean losses.
    fn train_steps(&mut self, generation: u32) -> (f64, f64) {
        if self.buffer.is_empty() || self.config.train_steps == 0 {
            return (f64::NAN, f64::NAN);
        }
        let mut rng = SmallRng::seed_from_u64(derive_seed(
            self.config.seed,
            u64::from(generation) << 32 | 3 << 30,
        ));
        let (mut pl, mut vl) = (0.0, 0.0);
        for _ in 0..self.config.train_steps {
            let batch = self.buffer.batch(self.config.batch_size, &mut rng);
            let (p, v) = fit_batch(&self.net, &mut self.adam, &self.config, self.device, batch);
            pl += p;
            vl += v;
        }
        let n = self.config.train_steps as f64;
        (pl / n, vl / n)
    }

    /// How the network in training compares with perfect play on the exact
    /// positions: its raw policy's agreement, and (with margin targets) its
    /// value head's mean error in seeds. `None` without exact positions.
    fn exact_scores(&self) -> Result<Option<(Agreement, Option<f64>)>, NeuralError> {
        let Some((set, states)) = &self.exact else {
            return Ok(None);
        };
        let game = self.game;
        let inputs = game.observation_len();
        let mut obs = vec![0.0f32; states.len() * inputs];
        for (i, state) in states.iter().enumerate() {
            game.observe(state, &mut obs[i * inputs..(i + 1) * inputs]);
        }
        let (logits, values) = self.net.infer(&obs, states.len())?;
        let actions = game.num_actions();
        let half = game.total_seeds() as f64 / 2.0;
        let mut agreement = Agreement::default();
        let mut value_error = 0.0;
        let mut priors = Vec::new();
        for (i, (state, position)) in states.iter().zip(&set.positions).enumerate() {
            priors_and_value(
                game,
                state,
                &logits[i * actions..(i + 1) * actions],
                values[i],
                &mut priors,
            );
            let mv = game.legal_moves(state).nth(preferred(&priors));
            let loss = position.loss(mv).ok_or_else(|| {
                NeuralError::Mismatch(format!(
                    "exact position {} has no value for its move {mv}",
                    i + 1
                ))
            })?;
            agreement.add(loss);
            // The value head gives the mover's margin over half the seeds.
            let margin = f64::from(values[i].clamp(-1.0, 1.0)) * half;
            value_error += (margin - f64::from(position.value())).abs();
        }
        let value_error = (self.config.value_target == ValueTarget::Margin)
            .then(|| value_error / states.len().max(1) as f64);
        Ok(Some((agreement, value_error)))
    }

    /// The score of `candidate` in paired games (seats swapped) against the
    /// best network or a classical agent.
    fn score(
        &self,
        candidate: NeuralSpec,
        opponent: GateOpponent,
        games: u32,
        seed: u64,
    ) -> Result<f64, NeuralError> {
        let game = self.game;
        let best = NeuralSpec::from_bytes(
            self.best.clone(),
            self.net.info().clone(),
            self.config.eval_sims,
            self.config.c_puct,
        );
        let opponent_name = match &opponent {
            GateOpponent::Best => "best".to_string(),
            GateOpponent::Classical(spec) => spec.to_string(),
        };
        let factory = move |i: usize| -> Box<dyn Agent<G>> {
            match (i, &opponent) {
                (0, _) => candidate.build::<G>(),
                (_, GateOpponent::Best) => best.build::<G>(),
                (_, GateOpponent::Classical(spec)) => spec.build::<G>(),
            }
        };
        let openings = random_openings(
            game,
            games.div_ceil(2) as usize,
            self.config.eval_opening_plies,
            seed,
        )?
        .into_iter()
        .map(mancala_arena::Opening::from)
        .collect::<Vec<_>>();
        let plan = schedule(&pairs(Format::RoundRobin, 2), games, openings.len());
        let arena = Arena {
            game,
            game_spec: self.game_spec.clone(),
            players: Players {
                names: vec!["candidate".into(), opponent_name.clone()],
                specs: vec!["candidate".into(), opponent_name],
                factory: Box::new(factory),
            },
            openings,
            options: RunOptions {
                threads: self.config.workers.clamp(
                    1,
                    std::thread::available_parallelism().map_or(1, |n| n.get()),
                ),
                seed,
                move_timeout: None,
                time_control: None,
                time_margin: mancala_arena::DEFAULT_TIME_MARGIN,
                live: None,
            },
            adjudicator: None,
        };
        let points = Mutex::new(0.0f64);
        let never = AtomicBool::new(false);
        arena.run(&plan, &never, &|r: GameRecord| {
            let s = if r.seats[0] == 0 {
                r.first_seat_score()
            } else {
                1.0 - r.first_seat_score()
            };
            *points.lock().unwrap_or_else(|p| p.into_inner()) += s;
        })?;
        let points = points.into_inner().unwrap_or_else(|p| p.into_inner());
        Ok(points / f64::from(games))
    }
}

/// Reads the exact positions at `path` and checks that they are positions
/// of `game` (spec `game_spec`).
fn load_exact<G: Game>(
    game: &G,
    game_spec: &str,
    path: &Path,
) -> Result<(ExactPositions, Vec<G::State>), NeuralError> {
    let bad = |why: String| NeuralError::Config {
        path: path.display().to_string(),
        why: format!("key `exact_positions`: {why}"),
    };
    let set = ExactPositions::load(path).map_err(|e| bad(e.to_string()))?;
    let same_game = set
        .game
        .parse::<mancala_core::GameSpec>()
        .is_ok_and(|g| g.to_string() == game_spec);
    if !same_game {
        return Err(bad(format!(
            "the positions are of {}, the run trains {game_spec}",
            set.game
        )));
    }
    let mut states = Vec::with_capacity(set.positions.len());
    for (i, p) in set.positions.iter().enumerate() {
        let state = game
            .parse_position(&p.position)
            .map_err(|e| bad(format!("position {}: {e}", i + 1)))?;
        if game.is_over(&state) {
            return Err(bad(format!("position {} is a finished game", i + 1)));
        }
        states.push(state);
    }
    Ok((set, states))
}

/// Rewrites a log written by an older version (fewer columns) with
/// today's columns, so that a resumed run appends rows that fit; the
/// older rows keep their values, with 0 in the new columns.
fn upgrade_log(path: &Path) -> Result<(), NeuralError> {
    let io = |e: csv::Error| NeuralError::io(path, std::io::Error::other(e.to_string()));
    let mut reader = csv::Reader::from_path(path).map_err(io)?;
    let header = reader.headers().map_err(io)?.clone();
    let mut current = csv::Writer::from_writer(Vec::new());
    current.serialize(GenerationLog::default()).map_err(io)?;
    let text = String::from_utf8(current.into_inner().unwrap_or_default()).unwrap_or_default();
    let wanted = text.lines().next().unwrap_or_default();
    if header.iter().collect::<Vec<_>>().join(",") == wanted {
        return Ok(());
    }
    let rows: Vec<GenerationLog> = reader.deserialize().collect::<Result<_, _>>().map_err(io)?;
    let tmp = path.with_extension("csv.tmp");
    let mut w = csv::Writer::from_path(&tmp).map_err(io)?;
    for row in &rows {
        w.serialize(row).map_err(io)?;
    }
    w.flush().map_err(|e| NeuralError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| NeuralError::io(path, e))
}

/// Whom a network is measured against.
enum GateOpponent {
    Best,
    Classical(AgentSpec),
}
