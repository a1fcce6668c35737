//! Gumbel root selection for [`crate::Mcts`] (Danihelka et al., "Policy
//! improvement by planning with Gumbel", ICLR 2022).
//!
//! Why: PUCT with few simulations improves the policy little, and its
//! visit counts are a poor training target when most moves get one or two
//! visits. Here the root samples `considered` moves without replacement
//! (the Gumbel-top-k trick on the priors), shares the budget between them
//! by sequential halving, and keeps the move whose Gumbel draw, prior and
//! value add up to the most. The training target is the improved policy
//! `softmax(logits + σ(completed Q))`, which is defined for every move
//! after any number of simulations. Below the root the search stays PUCT.
//!
//! The functions here are pure (slices in, numbers out) so that the
//! tree's bookkeeping stays in `mcts.rs` and the arithmetic is tested on
//! its own.

/// The visit constant of `σ`: a move's value weighs more as the most
/// visited move gets more visits (`c_visit` of the paper).
const C_VISIT: f32 = 50.0;
/// The value scale of `σ` (`c_scale`) unless told otherwise: the paper's.
pub const DEFAULT_VALUE_SCALE: f32 = 0.1;

/// Gumbel root selection: how many moves the root considers, and whether
/// their order is drawn (self-play) or the priors' own (play).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GumbelRoot {
    /// Moves sampled at the root (all of them when there are fewer).
    pub considered: usize,
    /// Whether Gumbel noise is drawn. Without it the considered moves are
    /// the highest priors and the choice is deterministic.
    pub noise: bool,
    /// `c_scale`: how many logits a value difference is worth, per visit
    /// of the most visited move plus 50.
    pub value_scale: f32,
    /// Whether the moves' values are stretched to span `[0, 1]` first (the
    /// paper's choice): then any difference, however small, is worth the
    /// whole scale.
    pub rescale: bool,
}

impl GumbelRoot {
    /// `considered` moves, the paper's `σ`, and draws as `noise` says.
    pub fn new(considered: usize, noise: bool) -> GumbelRoot {
        GumbelRoot {
            considered,
            noise,
            value_scale: DEFAULT_VALUE_SCALE,
            rescale: true,
        }
    }
}

/// The visit count the move chosen at each simulation must have before it
/// (index: simulations into the root's children so far), for `considered`
/// moves and `sims` simulations: sequential halving. Each of the
/// `⌈log2 considered⌉` phases shares about `sims / phases` simulations
/// evenly among the moves still in; the better half (by score) goes on.
/// The moves with the given count are ranked by score at each
/// simulation, so the halving needs no list of who is still in: a move
/// that lost a phase simply stays at a count no later phase asks for.
pub fn halving_schedule(considered: usize, sims: usize) -> Vec<u32> {
    let mut schedule = Vec::with_capacity(sims);
    if considered == 0 || sims == 0 {
        return schedule;
    }
    if considered == 1 {
        schedule.extend(0..sims as u32);
        return schedule;
    }
    let phases = (considered as f64).log2().ceil() as usize;
    let mut visits = vec![0u32; considered];
    let mut still_in = considered;
    while schedule.len() < sims {
        let rounds = (sims / (phases * still_in)).max(1);
        for _ in 0..rounds {
            schedule.extend_from_slice(&visits[..still_in]);
            for v in &mut visits[..still_in] {
                *v += 1;
            }
        }
        still_in = (still_in / 2).max(2);
    }
    schedule.truncate(sims);
    schedule
}

/// The visits each considered move ends with after `sims` simulations,
/// best-ranked first, when the ranking never changes (any ranking gives
/// the same counts, only to other moves): what a full budget must give.
pub fn halving_visits(considered: usize, sims: usize) -> Vec<u32> {
    let mut visits = vec![0u32; considered];
    for wanted in halving_schedule(considered, sims) {
        // The schedule asks only for counts that some move has.
        if let Some(k) = visits.iter().position(|&n| n == wanted) {
            visits[k] += 1;
        }
    }
    visits
}

/// A Gumbel(0, 1) draw from `uniform`, a number in `[0, 1)`.
pub fn gumbel_from_uniform(uniform: f64) -> f32 {
    // Both ends are infinite draws: keep `u` inside (0, 1).
    let u = uniform.clamp(f64::EPSILON, 1.0 - f64::EPSILON);
    -(-u.ln()).ln() as f32
}

/// The completed values of the root's moves, from the mover's side:
/// a visited move keeps its mean; an unvisited one gets the mix of the
/// root's own value and the prior-weighted mean of the visited moves
/// (the paper's `v_mix`), an estimate that improves as visits come in.
pub fn completed_values(
    priors: &[f32],
    visits: &[u32],
    means: &[f32],
    root_value: f32,
) -> Vec<f32> {
    let total: f32 = visits.iter().map(|&n| n as f32).sum();
    let (mut prior_visited, mut weighted) = (0.0f32, 0.0f32);
    for ((&p, &n), &q) in priors.iter().zip(visits).zip(means) {
        if n > 0 {
            let p = p.max(f32::MIN_POSITIVE);
            prior_visited += p;
            weighted += p * q;
        }
    }
    let mixed = if prior_visited > 0.0 {
        (root_value + total * weighted / prior_visited) / (total + 1.0)
    } else {
        root_value
    };
    visits
        .iter()
        .zip(means)
        .map(|(&n, &q)| if n > 0 { q } else { mixed })
        .collect()
}

/// `σ(completed Q)`: the completed values (rescaled to `[0, 1]` across
/// the moves when `root.rescale`), times `(c_visit + most visits) ·
/// c_scale`.
pub fn sigma(completed: &[f32], visits: &[u32], root: &GumbelRoot) -> Vec<f32> {
    let (lo, range) = if root.rescale {
        let lo = completed.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        (lo, (hi - lo).max(1e-8))
    } else {
        (0.0, 1.0)
    };
    let most = visits.iter().copied().max().unwrap_or(0) as f32;
    let scale = (C_VISIT + most) * root.value_scale;
    completed.iter().map(|q| scale * (q - lo) / range).collect()
}

/// The prior's logits (up to a constant, which changes no ranking and no
/// softmax).
pub fn logits(priors: &[f32]) -> Vec<f32> {
    priors.iter().map(|p| p.max(1e-12).ln()).collect()
}

/// `softmax(logits + σ)`: the improved policy, a distribution over the
/// root's moves.
pub fn improved_policy(logits: &[f32], sigma: &[f32]) -> Vec<f32> {
    let mut z: Vec<f32> = logits.iter().zip(sigma).map(|(l, s)| l + s).collect();
    crate::policy::softmax_in_place(&mut z);
    z
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_budget_visits_every_considered_move_as_halving_says() {
        // 16 moves, 64 simulations: 4 phases of 16 simulations: 16 moves
        // once, then the best 8 twice more, the best 4 four times more,
        // the best 2 eight times more.
        let v = halving_visits(16, 64);
        assert_eq!(v.iter().sum::<u32>(), 64);
        assert_eq!(&v[..2], &[1 + 2 + 4 + 8, 1 + 2 + 4 + 8]);
        assert_eq!(&v[2..4], &[1 + 2 + 4, 1 + 2 + 4]);
        assert_eq!(&v[4..8], &[1 + 2, 1 + 2, 1 + 2, 1 + 2]);
        assert!(v[8..].iter().all(|&n| n == 1));
        // Kalah's 6 moves and 32 simulations: 3 phases: 6×1 + ... every
        // move is visited, the better ones more, and none less than a worse.
        let v = halving_visits(6, 32);
        assert_eq!(v.iter().sum::<u32>(), 32);
        assert!(v.iter().all(|&n| n >= 1), "{v:?}");
        assert!(v.windows(2).all(|w| w[0] >= w[1]), "{v:?}");
        assert!(v[0] - v[1] <= 1, "the last two share the last phase: {v:?}");
        // Fewer simulations than moves: the best-ranked get one each.
        assert_eq!(halving_visits(8, 5), vec![1, 1, 1, 1, 1, 0, 0, 0]);
        // One move takes every simulation.
        assert_eq!(halving_visits(1, 7), vec![7]);
        assert!(halving_schedule(0, 5).is_empty());
    }

    #[test]
    fn the_improved_policy_is_a_distribution_that_follows_the_values() {
        let priors = [0.5, 0.3, 0.2, 0.0];
        let visits = [3, 2, 0, 0];
        let means = [0.4, 0.9, 0.0, 0.0];
        let completed = completed_values(&priors, &visits, &means, 0.5);
        // Unvisited moves get the mixed value: (0.5 + 5 · (0.5·0.4 +
        // 0.3·0.9) / 0.8) / 6.
        let mixed = (0.5 + 5.0 * (0.5 * 0.4 + 0.3 * 0.9) / 0.8) / 6.0;
        assert!((completed[2] - mixed).abs() < 1e-6, "{completed:?}");
        assert_eq!(completed[3], completed[2]);
        let paper = GumbelRoot::new(4, false);
        let s = sigma(&completed, &visits, &paper);
        let policy = improved_policy(&logits(&priors), &s);
        let total: f32 = policy.iter().sum();
        assert!((total - 1.0).abs() < 1e-6, "{policy:?}");
        assert!(policy.iter().all(|&p| (0.0..=1.0).contains(&p)));
        // The better value overtakes the higher prior.
        assert!(policy[1] > policy[0], "{policy:?}");
        // A zero prior stays (almost) zero.
        assert!(policy[3] < 1e-6, "{policy:?}");
        // Without the stretch, a small difference is worth little.
        let raw = GumbelRoot {
            rescale: false,
            ..paper
        };
        let near = [0.50, 0.51, 0.50, 0.50];
        let stretched = sigma(&near, &visits, &paper);
        let plain = sigma(&near, &visits, &raw);
        assert!(
            (stretched[1] - stretched[0] - 5.3).abs() < 1e-3,
            "{stretched:?}"
        );
        assert!((plain[1] - plain[0] - 0.053).abs() < 1e-3, "{plain:?}");
        // Equal values leave the prior as it was.
        let flat = sigma(&[0.3; 4], &visits, &paper);
        let unchanged = improved_policy(&logits(&priors), &flat);
        for (p, q) in unchanged.iter().zip(priors) {
            assert!((p - q).abs() < 1e-5, "{unchanged:?}");
        }
    }

    #[test]
    fn gumbel_draws_are_finite_and_spread_as_gumbel() {
        let draws: Vec<f32> = (0..10_000)
            .map(|i| gumbel_from_uniform(i as f64 / 10_000.0))
            .collect();
        assert!(draws.iter().all(|g| g.is_finite()));
        // The mean of Gumbel(0, 1) is the Euler–Mascheroni constant.
        let mean = draws.iter().sum::<f32>() / draws.len() as f32;
        assert!((mean - 0.5772).abs() < 0.01, "{mean}");
    }
}
