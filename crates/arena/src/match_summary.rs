//! The summary of a match between two agents: what `mancala match` prints,
//! and, serialized, what `mancala match --json` writes.
//!
//! Agent A is agent 0 of the records, B agent 1. Scores, Elo and margins
//! are A's. Intervals come from independent observations: the score's Elo
//! from games (as the usual match runners give it, with its caveat), the
//! pentanomial Elo and the mean margin from the pairs of games that share
//! an opening.

use serde::{Serialize, Serializer};

use crate::pairs::{paired_margins, paired_results};
use crate::sequential::score_of_first_agent;
use crate::stats::json_float::{self, JsonFloat};
use crate::stats::{
    mean_with_ci, EloEstimate, MeanCi, PairedResults, Pentanomial, SprtStatus, StatsError, Wdl,
};
use crate::{GameRecord, ADJUDICATED};

/// A match's results, for agent A against agent B.
#[derive(Clone, Debug, Serialize)]
pub struct MatchSummary {
    /// Agent A's name.
    pub a: String,
    /// Agent B's name.
    pub b: String,
    /// The game spec.
    pub game: String,
    /// Games played.
    pub games: usize,
    /// The match's seed.
    pub seed: u64,
    /// A's wins, draws and losses.
    #[serde(rename = "a_wdl", serialize_with = "wdl_triple")]
    pub a_wdl: Wdl,
    /// A's score (wins and half the draws, over the games).
    pub a_score: Option<f64>,
    /// The Elo difference A's score implies.
    #[serde(serialize_with = "optional_number")]
    pub elo: Option<f64>,
    /// Its 95% interval, from games.
    #[serde(serialize_with = "json_float::interval")]
    pub elo_95: Option<(f64, f64)>,
    /// The likelihood that A is the stronger.
    pub los: f64,
    /// Whole pairs (two games of one opening, seats swapped).
    pub pairs: u64,
    /// Openings with only one game played.
    pub incomplete_pairs: u64,
    /// The pairs' results for A.
    pub pentanomial: Pentanomial,
    /// The Elo difference from the pairs.
    #[serde(serialize_with = "optional_number")]
    pub pair_elo: Option<f64>,
    /// Its 95% interval.
    #[serde(serialize_with = "json_float::interval")]
    pub pair_elo_95: Option<(f64, f64)>,
    /// The first player's wins, draws and losses, whoever played first.
    #[serde(serialize_with = "wdl_triple")]
    pub first_player_wdl: Wdl,
    /// The first player's score.
    pub first_player_score: Option<f64>,
    /// A's mean final margin, in seeds (games not forfeited).
    pub a_mean_margin: Option<f64>,
    /// Its 95% interval, from the pairs' mean margins (`±inf`: fewer than
    /// two whole pairs, so no interval).
    #[serde(serialize_with = "json_float::interval")]
    pub a_mean_margin_95: Option<(f64, f64)>,
    /// Whole pairs the margin's interval comes from.
    pub a_margin_pairs: usize,
    /// Games forfeited other than on time.
    pub forfeits: u64,
    /// Games ended by adjudication.
    pub adjudicated: usize,
    /// Mean plies a game.
    pub mean_plies: f64,
    /// Games lost on time, by A and by B.
    pub time_losses: [u64; 2],
    /// Why each forfeited game (on time or not) was lost.
    pub errors: Vec<GameError>,
    /// The SPRT's state, when the match ran one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSummary>,
}

/// Why a game was forfeited.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameError {
    /// The game's id.
    pub game: u64,
    /// What went wrong.
    pub error: Option<String>,
}

/// An SPRT's state, and the most games the match could play.
#[derive(Clone, Debug, Serialize)]
pub struct SprtSummary {
    /// The test's state.
    #[serde(flatten)]
    pub status: SprtStatus,
    /// The cap on games.
    pub max_games: usize,
}

impl MatchSummary {
    /// The summary of `records` (agent 0 is A, named `names[0]`) of a
    /// match of `game` played from `seed`.
    ///
    /// # Errors
    /// [`StatsError`] for a record whose score is not a game's.
    pub fn new(
        names: [&str; 2],
        game: &str,
        seed: u64,
        records: &[GameRecord],
    ) -> Result<MatchSummary, StatsError> {
        let MatchTally {
            a,
            first,
            margins,
            forfeits,
            time_losses,
            errors,
        } = MatchTally::new(records)?;
        let PairedResults {
            pentanomial,
            incomplete_pairs,
        } = paired_results(records, 0, 1)?;
        let pair_margins = paired_margins(records, 0, 1);
        let margin = mean_margin(&margins, &pair_margins);
        let elo = a.elo();
        let pair_elo = pentanomial.elo();
        let interval = |e: &EloEstimate| (e.lo, e.hi);
        Ok(MatchSummary {
            a: names[0].to_string(),
            b: names[1].to_string(),
            game: game.to_string(),
            games: records.len(),
            seed,
            a_score: a.score(),
            elo: elo.as_ref().map(|e| e.elo),
            elo_95: elo.as_ref().map(interval),
            los: a.los(),
            a_wdl: a,
            pairs: pentanomial.pairs(),
            incomplete_pairs,
            pentanomial,
            pair_elo: pair_elo.as_ref().map(|e| e.elo),
            pair_elo_95: pair_elo.as_ref().map(interval),
            first_player_score: first.score(),
            first_player_wdl: first,
            a_mean_margin: margin.as_ref().map(|m| m.mean),
            a_mean_margin_95: margin.as_ref().map(|m| (m.lo, m.hi)),
            a_margin_pairs: pair_margins.len(),
            forfeits,
            adjudicated: records.iter().filter(|r| r.end == ADJUDICATED).count(),
            mean_plies: mean_plies(records),
            time_losses,
            errors,
            sprt: None,
        })
    }

    /// This summary with an SPRT's state and the match's cap on games.
    pub fn with_sprt(self, status: SprtStatus, max_games: usize) -> MatchSummary {
        MatchSummary {
            sprt: Some(SprtSummary { status, max_games }),
            ..self
        }
    }
}

/// What a match's games add up to, game by game.
struct MatchTally {
    /// A's results.
    a: Wdl,
    /// The first player's results.
    first: Wdl,
    /// A's margin in each game not forfeited.
    margins: Vec<f64>,
    /// Games forfeited other than on time.
    forfeits: u64,
    /// Games lost on time, by A and by B.
    time_losses: [u64; 2],
    /// Why each forfeited game (on time or not) was lost.
    errors: Vec<GameError>,
}

impl MatchTally {
    /// Sums `records` (agent 0 is A).
    fn new(records: &[GameRecord]) -> Result<MatchTally, StatsError> {
        let mut tally = MatchTally {
            a: Wdl::default(),
            first: Wdl::default(),
            margins: Vec::new(),
            forfeits: 0,
            time_losses: [0u64; 2],
            errors: Vec::new(),
        };
        for r in records {
            tally.a.record(score_of_first_agent(r))?;
            tally.first.record(r.first_seat_score())?;
            let error = || GameError {
                game: r.id,
                error: r.error.clone(),
            };
            if let Some(loser) = r.time_loser() {
                tally.time_losses[r.seats[loser]] += 1;
                tally.errors.push(error());
            } else if r.is_forfeit() {
                tally.forfeits += 1;
                tally.errors.push(error());
            } else {
                tally.margins.push(f64::from(if r.seats[0] == 0 {
                    r.margin
                } else {
                    -r.margin
                }));
            }
        }
        Ok(tally)
    }
}

/// A's mean margin over the games' `margins`, with its interval from the
/// pairs' mean margins (`pair_margins`), the independent observations (the
/// two games of an opening are not); with no whole pair, the games' mean
/// is given with no interval.
fn mean_margin(margins: &[f64], pair_margins: &[f64]) -> Option<MeanCi> {
    if pair_margins.is_empty() {
        mean_with_ci(margins).map(|m| MeanCi {
            lo: f64::NEG_INFINITY,
            hi: f64::INFINITY,
            stderr: f64::INFINITY,
            ..m
        })
    } else {
        mean_with_ci(pair_margins)
    }
}

/// The mean plies a game of `records` (0 for none).
fn mean_plies(records: &[GameRecord]) -> f64 {
    if records.is_empty() {
        0.0
    } else {
        records.iter().map(|r| f64::from(r.plies)).sum::<f64>() / records.len() as f64
    }
}

/// A record's wins, draws and losses as `[w, d, l]`.
fn wdl_triple<S: Serializer>(wdl: &Wdl, serializer: S) -> Result<S::Ok, S::Error> {
    [wdl.wins, wdl.draws, wdl.losses].serialize(serializer)
}

/// An optional float by the JSON convention of [`json_float`] (`"inf"`).
fn optional_number<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    value.map(JsonFloat).serialize(serializer)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Game `id` of opening `opening`, agent 0 in seat `seat_of_a`, won by
    /// seat `winner` by `margin` seeds (for seat 0).
    fn game(
        id: u64,
        opening: u32,
        seat_of_a: usize,
        winner: Option<u8>,
        margin: i32,
    ) -> GameRecord {
        let seats = if seat_of_a == 0 { [0, 1] } else { [1, 0] };
        crate::record::test_record(id, opening, seats, winner, margin)
    }

    #[test]
    fn a_summary_counts_for_a_and_takes_the_margin_interval_from_pairs() {
        // Opening 0: A wins both seats by 4 and 2; opening 1: A wins as
        // first player by 6 and loses as second by 2; opening 2: one game.
        let records = [
            game(0, 0, 0, Some(0), 4),
            game(1, 0, 1, Some(1), -2),
            game(2, 1, 0, Some(0), 6),
            game(3, 1, 1, Some(0), 2),
            game(4, 2, 0, None, 0),
        ];
        let s = MatchSummary::new(["a", "b"], "kalah", 9, &records).unwrap();
        assert_eq!((s.a_wdl.wins, s.a_wdl.draws, s.a_wdl.losses), (3, 1, 1));
        assert_eq!(s.a_score, Some(0.7));
        // The first player won three, drew one, lost one.
        assert_eq!(s.first_player_wdl.wins, 3);
        assert_eq!((s.pairs, s.incomplete_pairs), (2, 1));
        // A's margins, pairs' means: (4 + 2) / 2 = 3, (6 - 2) / 2 = 2.
        assert_eq!(s.a_margin_pairs, 2);
        assert_eq!(s.a_mean_margin, Some(2.5));
        let (lo, hi) = s.a_mean_margin_95.unwrap();
        assert!(lo < 2.5 && 2.5 < hi && hi.is_finite());
        assert_eq!(s.mean_plies, 40.0);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["a_wdl"], serde_json::json!([3, 1, 1]));
        assert!(json.get("sprt").is_none());
        // One game: a mean and no interval ("inf" in JSON).
        let one = MatchSummary::new(["a", "b"], "kalah", 9, &records[..1]).unwrap();
        assert_eq!(one.a_mean_margin, Some(4.0));
        let json = serde_json::to_value(&one).unwrap();
        assert_eq!(json["a_mean_margin_95"], serde_json::json!(["-inf", "inf"]));
    }
}
