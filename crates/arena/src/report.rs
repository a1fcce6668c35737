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
//! JSON has no infinity: an infinite value (an Elo bound of a perfect
//! first-seat record, say) is the string `"inf"` or `"-inf"`, and `null`
//! means no value ([`crate::stats::json_float`]); `ratings.csv` writes
//! `inf`/`-inf` and leaves a missing value empty.

use std::path::Path;

use serde::Serialize;

use crate::log::LogError;
use crate::record::GameRecord;
use crate::stats::json_float::{self, csv_field};
use crate::stats::{
    fit_ratings, mean_with_ci, Anchor, FirstPlayerStats, FitOptions, GameResult, MeanCi,
    StatsError, Wdl,
};

/// One agent's line of the standings.
#[derive(Clone, Debug, Serialize)]
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
    pub elo: f64,
    /// 95% Hessian (Wald) interval of `elo`, `elo ± 1.96 stderr`; `None`
    /// without games (or for the anchor, an exact 0). Too narrow on the
    /// far side for a score near 0 or 1; prefer `elo_95_profile`.
    #[serde(serialize_with = "json_float::interval")]
    pub elo_95: Option<(f64, f64)>,
    /// 95% profile-likelihood interval of `elo`: where the log-likelihood,
    /// maximised over every other rating and the advantage, is 1.92 below
    /// its maximum. `None` exactly when `elo_95` is.
    #[serde(serialize_with = "json_float::interval")]
    pub elo_95_profile: Option<(f64, f64)>,
    /// Mean final margin from this agent's side, forfeits left out.
    pub margin: Option<MeanCi>,
    /// Games this agent began, from the first seat's side (its own).
    pub as_first: FirstPlayerStats,
    /// Games the opponent began, from the first seat's side (the opponent's).
    pub as_second: FirstPlayerStats,
    /// Games this agent lost by forfeit.
    pub forfeits: u64,
}

/// One cell of the crosstable: how the row agent did against the column agent.
#[derive(Clone, Debug, Serialize)]
pub struct CrossCell {
    /// Games between them.
    pub games: u64,
    /// The row agent's results.
    pub wdl: Wdl,
    /// The row agent's points per game.
    pub score: Option<f64>,
}

/// First-seat statistics of one pair of agents.
#[derive(Clone, Debug, Serialize)]
pub struct PairFirstPlayer {
    /// The two agents' names.
    pub agents: [String; 2],
    /// From the first seat's side, whoever sat there.
    pub stats: FirstPlayerStats,
}

/// How much moving first is worth in this tournament.
#[derive(Clone, Debug, Serialize)]
pub struct FirstPlayerSummary {
    /// Every game, from the first seat's side (forfeits excluded from margins).
    pub overall: FirstPlayerStats,
    /// The first-move advantage in Elo from the joint rating fit.
    pub advantage_elo: f64,
    /// Its 95% Hessian interval.
    #[serde(serialize_with = "json_float::interval")]
    pub advantage_elo_95: Option<(f64, f64)>,
    /// Its 95% profile-likelihood interval.
    #[serde(serialize_with = "json_float::interval")]
    pub advantage_elo_95_profile: Option<(f64, f64)>,
    /// Per pair of agents.
    pub per_pair: Vec<PairFirstPlayer>,
}

/// Everything `summary.json` holds. It depends only on the games, so
/// identical tournaments give identical summaries.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Tournament name.
    pub name: String,
    /// Game spec.
    pub game: String,
    /// Games in the schedule.
    pub games_planned: u64,
    /// Games played.
    pub games_played: u64,
    /// Games ended by a forfeit.
    pub forfeits: u64,
    /// How ratings were computed.
    pub rating_method: String,
    /// The rating anchor: `mean` or an agent's name (at 0).
    pub anchor: String,
    /// Agents in standing order (best first).
    pub standings: Vec<AgentSummary>,
    /// `crosstable[i][j]`: agent `i` (schedule order) against agent `j`.
    pub crosstable: Vec<Vec<Option<CrossCell>>>,
    /// `likelihood_of_superiority[i][j]`: probability that `i` is stronger
    /// than `j` under the fit (schedule order).
    pub likelihood_of_superiority: Vec<Vec<Option<f64>>>,
    /// Agent names in schedule order (the crosstable's rows and columns).
    pub agents: Vec<String>,
    /// The first-move advantage.
    pub first_player: FirstPlayerSummary,
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
    let results: Vec<GameResult> = records
        .iter()
        .map(|r| GameResult {
            first: r.seats[0],
            second: r.seats[1],
            score: r.first_seat_score(),
        })
        .collect();
    let fit = fit_ratings(
        &results,
        n,
        &FitOptions::with_anchor(anchor.map_or(Anchor::Mean, |i| Anchor::Player(i, 0.0))),
    )?;

    let mut agents = Vec::with_capacity(n);
    let mut cross: Vec<Vec<Option<CrossCell>>> = vec![vec![None; n]; n];
    for i in 0..n {
        let mut wdl = Wdl::default();
        let mut margins = Vec::new();
        let mut forfeits = 0;
        for r in records.iter().filter(|r| r.seats.contains(&i)) {
            let seat = if r.seats[0] == i { 0 } else { 1 };
            let score = if seat == 0 {
                r.first_seat_score()
            } else {
                1.0 - r.first_seat_score()
            };
            wdl.record(score)?;
            let opponent = r.seats[1 - seat];
            let cell = cross[i][opponent].get_or_insert(CrossCell {
                games: 0,
                wdl: Wdl::default(),
                score: None,
            });
            cell.games += 1;
            cell.wdl.record(score)?;
            cell.score = cell.wdl.score();
            match &r.error {
                Some(e) if e.starts_with(&format!("seat {seat}")) => forfeits += 1,
                Some(_) => {}
                None => margins.push(f64::from(if seat == 0 { r.margin } else { -r.margin })),
            }
        }
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
        });
    }

    let mut pairs: Vec<[usize; 2]> = records
        .iter()
        .map(|r| [r.seats[0].min(r.seats[1]), r.seats[0].max(r.seats[1])])
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let per_pair = pairs
        .iter()
        .map(|&[a, b]| {
            Ok(PairFirstPlayer {
                agents: [names[a].clone(), names[b].clone()],
                stats: first_player(records.iter().filter(|r| {
                    [r.seats[0].min(r.seats[1]), r.seats[0].max(r.seats[1])] == [a, b]
                }))?,
            })
        })
        .collect::<Result<Vec<_>, StatsError>>()?;

    let mut standings = agents;
    standings.sort_by(|a, b| b.elo.total_cmp(&a.elo).then(a.name.cmp(&b.name)));
    Ok(Summary {
        name: name.to_string(),
        game: game.to_string(),
        games_planned,
        games_played: records.len() as u64,
        forfeits: records.iter().filter(|r| r.is_forfeit()).count() as u64,
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
    })
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
];

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
        ])
        .map_err(to_io)?;
    }
    w.flush().map_err(|source| LogError::Io {
        path: path.display().to_string(),
        source,
    })
}
