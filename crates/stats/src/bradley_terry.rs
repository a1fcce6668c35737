//! Maximum-likelihood Bradley–Terry (Elo) ratings fitted jointly with a
//! first-move advantage, in the spirit of BayesElo's `advantage`.
//!
//! # Model
//!
//! In a game where `first` moves first against `second`, the first seat's
//! expected score is
//!
//! ```text
//! p = 1 / (1 + 10^(-(r_first + advantage - r_second) / 400))
//! ```
//!
//! and a game scoring `s` (1 win, 1/2 draw, 0 loss for the first seat)
//! contributes `s ln p + (1 - s) ln(1 - p)` to the log-likelihood. This is
//! the "draws as half points" treatment: a draw counts as half a win and
//! half a loss instead of having its own probability (as in BayesElo's
//! `drawelo`), which keeps the fit to a single logistic regression and
//! makes the Elo differences agree with the usual `-400 log10(1/s - 1)`.
//!
//! # Prior
//!
//! A player who won (or lost) every game, or a first seat that always won,
//! has an infinite maximum-likelihood estimate, and groups of players that
//! never met have no defined offset. To make the fit always converge, the
//! objective adds `prior_draws` virtual drawn games per player, spread
//! evenly over all pairs of players with games (`prior_draws / (m - 1)` per
//! pair for `m` such players), plus `prior_draws` virtual drawn games
//! between two equal players for the advantage. These depend only on rating
//! differences, so the result does not depend on the anchor, and they pull
//! estimates towards "everyone equal, no advantage".
//!
//! Its size: each player's record gains `prior_draws` drawn games in all,
//! which moves its rating, relative to its opponents, by about
//! `174 * prior_draws * (1/2 - s) / (n s (1 - s))` Elo for a score `s` over
//! `n` games (`174 = 400 / ln 10`). With the default [`DEFAULT_PRIOR_DRAWS`]
//! of one draw that is 1.0 Elo at 64% over 100 games and about 1 Elo at
//! 20% or 80% over 300, but 26.5 Elo at 1% over 300 games (3 of 300 points
//! become 3.5 of 301: the two ratings move 13 Elo each with a mean anchor),
//! and 125 Elo for an agent with half a point in 80 games against two
//! others (the formula says 173: it overstates below about one point).
//! It also narrows the intervals of such a player (there: the Hessian
//! half-width from 99 to 92 Elo). Near-perfect records are therefore
//! shrunk noticeably; set `prior_draws` to 0 for the pure
//! maximum-likelihood estimate, which then must exist (no perfect record,
//! connected players).
//!
//! # Fit and intervals
//!
//! Ratings are only defined up to a common shift (the gauge). The fit holds
//! one reference player at 0, maximises over the rest and the advantage by
//! Newton's method with step halving (the objective is concave), then
//! shifts to the requested [`Anchor`]. The covariance is the inverse of the
//! observed information (negative Hessian of the objective, prior
//! included) in those free coordinates, carried through the same linear
//! map to the anchored ratings; differences `r_i - r_j` and their variances
//! do not depend on the anchor.
//!
//! Two 95% intervals come with each rating and the advantage:
//!
//! - the Hessian (Wald) interval `estimate ± 1.96 stderr`
//!   ([`RatingFit::interval`]): symmetric by construction, it treats the
//!   log-likelihood as a parabola;
//! - the profile-likelihood interval ([`RatingFit::profile_interval`]): the
//!   values `t` of the rating whose profile objective, maximised over every
//!   other rating and the advantage subject to `rating = t`, lies
//!   [`PROFILE_DROP_95`] (`chi2(1, 0.95) / 2 ≈ 1.92`) below the maximum.
//!   Each bound is a few constrained Newton fits (root finding on the
//!   convex drop), warm-started from the previous one. It uses the same
//!   objective as the estimate, prior included, so it always contains it;
//!   under an anchored player it is the interval of the difference to that
//!   player.
//!
//! The profile interval is the one to quote. The log-likelihood of a
//! near-perfect record is far from a parabola in Elo: it flattens towards
//! the extreme, so the symmetric Hessian interval is too short on that side
//! and too long on the other. For an agent scoring 1% over 300 games
//! (3 points) the Hessian interval of its mean-anchored rating is ±91.5
//! Elo, the profile interval −110.4/+78.3. When the true score is 1%
//! (exact binomial calculation over the possible results, no draws) the
//! Hessian interval misses on the extreme side 4.4% of the time instead of
//! 2.5%, the profile interval 2.2%.
//!
//! A parametric bootstrap was the alternative and is worse here: it is
//! Monte Carlo (deterministic only through a seed, noisy in the
//! percentiles), costs hundreds of refits, and at an extreme score many
//! resamples hold a perfect record (in one seat or overall) whose estimate
//! is set by the prior, or is infinite without one: 14% of 2000 resamples
//! of the 1% example, in a numpy check, so the far percentile is set by the
//! prior rather than by the data. The profile interval is deterministic,
//! cheap, unchanged by a monotone reparametrisation (Elo, logits, expected
//! score), and without a prior a bound the data do not fix comes out
//! infinite rather than arbitrary.
//!
//! The Hessian interval is trustworthy when every player has plenty of
//! points both ways. With `k` the smaller of a player's points and points
//! conceded (`n s` and `n (1 - s)`), its extreme-side end falls short of
//! the profile one by about 3% of the half-width at `k = 100`, 5% at 30,
//! 10% at 10 and over 20% at 3 (two-player figures); scores between 20%
//! and 80% over a few hundred games are fine.

use std::collections::BTreeMap;
use std::f64::consts::LN_10;

use serde::Serialize;

use super::json_float;
use super::linalg::Cholesky;
use super::special::normal_cdf;
use super::{StatsError, Z95};

/// Natural-log odds per Elo point: 400 Elo is a factor of 10 in the odds.
const LOGIT_PER_ELO: f64 = LN_10 / 400.0;

/// Default prior strength: virtual drawn games per player and for the
/// advantage. It moves a rating by about `174 (1/2 - s) / (n s (1 - s))`
/// Elo for a score `s` over `n` games: about 1 Elo at 64% over 100 games,
/// 26.5 Elo at 1% over 300 (see the module documentation).
pub const DEFAULT_PRIOR_DRAWS: f64 = 1.0;

/// Newton converges quadratically; a hundred steps is only reached when the
/// estimate runs off to infinity (no prior and a perfect record).
const DEFAULT_MAX_ITERATIONS: usize = 100;

/// Stop when no parameter moves by more than this many Elo in a step.
const DEFAULT_TOLERANCE: f64 = 1e-9;

/// Step halvings tried before deciding the objective cannot be improved.
const MAX_HALVINGS: usize = 60;

/// Relative slack on the objective when accepting a step, so rounding noise
/// at the optimum is not mistaken for a worse point.
const OBJECTIVE_SLACK: f64 = 1e-13;

/// Drop of the log-likelihood from its maximum that bounds a 95%
/// profile-likelihood interval: `chi2(1 dof, 0.95) / 2 = Z95² / 2 ≈ 1.92`.
pub const PROFILE_DROP_95: f64 = Z95 * Z95 / 2.0;

/// A profile bound is located to within this many Elo.
const PROFILE_TOLERANCE: f64 = 1e-6;

/// Root-finding steps per profile bound; Newton on the convex drop
/// needs well under ten, so this is only a guard.
const PROFILE_MAX_STEPS: usize = 200;

/// A profile bound further than this (in logits, about 17,000 Elo) from
/// the estimate is reported as infinite: the data do not bound that side,
/// which only happens without a prior.
const PROFILE_LIMIT: f64 = 100.0;

/// One game (or a game's score) between two players.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GameResult {
    /// Index of the player who moved first.
    pub first: usize,
    /// Index of the player who moved second. May equal `first` (self-play),
    /// which informs only the advantage.
    pub second: usize,
    /// First seat's score in `[0, 1]`: 1 win, 0.5 draw, 0 loss.
    pub score: f64,
}

/// How the free common shift of the ratings is fixed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub enum Anchor {
    /// Mean rating of the players with games is 0.
    #[default]
    Mean,
    /// The given player has exactly the given rating (and standard error 0).
    Player(usize, f64),
}

/// Settings for [`fit_ratings`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FitOptions {
    /// How the rating scale is anchored.
    pub anchor: Anchor,
    /// Prior strength in virtual drawn games (see the module docs); 0 for
    /// the pure maximum-likelihood estimate, which may not exist.
    pub prior_draws: f64,
    /// Newton steps before giving up with [`StatsError::NotConverged`].
    pub max_iterations: usize,
    /// Convergence threshold on the largest parameter change, in Elo.
    pub tolerance: f64,
    /// Whether to compute the profile-likelihood intervals
    /// ([`RatingFit::profile_intervals`]); they cost two constrained fits
    /// per player, which is nothing for tens of players.
    pub profile: bool,
}

impl Default for FitOptions {
    fn default() -> Self {
        Self {
            anchor: Anchor::Mean,
            prior_draws: DEFAULT_PRIOR_DRAWS,
            max_iterations: DEFAULT_MAX_ITERATIONS,
            tolerance: DEFAULT_TOLERANCE,
            profile: true,
        }
    }
}

impl FitOptions {
    /// Default options with the given anchor.
    pub fn with_anchor(anchor: Anchor) -> Self {
        Self {
            anchor,
            ..Self::default()
        }
    }
}

/// Result of [`fit_ratings`]. All ratings and errors are in Elo.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatingFit {
    /// Rating per player. Players without games against others get the
    /// anchor value (0 for [`Anchor::Mean`]).
    pub ratings: Vec<f64>,
    /// Standard error per player; `None` for players without games against
    /// others, `Some(0.0)` for an anchored player.
    pub stderr: Vec<Option<f64>>,
    /// First-move advantage in Elo (positive: moving first helps).
    pub advantage: f64,
    /// Standard error of the advantage; `None` when there were no games.
    pub advantage_stderr: Option<f64>,
    /// Covariance of `(ratings..., advantage)` in Elo², indexed
    /// `[i][j]` with index `ratings.len()` for the advantage. Entries
    /// involving a player without games are NaN; see
    /// [`RatingFit::covariance`] for checked access.
    pub covariance: Vec<Vec<f64>>,
    /// 95% profile-likelihood interval per player (see the module docs),
    /// `None` where [`RatingFit::stderr`] is `None` or when
    /// [`FitOptions::profile`] is off; `(r, r)` for an anchored player. An
    /// end the data do not bound is infinite (only possible without a
    /// prior); in JSON it is `"inf"`/`"-inf"`.
    #[serde(serialize_with = "json_float::intervals")]
    pub profile_intervals: Vec<Option<(f64, f64)>>,
    /// 95% profile-likelihood interval of the advantage.
    #[serde(serialize_with = "json_float::interval")]
    pub advantage_profile_interval: Option<(f64, f64)>,
    /// Newton steps taken.
    pub iterations: usize,
    /// Log-likelihood of the games (natural log, prior excluded) at the
    /// estimate.
    pub log_likelihood: f64,
}

impl RatingFit {
    /// Number of players the fit covers.
    pub fn n_players(&self) -> usize {
        self.ratings.len()
    }

    /// 95% Hessian (Wald) interval `rating ± Z95 * stderr`, or `None` for a
    /// player without games (or out of range). Symmetric by construction;
    /// see the module docs for when it is too narrow and
    /// [`RatingFit::profile_interval`] for the better one.
    pub fn interval(&self, player: usize) -> Option<(f64, f64)> {
        let rating = *self.ratings.get(player)?;
        let stderr = (*self.stderr.get(player)?)?;
        Some((rating - Z95 * stderr, rating + Z95 * stderr))
    }

    /// [`RatingFit::interval`] for every player.
    pub fn intervals(&self) -> Vec<Option<(f64, f64)>> {
        (0..self.n_players()).map(|i| self.interval(i)).collect()
    }

    /// 95% profile-likelihood interval of `player`'s rating (see
    /// [`RatingFit::profile_intervals`]); `None` for a player without games,
    /// out of range, or when it was not computed.
    pub fn profile_interval(&self, player: usize) -> Option<(f64, f64)> {
        *self.profile_intervals.get(player)?
    }

    /// 95% interval of the first-move advantage.
    pub fn advantage_interval(&self) -> Option<(f64, f64)> {
        let stderr = self.advantage_stderr?;
        Some((self.advantage - Z95 * stderr, self.advantage + Z95 * stderr))
    }

    /// Covariance entry in Elo²; index `n_players()` is the advantage.
    /// `None` when undefined (a player without games) or out of range.
    pub fn covariance(&self, i: usize, j: usize) -> Option<f64> {
        let value = *self.covariance.get(i)?.get(j)?;
        (!value.is_nan()).then_some(value)
    }

    /// Standard error of `r_i - r_j`: `sqrt(var_i + var_j - 2 cov_ij)`.
    pub fn difference_stderr(&self, i: usize, j: usize) -> Option<f64> {
        let variance =
            self.covariance(i, i)? + self.covariance(j, j)? - 2.0 * self.covariance(i, j)?;
        Some(variance.max(0.0).sqrt())
    }

    /// Likelihood of superiority of `i` over `j` from the fit:
    /// `Phi((r_i - r_j) / sd(r_i - r_j))`, using the covariance so that
    /// correlated estimates (common opponents) are not double counted.
    /// `None` for `i == j`, players without games, or a zero spread.
    pub fn los(&self, i: usize, j: usize) -> Option<f64> {
        if i == j {
            return None;
        }
        let spread = self.difference_stderr(i, j)?;
        (spread > 0.0).then(|| normal_cdf((self.ratings[i] - self.ratings[j]) / spread))
    }

    /// `los(i, j)` for all pairs: row `i`, column `j`.
    pub fn los_matrix(&self) -> Vec<Vec<Option<f64>>> {
        let n = self.n_players();
        (0..n)
            .map(|i| (0..n).map(|j| self.los(i, j)).collect())
            .collect()
    }

    /// Expected score of `first` moving first against `second` under the
    /// fitted model, advantage included.
    pub fn expected_score(&self, first: usize, second: usize) -> Option<f64> {
        let margin = self.ratings.get(first)? + self.advantage - self.ratings.get(second)?;
        Some(logistic(margin * LOGIT_PER_ELO))
    }
}

/// Fits Bradley–Terry ratings and the first-move advantage to `games` among
/// `n_players` players by maximum likelihood (with the small prior described
/// in the module docs).
///
/// Errors on a player index `>= n_players`, a score outside `[0, 1]`, bad
/// options, an anchored player without games while others have some, and —
/// only possible with `prior_draws == 0` — a singular or diverging fit.
pub fn fit_ratings(
    games: &[GameResult],
    n_players: usize,
    options: &FitOptions,
) -> Result<RatingFit, StatsError> {
    validate_options(options, n_players)?;
    let tally = Tally::new(games, n_players)?;
    let gauge = match options.anchor {
        Anchor::Mean => 0.0,
        Anchor::Player(_, rating) => rating,
    };
    if games.is_empty() {
        return Ok(RatingFit::without_games(n_players, gauge));
    }

    let layout = Layout::new(&tally, options.anchor)?;
    let model = Model::new(&tally, &layout, options.prior_draws);
    let (x, at_optimum, iterations) = newton(&model, vec![0.0; model.dimension], None, options)?;
    let covariance_free = Cholesky::new(&at_optimum.information)
        .ok_or(StatsError::Singular)?
        .inverse();

    // Map free coordinates to (active ratings..., advantage), in logits.
    let transform = layout.output_transform(options.anchor);
    let values: Vec<f64> = transform.iter().map(|row| dot(row, &x)).collect();
    let covariance_out = sandwich(&transform, &covariance_free);

    let m = layout.active.len();
    let elo2 = LOGIT_PER_ELO * LOGIT_PER_ELO;
    let mut ratings = vec![gauge; n_players];
    let mut stderr = vec![None; n_players];
    let mut covariance = vec![vec![f64::NAN; n_players + 1]; n_players + 1];
    // Output slot of each row of `values`: the player index, or n_players
    // for the advantage.
    let slots: Vec<usize> = layout.active.iter().copied().chain([n_players]).collect();
    for (row, &slot) in slots.iter().enumerate() {
        for (col, &other) in slots.iter().enumerate() {
            covariance[slot][other] = covariance_out[row][col] / elo2;
        }
    }
    for (row, &player) in layout.active.iter().enumerate() {
        ratings[player] = gauge + values[row] / LOGIT_PER_ELO;
        stderr[player] = Some(covariance[player][player].max(0.0).sqrt());
    }

    let mut profile = vec![None; n_players + 1];
    if options.profile {
        let profiler = Profiler {
            model: &model,
            optimum: &x,
            at_optimum: &at_optimum,
            options,
        };
        let outputs = Outputs {
            transform: &transform,
            covariance: &covariance_out,
            slots: &slots,
            gauge,
        };
        outputs.profile_intervals(&profiler, &mut profile);
    }
    let advantage_profile_interval = profile.pop().flatten();
    Ok(RatingFit {
        ratings,
        stderr,
        advantage: values[m] / LOGIT_PER_ELO,
        advantage_stderr: Some(covariance[n_players][n_players].max(0.0).sqrt()),
        covariance,
        profile_intervals: profile,
        advantage_profile_interval,
        iterations,
        log_likelihood: at_optimum.data_log_likelihood,
    })
}

impl RatingFit {
    /// The fit of no games: every player at `gauge`, no advantage, nothing
    /// known about the spread.
    fn without_games(n_players: usize, gauge: f64) -> RatingFit {
        RatingFit {
            ratings: vec![gauge; n_players],
            stderr: vec![None; n_players],
            advantage: 0.0,
            advantage_stderr: None,
            covariance: vec![vec![f64::NAN; n_players + 1]; n_players + 1],
            profile_intervals: vec![None; n_players],
            advantage_profile_interval: None,
            iterations: 0,
            log_likelihood: 0.0,
        }
    }
}

/// The fit's outputs (active ratings..., advantage) as linear functions of
/// the free coordinates, in logits.
struct Outputs<'a> {
    /// Row `k`: output `k`'s coefficients on the free coordinates.
    transform: &'a [Vec<f64>],
    /// The outputs' covariance, in logits.
    covariance: &'a [Vec<f64>],
    /// Output slot of each row: the player index, or `n_players` for the
    /// advantage.
    slots: &'a [usize],
    /// The rating the anchor fixes (added to ratings, not the advantage).
    gauge: f64,
}

impl Outputs<'_> {
    /// Profile intervals of the outputs, in logits, mapped to Elo like the
    /// estimates, each into `profile`'s slot for its output.
    fn profile_intervals(&self, profiler: &Profiler, profile: &mut [Option<(f64, f64)>]) {
        let advantage_slot = profile.len() - 1;
        for (row, &slot) in self.slots.iter().enumerate() {
            let (lo, hi) = profiler.interval(&self.transform[row], self.covariance[row][row]);
            let offset = if slot == advantage_slot {
                0.0
            } else {
                self.gauge
            };
            profile[slot] = Some((offset + lo / LOGIT_PER_ELO, offset + hi / LOGIT_PER_ELO));
        }
    }
}

fn validate_options(options: &FitOptions, n_players: usize) -> Result<(), StatsError> {
    if !(options.prior_draws >= 0.0 && options.prior_draws.is_finite()) {
        return Err(StatsError::InvalidOption(
            "prior_draws must be finite and >= 0",
        ));
    }
    if !(options.tolerance > 0.0 && options.tolerance.is_finite()) {
        return Err(StatsError::InvalidOption(
            "tolerance must be finite and > 0",
        ));
    }
    if let Anchor::Player(index, rating) = options.anchor {
        if index >= n_players {
            return Err(StatsError::PlayerOutOfRange { index, n_players });
        }
        if !rating.is_finite() {
            return Err(StatsError::InvalidOption("anchor rating must be finite"));
        }
    }
    Ok(())
}

/// Games summed per ordered pair: the likelihood only depends on the count
/// and total score of each (first, second) pairing.
struct Tally {
    /// `(first, second) -> (games, first-seat points)`, first != second.
    pairs: BTreeMap<(usize, usize), (f64, f64)>,
    /// Self-play games and first-seat points.
    self_play: (f64, f64),
    /// Whether each player has a game against someone else.
    active: Vec<bool>,
}

impl Tally {
    fn new(games: &[GameResult], n_players: usize) -> Result<Self, StatsError> {
        let mut tally = Tally {
            pairs: BTreeMap::new(),
            self_play: (0.0, 0.0),
            active: vec![false; n_players],
        };
        for game in games {
            for index in [game.first, game.second] {
                if index >= n_players {
                    return Err(StatsError::PlayerOutOfRange { index, n_players });
                }
            }
            if !(0.0..=1.0).contains(&game.score) {
                return Err(StatsError::InvalidScore(game.score));
            }
            let slot = if game.first == game.second {
                &mut tally.self_play
            } else {
                tally.active[game.first] = true;
                tally.active[game.second] = true;
                tally.pairs.entry((game.first, game.second)).or_default()
            };
            slot.0 += 1.0;
            slot.1 += game.score;
        }
        Ok(tally)
    }
}

/// Which players are estimated and where their parameters live.
struct Layout {
    /// Players with games against others, ascending.
    active: Vec<usize>,
    /// Free-parameter index per player; `None` for the reference player
    /// (held at 0) and for players without games.
    parameter: Vec<Option<usize>>,
    /// Index of the advantage parameter (the last one).
    advantage: usize,
}

impl Layout {
    fn new(tally: &Tally, anchor: Anchor) -> Result<Self, StatsError> {
        let active: Vec<usize> = (0..tally.active.len())
            .filter(|&p| tally.active[p])
            .collect();
        let reference = match anchor {
            Anchor::Player(index, _) if !active.is_empty() && !tally.active[index] => {
                return Err(StatsError::AnchorWithoutGames(index));
            }
            Anchor::Player(index, _) => Some(index),
            Anchor::Mean => active.first().copied(),
        };
        let mut parameter = vec![None; tally.active.len()];
        let mut next = 0;
        for &player in active.iter().filter(|&&p| Some(p) != reference) {
            parameter[player] = Some(next);
            next += 1;
        }
        Ok(Layout {
            active,
            parameter,
            advantage: next,
        })
    }

    fn dimension(&self) -> usize {
        self.advantage + 1
    }

    /// Linear map from free parameters to (active ratings..., advantage)
    /// relative to the gauge value: identity rows for an anchored player,
    /// minus the mean of the active ratings for [`Anchor::Mean`].
    fn output_transform(&self, anchor: Anchor) -> Vec<Vec<f64>> {
        let dim = self.dimension();
        let m = self.active.len();
        let mut rows = vec![vec![0.0; dim]; m + 1];
        for (row, &player) in self.active.iter().enumerate() {
            if let Some(k) = self.parameter[player] {
                rows[row][k] = 1.0;
            }
        }
        if anchor == Anchor::Mean && m > 0 {
            for k in 0..self.advantage {
                let mean = rows[..m].iter().map(|r| r[k]).sum::<f64>() / m as f64;
                for row in &mut rows[..m] {
                    row[k] -= mean;
                }
            }
        }
        rows[m][self.advantage] = 1.0;
        rows
    }
}

/// A group of identical (possibly virtual) games: `games` games worth
/// `points` to the side whose margin is `x[plus] - x[minus] (+ advantage)`.
struct Term {
    plus: Option<usize>,
    minus: Option<usize>,
    with_advantage: bool,
    games: f64,
    points: f64,
    /// Real games count towards the reported log-likelihood; prior ones do not.
    is_data: bool,
}

struct Model {
    terms: Vec<Term>,
    dimension: usize,
    advantage: usize,
}

/// Objective, gradient and information (negative Hessian) at one point.
struct Evaluation {
    objective: f64,
    data_log_likelihood: f64,
    gradient: Vec<f64>,
    information: Vec<Vec<f64>>,
}

impl Model {
    fn new(tally: &Tally, layout: &Layout, prior_draws: f64) -> Self {
        let mut terms: Vec<Term> = tally
            .pairs
            .iter()
            .map(|(&(first, second), &(games, points))| Term {
                plus: layout.parameter[first],
                minus: layout.parameter[second],
                with_advantage: true,
                games,
                points,
                is_data: true,
            })
            .collect();
        let (games, points) = tally.self_play;
        if games > 0.0 {
            terms.push(Term {
                plus: None,
                minus: None,
                with_advantage: true,
                games,
                points,
                is_data: true,
            });
        }
        if prior_draws > 0.0 {
            let m = layout.active.len();
            if m >= 2 {
                let per_pair = prior_draws / (m - 1) as f64;
                for (i, &a) in layout.active.iter().enumerate() {
                    for &b in &layout.active[i + 1..] {
                        terms.push(Term {
                            plus: layout.parameter[a],
                            minus: layout.parameter[b],
                            with_advantage: false,
                            games: per_pair,
                            points: per_pair / 2.0,
                            is_data: false,
                        });
                    }
                }
            }
            terms.push(Term {
                plus: None,
                minus: None,
                with_advantage: true,
                games: prior_draws,
                points: prior_draws / 2.0,
                is_data: false,
            });
        }
        Model {
            terms,
            dimension: layout.dimension(),
            advantage: layout.advantage,
        }
    }

    fn evaluate(&self, x: &[f64]) -> Evaluation {
        let n = self.dimension;
        let mut eval = Evaluation {
            objective: 0.0,
            data_log_likelihood: 0.0,
            gradient: vec![0.0; n],
            information: vec![vec![0.0; n]; n],
        };
        for term in &self.terms {
            // d(margin)/d(parameter) is +1, -1 or +1 for plus, minus, advantage.
            let advantage = term.with_advantage.then_some(self.advantage);
            let coefficients = [(term.plus, 1.0), (term.minus, -1.0), (advantage, 1.0)];
            let margin: f64 = coefficients
                .iter()
                .filter_map(|&(index, sign)| index.map(|k| sign * x[k]))
                .sum();
            let log_likelihood = term.points * log_logistic(margin)
                + (term.games - term.points) * log_logistic(-margin);
            eval.objective += log_likelihood;
            if term.is_data {
                eval.data_log_likelihood += log_likelihood;
            }
            // `points - games * p`, written so it does not round to 0 once
            // p rounds to 1; a zero gradient there would fake convergence
            // of an estimate that is running off to infinity.
            let (p, q) = (logistic(margin), logistic(-margin));
            let slope = term.points * q - (term.games - term.points) * p;
            let curvature = term.games * p * q;
            for &(a, sign_a) in &coefficients {
                let Some(a) = a else { continue };
                eval.gradient[a] += sign_a * slope;
                for &(b, sign_b) in &coefficients {
                    if let Some(b) = b {
                        eval.information[a][b] += sign_a * sign_b * curvature;
                    }
                }
            }
        }
        eval
    }
}

/// Newton's method with step halving from `x`, maximising the objective,
/// or with `constraint = Some(c)` maximising it over the hyperplane
/// `c·x = c·start` (each step is the Newton step projected onto it in the
/// metric of the information matrix: `u - v (c·u) / (c·v)` with
/// `u = I⁻¹g`, `v = I⁻¹c`, so `c·step = 0`). Returns the maximiser, the
/// evaluation there and the number of steps.
fn newton(
    model: &Model,
    mut x: Vec<f64>,
    constraint: Option<&[f64]>,
    options: &FitOptions,
) -> Result<(Vec<f64>, Evaluation, usize), StatsError> {
    let mut current = model.evaluate(&x);
    for iteration in 1..=options.max_iterations {
        let factor = Cholesky::new(&current.information).ok_or(StatsError::Singular)?;
        let mut step = factor.solve(&current.gradient);
        if let Some(c) = constraint {
            let v = factor.solve(c);
            let ratio = dot(c, &step) / dot(c, &v);
            for (s, v) in step.iter_mut().zip(&v) {
                *s -= ratio * v;
            }
        }
        let slack = OBJECTIVE_SLACK * (1.0 + current.objective.abs());
        let mut scale = 1.0;
        let mut accepted = None;
        for _ in 0..MAX_HALVINGS {
            let candidate: Vec<f64> = x.iter().zip(&step).map(|(v, s)| v + scale * s).collect();
            let evaluation = model.evaluate(&candidate);
            if evaluation.objective >= current.objective - slack {
                accepted = Some((candidate, evaluation));
                break;
            }
            scale *= 0.5;
        }
        // No point along an ascent direction improves: we are at the
        // maximum to within rounding.
        let Some((candidate, evaluation)) = accepted else {
            return Ok((x, current, iteration));
        };
        let largest_move = step.iter().map(|s| (scale * s).abs()).fold(0.0, f64::max);
        x = candidate;
        current = evaluation;
        if largest_move / LOGIT_PER_ELO < options.tolerance {
            return Ok((x, current, iteration));
        }
    }
    Err(StatsError::NotConverged {
        iterations: options.max_iterations,
    })
}

/// Profile-likelihood intervals of linear functions `c·x` of the free
/// parameters (in logits) around the maximum of the objective.
struct Profiler<'a> {
    model: &'a Model,
    optimum: &'a [f64],
    at_optimum: &'a Evaluation,
    options: &'a FitOptions,
}

impl Profiler<'_> {
    /// The 95% interval of `c·x`: where the profile objective
    /// `max { f(x) : c·x = t }` is [`PROFILE_DROP_95`] below the maximum.
    /// `variance` is the Hessian variance of `c·x`, used for the first
    /// guess. A zero `c` (an anchored rating) gives a point.
    fn interval(&self, c: &[f64], variance: f64) -> (f64, f64) {
        let estimate = dot(c, self.optimum);
        if c.iter().all(|&v| v == 0.0) {
            return (estimate, estimate);
        }
        let spread = variance.max(0.0).sqrt();
        (
            self.bound(c, estimate, spread, -1.0),
            self.bound(c, estimate, spread, 1.0),
        )
    }

    /// One end of the interval, on the side `sign` (±1) of `estimate`.
    ///
    /// With `u` the distance from the estimate, the drop
    /// `D(u) = f_max - profile(estimate + sign u)` is convex and increasing
    /// in `u` (a profile of a concave function is concave), with slope
    /// `-sign * λ` where `λ = c·g / c·c` is the Lagrange multiplier of the
    /// constraint (the gradient `g` is parallel to `c` at a constrained
    /// maximum). Newton on `D(u) = PROFILE_DROP_95` from inside overshoots
    /// to the outside and then converges monotonically; a bracket catches
    /// anything else. Each constrained fit starts from the previous one,
    /// moved onto the new hyperplane along `I⁻¹c`.
    fn bound(&self, c: &[f64], estimate: f64, spread: f64, sign: f64) -> f64 {
        let unbounded = sign * f64::INFINITY;
        let tolerance = PROFILE_TOLERANCE * LOGIT_PER_ELO;
        let c_norm2 = dot(c, c);
        let mut x = self.optimum.to_vec();
        let mut information = self.at_optimum.information.clone();
        let mut x_distance = 0.0;
        // Largest distance known to be inside (drop below the target) and
        // smallest known to be outside.
        let mut inside = 0.0;
        let mut outside: Option<f64> = None;
        let mut distance = if spread > 0.0 && spread.is_finite() {
            Z95 * spread
        } else {
            1.0
        };
        for _ in 0..PROFILE_MAX_STEPS {
            let Some(factor) = Cholesky::new(&information) else {
                return outside.map_or(unbounded, |u| estimate + sign * u);
            };
            let w = factor.solve(c);
            let shift = sign * (distance - x_distance) / dot(c, &w);
            let start = x.iter().zip(&w).map(|(x, w)| x + shift * w).collect();
            let Ok((next_x, at, _)) = newton(self.model, start, Some(c), self.options) else {
                return outside.map_or(unbounded, |u| estimate + sign * u);
            };
            let drop = self.at_optimum.objective - at.objective;
            let slope = -sign * dot(c, &at.gradient) / c_norm2;
            x = next_x;
            information = at.information;
            x_distance = distance;
            if drop < PROFILE_DROP_95 {
                inside = distance;
            } else {
                outside = Some(distance);
            }
            let newton_step = distance + (PROFILE_DROP_95 - drop) / slope;
            let next = match outside {
                None if distance > PROFILE_LIMIT => return unbounded,
                // Inside: Newton overshoots to the outside, but where the
                // drop is nearly flat it may jump absurdly far.
                None if newton_step.is_finite() && slope > 0.0 => {
                    newton_step.min(4.0 * distance).max(distance)
                }
                None => 4.0 * distance,
                Some(out) if newton_step > inside && newton_step < out => newton_step,
                Some(out) => 0.5 * (inside + out),
            };
            if (next - distance).abs() < tolerance {
                return estimate + sign * next;
            }
            distance = next;
        }
        outside.map_or(unbounded, |u| estimate + sign * u)
    }
}

/// `1 / (1 + e^-z)` without overflow for large `|z|`.
fn logistic(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// `ln(logistic(z))` without underflow for very negative `z`.
fn log_logistic(z: f64) -> f64 {
    if z >= 0.0 {
        -(-z).exp().ln_1p()
    } else {
        z - z.exp().ln_1p()
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `T C Tᵀ`: the covariance of `T x` when `x` has covariance `C`.
fn sandwich(t: &[Vec<f64>], c: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let tc: Vec<Vec<f64>> = t
        .iter()
        .map(|row| {
            (0..c.len())
                .map(|j| c.iter().zip(row).map(|(c_k, r)| r * c_k[j]).sum())
                .collect()
        })
        .collect();
    tc.iter()
        .map(|tc_row| t.iter().map(|t_row| dot(tc_row, t_row)).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expands `(first, second, wins, draws, losses)` (first-seat view) into
    /// individual games.
    fn expand(rows: &[(usize, usize, u32, u32, u32)]) -> Vec<GameResult> {
        let mut games = Vec::new();
        for &(first, second, wins, draws, losses) in rows {
            for (count, score) in [(wins, 1.0), (draws, 0.5), (losses, 0.0)] {
                for _ in 0..count {
                    games.push(GameResult {
                        first,
                        second,
                        score,
                    });
                }
            }
        }
        games
    }

    fn close(got: f64, want: f64, tol: f64) -> bool {
        (got - want).abs() <= tol
    }

    fn pure_ml() -> FitOptions {
        FitOptions {
            prior_draws: 0.0,
            ..FitOptions::default()
        }
    }

    /// Four players with games on five of six pairings (1 and 3 never
    /// meet), self-play of player 3, and player 4 who never played.
    const FIXTURE: &[(usize, usize, u32, u32, u32)] = &[
        (0, 1, 6, 2, 2),
        (1, 0, 4, 3, 3),
        (0, 2, 7, 1, 2),
        (2, 0, 3, 2, 5),
        (1, 2, 6, 1, 3),
        (2, 1, 4, 1, 6),
        (2, 3, 6, 2, 2),
        (3, 2, 3, 3, 4),
        (0, 3, 8, 1, 1),
        (3, 0, 2, 2, 6),
        (3, 3, 3, 1, 1),
    ];

    // Reference fit of `FIXTURE`, computed independently in pure python3
    // (no numpy/scipy): the objective is written per game in Elo units,
    // derivatives are Richardson-extrapolated central differences, and the
    // gauge is r0 = -(r1 + r2 + r3) rather than a reference player:
    //
    //   p = lambda d: 1 / (1 + 10 ** (-d / 400))
    //   def obj(z, w):            # z = (r1, r2, r3, adv); w = prior_draws
    //       r = [-(z[0] + z[1] + z[2]), z[0], z[1], z[2]]; adv = z[3]
    //       ll = sum(s * log(p(r[f] + adv - r[t])) + (1 - s) * log(1 - p(...))
    //                for f, t, s in games)          # one entry per game
    //       ll += sum(w / 3 * (0.5 * log(p(r[i] - r[j])) + 0.5 * log(p(r[j] - r[i])))
    //                 for i < j in 0..4)
    //       return ll + w * (0.5 * log(p(adv)) + 0.5 * log(p(-adv)))
    //   grad/hess: central differences at h = 0.2 and 0.1, combined (4 f_h/2 - f_h) / 3
    //   Newton z += solve(-H, g) for 30 steps; cov(z) = inv(-H);
    //   cov(r0..r3, adv) = J cov(z) J^T with r0 row (-1, -1, -1, 0);
    //   LOS(i, j) = 0.5 * erfc(-(r_i - r_j) / sd(r_i - r_j) / sqrt(2)).
    //
    // Fields: ratings of players 0..4, advantage, stderrs, advantage
    // stderr, cov(0, 1), LOS for (0,1) (1,2) (2,3) (0,3), log-likelihood.
    struct Reference {
        prior_draws: f64,
        ratings: [f64; 4],
        advantage: f64,
        stderr: [f64; 4],
        advantage_stderr: f64,
        cov01: f64,
        los: [f64; 4],
        log_likelihood: f64,
    }

    const REFERENCES: [Reference; 2] = [
        Reference {
            prior_draws: 1.0,
            ratings: [
                99.78415354188164,
                50.28766858775622,
                -31.953536845165345,
                -118.11828528447252,
            ],
            advantage: 63.17358994211655,
            stderr: [
                36.914227008096226,
                44.196507993891046,
                34.97411012691121,
                47.676207723095345,
            ],
            advantage_stderr: 36.21435552339482,
            cov01: -317.51085156413706,
            los: [
                0.7844892348244878,
                0.905286874988652,
                0.9052828350028935,
                0.9991266032168545,
            ],
            log_likelihood: -65.99070702240607,
        },
        Reference {
            prior_draws: 0.0,
            ratings: [
                102.0025737607669,
                52.75809190038267,
                -32.56106838952711,
                -122.19959727162245,
            ],
            advantage: 64.25447025546345,
            stderr: [
                37.40480057526666,
                44.92083508176694,
                35.36374140850997,
                48.66004459078765,
            ],
            advantage_stderr: 36.54513582268699,
            cov01: -315.9865070889466,
            los: [
                0.7805051701007949,
                0.9103890007986666,
                0.9104405025911801,
                0.9992128902232312,
            ],
            log_likelihood: -65.98612173511482,
        },
    ];

    #[test]
    fn matches_independent_reference() {
        let games = expand(FIXTURE);
        for reference in &REFERENCES {
            let options = FitOptions {
                prior_draws: reference.prior_draws,
                ..FitOptions::default()
            };
            let fit = fit_ratings(&games, 5, &options).unwrap();
            let tag = reference.prior_draws;
            for i in 0..4 {
                assert!(
                    close(fit.ratings[i], reference.ratings[i], 1e-6),
                    "{tag}: {fit:?}"
                );
                let se = fit.stderr[i].unwrap();
                assert!(close(se, reference.stderr[i], 1e-6), "{tag}: {fit:?}");
            }
            assert!(close(fit.advantage, reference.advantage, 1e-6));
            assert!(close(
                fit.advantage_stderr.unwrap(),
                reference.advantage_stderr,
                1e-6
            ));
            assert!(close(fit.covariance(0, 1).unwrap(), reference.cov01, 1e-5));
            assert!(close(fit.log_likelihood, reference.log_likelihood, 1e-9));
            for (k, (i, j)) in [(0, 1), (1, 2), (2, 3), (0, 3)].into_iter().enumerate() {
                let los = fit.los(i, j).unwrap();
                assert!(
                    close(los, reference.los[k], 1e-8),
                    "{tag}: LOS({i},{j}) = {los}"
                );
                assert!(close(fit.los(j, i).unwrap(), 1.0 - los, 1e-12));
            }
            // Player 4 never played.
            assert_eq!(fit.ratings[4], 0.0);
            assert_eq!(fit.stderr[4], None);
            assert_eq!(fit.interval(4), None);
            assert_eq!(fit.los(0, 4), None);
            assert_eq!(fit.covariance(4, 0), None);
            assert!(fit.ratings.iter().sum::<f64>().abs() < 1e-9);
            assert!(fit.iterations < 20);
        }
    }

    /// 100 games between A and B, 50 with each moving first, A scoring
    /// 32/50 in both halves: 64% overall and no seat effect. Closed forms
    /// (python3): diff = 400*log10(0.64/0.36), se(diff) = 1 / (k *
    /// sqrt(100 * 0.64 * 0.36)) with k = ln(10)/400; the prior adds one
    /// virtual draw, giving 400*log10(64.5/36.5).
    #[test]
    fn two_players_symmetric_seats() {
        let games = expand(&[(0, 1, 28, 8, 14), (1, 0, 12, 12, 26)]);
        let fit = fit_ratings(&games, 2, &pure_ml()).unwrap();
        let diff = fit.ratings[0] - fit.ratings[1];
        assert!(close(diff, 99.95098928663995, 1e-7), "{fit:?}");
        assert!(close(fit.ratings[0], -fit.ratings[1], 1e-9));
        assert!(fit.advantage.abs() < 1e-7);
        assert!(close(fit.stderr[0].unwrap(), 18.09560341263549, 1e-7));
        assert!(close(
            fit.difference_stderr(0, 1).unwrap(),
            36.19120682527098,
            1e-7
        ));
        assert!(close(
            fit.advantage_stderr.unwrap(),
            36.19120682527098,
            1e-7
        ));
        assert!(close(fit.los(0, 1).unwrap(), 0.9971253573565334, 1e-10));
        let (lo, hi) = fit.interval(0).unwrap();
        assert!(close(hi - lo, 2.0 * Z95 * 18.09560341263549, 1e-6));
        assert!(close(fit.expected_score(0, 1).unwrap(), 0.64, 1e-9));

        let fit = fit_ratings(&games, 2, &FitOptions::default()).unwrap();
        let diff = fit.ratings[0] - fit.ratings[1];
        assert!(close(diff, 98.90674007151722, 1e-7), "{fit:?}");
        assert!(close(
            fit.difference_stderr(0, 1).unwrap(),
            35.98145324583109,
            1e-7
        ));
        assert!(close(
            fit.advantage_stderr.unwrap(),
            35.966632760207155,
            1e-7
        ));
    }

    /// Equal players, first seat scoring 0.75 each way: advantage =
    /// 400*log10(3) without prior, 400*log10(150.5/50.5) with one virtual
    /// draw; se = 1 / (k * sqrt(200 * 0.75 * 0.25)) (python3).
    #[test]
    fn recovers_first_move_advantage() {
        let games = expand(&[(0, 1, 60, 30, 10), (1, 0, 60, 30, 10)]);
        let fit = fit_ratings(&games, 2, &pure_ml()).unwrap();
        assert!(close(fit.advantage, 190.84850188786498, 1e-7), "{fit:?}");
        assert!(close(
            fit.advantage_stderr.unwrap(),
            28.36799676718266,
            1e-7
        ));
        assert!(fit.ratings[0].abs() < 1e-9 && fit.ratings[1].abs() < 1e-9);
        let (lo, hi) = fit.advantage_interval().unwrap();
        assert!(lo > 100.0 && hi < 250.0);

        let fit = fit_ratings(&games, 2, &FitOptions::default()).unwrap();
        assert!(close(fit.advantage, 189.69804872448032, 1e-7), "{fit:?}");

        // Self-play alone informs the advantage and no rating.
        let games = expand(&[(0, 0, 60, 30, 10)]);
        let fit = fit_ratings(&games, 1, &pure_ml()).unwrap();
        assert!(close(fit.advantage, 190.84850188786498, 1e-7), "{fit:?}");
        assert!(close(
            fit.advantage_stderr.unwrap(),
            40.118405765505834,
            1e-7
        ));
        assert_eq!(fit.stderr[0], None);
    }

    /// Profile-likelihood 95% intervals of `FIXTURE` (players 0..4, then
    /// the advantage) for prior_draws 1 and 0, computed independently with
    /// python3 + scipy: the per-game objective above in Elo units, gauge
    /// r0 = -(r1 + r2 + r3), the constraint r_i = t (or adv = t) eliminated
    /// by substitution, the other parameters maximised by BFGS (in logits,
    /// gtol 1e-12), and each bound found by brentq on
    /// `max - profile(t) = chi2.ppf(0.95, 1) / 2` (xtol 1e-10).
    const PROFILE_REFERENCES: [(f64, [(f64, f64); 5]); 2] = [
        (
            1.0,
            [
                (29.405684543098086, 175.0378555636406),
                (-36.214872365033, 138.14578023802255),
                (-101.6058211732521, 36.27527496968769),
                (-216.0375101239984, -27.614240065046403),
                (-6.997824590778237, 135.61659256533542),
            ],
        ),
        (
            0.0,
            [
                (30.762627267431082, 178.35614395522148),
                (-35.15813987841003, 142.08464448660254),
                (-103.02147177474112, 36.41701560125953),
                (-222.30240822909144, -29.945374340119553),
                (-6.515410385272309, 137.4323735251415),
            ],
        ),
    ];

    #[test]
    fn profile_matches_independent_reference() {
        let games = expand(FIXTURE);
        for (prior_draws, want) in PROFILE_REFERENCES {
            let options = FitOptions {
                prior_draws,
                ..FitOptions::default()
            };
            let fit = fit_ratings(&games, 5, &options).unwrap();
            let got: Vec<(f64, f64)> = (0..4)
                .map(|i| fit.profile_interval(i).unwrap())
                .chain(fit.advantage_profile_interval)
                .collect();
            for (k, (&(lo, hi), &(want_lo, want_hi))) in got.iter().zip(&want).enumerate() {
                assert!(close(lo, want_lo, 1e-6), "{prior_draws} {k}: {got:?}");
                assert!(close(hi, want_hi, 1e-6), "{prior_draws} {k}: {got:?}");
            }
            assert_eq!(fit.profile_interval(4), None);
            // Balanced scores, tens of games: close to the Hessian interval
            // but not equal to it.
            for i in 0..4 {
                let (lo, hi) = fit.profile_interval(i).unwrap();
                let (h_lo, h_hi) = fit.interval(i).unwrap();
                assert!((lo - h_lo).abs() < 6.0 && (hi - h_hi).abs() < 6.0, "{i}");
                assert!(lo < fit.ratings[i] && fit.ratings[i] < hi);
            }
        }
    }

    #[test]
    fn profile_under_other_anchors_and_options() {
        let games = expand(FIXTURE);
        let mean = fit_ratings(&games, 5, &FitOptions::default()).unwrap();
        let anchored = fit_ratings(
            &games,
            5,
            &FitOptions::with_anchor(Anchor::Player(2, 1500.0)),
        )
        .unwrap();
        assert_eq!(anchored.profile_interval(2), Some((1500.0, 1500.0)));
        assert_eq!(anchored.profile_interval(4), None);
        let (a, b) = (
            mean.advantage_profile_interval.unwrap(),
            anchored.advantage_profile_interval.unwrap(),
        );
        assert!(
            close(a.0, b.0, 1e-6) && close(a.1, b.1, 1e-6),
            "{a:?} {b:?}"
        );
        // Anchored on player 2, player 0's interval is that of r0 - r2:
        // wider than its interval around the mean.
        let (lo, hi) = anchored.profile_interval(0).unwrap();
        let (m_lo, m_hi) = mean.profile_interval(0).unwrap();
        assert!(hi - lo > m_hi - m_lo);

        let off = FitOptions {
            profile: false,
            ..FitOptions::default()
        };
        let fit = fit_ratings(&games, 5, &off).unwrap();
        assert_eq!(fit.profile_intervals, vec![None; 5]);
        assert_eq!(fit.advantage_profile_interval, None);
        assert_eq!(fit.ratings, mean.ratings);

        // Self-play only: the advantage alone, symmetric data.
        let games = expand(&[(0, 0, 60, 30, 10)]);
        let fit = fit_ratings(&games, 1, &pure_ml()).unwrap();
        let (lo, hi) = fit.advantage_profile_interval.unwrap();
        assert!(lo < fit.advantage && fit.advantage < hi);
        assert_eq!(fit.profile_intervals, vec![None]);
    }

    #[test]
    fn anchor_changes_only_the_offset() {
        let games = expand(FIXTURE);
        let mean = fit_ratings(&games, 5, &FitOptions::default()).unwrap();
        let anchored = fit_ratings(
            &games,
            5,
            &FitOptions::with_anchor(Anchor::Player(2, 1500.0)),
        )
        .unwrap();
        assert_eq!(anchored.ratings[2], 1500.0);
        assert_eq!(anchored.stderr[2], Some(0.0));
        assert_eq!(anchored.ratings[4], 1500.0);
        assert_eq!(anchored.stderr[4], None);
        assert!(close(anchored.advantage, mean.advantage, 1e-7));
        assert!(close(
            anchored.advantage_stderr.unwrap(),
            mean.advantage_stderr.unwrap(),
            1e-7
        ));
        assert!(close(anchored.log_likelihood, mean.log_likelihood, 1e-9));
        for i in 0..4 {
            for j in 0..4 {
                let d_mean = mean.ratings[i] - mean.ratings[j];
                let d_anchor = anchored.ratings[i] - anchored.ratings[j];
                assert!(close(d_mean, d_anchor, 1e-7), "{i}-{j}");
                if i != j {
                    let se_mean = mean.difference_stderr(i, j).unwrap();
                    let se_anchor = anchored.difference_stderr(i, j).unwrap();
                    assert!(close(se_mean, se_anchor, 1e-7), "{i}-{j}");
                    assert!(close(
                        mean.los(i, j).unwrap(),
                        anchored.los(i, j).unwrap(),
                        1e-10
                    ));
                }
            }
        }
    }

    /// Every profile interval is finite and strictly contains its estimate.
    fn assert_profile_contains_estimates(fit: &RatingFit) {
        let pairs = fit
            .ratings
            .iter()
            .zip(&fit.profile_intervals)
            .chain([(&fit.advantage, &fit.advantage_profile_interval)]);
        for (&estimate, interval) in pairs {
            let (lo, hi) = interval.unwrap();
            assert!(lo.is_finite() && hi.is_finite(), "{fit:?}");
            assert!(lo < estimate && estimate < hi, "{fit:?}");
        }
    }

    #[test]
    fn prior_keeps_perfect_records_finite() {
        // Player 0 beats everyone, the first seat always wins.
        let games = expand(&[(0, 1, 5, 0, 0), (0, 2, 5, 0, 0), (1, 2, 3, 0, 0)]);
        let fit = fit_ratings(&games, 3, &FitOptions::default()).unwrap();
        assert!(fit.ratings.iter().all(|r| r.is_finite()));
        assert!(fit.advantage.is_finite() && fit.advantage > 0.0);
        assert!(fit.ratings[0] > fit.ratings[1] && fit.ratings[1] > fit.ratings[2]);
        assert!(fit.stderr.iter().all(|s| s.unwrap().is_finite()));
        assert_profile_contains_estimates(&fit);
        let err = fit_ratings(&games, 3, &pure_ml()).unwrap_err();
        assert!(
            matches!(err, StatsError::NotConverged { .. } | StatsError::Singular),
            "{err:?}"
        );
    }

    #[test]
    fn prior_connects_separate_groups() {
        let games = expand(&[
            (0, 1, 3, 2, 1),
            (1, 0, 2, 2, 2),
            (2, 3, 4, 1, 1),
            (3, 2, 1, 1, 4),
        ]);
        let fit = fit_ratings(&games, 4, &FitOptions::default()).unwrap();
        assert!(fit.los(0, 2).unwrap() > 0.0);
        assert_profile_contains_estimates(&fit);
        assert_eq!(
            fit_ratings(&games, 4, &pure_ml()),
            Err(StatsError::Singular)
        );
    }

    #[test]
    fn empty_and_invalid_input() {
        let fit = fit_ratings(&[], 3, &FitOptions::default()).unwrap();
        assert_eq!(fit.ratings, vec![0.0; 3]);
        assert_eq!(fit.stderr, vec![None; 3]);
        assert_eq!(fit.advantage_stderr, None);
        assert_eq!(fit.los_matrix(), vec![vec![None; 3]; 3]);

        let game = |first, second, score| GameResult {
            first,
            second,
            score,
        };
        let options = FitOptions::default();
        assert_eq!(
            fit_ratings(&[game(0, 3, 1.0)], 3, &options),
            Err(StatsError::PlayerOutOfRange {
                index: 3,
                n_players: 3
            })
        );
        assert_eq!(
            fit_ratings(&[game(0, 1, 1.5)], 3, &options),
            Err(StatsError::InvalidScore(1.5))
        );
        assert!(matches!(
            fit_ratings(&[game(0, 1, f64::NAN)], 3, &options),
            Err(StatsError::InvalidScore(_))
        ));
        assert_eq!(
            fit_ratings(
                &[game(0, 1, 1.0)],
                3,
                &FitOptions::with_anchor(Anchor::Player(2, 0.0))
            ),
            Err(StatsError::AnchorWithoutGames(2))
        );
        let negative_prior = FitOptions {
            prior_draws: -1.0,
            ..FitOptions::default()
        };
        assert!(matches!(
            fit_ratings(&[], 3, &negative_prior),
            Err(StatsError::InvalidOption(_))
        ));
    }

    #[test]
    fn fractional_scores_match_whole_games_with_same_totals() {
        // The likelihood depends only on games and points per ordered
        // pairing, so ten 0.75 scores equal 6 wins, 3 draws and 1 loss.
        let fractional: Vec<GameResult> = (0..20)
            .map(|i| GameResult {
                first: i % 2,
                second: 1 - i % 2,
                score: 0.75,
            })
            .collect();
        let whole = expand(&[(0, 1, 6, 3, 1), (1, 0, 6, 3, 1)]);
        let a = fit_ratings(&fractional, 2, &pure_ml()).unwrap();
        let b = fit_ratings(&whole, 2, &pure_ml()).unwrap();
        assert!(close(a.advantage, 190.84850188786498, 1e-7), "{a:?}");
        assert!(close(a.advantage, b.advantage, 1e-9));
        assert!(close(a.log_likelihood, b.log_likelihood, 1e-9));
    }

    #[test]
    fn serializable() {
        fn assert_serialize<T: Serialize>() {}
        assert_serialize::<RatingFit>();
        assert_serialize::<GameResult>();
        assert_serialize::<FitOptions>();
    }
}
