//! The charts a first-move analysis writes beside its results.

use std::collections::BTreeSet;

use mancala_analysis::first_move::{Exact, FirstMove, Row};
use mancala_analysis::grid::Board;

use crate::svg;

/// A file-name-safe form of a rule set's name.
fn slug(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The charts of a first-move analysis, as (file name, SVG): one chart of
/// the first player's results against skill per board
/// (`skill_GAME_pP_sS_RULES.svg`), and one map of the exact values per rule
/// set (`exact_GAME_RULES.svg`). `mancala analyze first-move` writes them
/// beside its results.
pub fn first_move_charts(grid: &FirstMove) -> Vec<(String, String)> {
    let game = grid.game.as_str();
    let boards: Vec<&Board> = grid.known_boards().collect();
    let mut charts = Vec::new();
    for b in &boards {
        let mine: Vec<&Row> = grid.rows.iter().filter(|r| r.spec == b.key).collect();
        if mine.is_empty() {
            continue;
        }
        let name = format!(
            "skill_{game}_p{}_s{}_{}.svg",
            b.pits,
            b.seeds,
            slug(&b.rules)
        );
        charts.push((name, svg::ladder_chart(&skill_chart(grid, b, &mine))));
    }
    for r in &grid.rule_sets {
        let mine: Vec<&Board> = boards.iter().copied().filter(|b| &b.rules == r).collect();
        let name = format!("exact_{game}_{}.svg", slug(r));
        charts.push((name, svg::heat_map(&exact_map(grid, r, &mine))));
    }
    charts
}

/// The reference lines of a skill chart's two panels, the score's and the
/// margin's: an even game in each, and the perfect-play outcome and exact
/// margin when the board's `value` is known.
fn skill_references(value: Option<i32>) -> (Vec<svg::Reference>, Vec<svg::Reference>) {
    let mut score_refs = vec![svg::Reference {
        y: 0.5,
        label: "even".into(),
        strong: false,
    }];
    let mut margin_refs = vec![svg::Reference {
        y: 0.0,
        label: "even".into(),
        strong: false,
    }];
    if let Some(v) = value {
        let outcome = match v.signum() {
            1 => 1.0,
            0 => 0.5,
            _ => 0.0,
        };
        score_refs.push(svg::Reference {
            y: outcome,
            label: "perfect play".into(),
            strong: true,
        });
        margin_refs.push(svg::Reference {
            y: f64::from(v),
            label: format!("exact {v:+}"),
            strong: true,
        });
    }
    (score_refs, margin_refs)
}

/// A measured value and its interval; an end not measured is open.
fn estimate(v: Option<f64>, lo: Option<f64>, hi: Option<f64>) -> Option<svg::Estimate> {
    v.map(|value| svg::Estimate {
        value,
        lo: lo.unwrap_or(f64::NEG_INFINITY),
        hi: hi.unwrap_or(f64::INFINITY),
    })
}

/// Board `b`'s chart of the first player's score and margin for each agent
/// of the ladder playing both seats, from its rows `mine`.
fn skill_chart(grid: &FirstMove, b: &Board, mine: &[&Row]) -> svg::LadderChart {
    let names = &grid.agents;
    let e = &grid.exacts[&b.key];
    let find = |a: &String| mine.iter().find(|r| &r.agent == a);
    let (score_refs, margin_refs) = skill_references(e.value);
    let exact_text = match e.value {
        Some(v) => format!("the exact value is {v:+}"),
        None => format!("no exact value ({})", e.note),
    };
    svg::LadderChart {
        title: format!("First-player advantage by skill: {}", b.key),
        desc: format!(
            "First player's score and mean final margin, with 95% intervals, when both \
             seats are played by the same agent, for agents from weakest to strongest \
             ({}); {exact_text}.",
            names.join(", ")
        ),
        x_label: "agent (both seats), weakest to strongest".into(),
        categories: names.to_vec(),
        panels: vec![
            svg::Panel {
                y_label: "first player's score (0 to 1)".into(),
                y_range: (0.0, 1.0),
                points: names
                    .iter()
                    .map(|a| find(a).and_then(|r| estimate(r.first_score, r.score_lo, r.score_hi)))
                    .collect(),
                references: score_refs,
            },
            svg::Panel {
                y_label: "first player's margin (seeds)".into(),
                y_range: (0.0, 0.0),
                points: names
                    .iter()
                    .map(|a| {
                        find(a).and_then(|r| estimate(r.mean_margin, r.margin_lo, r.margin_hi))
                    })
                    .collect(),
                references: margin_refs,
            },
        ],
    }
}

/// The heat map of the exact values of rule set `r`'s boards `mine`:
/// pits down, seeds across.
fn exact_map(grid: &FirstMove, r: &str, mine: &[&Board]) -> svg::HeatMap {
    let pits: Vec<usize> = mine
        .iter()
        .map(|b| b.pits)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let seeds: Vec<usize> = mine
        .iter()
        .map(|b| b.seeds)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    exact_value_map(&grid.game, r, &pits, &seeds, |p, s| {
        let board = mine.iter().find(|b| b.pits == p && b.seeds == s);
        exact_cell(board.map(|b| &grid.exacts[&b.key]))
    })
}

/// The heat map of a rule set's exact start values (an analysis folder's
/// or a first-move run's): a row for each of `pits`, a column for each of
/// `seeds`, and `cell(pits, seeds)` in each.
pub(crate) fn exact_value_map<T: Copy + std::fmt::Display>(
    game: &str,
    rules: &str,
    pits: &[T],
    seeds: &[T],
    cell: impl Fn(T, T) -> svg::Cell,
) -> svg::HeatMap {
    svg::HeatMap {
        title: format!("Exact value of the start: {game}, rules {rules}"),
        desc: format!(
            "Final margin for the first player with perfect play, in seeds, for each \
             board of {game} under rules {rules}: rows are pits per side, columns seeds per \
             pit. Positive favours the first player. ? marks a board not solved within \
             the budget; n/a, one with no solver."
        ),
        x_label: "seeds per pit".into(),
        y_label: "pits per side".into(),
        columns: seeds.iter().map(ToString::to_string).collect(),
        rows: pits.iter().map(ToString::to_string).collect(),
        cells: pits
            .iter()
            .map(|&p| seeds.iter().map(|&s| cell(p, s)).collect())
            .collect(),
        note: "blue: first player wins; red: second player wins; ? not solved in budget".into(),
    }
}

/// A board's cell of the exact-value map: its value (`+6`, `0`), or `?`
/// when it was not solved in the budget and `n/a` otherwise (no such
/// board, no solver).
fn exact_cell(exact: Option<&Exact>) -> svg::Cell {
    match exact.and_then(|e| e.value) {
        Some(v) => svg::Cell {
            value: Some(f64::from(v)),
            label: if v == 0 { "0".into() } else { format!("{v:+}") },
        },
        None => svg::Cell {
            value: None,
            label: match exact.map(|e| e.status.as_str()) {
                Some("over_budget") => "?".into(),
                _ => "n/a".into(),
            },
        },
    }
}
