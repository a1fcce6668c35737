//! What a tournament's games say: ratings, results, crosstable and the
//! first-player advantage; written to `summary.json` and `ratings.csv`.
//!
//! Ratings are a maximum-likelihood Bradley–Terry (Elo) fit over every game,
//! with the first-move advantage fitted as one more parameter (BayesElo's
//! "advantage"). A draw counts as half a win for each side. Each rating
//! and the advantage carry two 95% intervals: `elo_95` from the inverse of
//! the observed Fisher information (the Hessian of the log-likelihood),
//! symmetric, and `elo_95_profile` from the profile likelihood, which is
//! asymmetric where it should be and the one to quote (the standings print
//! it); they agree for balanced scores over many games. A prior of one
//! virtual draw per agent keeps perfect records finite; it moves an agent
//! by about `174 (1/2 - s) / (n s (1 - s))` Elo for score `s` over `n`
//! games (see [`crate::stats::fit_ratings`]).
//!
//! Every pairing also gets its pentanomial counts (`pentanomial` in
//! `summary.json`): the results of the pairs of games that share an opening
//! with seats swapped (LL, LD, DD+WL, WD, WW), with the Elo difference and
//! 95% interval computed from the pairs, which is the right variance for
//! paired openings ([`crate::stats::Pentanomial::elo`]).
//!
//! JSON has no infinity: an infinite value (an Elo bound of a perfect
//! first-seat record, say) is the string `"inf"` or `"-inf"`, and `null`
//! means no value ([`crate::stats::json_float`]); `ratings.csv` writes
//! `inf`/`-inf` and leaves a missing value empty.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::log::LogError;
use crate::moves::MoveTable;
use crate::record::GameRecord;
use crate::stats::json_float::{self, csv_field};
use crate::stats::{
    fit_ratings, mean_with_ci, paired_margins, paired_results, Anchor, EloEstimate,
    FirstPlayerStats, FitOptions, GameResult, MeanCi, Pentanomial, RatingFit, StatsError, Wdl,
};

/// One agent's line of the standings.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AgentSummary {
    /// Display name.
    pub name: String,
    /// Agent spec.
    pub spec: String,
    /// Games played.
    pub games: u64,
    /// Points (a draw is half).
    pub points: f64,
    /// Points per game.
    pub score: Option<f64>,
    /// Wins, draws, losses.
    pub wdl: Wdl,
    /// Elo from the joint fit.
    #[serde(deserialize_with = "json_float::read_number")]
    pub elo: f64,
    /// 95% Hessian (Wald) interval of `elo`, `elo ± 1.96 stderr`; `None`
    /// without games (or for the anchor, an exact 0). Too narrow on the
    /// far side for a score near 0 or 1; prefer `elo_95_profile`.
    #[serde(
        serialize_with = "json_float::interval",
        deserialize_with = "json_float::read_interval"
    )]
    pub elo_95: Option<(f64, f64)>,
    /// 95% profile-likelihood interval of `elo`: where the log-likelihood,
    /// maximised over every other rating and the advantage, is 1.92 below
    /// its maximum. `None` exactly when `elo_95` is (and in summaries
    /// written before it was added).
    #[serde(
        serialize_with = "json_float::interval",
        deserialize_with = "json_float::read_interval",
        default
    )]
    pub elo_95_profile: Option<(f64, f64)>,
    /// Mean final margin from this agent's side, forfeits left out.
    pub margin: Option<MeanCi>,
    /// Games this agent began, from the first seat's side (its own).
    pub as_first: FirstPlayerStats,
    /// Games the opponent began, from the first seat's side (the opponent's).
    pub as_second: FirstPlayerStats,
    /// Games this agent lost by forfeit (its clock running out aside).
    pub forfeits: u64,
    /// Games this agent lost on time (0 in summaries written before clocks).
    #[serde(default)]
    pub time_losses: u64,
}

/// One cell of the crosstable: how the row agent did against the column agent.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CrossCell {
    /// Games between them.
    pub games: u64,
    /// The row agent's results.
    pub wdl: Wdl,
    /// The row agent's points per game.
    pub score: Option<f64>,
}

/// First-seat statistics of one pair of agents.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PairFirstPlayer {
    /// The two agents' names.
    pub agents: [String; 2],
    /// From the first seat's side, whoever sat there.
    pub stats: FirstPlayerStats,
}

/// How much moving first is worth in this tournament.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FirstPlayerSummary {
    /// Every game, from the first seat's side (forfeits excluded from margins).
    pub overall: FirstPlayerStats,
    /// The first-move advantage in Elo from the joint rating fit.
    #[serde(deserialize_with = "json_float::read_number")]
    pub advantage_elo: f64,
    /// Its 95% Hessian interval.
    #[serde(
        serialize_with = "json_float::interval",
        deserialize_with = "json_float::read_interval"
    )]
    pub advantage_elo_95: Option<(f64, f64)>,
    /// Its 95% profile-likelihood interval (`None` in summaries written
    /// before it was added).
    #[serde(
        serialize_with = "json_float::interval",
        deserialize_with = "json_float::read_interval",
        default
    )]
    pub advantage_elo_95_profile: Option<(f64, f64)>,
    /// Per pair of agents.
    pub per_pair: Vec<PairFirstPlayer>,
}

/// The pairs of games of one pairing: each opening played twice, seats
/// swapped, counted by the pair's result for `agents[0]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PairPentanomial {
    /// The two agents' names (schedule order); counts are `agents[0]`'s.
    pub agents: [String; 2],
    /// Complete pairs counted.
    pub pairs: u64,
    /// Pairs left out because a game is missing.
    pub incomplete_pairs: u64,
    /// LL, LD, DD+WL, WD, WW (and DD, WL apart) for `agents[0]`.
    pub pentanomial: Pentanomial,
    /// Elo of `agents[0]` over `agents[1]` from the pairs, with its 95%
    /// interval (ends `"inf"`/`"-inf"` when unbounded); `None` without pairs.
    pub elo: Option<EloEstimate>,
    /// `agents[0]`'s mean margin in seeds over the complete pairs without a
    /// forfeit, each pair's mean one observation, with its 95% interval
    /// (`None` without such pairs, or in summaries written before it was
    /// added).
    #[serde(default)]
    pub margin: Option<MeanCi>,
}

/// Everything `summary.json` holds. It depends only on the games, so
/// identical tournaments give identical summaries. It reads back what it
/// writes; fields added since the first summaries (profile intervals,
/// likelihoods of superiority, pentanomial counts) may be missing, and
/// fields it does not know are ignored, so that summaries of earlier and
/// later versions read as well as they can.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// Tournament name.
    pub name: String,
    /// Game spec.
    pub game: String,
    /// Games in the schedule.
    pub games_planned: u64,
    /// Games played.
    pub games_played: u64,
    /// Games ended by a forfeit (a clock running out aside).
    pub forfeits: u64,
    /// Games lost on time (0 in summaries written before clocks).
    #[serde(default)]
    pub time_losses: u64,
    /// How ratings were computed.
    pub rating_method: String,
    /// The rating anchor: `mean` or an agent's name (at 0).
    pub anchor: String,
    /// Agents in standing order (best first).
    pub standings: Vec<AgentSummary>,
    /// `crosstable[i][j]`: agent `i` (schedule order) against agent `j`.
    pub crosstable: Vec<Vec<Option<CrossCell>>>,
    /// `likelihood_of_superiority[i][j]`: probability that `i` is stronger
    /// than `j` under the fit (schedule order); empty in summaries written
    /// before it was added.
    #[serde(default)]
    pub likelihood_of_superiority: Vec<Vec<Option<f64>>>,
    /// Agent names in schedule order (the crosstable's rows and columns).
    pub agents: Vec<String>,
    /// The first-move advantage.
    pub first_player: FirstPlayerSummary,
    /// Per pairing (the same order as `first_player.per_pair`): the
    /// pentanomial counts and the pair-based Elo difference; empty in
    /// summaries written before they were added.
    #[serde(default)]
    pub pentanomial: Vec<PairPentanomial>,
}

const RATING_METHOD: &str =
    "maximum-likelihood Bradley-Terry fit with a first-move advantage term, \
draws as half points; 95% intervals from the inverse Hessian (elo_95) and from the profile \
likelihood (elo_95_profile); prior of one virtual draw per agent";

fn first_player<'a>(
    games: impl Iterator<Item = &'a GameRecord> + Clone,
) -> Result<FirstPlayerStats, StatsError> {
    // Results come from every game; margins from games played to the end.
    FirstPlayerStats::new(
        games.clone().map(GameRecord::first_seat_score),
        games
            .filter(|r| !r.is_forfeit())
            .map(|r| f64::from(r.margin)),
    )
}

/// The rating fit's view of `records`: who moved first, who second, and
/// the first mover's score.
fn game_results(records: &[GameRecord]) -> Vec<GameResult> {
    records
        .iter()
        .map(|r| GameResult {
            first: r.seats[0],
            second: r.seats[1],
            score: r.first_seat_score(),
        })
        .collect()
}

/// The fit of every standings table: `anchor` fixed at 0 Elo, or the mean
/// at 0 without one.
fn fit_options(anchor: Option<usize>) -> FitOptions {
    FitOptions::with_anchor(anchor.map_or(Anchor::Mean, |i| Anchor::Player(i, 0.0)))
}

/// One agent's line of the standings while a run goes on.
#[derive(Clone, Debug, PartialEq)]
pub struct InterimStanding {
    /// The agent's index in the schedule.
    pub agent: usize,
    /// Its rating so far.
    pub elo: f64,
    /// Its 95% interval from the inverse Hessian (the profile intervals of
    /// the final summary cost a fit per agent, too much to repeat often).
    pub elo_95: Option<(f64, f64)>,
    /// Its results so far.
    pub wdl: Wdl,
}

/// The standings of `records` among `n_agents` agents so far, best first:
/// the rating fit of [`summarize`] (anchored the same way), without the
/// rest of the summary, so that a run can print it every few games.
///
/// # Errors
/// [`StatsError`] if the rating fit fails.
pub fn interim_standings(
    n_agents: usize,
    records: &[GameRecord],
    anchor: Option<usize>,
) -> Result<Vec<InterimStanding>, StatsError> {
    let results = game_results(records);
    let mut options = fit_options(anchor);
    options.profile = false;
    let fit = fit_ratings(&results, n_agents, &options)?;
    let mut wdl = vec![Wdl::default(); n_agents];
    for r in &results {
        wdl[r.first].record(r.score)?;
        wdl[r.second].record(1.0 - r.score)?;
    }
    let mut standings: Vec<InterimStanding> = wdl
        .into_iter()
        .enumerate()
        .map(|(agent, wdl)| InterimStanding {
            agent,
            elo: fit.ratings[agent],
            elo_95: fit.interval(agent).filter(|(lo, hi)| hi > lo),
            wdl,
        })
        .collect();
    // Best first; ties in schedule order, so that the order is the same
    // at any thread count.
    standings.sort_by(|a, b| b.elo.total_cmp(&a.elo).then(a.agent.cmp(&b.agent)));
    Ok(standings)
}

/// Computes the summary of `records` for agents `names`/`specs` (schedule
/// order); `anchor` is an agent index fixed at 0 Elo, or `None` for mean 0.
///
/// # Errors
/// [`StatsError`] if the rating fit fails.
pub fn summarize(
    name: &str,
    game: &str,
    names: &[String],
    specs: &[String],
    records: &[GameRecord],
    games_planned: u64,
    anchor: Option<usize>,
) -> Result<Summary, StatsError> {
    let n = names.len();
    let results = game_results(records);
    let fit = fit_ratings(&results, n, &fit_options(anchor))?;
    let (agents, cross) = agent_summaries(names, specs, records, &fit)?;
    let per_pair = first_player_per_pair(names, records)?;
    let pentanomial = pair_pentanomials(names, records)?;

    let mut standings = agents;
    standings.sort_by(|a, b| b.elo.total_cmp(&a.elo).then(a.name.cmp(&b.name)));
    Ok(Summary {
        name: name.to_string(),
        game: game.to_string(),
        games_planned,
        games_played: records.len() as u64,
        forfeits: records
            .iter()
            .filter(|r| r.is_forfeit() && r.time_loser().is_none())
            .count() as u64,
        time_losses: records.iter().filter(|r| r.time_loser().is_some()).count() as u64,
        rating_method: RATING_METHOD.to_string(),
        anchor: anchor.map_or("mean".to_string(), |i| names[i].clone()),
        standings,
        crosstable: cross,
        likelihood_of_superiority: fit.los_matrix(),
        agents: names.to_vec(),
        first_player: FirstPlayerSummary {
            overall: first_player(records.iter())?,
            advantage_elo: fit.advantage,
            advantage_elo_95: fit.advantage_interval(),
            advantage_elo_95_profile: fit.advantage_profile_interval,
            per_pair,
        },
        pentanomial,
    })
}

/// Each agent's line of the standings (in schedule order) and its row of
/// the crosstable, from `records` and the rating `fit`.
fn agent_summaries(
    names: &[String],
    specs: &[String],
    records: &[GameRecord],
    fit: &RatingFit,
) -> Result<(Vec<AgentSummary>, Crosstable), StatsError> {
    let n = names.len();
    let mut agents = Vec::with_capacity(n);
    let mut cross = Vec::with_capacity(n);
    for i in 0..n {
        let AgentGames {
            wdl,
            margins,
            forfeits,
            time_losses,
            row,
        } = AgentGames::tally(i, n, records)?;
        agents.push(AgentSummary {
            name: names[i].clone(),
            spec: specs[i].clone(),
            games: wdl.games(),
            points: wdl.points(),
            score: wdl.score(),
            wdl,
            elo: fit.ratings[i],
            elo_95: fit.interval(i).filter(|(lo, hi)| hi > lo),
            elo_95_profile: fit.profile_interval(i).filter(|(lo, hi)| hi > lo),
            margin: mean_with_ci(&margins),
            as_first: first_player(records.iter().filter(|r| r.seats[0] == i))?,
            as_second: first_player(records.iter().filter(|r| r.seats[1] == i))?,
            forfeits,
            time_losses,
        });
        cross.push(row);
    }
    Ok((agents, cross))
}

/// [`Summary::crosstable`]: row `i` holds agent `i`'s results against
/// each agent (`None`: they did not meet).
type Crosstable = Vec<Vec<Option<CrossCell>>>;

/// What one agent's games add up to.
struct AgentGames {
    wdl: Wdl,
    /// The margins of the games that ended without an error, from its side.
    margins: Vec<f64>,
    /// Games it lost by its own fault, but not on time.
    forfeits: u64,
    time_losses: u64,
    /// Its row of the crosstable: its results against each agent.
    row: Vec<Option<CrossCell>>,
}

impl AgentGames {
    /// Sums the games of agent `i` (of `n`) in `records`.
    fn tally(i: usize, n: usize, records: &[GameRecord]) -> Result<AgentGames, StatsError> {
        let mut games = AgentGames {
            wdl: Wdl::default(),
            margins: Vec::new(),
            forfeits: 0,
            time_losses: 0,
            row: vec![None; n],
        };
        for r in records.iter().filter(|r| r.seats.contains(&i)) {
            let seat = if r.seats[0] == i { 0 } else { 1 };
            let score = if seat == 0 {
                r.first_seat_score()
            } else {
                1.0 - r.first_seat_score()
            };
            games.wdl.record(score)?;
            let opponent = r.seats[1 - seat];
            let cell = games.row[opponent].get_or_insert(CrossCell {
                games: 0,
                wdl: Wdl::default(),
                score: None,
            });
            cell.games += 1;
            cell.wdl.record(score)?;
            cell.score = cell.wdl.score();
            match &r.error {
                Some(_) if r.time_loser() == Some(seat) => games.time_losses += 1,
                Some(e) if e.starts_with(&format!("seat {seat}")) => games.forfeits += 1,
                Some(_) => {}
                None => games
                    .margins
                    .push(f64::from(if seat == 0 { r.margin } else { -r.margin })),
            }
        }
        Ok(games)
    }
}

/// The first-player statistics of each pair of agents that met, in index
/// order.
fn first_player_per_pair(
    names: &[String],
    records: &[GameRecord],
) -> Result<Vec<PairFirstPlayer>, StatsError> {
    let mut pairs: Vec<[usize; 2]> = records
        .iter()
        .map(|r| [r.seats[0].min(r.seats[1]), r.seats[0].max(r.seats[1])])
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
        .iter()
        .map(|&[a, b]| {
            Ok(PairFirstPlayer {
                agents: [names[a].clone(), names[b].clone()],
                stats: first_player(records.iter().filter(|r| {
                    [r.seats[0].min(r.seats[1]), r.seats[0].max(r.seats[1])] == [a, b]
                }))?,
            })
        })
        .collect()
}

/// The pentanomial counts (game pairs with seats swapped) of each pairing,
/// in index order.
fn pair_pentanomials(
    names: &[String],
    records: &[GameRecord],
) -> Result<Vec<PairPentanomial>, StatsError> {
    // One pass to group the games by pairing (sorted, so the output is
    // deterministic), then the pairs within each.
    let mut by_pairing: BTreeMap<[usize; 2], Vec<&GameRecord>> = BTreeMap::new();
    for r in records {
        by_pairing
            .entry([r.seats[0].min(r.seats[1]), r.seats[0].max(r.seats[1])])
            .or_default()
            .push(r);
    }
    by_pairing
        .iter()
        .map(|(&[a, b], games)| {
            let paired = paired_results(games.iter().copied(), a, b)?;
            Ok(PairPentanomial {
                agents: [names[a].clone(), names[b].clone()],
                pairs: paired.pentanomial.pairs(),
                incomplete_pairs: paired.incomplete_pairs,
                pentanomial: paired.pentanomial,
                elo: paired.pentanomial.elo(),
                margin: mean_with_ci(&paired_margins(games.iter().copied(), a, b)),
            })
        })
        .collect()
}

/// The summary's pentanomial section as text, one line per pairing, for
/// printing under the standings:
///
/// ```text
/// pairs (LL-LD-DD+WL-WD-WW for the first agent), Elo and mean margin from pairs:
///   greedy vs random        0-1-3-6-10   +240.8 [+151.2, +397.0]   margin +9.20 [+7.10, +11.30]
/// ```
///
/// Empty when no pairing has a complete pair.
pub fn pentanomial_table(summary: &Summary) -> String {
    let rows: Vec<&PairPentanomial> = summary.pentanomial.iter().filter(|p| p.pairs > 0).collect();
    if rows.is_empty() {
        return String::new();
    }
    let labels: Vec<String> = rows
        .iter()
        .map(|p| format!("{} vs {}", p.agents[0], p.agents[1]))
        .collect();
    let width = labels.iter().map(String::len).max().unwrap_or(0);
    let mut text = String::from(
        "pairs (LL-LD-DD+WL-WD-WW for the first agent), Elo and mean margin from pairs:\n",
    );
    for (p, label) in rows.iter().zip(&labels) {
        let c = p.pentanomial.counts();
        let counts = format!("{}-{}-{}-{}-{}", c[0], c[1], c[2], c[3], c[4]);
        let elo = p.elo.as_ref().map_or(String::new(), |e| {
            format!("{} [{}, {}]", signed(e.elo), signed(e.lo), signed(e.hi))
        });
        let _ = write!(text, "  {label:<width$}  {counts:>15}  {elo}");
        if let Some(m) = &p.margin {
            if m.hi.is_finite() {
                let _ = write!(
                    text,
                    "   margin {:+.2} [{:+.2}, {:+.2}]",
                    m.mean, m.lo, m.hi
                );
            } else {
                let _ = write!(text, "   margin {:+.2}", m.mean);
            }
        }
        if p.incomplete_pairs > 0 {
            let _ = write!(text, "  ({} incomplete)", p.incomplete_pairs);
        }
        text.push('\n');
    }
    text
}

/// An Elo value with its sign and one decimal, `+inf`/`-inf` when unbounded.
fn signed(value: f64) -> String {
    if value.is_finite() {
        format!("{value:+.1}")
    } else if value > 0.0 {
        "+inf".to_string()
    } else {
        "-inf".to_string()
    }
}

/// The `ratings.csv` columns.
pub const RATINGS_HEADER: &[&str] = &[
    "rank",
    "name",
    "spec",
    "elo",
    "elo_lo",
    "elo_hi",
    "games",
    "points",
    "score",
    "wins",
    "draws",
    "losses",
    "mean_margin",
    "margin_lo",
    "margin_hi",
    "first_seat_score",
    "second_seat_score",
    "forfeits",
    "elo_profile_lo",
    "elo_profile_hi",
    "time_losses",
];

/// Writes `moves.json` into `dir`: what each agent's moves cost and
/// searched ([`MoveTable`]). Like `duration_ms`, its times vary between
/// identical runs.
///
/// # Errors
/// [`LogError::Io`] when the file cannot be written.
pub fn write_moves(dir: &Path, moves: &MoveTable) -> Result<(), LogError> {
    let path = dir.join("moves.json");
    let text = serde_json::to_string_pretty(moves).expect("a move table serialises");
    std::fs::write(&path, text + "\n").map_err(|source| LogError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Writes `summary.json` and `ratings.csv` into `dir`.
///
/// # Errors
/// [`LogError::Io`] when a file cannot be written.
pub fn write_summary(dir: &Path, summary: &Summary) -> Result<(), LogError> {
    let path = dir.join("summary.json");
    let text = serde_json::to_string_pretty(summary).expect("summary serialises");
    std::fs::write(&path, text + "\n").map_err(|source| LogError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let path = dir.join("ratings.csv");
    let to_io = |e: csv::Error| LogError::Io {
        path: path.display().to_string(),
        source: e.into(),
    };
    let mut w = csv::Writer::from_path(&path).map_err(to_io)?;
    w.write_record(RATINGS_HEADER).map_err(to_io)?;
    for (rank, a) in summary.standings.iter().enumerate() {
        w.write_record([
            (rank + 1).to_string(),
            a.name.clone(),
            a.spec.clone(),
            format!("{:.1}", a.elo),
            csv_field(a.elo_95.map(|x| x.0), 1),
            csv_field(a.elo_95.map(|x| x.1), 1),
            a.games.to_string(),
            format!("{:.1}", a.points),
            csv_field(a.score, 4),
            a.wdl.wins.to_string(),
            a.wdl.draws.to_string(),
            a.wdl.losses.to_string(),
            csv_field(a.margin.as_ref().map(|m| m.mean), 3),
            csv_field(a.margin.as_ref().map(|m| m.lo), 3),
            csv_field(a.margin.as_ref().map(|m| m.hi), 3),
            csv_field(a.as_first.score, 4),
            csv_field(a.as_second.score.map(|s| 1.0 - s), 4),
            a.forfeits.to_string(),
            csv_field(a.elo_95_profile.map(|x| x.0), 1),
            csv_field(a.elo_95_profile.map(|x| x.1), 1),
            a.time_losses.to_string(),
        ])
        .map_err(to_io)?;
    }
    w.flush().map_err(|source| LogError::Io {
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::{pairs, schedule, Format};

    /// Records of a scheduled tournament in which `winner(game)` decides
    /// each game (`None`: a draw).
    fn play(
        agents: usize,
        games_per_pair: u32,
        winner: impl Fn(&crate::ScheduledGame) -> Option<usize>,
    ) -> Vec<GameRecord> {
        schedule(&pairs(Format::RoundRobin, agents), games_per_pair, 3)
            .iter()
            .map(|g| {
                let winner_seat = winner(g).map(|a| u8::from(g.seats[1] == a));
                GameRecord {
                    id: g.id,
                    pair: g.pair,
                    round: g.round,
                    opening: g.opening,
                    game: "kalah".into(),
                    players: [format!("a{}", g.seats[0]), format!("a{}", g.seats[1])],
                    agents: ["random".into(), "random".into()],
                    seats: g.seats,
                    seed: g.id,
                    start: None,
                    opening_moves: String::new(),
                    moves: String::new(),
                    scores: [0, 0],
                    winner: winner_seat,
                    margin: 0,
                    plies: 10,
                    duration_ms: 1.0,
                    end: "no_moves".into(),
                    error: None,
                    move_us: Vec::new(),
                    clock_ms: Vec::new(),
                    search: Vec::new(),
                }
            })
            .collect()
    }

    #[test]
    fn summary_counts_pairs_per_pairing() {
        // Agent 0 beats agent 1 every game; agents 0 and 2 each win as
        // first seat (every pair WL); agents 1 and 2 draw everything.
        let mut records = play(3, 6, |g| {
            match (g.seats[0].min(g.seats[1]), g.seats[0].max(g.seats[1])) {
                (0, 1) => Some(0),
                (0, 2) => Some(g.seats[0]),
                _ => None,
            }
        });
        // Lose the last game of pairing 0-1: its pair becomes incomplete.
        let last = records.iter().rposition(|r| r.pair == 0).unwrap();
        records.remove(last);
        let names: Vec<String> = (0..3).map(|i| format!("a{i}")).collect();
        let specs = vec!["random".to_string(); 3];
        let s = summarize("t", "kalah", &names, &specs, &records, 18, None).unwrap();
        assert_eq!(s.pentanomial.len(), 3);
        let p01 = &s.pentanomial[0];
        assert_eq!(p01.agents, ["a0".to_string(), "a1".to_string()]);
        assert_eq!((p01.pairs, p01.incomplete_pairs), (2, 1));
        assert_eq!(p01.pentanomial, Pentanomial::new(0, 0, 0, 0, 0, 2));
        assert_eq!(p01.elo.unwrap().elo, f64::INFINITY);
        let p02 = &s.pentanomial[1];
        assert_eq!(p02.pentanomial, Pentanomial::new(0, 0, 0, 3, 0, 0));
        let e = p02.elo.unwrap();
        assert_eq!((e.lo, e.elo, e.hi), (0.0, 0.0, 0.0));
        assert_eq!(
            s.pentanomial[2].pentanomial,
            Pentanomial::new(0, 0, 3, 0, 0, 0)
        );

        let json = serde_json::to_value(&s).unwrap();
        let first = &json["pentanomial"][0];
        assert_eq!(first["agents"], serde_json::json!(["a0", "a1"]));
        assert_eq!(first["pentanomial"]["ww"], 2);
        assert_eq!(first["elo"]["elo"], "inf");
        assert_eq!(json["pentanomial"][1]["pentanomial"]["dd_wl"], 3);
        assert_eq!(json["pentanomial"][1]["pentanomial"]["wl"], 3);
        // The existing sections are all still there.
        for key in ["standings", "crosstable", "first_player", "agents"] {
            assert!(json.get(key).is_some(), "{key}");
        }

        let table = pentanomial_table(&s);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(lines[0].starts_with("pairs (LL-LD-DD+WL-WD-WW"), "{table}");
        assert!(
            lines[1].contains("a0 vs a1") && lines[1].contains("0-0-0-0-2"),
            "{table}"
        );
        assert!(lines[1].contains("+inf [+inf, +inf]"), "{table}");
        assert!(lines[1].ends_with("(1 incomplete)"), "{table}");
        assert!(
            lines[2].contains("0-0-3-0-0") && lines[2].contains("+0.0 [+0.0, +0.0]"),
            "{table}"
        );
        // It reads back as what was written, infinities included.
        let text = serde_json::to_string(&s).unwrap();
        let back: Summary = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
        assert_eq!(back.pentanomial[0].elo.unwrap().elo, f64::INFINITY);
        // Deterministic: the same games in another order give the same summary.
        let mut shuffled = records.clone();
        shuffled.reverse();
        let again = summarize("t", "kalah", &names, &specs, &shuffled, 18, None).unwrap();
        assert_eq!(pentanomial_table(&again), table);
    }

    #[test]
    fn no_pairs_no_table() {
        let names: Vec<String> = (0..2).map(|i| format!("a{i}")).collect();
        let specs = vec!["random".to_string(); 2];
        let records = play(2, 1, |_| Some(0));
        let s = summarize("t", "kalah", &names, &specs, &records, 2, None).unwrap();
        assert_eq!(s.pentanomial[0].pairs, 0);
        assert_eq!(s.pentanomial[0].incomplete_pairs, 1);
        assert!(s.pentanomial[0].elo.is_none());
        assert_eq!(pentanomial_table(&s), "");
    }
}
