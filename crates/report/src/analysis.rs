//! The report of a first-move analysis (`mancala analyze first-move`): a
//! heat map of the exact value over pits x seeds per rule set, the first
//! player's score against agent strength on every board (small multiples),
//! the boards whose start is exactly fair, and the fair starts found by
//! `mancala analyze fair --json` when its output is saved in the folder as
//! `fair*.json`.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::Result;
use mancala_analysis::fair::FairDocument;
use mancala_analysis::first_move::{BoardRecord, CellRecord, FirstMoveDocument, OptionsRecord};

use super::read::{json_file, pct, plain, signed, slug, with_interval};
use super::{Block, Document, Section, Table};
use crate::bad_input;
use crate::svg::{self, Estimate};

/// One board's exact value.
#[derive(Clone, Debug)]
struct Board {
    spec: String,
    pits: u64,
    seeds: u64,
    rules: String,
    /// `solved`, `over_budget`, `unavailable` or `skipped`.
    status: String,
    value: Option<i64>,
    best_moves: String,
    move_values: String,
    solve_seconds: Option<f64>,
    note: String,
}

/// One board x agent cell of self-play.
#[derive(Clone, Debug)]
struct Cell {
    spec: String,
    agent: String,
    games: u64,
    /// Distinct games among them (0: written before they were counted).
    distinct_games: u64,
    wdl: (u64, u64, u64),
    score: Option<f64>,
    score_interval: Option<(f64, f64)>,
    margin: Option<f64>,
    margin_interval: Option<(f64, f64)>,
}

/// What an analysis folder holds.
pub struct AnalysisFolder {
    options: OptionsRecord,
    boards: Vec<Board>,
    cells: Vec<Cell>,
    /// `(file name, content)` of each `fair*.json`, by name.
    fair: Vec<(String, FairDocument)>,
}

/// Reads the analysis in `dir`, if it holds one.
///
/// # Errors
/// Bad input for damaged files, or a first-move analysis that has not
/// finished (rows but no `first_move.json` yet).
pub fn detect(dir: &Path) -> Result<Option<AnalysisFolder>> {
    let json = json_file(&dir.join(mancala_arena::folder::FIRST_MOVE_FILE))?;
    let fair = fair_documents(dir)?;
    let Some(json) = json else {
        if dir.join("first_move.csv").is_file() {
            return Err(bad_input(format!(
                "{} holds a first-move analysis without first_move.json: it has not finished; \
                 rerun the same `mancala analyze first-move` command to finish it, then report",
                dir.display()
            )));
        }
        if fair.is_empty() {
            return Ok(None);
        }
        return Ok(Some(AnalysisFolder {
            options: OptionsRecord::default(),
            boards: Vec::new(),
            cells: Vec::new(),
            fair,
        }));
    };
    let path = dir.join(mancala_arena::folder::FIRST_MOVE_FILE);
    let json: FirstMoveDocument = serde_json::from_value(json).map_err(|e| {
        bad_input(format!(
            "{} is not a first-move analysis: {e}",
            path.display()
        ))
    })?;
    Ok(Some(AnalysisFolder {
        options: json.options,
        boards: json.boards.into_iter().map(Board::from).collect(),
        cells: json.rows.into_iter().map(Cell::from).collect(),
        fair,
    }))
}

/// The documents of `mancala analyze fair --json` saved in `dir`, by file
/// name: its JSON files named `fair*.json` that hold rule sets (other JSON
/// files may start with "fair"), each of which must be whole.
fn fair_documents(dir: &Path) -> Result<Vec<(String, FairDocument)>> {
    let mut fair = Vec::new();
    let mut names: Vec<String> = fs::read_dir(dir)
        .map_err(|e| bad_input(format!("cannot read {}: {e}", dir.display())))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("fair") && n.ends_with(".json"))
        .collect();
    names.sort();
    for name in names {
        let path = dir.join(&name);
        if let Some(v) = json_file(&path)?.filter(|v| v.get("rule_sets").is_some()) {
            let doc = serde_json::from_value(v).map_err(|e| {
                bad_input(format!(
                    "{} is not a document of mancala analyze fair: {e}",
                    path.display()
                ))
            })?;
            fair.push((name, doc));
        }
    }
    Ok(fair)
}

impl From<BoardRecord> for Board {
    fn from(b: BoardRecord) -> Board {
        Board {
            spec: b.spec,
            pits: b.pits as u64,
            seeds: b.seeds as u64,
            rules: b.rules,
            status: b.exact,
            value: b.value.map(i64::from),
            best_moves: b.best_moves,
            move_values: b.move_values,
            solve_seconds: b.solve_seconds,
            note: b.note,
        }
    }
}

impl From<CellRecord> for Cell {
    fn from(r: CellRecord) -> Cell {
        let interval = |[lo, hi]: [Option<f64>; 2]| lo.zip(hi);
        Cell {
            spec: r.spec,
            agent: r.agent,
            games: r.games,
            distinct_games: r.distinct_games,
            wdl: (r.first_wdl[0], r.first_wdl[1], r.first_wdl[2]),
            score: r.first_score,
            score_interval: interval(r.first_score_95),
            margin: r.mean_margin,
            margin_interval: interval(r.mean_margin_95),
        }
    }
}

/// The exact value as a cell label: `+6`, `0`, `?` (over budget), `n/a`.
fn value_label(b: &Board) -> String {
    match (b.value, b.status.as_str()) {
        (Some(0), _) => "0".into(),
        (Some(v), _) => format!("{v:+}"),
        (None, "over_budget") => "?".into(),
        (None, "skipped") => "-".into(),
        (None, _) => "n/a".into(),
    }
}

/// The perfect-play outcome of a value, as the first player's score.
fn outcome(value: i64) -> f64 {
    match value.signum() {
        1 => 1.0,
        0 => 0.5,
        _ => 0.0,
    }
}

/// The rule sets of the analysis, in its order: as the options list them,
/// or else as the boards first name them.
fn rule_sets(a: &AnalysisFolder) -> Vec<String> {
    let listed = a.options.rules.clone();
    if listed.is_empty() {
        let mut seen = Vec::new();
        for b in &a.boards {
            if !seen.contains(&b.rules) {
                seen.push(b.rules.clone());
            }
        }
        seen
    } else {
        listed
    }
}

/// Builds the report.
pub fn document(a: &AnalysisFolder, folder: &str) -> Document {
    let o = &a.options;
    let game = Some(o.game_name.clone())
        .filter(|g| !g.is_empty())
        .unwrap_or_else(|| o.game.clone());
    let agents = o.agents.clone();
    let rule_sets = rule_sets(a);
    let mut doc = Document {
        title: if a.boards.is_empty() {
            "Fair starting positions".into()
        } else {
            format!("First-move analysis of {game}")
        },
        lead: if a.boards.is_empty() {
            "Starting positions one or two seeds away from the standard one that are worth \
             exactly 0 with perfect play."
                .into()
        } else {
            format!(
                "How much moving first is worth on {} boards: exact values where the solver \
                 finished, and self-play by a ladder of {} agents from weakest to strongest.",
                a.boards.len(),
                agents.len()
            )
        },
        ..Document::default()
    };
    doc.facts.push(("Folder".to_string(), folder.to_string()));
    if !a.boards.is_empty() {
        doc.facts.extend(grid_facts(a, &rule_sets));
        doc.sections.push(exact_section(a, &game, &rule_sets));
        doc.sections
            .push(skill_section(a, &game, &rule_sets, &agents));
    }
    doc.sections.push(fair_section(a, &rule_sets));
    if !a.boards.is_empty() {
        doc.sections.push(reproduce_section(o));
    }
    doc
}

/// The facts of an analysis of a grid of boards: the game, its rule sets
/// and boards, how many were solved, the agents, games and seed.
fn grid_facts(a: &AnalysisFolder, rule_sets: &[String]) -> Vec<(String, String)> {
    let o = &a.options;
    let solved = a.boards.iter().filter(|b| b.value.is_some()).count();
    let mut facts = Vec::new();
    let mut fact = |k: &str, v: String| facts.push((k.to_string(), v));
    fact("Game", o.game.clone());
    fact(
        "Rule sets",
        format!(
            "{} (each on top of the game's own options: standard adds none)",
            rule_sets.join(", ")
        ),
    );
    fact(
        "Boards",
        format!(
            "pits {} x seeds {} x {} rule sets: {} boards",
            joined(&o.pits, ", "),
            joined(&o.seeds, ", "),
            rule_sets.len(),
            a.boards.len()
        ),
    );
    fact(
        "Exact values",
        format!(
            "{solved} of {} boards solved within {} each",
            a.boards.len(),
            o.budget
        ),
    );
    fact("Agents", o.agents.join(", "));
    fact(
        "Games",
        format!(
            "{} per board and agent, the same agent in both seats",
            o.games
        ),
    );
    fact("Seed", o.seed.to_string());
    facts
}

/// The boards of one rule set as a grid: sorted pits (rows) and seeds.
fn grid<'a>(a: &'a AnalysisFolder, rules: &str) -> (Vec<u64>, Vec<u64>, Vec<&'a Board>) {
    let mine: Vec<&Board> = a.boards.iter().filter(|b| b.rules == rules).collect();
    let pits: BTreeSet<u64> = mine.iter().map(|b| b.pits).collect();
    let seeds: BTreeSet<u64> = mine.iter().map(|b| b.seeds).collect();
    (
        pits.into_iter().collect(),
        seeds.into_iter().collect(),
        mine,
    )
}

fn exact_section(a: &AnalysisFolder, game: &str, rule_sets: &[String]) -> Section {
    let mut blocks: Vec<Block> = rule_sets
        .iter()
        .filter_map(|r| exact_figure(a, game, r))
        .collect();
    blocks.push(Block::Details {
        summary: "Every board's value and first moves".into(),
        blocks: vec![Block::Table(exact_table(a))],
    });
    Section {
        id: "exact".into(),
        title: "Exact values".into(),
        blocks,
    }
}

/// The heat map of rule set `r`'s exact values over pits x seeds, if it
/// has boards.
fn exact_figure(a: &AnalysisFolder, game: &str, r: &str) -> Option<Block> {
    let (pits, seeds, mine) = grid(a, r);
    if mine.is_empty() {
        return None;
    }
    let find = |p: u64, s: u64| mine.iter().find(|b| b.pits == p && b.seeds == s);
    let map = super::first_move::exact_value_map(game, r, &pits, &seeds, |p, s| match find(p, s) {
        Some(b) => svg::Cell {
            value: b.value.map(|v| v as f64),
            label: value_label(b),
        },
        None => svg::Cell {
            value: None,
            label: String::new(),
        },
    });
    Some(Block::Figure {
        id: format!("exact-{}", slug(r)),
        svg: svg::heat_map(&map),
        caption: format!("Rules {r}: the first player's final margin with perfect play, in seeds."),
    })
}

/// Every board's exact value, best first moves, every first move's value
/// and solve time.
fn exact_table(a: &AnalysisFolder) -> Table {
    let mut table = Table::new(
        "Every board's exact value",
        &[
            "board",
            "rules",
            "value",
            "best first moves",
            "every first move's value",
            "solve time",
        ],
        &[false, false, true, false, false, true],
    );
    for b in &a.boards {
        table.row(vec![
            format!("{}x{}", b.pits, b.seeds),
            b.rules.clone(),
            match b.status.as_str() {
                "solved" => value_label(b),
                "over_budget" => "over budget".into(),
                "skipped" => "not solved".into(),
                _ => format!("n/a: {}", b.note),
            },
            b.best_moves.clone(),
            b.move_values.clone(),
            b.solve_seconds.map_or("-".into(), |s| format!("{s:.2} s")),
        ]);
    }
    table
}

fn skill_section(
    a: &AnalysisFolder,
    game: &str,
    rule_sets: &[String],
    agents: &[String],
) -> Section {
    let mut blocks = vec![Block::Paragraph(
        "The first player's score when the same agent plays both seats, for agents from \
         weakest to strongest, on every board: rising towards the perfect-play outcome (the \
         red line) shows how much skill it takes to see the advantage."
            .into(),
    )];
    blocks.extend(
        rule_sets
            .iter()
            .filter_map(|r| skill_figure(a, game, r, agents)),
    );
    let table = skill_table(a, agents);
    blocks.push(Block::Details {
        summary: format!("Every board and agent ({} rows)", table.rows.len()),
        blocks: vec![Block::Table(table)],
    });
    Section {
        id: "skill".into(),
        title: "Score against skill".into(),
        blocks,
    }
}

/// The self-play cell of `agent` on board `b`, if it played there.
fn cell_of<'a>(a: &'a AnalysisFolder, b: &Board, agent: &str) -> Option<&'a Cell> {
    a.cells
        .iter()
        .find(|c| c.spec == b.spec && c.agent == agent)
}

/// Board `b`'s panel of the skill chart: the first player's score with its
/// interval for each agent (no interval when it did not vary), against
/// the perfect-play outcome.
fn skill_panel(a: &AnalysisFolder, b: &Board, agents: &[String]) -> svg::MiniPanel {
    let points = agents
        .iter()
        .map(|ag| {
            let c = cell_of(a, b, ag)?;
            let v = c.score?;
            let (lo, hi) = c.score_interval.unwrap_or((v, v));
            Some(Estimate { value: v, lo, hi })
        })
        .collect();
    svg::MiniPanel {
        caption: format!("{}x{}, exact {}", b.pits, b.seeds, value_label(b)),
        points,
        reference: b.value.map(outcome),
    }
}

/// The small multiples of rule set `r`: one panel per board of its grid,
/// if it has boards.
fn skill_figure(a: &AnalysisFolder, game: &str, r: &str, agents: &[String]) -> Option<Block> {
    let (pits, seeds, mine) = grid(a, r);
    if mine.is_empty() {
        return None;
    }
    let panels = pits
        .iter()
        .map(|&p| {
            seeds
                .iter()
                .map(|&s| {
                    let b = mine.iter().find(|b| b.pits == p && b.seeds == s)?;
                    Some(skill_panel(a, b, agents))
                })
                .collect()
        })
        .collect();
    let chart = svg::SmallMultiples {
        title: format!("First player's score by skill: {game}, rules {r}"),
        desc: format!(
            "One panel per board of {game} under rules {r} (rows: pits per side; columns: \
             seeds per pit): the first player's score with its 95% interval when both seats \
             are played by each agent of the ladder ({}), against the perfect-play outcome; \
             an agent that played one game over and over has no interval.",
            agents.join(", ")
        ),
        row_label: "pits per side".into(),
        column_label: "seeds per pit".into(),
        rows: pits.iter().map(|p| format!("{p} pits")).collect(),
        columns: seeds
            .iter()
            .map(|s| format!("{s} seed{}", if *s == 1 { "" } else { "s" }))
            .collect(),
        categories: agents.to_vec(),
        y_label: "first player's score, 0 to 1, 95% intervals".into(),
        y_range: (0.0, 1.0),
        reference_label: "the perfect-play outcome (1 win, 0.5 draw, 0 loss)".into(),
        panels,
    };
    Some(Block::Figure {
        id: format!("skill-{}", slug(r)),
        svg: svg::small_multiples(&chart),
        caption: format!(
            "Rules {r}: the first player's score against agent strength on every board; \
             agents are numbered as in the key."
        ),
    })
}

/// Self-play on every board by every agent that played there, from the
/// first player's side.
fn skill_table(a: &AnalysisFolder, agents: &[String]) -> Table {
    let mut table = Table::new(
        "Self-play on every board, from the first player's side",
        &[
            "board",
            "rules",
            "exact",
            "agent",
            "games",
            "distinct",
            "first W-D-L",
            "first score [95%]",
            "mean margin [95%]",
        ],
        &[false, false, true, false, true, true, true, false, false],
    );
    for b in &a.boards {
        for c in agents.iter().filter_map(|ag| cell_of(a, b, ag)) {
            table.row(vec![
                format!("{}x{}", b.pits, b.seeds),
                b.rules.clone(),
                value_label(b),
                c.agent.clone(),
                c.games.to_string(),
                match c.distinct_games {
                    0 => "-".to_string(),
                    d => d.to_string(),
                },
                format!("{}-{}-{}", c.wdl.0, c.wdl.1, c.wdl.2),
                with_interval(c.score, c.score_interval, |x| plain(x, 3)),
                with_interval(c.margin, c.margin_interval, |x| signed(x, 2)),
            ]);
        }
    }
    table
}

fn fair_section(a: &AnalysisFolder, rule_sets: &[String]) -> Section {
    let mut blocks = Vec::new();
    if !a.boards.is_empty() {
        let mut table = Table::new(
            "Boards whose standard start is exactly fair (worth 0 with perfect play)",
            &["rules", "solved boards", "fair boards", "which"],
            &[false, true, true, false],
        );
        for r in rule_sets {
            let mine: Vec<&Board> = a.boards.iter().filter(|b| &b.rules == r).collect();
            let solved = mine.iter().filter(|b| b.value.is_some()).count();
            let fair: Vec<String> = mine
                .iter()
                .filter(|b| b.value == Some(0))
                .map(|b| format!("{}x{}", b.pits, b.seeds))
                .collect();
            table.row(vec![
                r.clone(),
                solved.to_string(),
                fair.len().to_string(),
                if fair.is_empty() {
                    "-".into()
                } else {
                    fair.join(", ")
                },
            ]);
        }
        blocks.push(Block::Table(table));
    }
    if a.fair.is_empty() {
        blocks.push(Block::Paragraph(
            "Fair starts one or two seeds away from the standard one: run `mancala analyze \
             fair --game kalah:pits=P,seeds=S --json > fair-pP-sS.json` in this folder, and \
             the next report counts them here."
                .into(),
        ));
    }
    for (name, v) in &a.fair {
        let mut table = Table::new(
            &format!("Fair starts found by mancala analyze fair ({name})"),
            &[
                "game",
                "capture",
                "start value",
                "candidates",
                "solved",
                "fair",
                "1 seed moved",
                "2 seeds moved",
            ],
            &[false, false, true, true, true, true, true, true],
        );
        for r in &v.rule_sets {
            table.row(vec![
                r.game.clone(),
                if r.empty_capture {
                    "empty capture".into()
                } else {
                    "standard".into()
                },
                r.start_value.map_or("-".into(), |v| format!("{v:+}")),
                r.candidates.to_string(),
                r.solved.to_string(),
                r.fair_count.to_string(),
                r.fair_one_seed.to_string(),
                r.fair_two_seeds.to_string(),
            ]);
        }
        blocks.push(Block::Table(table));
    }
    Section {
        id: "fair".into(),
        title: "Fair positions".into(),
        blocks,
    }
}

/// The numbers of `set`, joined by `sep`.
fn joined(set: &std::collections::BTreeSet<usize>, sep: &str) -> String {
    set.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

fn reproduce_section(o: &OptionsRecord) -> Section {
    let mut command = format!(
        "mancala analyze first-move --game {} --pits {} --seeds {} --rules {}",
        o.game,
        joined(&o.pits, ","),
        joined(&o.seeds, ","),
        o.rules.join(","),
    );
    let agents = &o.agents;
    if !agents.is_empty() {
        command.push_str(" \\\n    --agents");
        for a in agents {
            // Specs with `,` or `=` are fine to a shell; quote only what it
            // would split or expand.
            if a.chars().any(|c| " ;&|<>()$`\"'*?[]".contains(c)) {
                command.push_str(&format!(" '{a}'"));
            } else {
                command.push_str(&format!(" {a}"));
            }
        }
    }
    command.push_str(&format!(
        " \\\n    --games {} --seed {} --budget {} --tt {}",
        o.games, o.seed, o.budget, o.tt
    ));
    if let Some(k) = o.db_seeds {
        command.push_str(&format!(" --db-seeds {k}"));
    }
    command.push_str(" --out FOLDER");
    Section {
        id: "reproduce".into(),
        title: "Reproduce".into(),
        blocks: vec![
            Block::Code {
                caption: "Command".into(),
                text: command,
            },
            Block::Paragraph(format!(
                "Each cell's games use a seed derived from the analysis seed and the cell, so \
                 the self-play results repeat exactly; whether a board is solved within the \
                 budget depends on the machine. The first player's score is shown as a \
                 fraction; {} means a perfect first-seat record.",
                pct(Some(1.0))
            )),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_label_like_the_heat_map() {
        let board = |status: &str, value: Option<i64>| Board {
            spec: String::new(),
            pits: 3,
            seeds: 2,
            rules: "standard".into(),
            status: status.into(),
            value,
            best_moves: String::new(),
            move_values: String::new(),
            solve_seconds: None,
            note: String::new(),
        };
        assert_eq!(value_label(&board("solved", Some(4))), "+4");
        assert_eq!(value_label(&board("solved", Some(0))), "0");
        assert_eq!(value_label(&board("over_budget", None)), "?");
        assert_eq!(value_label(&board("unavailable", None)), "n/a");
        assert_eq!(outcome(-3), 0.0);
    }
}
