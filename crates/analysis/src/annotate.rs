//! Every move of a results folder judged against perfect play: the exact
//! value of the position before it and of the move played, wherever the
//! solver gives them within a node budget; the seeds given away, the best
//! moves, and a blunder mark where the move changes the perfect-play
//! outcome. Then each agent's accuracy, overall and by game phase.
//!
//! The values come from [`mancala_solver::ExactSolver::settle`], which
//! depends on the position and the budget alone, so the annotations are
//! the same at any thread count and after a resume.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use mancala_arena::stats::wilson_interval;
use mancala_arena::{FolderLock, GameRecord};
use mancala_core::{Game, Move};
use mancala_solver::{ExactSolver, Solvable};
use serde::{Deserialize, Serialize};

use crate::{bad_input, io_error, AnalysisError, Observer, Result};

/// The annotations of a folder: one line per game, in id order.
pub const ANNOTATIONS: &str = mancala_arena::folder::ANNOTATIONS_FILE;
/// The settings the annotations were made with.
pub const SETTINGS: &str = "annotate.json";

/// How `annotate` judges.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnnotateOptions {
    /// Nodes the solver may search for each position (0: the endgame
    /// database only).
    pub nodes: u64,
    /// Seeds in the endgame database's fullest level (`None`: as `mancala
    /// solve`).
    pub db_seeds: Option<usize>,
}

/// One move, judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveNote {
    /// Its ply in the game, from 1 (opening moves included).
    pub ply: u32,
    /// The seat that moved.
    pub seat: usize,
    /// The move, as records write it.
    #[serde(rename = "move")]
    pub mv: String,
    /// Seeds in the pits before it (the game's phase).
    pub seeds_left: u32,
    /// The position's exact value for the mover (final margin), if known.
    pub value: Option<i32>,
    /// The exact value of the move played, if known.
    pub played: Option<i32>,
    /// The moves of the position's value, when every move's is known.
    pub best: Option<Vec<String>>,
    /// Seeds given away against perfect play (`value - played`; 0 for a
    /// best move), when both are known.
    pub loss: Option<i32>,
    /// The move changed the perfect-play outcome: a win became a draw or a
    /// loss, or a draw a loss.
    pub blunder: bool,
}

/// A game's judged moves (those after its opening).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameNotes {
    /// The game's id in the folder.
    pub id: u64,
    /// The agents' names by seat.
    pub players: [String; 2],
    /// Its moves after the opening.
    pub moves: Vec<MoveNote>,
}

/// A folder's annotations, and the folder's lock while they live: the
/// run that annotated the folder writes its accuracy ([`write_accuracy`])
/// before another run may touch it.
#[derive(Debug)]
pub struct Annotations {
    /// Every game's notes, in id order.
    pub games: Vec<GameNotes>,
    /// Seeds in the game the folder plays (for its phases, see [`phase`]).
    pub total_seeds: u32,
    _lock: FolderLock,
}

/// Annotates every game of `dir`'s `games.jsonl` into
/// `dir/annotations.jsonl`, resuming a file an earlier run left (a torn
/// last line is dropped), and returns every game's notes.
/// Games are judged in parallel on `threads` threads; a raised `stop`
/// ends the run after the games in progress (their lines written).
/// The folder's lock (the one tournaments and analyses take) is held from
/// before the annotations are read until the returned value is dropped.
///
/// # Errors
/// A folder without games, a folder another run holds (a tournament still
/// playing it, or another annotate), games of a game the solver does not
/// take, a file of other settings, or I/O; [`AnalysisError::Interrupted`]
/// on a stop.
pub fn annotate_folder(
    dir: &Path,
    options: &AnnotateOptions,
    threads: usize,
    db_dir: Option<&Path>,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<Annotations> {
    let mut records = read_games(dir)?;
    // Two runs appending to one annotations file interleave their lines,
    // and the next run refuses the file: the second run must stop here.
    // The games were read before the lock, but a run writing them (a
    // tournament) holds it too, so they are refused all the same.
    let lock = FolderLock::take(dir).map_err(|e| bad_input(e.to_string()))?;
    records.sort_by_key(|r| r.id);
    let spec: mancala_core::GameSpec = records[0].game.parse().map_err(|e| {
        bad_input(format!(
            "{}: game `{}`: {e}",
            dir.display(),
            records[0].game
        ))
    })?;
    if let Some(other) = records.iter().find(|r| r.game != records[0].game) {
        return Err(bad_input(format!(
            "{}: games of {} and {}: annotate one game's folder at a time",
            dir.display(),
            records[0].game,
            other.game
        )));
    }
    mancala_core::with_game!(&spec, game => {
        let games = annotate_games(game, dir, &records, options, threads, db_dir, observer, stop)?;
        Ok(Annotations { games, total_seeds: game.total_seeds() as u32, _lock: lock })
    })
}

#[allow(clippy::too_many_arguments)]
fn annotate_games<G: Solvable>(
    game: &G,
    dir: &Path,
    records: &[GameRecord],
    options: &AnnotateOptions,
    threads: usize,
    db_dir: Option<&Path>,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<Vec<GameNotes>> {
    let settings_path = dir.join(SETTINGS);
    let path = dir.join(ANNOTATIONS);
    let mut done = resume(game, &path, &settings_path, options, records)?;
    let solver_options =
        crate::adjudication::exact_options(game, options.db_seeds, db_dir, "annotate")?;
    let pool = crate::thread_pool(threads)?;
    observer.message(&format!("{game}: building the solver..."));
    let solver = crate::build_solver(game, &solver_options, threads, &game.to_string(), observer)?;
    let text = serde_json::to_string_pretty(options).expect("options serialise") + "\n";
    fs::write(&settings_path, text).map_err(io_error("write", &settings_path))?;
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(io_error("open", &path))?;
    let mut out = BufWriter::new(file);
    observer.start(records.len() as u64, "games");
    observer.skipped_to(done.len() as u64);
    // Chunks of a few games per thread, each written in id order once
    // judged: the file is the same at any thread count, and a stop loses
    // at most the chunk in progress.
    let chunk = threads.max(1) * 4;
    for batch in records[done.len()..].chunks(chunk) {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let notes: Vec<Result<GameNotes>> = pool.install(|| {
            use rayon::prelude::*;
            batch
                .par_iter()
                .with_max_len(1)
                .map(|r| {
                    let notes = annotate_game(game, solver.as_ref(), r, options.nodes);
                    observer.step();
                    notes
                })
                .collect()
        });
        for n in notes {
            let n = n?;
            let line = serde_json::to_string(&n).expect("notes serialise");
            writeln!(out, "{line}").map_err(io_error("write", &path))?;
            done.push(n);
        }
        out.flush().map_err(io_error("write", &path))?;
    }
    observer.finish();
    if done.len() < records.len() {
        return Err(AnalysisError::Interrupted);
    }
    Ok(done)
}

/// The games of `dir/games.jsonl`.
fn read_games(dir: &Path) -> Result<Vec<GameRecord>> {
    use mancala_arena::folder::{self, FolderError};
    let records = folder::read_games(dir).map_err(|e| match e {
        FolderError::Missing { .. } => bad_input(format!(
            "{} holds no games.jsonl: give the folder of a tournament (or of merged shards)",
            dir.display()
        )),
        FolderError::Io { path, source } => AnalysisError::Io {
            action: "read",
            path,
            source,
        },
        FolderError::Corrupt { path, line, why } => AnalysisError::Damaged {
            path,
            why: format!("line {line}: {why}"),
        },
        e => AnalysisError::Damaged {
            path: dir.join(folder::GAMES_FILE),
            why: e.to_string(),
        },
    })?;
    if records.is_empty() {
        return Err(bad_input(format!(
            "{}: no games to annotate",
            dir.join(folder::GAMES_FILE).display()
        )));
    }
    Ok(records)
}

/// The notes an earlier run wrote for the first games of `records` (a torn
/// last line, from a run killed while writing it, cut off), after a check
/// that they were made with `options` and that each line is one a clean
/// run writes for its game ([`check_kept`]).
///
/// A line that fails is refused, naming the line and what is wrong, as a
/// resumed first-move analysis refuses a row (`resume.rs`): re-annotating
/// it instead would hide that the file was edited or the games rewritten,
/// and the lines after it may be as wrong.
fn resume<G: Game>(
    game: &G,
    path: &Path,
    settings_path: &Path,
    options: &AnnotateOptions,
    records: &[GameRecord],
) -> Result<Vec<GameNotes>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    if let Ok(text) = fs::read_to_string(settings_path) {
        let old: AnnotateOptions =
            serde_json::from_str(&text).map_err(|e| AnalysisError::Damaged {
                path: settings_path.to_path_buf(),
                why: e.to_string(),
            })?;
        if old != *options {
            return Err(bad_input(format!(
                "{} was annotated with {old:?}, not {options:?}: delete {} and {} to start over, \
                 or annotate with the same settings",
                path.parent().unwrap_or(Path::new(".")).display(),
                ANNOTATIONS,
                SETTINGS
            )));
        }
    }
    let text = fs::read_to_string(path).map_err(io_error("read", path))?;
    let whole = text.rfind('\n').map_or(0, |i| i + 1);
    let mut done = Vec::new();
    for (i, line) in text[..whole].lines().enumerate() {
        let n: GameNotes = serde_json::from_str(line).map_err(|e| AnalysisError::Damaged {
            path: path.to_path_buf(),
            why: format!("line {}: {e}", i + 1),
        })?;
        match records.get(i) {
            Some(r) if r.id == n.id => {
                check_kept(game, r, &n).map_err(|why| AnalysisError::Damaged {
                    path: path.to_path_buf(),
                    why: format!(
                        "line {}: game {}: {why}; a clean run does not write this line (delete \
                         it and the lines after it to annotate those games again, or delete the \
                         file to start over)",
                        i + 1,
                        n.id
                    ),
                })?;
                done.push(n);
            }
            _ => {
                return Err(AnalysisError::Damaged {
                    path: path.to_path_buf(),
                    why: format!(
                        "line {}: game {} is not the folder's next game; delete the file to \
                         annotate again",
                        i + 1,
                        n.id
                    ),
                })
            }
        }
    }
    if whole < text.len() {
        // A torn line: cut it off, and judge its game again.
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io_error("open", path))?;
        file.set_len(whole as u64)
            .map_err(io_error("truncate", path))?;
    }
    Ok(done)
}

/// What is wrong with the kept notes of `record`, if anything. A clean run
/// writes one note per move after the opening, each the game's move at its
/// ply by the seat that made it, with the seeds then in the pits: replaying
/// the game checks that the notes are of this game as it is recorded now.
/// The values are not solved again (that is the work a resume saves), but
/// they must be margins the board's seeds allow, and the loss, best moves
/// and blunder mark must be the ones they give.
fn check_kept<G: Game>(
    game: &G,
    record: &GameRecord,
    notes: &GameNotes,
) -> std::result::Result<(), String> {
    if notes.players != record.players {
        return Err(format!(
            "players {:?} are not the game's {:?}",
            notes.players, record.players
        ));
    }
    let mut state = match &record.start {
        Some(text) => game
            .parse_position(text)
            .map_err(|e| format!("the game's start position: {e}"))?,
        None => game.start(),
    };
    let opening = record.opening_moves.split_whitespace().count();
    let tokens: Vec<&str> = record.moves.split_whitespace().collect();
    let judged = tokens.len().saturating_sub(opening);
    if notes.moves.len() != judged {
        return Err(format!(
            "{} notes, where the game has {judged} moves after its opening",
            notes.moves.len()
        ));
    }
    for (k, token) in tokens.iter().enumerate() {
        let mv: Move = token
            .parse()
            .map_err(|e| format!("the game's move {}: {e}", k + 1))?;
        let mover = game
            .to_move(&state)
            .ok_or_else(|| format!("the game's move {} comes after its end", k + 1))?;
        if let Some(note) = k.checked_sub(opening).map(|j| &notes.moves[j]) {
            let ply = k as u32 + 1;
            if note.ply != ply {
                return Err(format!(
                    "the note of the game's move {ply} says ply {}",
                    note.ply
                ));
            }
            if note.mv != *token {
                return Err(format!(
                    "ply {ply}: move {} is not the game's move there ({token})",
                    note.mv
                ));
            }
            if note.seat != mover.index() {
                return Err(format!(
                    "ply {ply}: seat {} did not move there, seat {} did",
                    note.seat,
                    mover.index()
                ));
            }
            check_note(game, &state, mv, note).map_err(|why| format!("ply {ply}: {why}"))?;
        }
        game.try_play(&mut state, mv)
            .map_err(|e| format!("the game's move {}: {e}", k + 1))?;
    }
    Ok(())
}

/// What is wrong with `note`, the judgement of `mv` in `state`, if
/// anything: its seeds in the pits, values within the board's seeds, and
/// the loss, best moves and blunder mark that follow from its values.
fn check_note<G: Game>(
    game: &G,
    state: &G::State,
    mv: Move,
    note: &MoveNote,
) -> std::result::Result<(), String> {
    let in_pits = seeds_in_pits(game, state);
    if note.seeds_left != in_pits {
        return Err(format!(
            "{} seeds left in the pits, where the game has {in_pits}",
            note.seeds_left
        ));
    }
    let seeds = game.total_seeds() as i32;
    for (name, v) in [("value", note.value), ("played", note.played)] {
        if let Some(v) = v.filter(|v| v.abs() > seeds) {
            return Err(format!(
                "{name} {v:+} is not a margin on a board of {seeds} seeds"
            ));
        }
    }
    let both = note.value.zip(note.played);
    if let Some((value, played)) = both.filter(|(v, p)| p > v) {
        return Err(format!(
            "the move played is worth {played:+}, more than the position's value {value:+}"
        ));
    }
    let loss = both.map(|(v, p)| v - p);
    if note.loss != loss {
        let known = |v: Option<i32>| v.map_or("unknown".into(), |v| format!("{v:+}"));
        return Err(format!(
            "loss {} is not value - played ({} - {})",
            note.loss.map_or("none".into(), |l| l.to_string()),
            known(note.value),
            known(note.played)
        ));
    }
    let blunder = both.is_some_and(|(v, p)| p.signum() < v.signum());
    if note.blunder != blunder {
        return Err(format!(
            "blunder {} where the values say {blunder}",
            note.blunder
        ));
    }
    if let Some(best) = &note.best {
        // Written only when every move's value is known, in legal order.
        let legal: Vec<String> = game
            .legal_moves(state)
            .into_iter()
            .map(|m| m.to_string())
            .collect();
        let in_order: Vec<&String> = legal.iter().filter(|m| best.contains(m)).collect();
        if best.is_empty() || both.is_none() || in_order.len() != best.len() {
            return Err(format!(
                "best moves {best:?} are not legal moves of a position with a value"
            ));
        }
        if best.contains(&mv.to_string()) != (loss == Some(0)) {
            return Err(format!(
                "best moves {best:?} disagree with a loss of {}",
                loss.unwrap_or_default()
            ));
        }
    }
    Ok(())
}

/// Seeds in the pits of `state` (the game's phase): those not in a store.
fn seeds_in_pits<G: Game>(game: &G, state: &G::State) -> u32 {
    game.total_seeds() as u32
        - game
            .scores(state)
            .0
            .iter()
            .map(|&s| u32::from(s))
            .sum::<u32>()
}

/// The value for `mover` of the position after a move, `child`.
fn child_value<G: Game>(
    game: &G,
    solver: &dyn ExactSolver<G>,
    child: &G::State,
    mover: mancala_core::Player,
    nodes: u64,
) -> Option<i32> {
    match game.to_move(child) {
        None => game.outcome(child).map(|o| o.margin_for(mover)),
        Some(next) => {
            let v = solver.settle(child, nodes).ok().flatten()?;
            Some(if next == mover { v } else { -v })
        }
    }
}

/// A game's moves after its opening, judged.
fn annotate_game<G: Game>(
    game: &G,
    solver: &dyn ExactSolver<G>,
    record: &GameRecord,
    nodes: u64,
) -> Result<GameNotes> {
    let damaged = |why: String| bad_input(format!("game {}: {why}", record.id));
    let mut state = match &record.start {
        Some(text) => game
            .parse_position(text)
            .map_err(|e| damaged(format!("start position: {e}")))?,
        None => game.start(),
    };
    let opening = record.opening_moves.split_whitespace().count();
    let mut moves = Vec::new();
    for (k, token) in record.moves.split_whitespace().enumerate() {
        let mv: Move = token
            .parse()
            .map_err(|e| damaged(format!("move {}: {e}", k + 1)))?;
        let mover = game
            .to_move(&state)
            .ok_or_else(|| damaged(format!("move {} after the end", k + 1)))?;
        if k >= opening {
            let legal = game.legal_moves(&state);
            if !legal.contains(mv) {
                return Err(damaged(format!("move {} ({token}) is illegal", k + 1)));
            }
            let mut values = Vec::new();
            for m in legal {
                let mut child = state.clone();
                game.play_unchecked(&mut child, m);
                values.push((m, child_value(game, solver, &child, mover, nodes)));
            }
            let all_known = values.iter().all(|(_, v)| v.is_some());
            let value = if all_known {
                values.iter().filter_map(|(_, v)| *v).max()
            } else {
                solver.settle(&state, nodes).ok().flatten()
            };
            let played = values.iter().find(|(m, _)| *m == mv).and_then(|(_, v)| *v);
            let best = all_known.then(|| {
                values
                    .iter()
                    .filter(|(_, v)| *v == value)
                    .map(|(m, _)| m.to_string())
                    .collect()
            });
            let loss = value.zip(played).map(|(v, p)| v - p);
            let blunder = value
                .zip(played)
                .is_some_and(|(v, p)| p.signum() < v.signum());
            moves.push(MoveNote {
                ply: k as u32 + 1,
                seat: mover.index(),
                mv: token.to_string(),
                seeds_left: seeds_in_pits(game, &state),
                value,
                played,
                best,
                loss,
                blunder,
            });
        }
        game.try_play(&mut state, mv)
            .map_err(|e| damaged(format!("move {}: {e}", k + 1)))?;
    }
    Ok(GameNotes {
        id: record.id,
        players: record.players.clone(),
        moves,
    })
}

/// A game's phase at a move, by the share of the seeds still in the pits.
pub fn phase(seeds_left: u32, total: u32) -> &'static str {
    if 3 * seeds_left > 2 * total {
        "opening"
    } else if 3 * seeds_left > total {
        "middle"
    } else {
        "endgame"
    }
}

/// An agent's accuracy over some of its moves.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Accuracy {
    /// Moves whose loss is known.
    pub judged: u64,
    /// Moves not judged (a value beyond the budget).
    pub unjudged: u64,
    /// Of the judged, best moves.
    pub best: u64,
    /// Seeds given away over the judged moves.
    pub lost: i64,
    /// `best / judged`.
    pub best_share: Option<f64>,
    /// Its 95% Wilson interval.
    pub best_share_95: Option<(f64, f64)>,
    /// Mean seeds given away per judged move.
    pub mean_loss: Option<f64>,
    /// Moves that changed the perfect-play outcome.
    pub blunders: u64,
}

impl Accuracy {
    fn add(&mut self, note: &MoveNote) {
        match note.loss {
            Some(loss) => {
                self.judged += 1;
                self.best += u64::from(loss == 0);
                self.lost += i64::from(loss);
            }
            None => self.unjudged += 1,
        }
        self.blunders += u64::from(note.blunder);
    }

    fn finish(&mut self) {
        if self.judged > 0 {
            let n = self.judged as f64;
            self.best_share = Some(self.best as f64 / n);
            self.mean_loss = Some(self.lost as f64 / n);
            self.best_share_95 = Some(wilson_interval(self.best as f64, n, 1.959_963_984_540_054));
        }
    }
}

/// One agent's accuracy in a folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentAccuracy {
    /// The agent's name.
    pub agent: String,
    /// Games it played.
    pub games: u64,
    /// Blunders per game.
    pub blunders_per_game: f64,
    /// The mean ply of its first blunder, over the games it blundered in.
    pub first_blunder_ply: Option<f64>,
    /// Over all its moves.
    pub overall: Accuracy,
    /// By phase: `opening` (more than two thirds of the seeds in the
    /// pits), `middle`, `endgame` (a third or less).
    pub phases: BTreeMap<String, Accuracy>,
}

/// Each agent's accuracy over `notes`, by name.
pub fn accuracy(notes: &[GameNotes], total_seeds: u32) -> Vec<AgentAccuracy> {
    let mut by: BTreeMap<String, (AgentAccuracy, Vec<u32>)> = BTreeMap::new();
    for game in notes {
        let mut first: [Option<u32>; 2] = [None, None];
        for seat in 0..2 {
            let entry = by.entry(game.players[seat].clone()).or_insert_with(|| {
                (
                    AgentAccuracy {
                        agent: game.players[seat].clone(),
                        games: 0,
                        blunders_per_game: 0.0,
                        first_blunder_ply: None,
                        overall: Accuracy::default(),
                        phases: BTreeMap::new(),
                    },
                    Vec::new(),
                )
            });
            entry.0.games += 1;
        }
        for m in &game.moves {
            let (agent, _) = by.get_mut(&game.players[m.seat]).expect("entered above");
            agent.overall.add(m);
            agent
                .phases
                .entry(phase(m.seeds_left, total_seeds).to_string())
                .or_default()
                .add(m);
            if m.blunder && first[m.seat].is_none() {
                first[m.seat] = Some(m.ply);
            }
        }
        for (player, first) in game.players.iter().zip(first) {
            if let Some(ply) = first {
                by.get_mut(player).expect("entered").1.push(ply);
            }
        }
    }
    by.into_values()
        .map(|(mut a, firsts)| {
            a.overall.finish();
            a.phases.values_mut().for_each(Accuracy::finish);
            a.blunders_per_game = a.overall.blunders as f64 / a.games.max(1) as f64;
            a.first_blunder_ply = (!firsts.is_empty())
                .then(|| firsts.iter().map(|&p| f64::from(p)).sum::<f64>() / firsts.len() as f64);
            a
        })
        .collect()
}

/// Writes `accuracy.json` and `accuracy.csv` into `dir`.
///
/// # Errors
/// A file that cannot be written.
pub fn write_accuracy(dir: &Path, rows: &[AgentAccuracy]) -> Result<Vec<PathBuf>> {
    let json = dir.join("accuracy.json");
    let text = serde_json::to_string_pretty(rows).expect("accuracy serialises") + "\n";
    fs::write(&json, text).map_err(io_error("write", &json))?;
    let csv_path = dir.join("accuracy.csv");
    let file = File::create(&csv_path).map_err(io_error("write", &csv_path))?;
    let mut csv = csv::Writer::from_writer(file);
    let to_io = |e: csv::Error| AnalysisError::Io {
        action: "write",
        path: csv_path.clone(),
        source: std::io::Error::other(e.to_string()),
    };
    csv.write_record([
        "agent",
        "phase",
        "judged",
        "unjudged",
        "best",
        "best_share",
        "best_lo",
        "best_hi",
        "mean_loss",
        "blunders",
        "games",
        "blunders_per_game",
        "first_blunder_ply",
    ])
    .map_err(to_io)?;
    let num = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.4}"));
    for a in rows {
        let mut phases: Vec<(&str, &Accuracy)> = vec![("all", &a.overall)];
        phases.extend(a.phases.iter().map(|(k, v)| (k.as_str(), v)));
        for (phase, acc) in phases {
            let all = phase == "all";
            csv.write_record([
                a.agent.clone(),
                phase.to_string(),
                acc.judged.to_string(),
                acc.unjudged.to_string(),
                acc.best.to_string(),
                num(acc.best_share),
                num(acc.best_share_95.map(|i| i.0)),
                num(acc.best_share_95.map(|i| i.1)),
                num(acc.mean_loss),
                acc.blunders.to_string(),
                if all {
                    a.games.to_string()
                } else {
                    String::new()
                },
                if all {
                    format!("{:.4}", a.blunders_per_game)
                } else {
                    String::new()
                },
                if all {
                    num(a.first_blunder_ply)
                } else {
                    String::new()
                },
            ])
            .map_err(to_io)?;
        }
    }
    csv.flush().map_err(io_error("write", &csv_path))?;
    Ok(vec![json, csv_path])
}
