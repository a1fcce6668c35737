//! The pairs of a tournament's games: the two games of one opening,
//! seats swapped, counted as one pentanomial observation
//! ([`mancala_stats::Pentanomial`]) from the records of the log.

use std::collections::BTreeMap;

use mancala_stats::{PairedResults, StatsError};

use crate::record::GameRecord;

/// Pentanomial counts of `agent` against `opponent` (agent indices, as in
/// [`GameRecord::seats`]) from the records of their games; other records
/// are ignored, and `agent == opponent` counts nothing.
///
/// Two games form a pair when they are the two games of one opening of the
/// same pairing: the same [`GameRecord::pair`], rounds `2k` and `2k + 1`,
/// the same opening, and seats swapped. A pair with only one game, or
/// whose games do not match that way, is counted in
/// [`PairedResults::incomplete_pairs`] and nowhere else. The result does
/// not depend on the records' order.
///
/// # Errors
/// [`StatsError::InvalidScore`] never in practice: a record's score is
/// always a win, a draw or a loss.
pub fn paired_results<'a>(
    records: impl IntoIterator<Item = &'a GameRecord>,
    agent: usize,
    opponent: usize,
) -> Result<PairedResults, StatsError> {
    let mut result = PairedResults::default();
    if agent == opponent {
        return Ok(result);
    }
    // A sorted map: the counts do not depend on the order, and nothing
    // else about the result does either.
    let mut groups: BTreeMap<(u32, u32), Vec<&GameRecord>> = BTreeMap::new();
    for r in records {
        if r.seats == [agent, opponent] || r.seats == [opponent, agent] {
            groups.entry((r.pair, r.round / 2)).or_default().push(r);
        }
    }
    for games in groups.values() {
        match games.as_slice() {
            [a, b]
                if a.round != b.round
                    && a.opening == b.opening
                    && a.seats == [b.seats[1], b.seats[0]] =>
            {
                result
                    .pentanomial
                    .record_pair(score_of(a, agent), score_of(b, agent))?;
            }
            _ => result.incomplete_pairs += 1,
        }
    }
    Ok(result)
}

/// `agent`'s mean margin over each complete pair of its games against
/// `opponent` (paired as [`paired_results`] pairs them), in seeds: one
/// number a pair, the independent observations a margin's interval must
/// come from (the two games of one opening are not independent). Pairs
/// with a forfeited game are left out: a forfeit's margin is not played.
/// Sorted by pair, whatever the records' order.
pub fn paired_margins<'a>(
    records: impl IntoIterator<Item = &'a GameRecord>,
    agent: usize,
    opponent: usize,
) -> Vec<f64> {
    if agent == opponent {
        return Vec::new();
    }
    let mut groups: BTreeMap<(u32, u32), Vec<&GameRecord>> = BTreeMap::new();
    for r in records {
        if r.seats == [agent, opponent] || r.seats == [opponent, agent] {
            groups.entry((r.pair, r.round / 2)).or_default().push(r);
        }
    }
    let margin_of = |r: &GameRecord| {
        f64::from(if r.seats[0] == agent {
            r.margin
        } else {
            -r.margin
        })
    };
    groups
        .values()
        .filter_map(|games| match games.as_slice() {
            [a, b]
                if a.round != b.round
                    && a.opening == b.opening
                    && a.seats == [b.seats[1], b.seats[0]]
                    && !a.is_forfeit()
                    && !b.is_forfeit() =>
            {
                Some((margin_of(a) + margin_of(b)) / 2.0)
            }
            _ => None,
        })
        .collect()
}

/// `agent`'s score in a game it played.
fn score_of(record: &GameRecord, agent: usize) -> f64 {
    if record.seats[0] == agent {
        record.first_seat_score()
    } else {
        1.0 - record.first_seat_score()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_stats::Pentanomial;

    fn record(
        id: u64,
        pair: u32,
        opening: u32,
        seats: [usize; 2],
        winner: Option<u8>,
    ) -> GameRecord {
        GameRecord {
            pair,
            margin: 0,
            plies: 0,
            ..crate::record::test_record(id, opening, seats, winner, 0)
        }
    }

    #[test]
    fn records_pair_up_by_opening_with_seats_swapped() {
        // Agent 0 against agent 1: pair 0 (games 0, 1) WW for agent 0,
        // pair 1 (games 2, 3) a win each, pair 2 only game 4 (incomplete),
        // and a game of another pairing that is ignored.
        let records = [
            record(0, 0, 0, [0, 1], Some(0)),
            record(1, 0, 0, [1, 0], Some(1)),
            record(3, 0, 1, [1, 0], Some(0)),
            record(2, 0, 1, [0, 1], Some(0)),
            record(4, 0, 2, [0, 1], None),
            record(5, 1, 0, [0, 2], Some(0)),
        ];
        let result = paired_results(&records, 0, 1).unwrap();
        assert_eq!(result.pentanomial, Pentanomial::new(0, 0, 0, 1, 0, 1));
        assert_eq!(result.incomplete_pairs, 1);
        let reversed = paired_results(records.iter().rev(), 1, 0).unwrap();
        assert_eq!(reversed.pentanomial, result.pentanomial.swapped());
        assert_eq!(
            paired_results(&records, 0, 0).unwrap(),
            PairedResults::default()
        );
        // Two games of one round-pair that do not swap seats are no pair.
        let odd = [
            record(0, 0, 0, [0, 1], Some(0)),
            record(1, 0, 0, [0, 1], Some(0)),
        ];
        let result = paired_results(&odd, 0, 1).unwrap();
        assert_eq!(
            (result.pentanomial.pairs(), result.incomplete_pairs),
            (0, 1)
        );
    }

    #[test]
    fn a_pairs_margin_is_the_mean_of_its_two_games_for_the_agent() {
        let with_margin = |id, opening, seats, margin: i32, forfeit: bool| {
            let mut r = record(id, 0, opening, seats, None);
            r.margin = margin;
            r.error = forfeit.then(|| "crashed".to_string());
            r
        };
        // Margins are for the first seat: agent 0 is first in games 0 and 2.
        let records = [
            with_margin(0, 0, [0, 1], 6, false),
            with_margin(1, 0, [1, 0], -2, false),
            with_margin(2, 1, [0, 1], -4, false),
            with_margin(3, 1, [1, 0], -8, false),
            // A pair with a forfeit, and a lone game: neither counts.
            with_margin(4, 2, [0, 1], 30, false),
            with_margin(5, 2, [1, 0], 0, true),
            with_margin(6, 3, [0, 1], 10, false),
        ];
        assert_eq!(paired_margins(&records, 0, 1), [4.0, 2.0]);
        assert_eq!(paired_margins(records.iter().rev(), 1, 0), [-4.0, -2.0]);
        assert!(paired_margins(&records, 0, 0).is_empty());
    }
}
