//! The report of a training run: policy and value loss per generation, the
//! gate score against the promotion threshold, the best network's score
//! against each baseline per generation, self-play throughput, and the best
//! network's final evaluation.
//!
//! The log is `log.csv`, or any CSV in the folder with the training log's
//! columns (a reference log kept under another name); the config comes
//! from `checkpoint/state.json` when the checkpoint is there. Nothing needs
//! libtorch: this reads text files only.

use std::fs;
use std::path::{Path, PathBuf};

use crate::Result;
use mancala_arena::stats::{wilson_interval, Z95};
use mancala_arena::DEFAULT_GATE_THRESHOLD;
use serde_json::Value;

use super::read::{count, duration, float, json_file, pct, plain, string, toml_value, CsvTable};
use super::tournament::rules_in_words;
use super::{Block, Document, Section, Table};
use crate::bad_input;
use crate::svg::{self, Reference};

/// The columns that make a CSV a training log.
const LOG_COLUMNS: &[&str] = &["generation", "policy_loss", "value_loss", "gate_score"];

// The promotion threshold when the run's config is not in the folder is
// the training config's default, DEFAULT_GATE_THRESHOLD.

/// One generation of the log.
#[derive(Clone, Debug)]
struct Generation {
    generation: u32,
    elapsed_s: f64,
    selfplay_games: u64,
    positions: u64,
    buffer: u64,
    policy_loss: f64,
    value_loss: f64,
    gate_score: f64,
    promoted: bool,
    /// The best network's score against each baseline, in log order.
    baselines: Vec<(String, f64)>,
}

/// What a training folder holds.
pub struct TrainingFolder {
    log_name: String,
    generations: Vec<Generation>,
    /// `checkpoint/state.json`'s config, when present.
    config: Option<Value>,
    /// `checkpoint/state.json`'s game spec, when present.
    game: Option<String>,
    /// Whether `best.ot` is in the folder.
    has_best: bool,
}

/// Splits `random=0.950;greedy=0.150;minimax:depth=2=0.250`: the score is
/// after the last `=` (specs hold `=` themselves).
fn parse_baselines(text: &str) -> Vec<(String, f64)> {
    text.split(';')
        .filter(|p| !p.trim().is_empty())
        .filter_map(|p| {
            let (spec, score) = p.rsplit_once('=')?;
            Some((spec.trim().to_string(), score.trim().parse().ok()?))
        })
        .collect()
}

/// The training log in `dir`: `log.csv` if it is one, else the first CSV
/// (by name) with the log's columns.
fn find_log(dir: &Path) -> Result<Option<(PathBuf, CsvTable)>> {
    let mut candidates: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| bad_input(format!("cannot read {}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "csv"))
        .collect();
    candidates.sort_by_key(|p| (p.file_name() != Some("log.csv".as_ref()), p.clone()));
    // Other CSVs (games.csv, first_move.csv) are simply not logs; only
    // their first line is read to tell.
    match candidates
        .into_iter()
        .find(|p| CsvTable::file_has_columns(p, LOG_COLUMNS))
    {
        Some(path) => {
            let table = CsvTable::read(&path)?;
            Ok(Some((path, table)))
        }
        None => Ok(None),
    }
}

/// Reads the training run in `dir`, if it holds one.
///
/// # Errors
/// Bad input for a log whose numbers do not read, or a damaged state.json.
pub fn detect(dir: &Path) -> Result<Option<TrainingFolder>> {
    let Some((path, table)) = find_log(dir)? else {
        return Ok(None);
    };
    let get = |row: &Vec<String>, name: &str| -> String {
        table
            .column(name)
            .and_then(|i| row.get(i))
            .cloned()
            .unwrap_or_default()
    };
    let mut generations = Vec::with_capacity(table.records.len());
    for (i, row) in table.records.iter().enumerate() {
        let number = |name: &str| -> Result<f64> {
            let text = get(row, name);
            text.trim().parse::<f64>().map_err(|_| {
                bad_input(format!(
                    "{}, row {}: {name} is not a number ({text:?})",
                    path.display(),
                    i + 1
                ))
            })
        };
        let optional = |name: &str| get(row, name).trim().parse::<f64>().unwrap_or(f64::NAN);
        generations.push(Generation {
            generation: number("generation")? as u32,
            elapsed_s: optional("elapsed_s"),
            selfplay_games: get(row, "selfplay_games").trim().parse().unwrap_or(0),
            positions: get(row, "positions").trim().parse().unwrap_or(0),
            buffer: get(row, "buffer").trim().parse().unwrap_or(0),
            policy_loss: number("policy_loss")?,
            value_loss: number("value_loss")?,
            gate_score: number("gate_score")?,
            promoted: get(row, "promoted").trim() == "true",
            baselines: parse_baselines(&get(row, "baselines")),
        });
    }
    // A resumed run appends: keep the last row of each generation, in order.
    generations.sort_by_key(|g| g.generation);
    generations.dedup_by(|later, earlier| {
        if later.generation == earlier.generation {
            std::mem::swap(later, earlier);
            true
        } else {
            false
        }
    });
    let state = json_file(&dir.join("checkpoint").join("state.json"))?;
    Ok(Some(TrainingFolder {
        log_name: path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
        generations,
        config: state.as_ref().and_then(|s| s.get("config")).cloned(),
        game: state
            .as_ref()
            .and_then(|s| s.get("game"))
            .map(|g| string(Some(g))),
        has_best: dir.join("best.ot").is_file(),
    }))
}

/// Baseline specs in the order they first appear in the log.
fn baseline_names(gens: &[Generation]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for g in gens {
        for (b, _) in &g.baselines {
            if !names.contains(b) {
                names.push(b.clone());
            }
        }
    }
    names
}

/// Builds the report.
pub fn document(t: &TrainingFolder, folder: &str) -> Document {
    let gens = &t.generations;
    let config = t.config.as_ref();
    let threshold = config
        .and_then(|c| float(c.get("gate_threshold")))
        .unwrap_or(DEFAULT_GATE_THRESHOLD);
    let name = run_name(t, folder);
    let game = t
        .game
        .clone()
        .or_else(|| config.map(|c| string(c.get("game"))))
        .filter(|g| !g.is_empty());
    let best_generation = gens.iter().rev().find(|g| g.promoted).map(|g| g.generation);

    let mut doc = Document {
        title: format!("Training run {name}"),
        lead: format!(
            "AlphaZero-style self-play training: {} generations logged{}.",
            gens.len(),
            game.as_ref().map_or(String::new(), |g| format!(" on {g}"))
        ),
        facts: facts(t, folder, game.as_deref(), threshold, best_generation),
        ..Document::default()
    };
    doc.sections.push(losses_section(gens));
    doc.sections.push(gate_section(gens, threshold));
    let names = baseline_names(gens);
    doc.sections.extend(baselines_section(gens, &names));
    doc.sections.extend(throughput_section(gens));
    doc.sections.push(final_section(t, &names, best_generation));
    if let Some(config) = config {
        doc.sections.push(config_section(config, &name));
    }
    doc
}

/// The run's name: its config's, else the log's own name when it was kept
/// under one (`train-kalah-log.csv`), else the folder's.
fn run_name(t: &TrainingFolder, folder: &str) -> String {
    t.config
        .as_ref()
        .map(|c| string(c.get("name")))
        .filter(|n| !n.is_empty())
        .or_else(|| {
            let stem = t.log_name.strip_suffix(".csv")?;
            let run = stem
                .strip_suffix("-log")
                .or_else(|| stem.strip_suffix("_log"))?;
            Some(run.to_string()).filter(|r| !r.is_empty())
        })
        .unwrap_or_else(|| folder.to_string())
}

/// The x of a generation in the charts.
fn generation_x(g: &Generation) -> f64 {
    f64::from(g.generation)
}

/// The facts above the sections: the folder, game, generations, time,
/// self-play, promotions and the best network.
fn facts(
    t: &TrainingFolder,
    folder: &str,
    game: Option<&str>,
    threshold: f64,
    best_generation: Option<u32>,
) -> Vec<(String, String)> {
    let gens = &t.generations;
    let last = gens.last();
    let promotions = gens.iter().filter(|g| g.promoted).count();
    let mut facts = Vec::new();
    let mut fact = |k: &str, v: String| facts.push((k.to_string(), v));
    fact("Folder", folder.to_string());
    fact("Log", t.log_name.clone());
    match game {
        Some(g) => {
            fact("Game", g.to_string());
            fact("Rules", rules_in_words(g));
        }
        None => fact(
            "Game",
            "not recorded here (no checkpoint/state.json beside the log)".into(),
        ),
    }
    if let Some(last) = last {
        // A resumed or cut log may not start at 1: say where it ends then.
        fact(
            "Generations",
            if last.generation as usize == gens.len() {
                gens.len().to_string()
            } else {
                format!("{} (the last is {})", gens.len(), last.generation)
            },
        );
        fact("Training time", duration(last.elapsed_s));
        fact(
            "Self-play",
            format!(
                "{} games, {} positions; replay buffer {} positions at the end",
                gens.iter().map(|g| g.selfplay_games).sum::<u64>(),
                gens.iter().map(|g| g.positions).sum::<u64>(),
                last.buffer
            ),
        );
    }
    fact(
        "Promotions",
        format!(
            "{promotions} of {} generations beat the best network by more than {}",
            gens.len(),
            plain(Some(threshold), 2)
        ),
    );
    fact(
        "Best network",
        match (best_generation, t.has_best) {
            (Some(g), true) => format!("generation {g} (best.ot in this folder)"),
            (Some(g), false) => format!("generation {g}"),
            (None, _) => "the initial network (no generation was promoted)".into(),
        },
    );
    if t.config.is_none() {
        fact(
            "Threshold",
            format!(
                "{} (the config's default: the run's config is not in this folder)",
                plain(Some(threshold), 2)
            ),
        );
    }
    facts
}

/// The losses of each generation's training.
fn losses_section(gens: &[Generation]) -> Section {
    let last = gens.last();
    Section {
        id: "losses".into(),
        title: "Losses".into(),
        blocks: vec![Block::Figure {
            id: "losses".into(),
            svg: svg::line_chart(&svg::LineChart {
                title: "Training losses per generation".into(),
                desc: format!(
                    "Mean policy cross-entropy and mean value squared error over each \
                 generation's training steps, generations {} to {}; policy loss from {} to \
                 {}, value loss from {} to {}.",
                    gens.first().map_or(0, |g| g.generation),
                    last.map_or(0, |g| g.generation),
                    plain(gens.first().map(|g| g.policy_loss), 3),
                    plain(last.map(|g| g.policy_loss), 3),
                    plain(gens.first().map(|g| g.value_loss), 3),
                    plain(last.map(|g| g.value_loss), 3),
                ),
                x_label: "generation".into(),
                panels: vec![
                    svg::LinePanel {
                        y_label: "policy loss (cross-entropy, nats)".into(),
                        y_range: (f64::NAN, f64::NAN),
                        series: vec![svg::Series {
                            name: "policy loss".into(),
                            points: gens
                                .iter()
                                .map(|g| (generation_x(g), g.policy_loss))
                                .collect(),
                            line: true,
                            marker: svg::Marker::Circle,
                            colour: 0,
                        }],
                        references: vec![],
                    },
                    svg::LinePanel {
                        y_label: "value loss (mean squared error)".into(),
                        y_range: (f64::NAN, f64::NAN),
                        series: vec![svg::Series {
                            name: "value loss".into(),
                            points: gens
                                .iter()
                                .map(|g| (generation_x(g), g.value_loss))
                                .collect(),
                            line: true,
                            marker: svg::Marker::Square,
                            colour: 1,
                        }],
                        references: vec![],
                    },
                ],
            }),
            caption: "Policy loss (top) and value loss (bottom), averaged over each \
                  generation's training steps; the replay buffer changes under them, so \
                  they need not fall steadily."
                .into(),
        }],
    }
}

/// Each generation's gate score against the promotion threshold.
fn gate_section(gens: &[Generation], threshold: f64) -> Section {
    let promotions = gens.iter().filter(|g| g.promoted).count();
    let promoted: Vec<(f64, f64)> = gens
        .iter()
        .filter(|g| g.promoted)
        .map(|g| (generation_x(g), g.gate_score))
        .collect();
    Section {
        id: "gate".into(),
        title: "Gate".into(),
        blocks: vec![Block::Figure {
            id: "gate".into(),
            svg: svg::line_chart(&svg::LineChart {
                title: "Gate score against the promotion threshold".into(),
                desc: format!(
                    "Each generation's new network's score against the best network; above \
                 the threshold {} it is promoted. {promotions} of {} generations were \
                 promoted (ringed).",
                    plain(Some(threshold), 2),
                    gens.len()
                ),
                x_label: "generation".into(),
                panels: vec![svg::LinePanel {
                    y_label: "score against the best network (0 to 1)".into(),
                    y_range: (0.0, 1.0),
                    series: vec![
                        svg::Series {
                            name: "gate score".into(),
                            points: gens
                                .iter()
                                .map(|g| (generation_x(g), g.gate_score))
                                .collect(),
                            line: true,
                            marker: svg::Marker::Circle,
                            colour: 0,
                        },
                        svg::Series {
                            name: "promoted".into(),
                            points: promoted,
                            line: false,
                            marker: svg::Marker::Ring,
                            colour: 1,
                        },
                    ],
                    references: vec![Reference {
                        y: threshold,
                        label: format!("threshold {}", plain(Some(threshold), 2)),
                        strong: true,
                    }],
                }],
            }),
            caption: "The new network's score against the best one in the gating games; a \
                  ring marks a promotion (a score above the threshold)."
                .into(),
        }],
    }
}

/// The best network against each fixed baseline, when there are any.
fn baselines_section(gens: &[Generation], names: &[String]) -> Option<Section> {
    if names.is_empty() {
        return None;
    }
    let markers = [
        svg::Marker::Circle,
        svg::Marker::Square,
        svg::Marker::Triangle,
        svg::Marker::Diamond,
    ];
    let series = names
        .iter()
        .enumerate()
        .map(|(k, b)| svg::Series {
            name: format!("vs {b}"),
            points: gens
                .iter()
                .filter_map(|g| {
                    g.baselines
                        .iter()
                        .find(|(n, _)| n == b)
                        .map(|(_, s)| (generation_x(g), *s))
                })
                .collect(),
            line: true,
            marker: markers[k % markers.len()],
            colour: k,
        })
        .collect();
    Some(Section {
        id: "baselines".into(),
        title: "Baselines".into(),
        blocks: vec![Block::Figure {
            id: "baselines".into(),
            svg: svg::line_chart(&svg::LineChart {
                title: "Best network against fixed baselines".into(),
                desc: format!(
                    "The best network's score against each baseline ({}) after each \
                     generation.",
                    names.join(", ")
                ),
                x_label: "generation".into(),
                panels: vec![svg::LinePanel {
                    y_label: "score against the baseline (0 to 1)".into(),
                    y_range: (0.0, 1.0),
                    series,
                    references: vec![Reference {
                        y: 0.5,
                        label: "even".into(),
                        strong: false,
                    }],
                }],
            }),
            caption: "The best network's score against each fixed baseline after each \
                      generation (it changes only when a new network is promoted, up to \
                      the noise of the evaluation games)."
                .into(),
        }],
    })
}

/// Each generation's self-play positions a second and its time in
/// seconds, from the log's elapsed times: a generation's time covers its
/// self-play, training steps, gating and evaluation together. Generations
/// whose time does not advance (a cut or edited log) are left out.
#[allow(clippy::type_complexity)]
fn throughput(gens: &[Generation]) -> (Vec<(f64, f64)>, Vec<(f64, f64)>) {
    let mut per_second = Vec::new();
    let mut seconds = Vec::new();
    let mut previous = 0.0;
    for g in gens {
        let spent = g.elapsed_s - previous;
        previous = g.elapsed_s;
        if spent.is_finite() && spent > 0.0 {
            per_second.push((generation_x(g), g.positions as f64 / spent));
            seconds.push((generation_x(g), spent));
        }
    }
    (per_second, seconds)
}

/// Self-play positions a second and each generation's time, when the
/// log's times allow.
fn throughput_section(gens: &[Generation]) -> Option<Section> {
    let (per_second, seconds) = throughput(gens);
    if per_second.is_empty() {
        return None;
    }
    let mean_rate = per_second.iter().map(|p| p.1).sum::<f64>() / per_second.len() as f64;
    Some(Section {
        id: "throughput".into(),
        title: "Self-play throughput".into(),
        blocks: vec![Block::Figure {
            id: "throughput".into(),
            svg: svg::line_chart(&svg::LineChart {
                title: "Self-play throughput per generation".into(),
                desc: format!(
                    "Self-play positions per second of each generation's wall time (mean \
                     {}), and each generation's wall time in seconds.",
                    plain(Some(mean_rate), 1)
                ),
                x_label: "generation".into(),
                panels: vec![
                    svg::LinePanel {
                        y_label: "self-play positions per second".into(),
                        y_range: (0.0, f64::NAN),
                        series: vec![svg::Series {
                            name: "positions per second".into(),
                            points: per_second,
                            line: true,
                            marker: svg::Marker::Circle,
                            colour: 2,
                        }],
                        references: vec![],
                    },
                    svg::LinePanel {
                        y_label: "generation time (s)".into(),
                        y_range: (0.0, f64::NAN),
                        series: vec![svg::Series {
                            name: "generation time".into(),
                            points: seconds,
                            line: true,
                            marker: svg::Marker::Square,
                            colour: 3,
                        }],
                        references: vec![],
                    },
                ],
            }),
            caption: "Positions of self-play per second of generation time (top) and the \
                      generation's wall time (bottom); a generation's time includes its \
                      training steps, gating and evaluation games."
                .into(),
        }],
    })
}

fn final_section(t: &TrainingFolder, names: &[String], best: Option<u32>) -> Section {
    // The last generation measured against the baselines (with
    // `eval_every`, not every generation is).
    let measured = t.generations.iter().rev().find(|g| !g.baselines.is_empty());
    let Some(last) = measured.or(t.generations.last()) else {
        return Section {
            id: "final".into(),
            title: "Final evaluation".into(),
            blocks: vec![Block::Paragraph("The log has no generation yet.".into())],
        };
    };
    let eval_games = t
        .config
        .as_ref()
        .map(|c| count(c.get("eval_games")))
        .filter(|&n| n > 0);
    let mut table = Table::new(
        &format!(
            "The best network{} against each baseline, after generation {}",
            best.map_or(String::new(), |g| format!(" (generation {g})")),
            last.generation
        ),
        &["baseline", "score", "95% interval", "games"],
        &[false, true, false, true],
    );
    for b in names {
        let score = last.baselines.iter().find(|(n, _)| n == b).map(|(_, s)| *s);
        let interval = match (score, eval_games) {
            (Some(s), Some(n)) => {
                let (lo, hi) = wilson_interval(s * n as f64, n as f64, Z95);
                format!("[{}, {}]", pct(Some(lo)), pct(Some(hi)))
            }
            _ => "-".into(),
        };
        table.row(vec![
            b.clone(),
            pct(score),
            interval,
            eval_games.map_or("-".into(), |n| n.to_string()),
        ]);
    }
    let mut blocks = vec![Block::Table(table)];
    if eval_games.is_none() {
        blocks.push(Block::Paragraph(
            "The number of evaluation games is in the run's config, which is not in this \
             folder: no interval can be given."
                .into(),
        ));
    }
    Section {
        id: "final".into(),
        title: "Final evaluation".into(),
        blocks,
    }
}

fn config_section(config: &Value, name: &str) -> Section {
    let mut text = String::new();
    if let Some(object) = config.as_object() {
        // Keys in the config file's order of importance is not known here:
        // alphabetical keeps the output stable.
        let mut keys: Vec<&String> = object.keys().collect();
        keys.sort();
        for k in keys {
            if let Some(v) = toml_value(&object[k]) {
                text.push_str(&format!("{k} = {v}\n"));
            }
        }
    }
    let file = format!("{name}.toml");
    Section {
        id: "reproduce".into(),
        title: "Reproduce".into(),
        blocks: vec![
            Block::Code {
                caption: format!("{file}, from checkpoint/state.json"),
                text,
            },
            Block::Code {
                caption: "Command (needs the neural feature and libtorch)".into(),
                text: format!("mancala train {file}"),
            },
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generation(generation: u32, elapsed_s: f64, positions: u64) -> Generation {
        Generation {
            generation,
            elapsed_s,
            selfplay_games: 10,
            positions,
            buffer: 0,
            policy_loss: 1.0,
            value_loss: 0.5,
            gate_score: 0.5,
            promoted: false,
            baselines: vec![],
        }
    }

    fn folder(log_name: &str, config: Option<Value>) -> TrainingFolder {
        TrainingFolder {
            log_name: log_name.into(),
            generations: vec![generation(1, 10.0, 100)],
            config,
            game: None,
            has_best: false,
        }
    }

    #[test]
    fn a_run_is_named_by_its_config_else_its_log_else_its_folder() {
        let config = serde_json::json!({"name": "kalah-run"});
        assert_eq!(
            run_name(&folder("log.csv", Some(config)), "out"),
            "kalah-run"
        );
        assert_eq!(
            run_name(&folder("train-kalah-log.csv", None), "out"),
            "train-kalah"
        );
        assert_eq!(run_name(&folder("oware_log.csv", None), "out"), "oware");
        assert_eq!(run_name(&folder("log.csv", None), "out"), "out");
        assert_eq!(run_name(&folder("-log.csv", None), "out"), "out");
        let unnamed = serde_json::json!({"name": ""});
        assert_eq!(run_name(&folder("a-log.csv", Some(unnamed)), "out"), "a");
    }

    #[test]
    fn throughput_is_each_generations_positions_over_its_own_time() {
        let gens = [
            generation(1, 10.0, 100),
            generation(2, 30.0, 400),
            // A log whose time went back (edited, or cut and resumed).
            generation(3, 25.0, 50),
            generation(4, 30.0, 60),
        ];
        let (per_second, seconds) = throughput(&gens);
        assert_eq!(per_second, [(1.0, 10.0), (2.0, 20.0), (4.0, 12.0)]);
        assert_eq!(seconds, [(1.0, 10.0), (2.0, 20.0), (4.0, 5.0)]);
        assert!(throughput_section(&gens).is_some());
        assert!(throughput_section(&[generation(1, 0.0, 10)]).is_none());
        assert!(throughput_section(&[generation(1, f64::NAN, 10)]).is_none());
    }

    #[test]
    fn baselines_split_at_the_last_equals_sign() {
        assert_eq!(
            parse_baselines("random=0.950;minimax:depth=2=0.250"),
            vec![
                ("random".to_string(), 0.95),
                ("minimax:depth=2".to_string(), 0.25)
            ]
        );
        assert!(parse_baselines("").is_empty());
    }
}
