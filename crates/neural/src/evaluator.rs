//! Network evaluations for the tree search of the `neural` agent; self-play
//! batches its evaluations itself ([`crate::selfplay`]).

use mancala_agents::{AgentError, Evaluator};
use mancala_core::{Game, Player};
use rand::rngs::SmallRng;

use crate::net::PolicyValueNet;

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

/// The index of the largest prior (ties: the first): the raw policy's move,
/// in `MoveSet` order.
pub fn preferred(priors: &[f32]) -> usize {
    (0..priors.len())
        .max_by(|&a, &b| priors[a].total_cmp(&priors[b]).then(b.cmp(&a)))
        .expect("a position not over has moves")
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
