//! Network evaluations for the tree search: in the same thread, or batched
//! in an inference thread that owns the model (`Tensor` is not `Sync`).

use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use mancala_agents::{AgentError, Evaluator};
use mancala_core::{Game, Player};
use rand::rngs::SmallRng;
use tch::Device;

use crate::net::PolicyValueNet;
use crate::NeuralError;

/// Turns a network's output for `state` into priors over the legal moves
/// (a softmax restricted to them, in `MoveSet` order) and player 0's
/// expected score.
pub fn priors_and_value<G: Game>(
    game: &G,
    state: &G::State,
    logits: &[f32],
    value: f32,
    priors: &mut Vec<f32>,
) -> f32 {
    let legal = game.legal_moves(state);
    priors.clear();
    let pits = game.pits();
    let max = legal
        .into_iter()
        .map(|m| logits[m.action_index(pits)])
        .fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for m in legal {
        let p = (logits[m.action_index(pits)] - max).exp();
        priors.push(p);
        total += p;
    }
    for p in priors.iter_mut() {
        *p /= total;
    }
    // The value is from the mover's side, in -1..1.
    let mover_score = (value.clamp(-1.0, 1.0) + 1.0) / 2.0;
    match game.to_move(state) {
        Some(Player::ONE) => 1.0 - mover_score,
        _ => mover_score,
    }
}

/// Evaluates with a network owned by the calling thread.
#[derive(Debug)]
pub struct LocalEvaluator {
    net: PolicyValueNet,
    obs: Vec<f32>,
}

impl LocalEvaluator {
    /// An evaluator over `net`.
    pub fn new(net: PolicyValueNet) -> LocalEvaluator {
        let len = net.info().shape.inputs;
        LocalEvaluator {
            net,
            obs: vec![0.0; len],
        }
    }

    /// The network.
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }
}

impl<G: Game> Evaluator<G> for LocalEvaluator {
    fn uses_priors(&self) -> bool {
        true
    }

    fn evaluate(
        &mut self,
        game: &G,
        state: &G::State,
        _rng: &mut SmallRng,
        priors: &mut Vec<f32>,
    ) -> Result<f32, AgentError> {
        game.observe(state, &mut self.obs);
        // A failing network must not play on with made-up values: the
        // error ends the search, and the agent forfeits with the reason.
        let (logits, value) = self
            .net
            .infer(&self.obs, 1)
            .map_err(|e| AgentError::Failed(format!("network inference failed: {e}")))?;
        Ok(priors_and_value(game, state, &logits, value[0], priors))
    }
}

/// One request to the inference thread: an observation and where to answer.
struct Request {
    obs: Vec<f32>,
    reply: Sender<Answer>,
}

/// The policy logits and value of one request, or why there are none.
type Answer = Result<(Vec<f32>, f32), String>;

/// An inference thread: owns a network, answers batches of requests.
pub struct InferenceServer {
    sender: Option<Sender<Request>>,
    handle: Option<JoinHandle<Result<(), NeuralError>>>,
}

impl InferenceServer {
    /// Starts a thread with the network saved in `model` on `device`,
    /// evaluating up to `max_batch` requests at once.
    ///
    /// # Errors
    /// [`NeuralError`] if the model cannot be loaded.
    pub fn start(
        model: Vec<u8>,
        device: Device,
        max_batch: usize,
    ) -> Result<InferenceServer, NeuralError> {
        let (sender, receiver) = mpsc::channel::<Request>();
        let (ready_tx, ready_rx) = mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("inference".into())
            .spawn(move || serve(model, device, max_batch.max(1), receiver, ready_tx))
            .map_err(|e| NeuralError::Io {
                path: "inference thread".into(),
                source: e,
            })?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(InferenceServer {
                sender: Some(sender),
                handle: Some(handle),
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(NeuralError::Inference(
                "the inference thread stopped at start".into(),
            )),
        }
    }

    /// A client for one search thread.
    pub fn client(&self, inputs: usize) -> RemoteEvaluator {
        let (reply, answers) = mpsc::channel();
        RemoteEvaluator {
            sender: self.sender.clone().expect("server running"),
            reply,
            answers,
            obs: vec![0.0; inputs],
        }
    }

    /// Stops the thread once every client is gone.
    ///
    /// # Errors
    /// The thread's own error, if it failed.
    pub fn stop(mut self) -> Result<(), NeuralError> {
        self.sender.take();
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(NeuralError::Inference(
                "the inference thread panicked".into(),
            )),
            None => Ok(()),
        }
    }
}

impl Drop for InferenceServer {
    fn drop(&mut self) {
        self.sender.take();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn serve(
    model: Vec<u8>,
    device: Device,
    max_batch: usize,
    requests: Receiver<Request>,
    ready: Sender<Result<(), NeuralError>>,
) -> Result<(), NeuralError> {
    let net = match PolicyValueNet::from_bytes(&model, device) {
        Ok(net) => {
            let _ = ready.send(Ok(()));
            net
        }
        Err(e) => {
            let _ = ready.send(Err(NeuralError::Inference(e.to_string())));
            return Ok(());
        }
    };
    let (inputs, actions) = (net.info().shape.inputs, net.info().shape.actions);
    let mut batch: Vec<Request> = Vec::with_capacity(max_batch);
    let mut obs = Vec::with_capacity(max_batch * inputs);
    let mut failure: Option<String> = None;
    // Wait for one request, then take whatever else is already queued.
    while let Ok(first) = requests.recv() {
        batch.push(first);
        while batch.len() < max_batch {
            match requests.try_recv() {
                Ok(r) => batch.push(r),
                Err(_) => break,
            }
        }
        obs.clear();
        for r in &batch {
            obs.extend_from_slice(&r.obs);
        }
        if failure.is_none() {
            let n = batch.len();
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| net.infer(&obs, n)));
            match result {
                Ok(Ok((logits, values))) => {
                    for (i, r) in batch.drain(..).enumerate() {
                        let answer = (logits[i * actions..(i + 1) * actions].to_vec(), values[i]);
                        // A client that went away no longer needs its answer.
                        let _ = r.reply.send(Ok(answer));
                    }
                    continue;
                }
                Ok(Err(e)) => failure = Some(e.to_string()),
                Err(_) => failure = Some("the network panicked".into()),
            }
        }
        // After a failure every request gets the error, until the clients
        // are gone: a client waiting for an answer is never left hanging.
        let why = failure.clone().unwrap_or_default();
        for r in batch.drain(..) {
            let _ = r.reply.send(Err(why.clone()));
        }
    }
    match failure {
        Some(why) => Err(NeuralError::Inference(why)),
        None => Ok(()),
    }
}

/// Evaluates through an [`InferenceServer`].
pub struct RemoteEvaluator {
    sender: Sender<Request>,
    reply: Sender<Answer>,
    answers: Receiver<Answer>,
    obs: Vec<f32>,
}

impl<G: Game> Evaluator<G> for RemoteEvaluator {
    fn uses_priors(&self) -> bool {
        true
    }

    fn evaluate(
        &mut self,
        game: &G,
        state: &G::State,
        _rng: &mut SmallRng,
        priors: &mut Vec<f32>,
    ) -> Result<f32, AgentError> {
        game.observe(state, &mut self.obs);
        let request = Request {
            obs: self.obs.clone(),
            reply: self.reply.clone(),
        };
        // The inference thread answers every request, with an error once
        // its network failed; it is gone only if it was stopped.
        let gone = || AgentError::Failed("the inference thread has stopped".into());
        self.sender.send(request).map_err(|_| gone())?;
        let (logits, value) = self
            .answers
            .recv()
            .map_err(|_| gone())?
            .map_err(|why| AgentError::Failed(format!("network inference failed: {why}")))?;
        Ok(priors_and_value(game, state, &logits, value, priors))
    }
}
