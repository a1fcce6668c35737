//! Exact labels at scale, for training evaluations: every position of many
//! seeded games between agents, each with the exact value of perfect play
//! and every move's value wherever the solver settles them cheaply (the
//! endgame database holds the position, or a search of at most `nodes`
//! nodes proves it). `analyze exact-positions` solves one position a game
//! fully, at seconds each; this settles every position of a game within a
//! node budget, at a few milliseconds each, and says which it could not.
//!
//! The run writes a folder: `labels.json` (what makes the labels: the
//! rules, agents, seed, node budget, database and shard) and
//! `labels.jsonl`, a line per game in the order games finish. A game's
//! line depends only on the options and its id, so the set is the same at
//! any thread count, and a run that stops keeps its whole lines: the same
//! command resumes it. `--shard K/N` labels one contiguous block of the
//! games, for a cluster; the shards' lines together are the whole run's.

use std::fs::{self, File, OpenOptions};
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use mancala_agents::{derive_seed, Agent, AgentSpec, Budget};
use mancala_arena::lines::{read_capped_line, CappedLine, MAX_RECORD_BYTES};
use mancala_arena::{FolderLock, Shard};
use mancala_core::{Game, GameSpec, Move, Player};
use mancala_registry::AnyAgentSpec;
use mancala_solver::{ExactSolver, Profile, Solvable, SolverOptions};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::positions::{sourced_game, DEFAULT_SOURCES};
use crate::{bad_input, build_solver, solver_options, AnalysisError, Observer, Result};

/// The folder's description of the run.
pub const LABELS_IDENTITY: &str = "labels.json";
/// The folder's labels, a line per game.
pub const LABELS_FILE: &str = "labels.jsonl";
/// Version of the two files' format.
const FORMAT: u32 = 1;
/// Seeds in the pits per phase of [`PhaseTally`].
pub const PHASE_SEEDS: u32 = 8;

/// How to label.
#[derive(Clone, Debug)]
pub struct LabelOptions<G> {
    /// The game and its rules (one the solver takes).
    pub rules: G,
    /// Games of the run (ids `0..games`; a shard labels a block of them).
    pub games: u64,
    /// Agents whose games give the positions (each game's two seats are
    /// drawn from these; empty: [`DEFAULT_SOURCES`]).
    pub agents: Vec<String>,
    /// Random moves at the start of each game; positions are taken after.
    pub opening_plies: u32,
    /// Seed of the games.
    pub seed: u64,
    /// Most nodes a search may take to settle one position (0: the
    /// endgame database only).
    pub nodes: u64,
    /// Positions with more seeds than this in the pits get no search (the
    /// endgame database and moves that end the game only): early positions
    /// rarely settle within a small budget and would take most of the run.
    pub max_pit_seeds: Option<u32>,
    /// Worker threads: games are labelled in parallel.
    pub threads: usize,
    /// Seeds in the endgame database's fullest level (`None`: as `mancala
    /// solve`; 0: none).
    pub db_seeds: Option<usize>,
    /// Where endgame databases are kept (`None`: in memory only).
    pub db_dir: Option<PathBuf>,
    /// The block of games this run labels (`None`: all of them).
    pub shard: Option<Shard>,
    /// Label by this search instead of the solver (`None`: exact labels):
    /// for games the solver does not take, like Oware on a full board.
    /// Each position's value is the value the search gives its best move,
    /// rounded to a seed; moves get no value.
    pub search: Option<String>,
    /// With exact labels: the positions the solver does not settle (past
    /// `max_pit_seeds` or the node budget) get the value of this search
    /// (minimax to a depth) instead of none, marked `searched`; their moves
    /// keep what the solver settled. Exact where it can be, estimated
    /// elsewhere: a network learns the opening and middle game too.
    pub unsettled_search: Option<String>,
}

/// What a folder's labels were made with: a resumed run must match it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LabelIdentity {
    format: u32,
    game: String,
    games: u64,
    agents: Vec<String>,
    opening_plies: u32,
    seed: u64,
    nodes: u64,
    endgame_seeds: usize,
    shard: Option<Shard>,
    /// Absent in folders made before it existed, which had no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_pit_seeds: Option<u32>,
    /// The search whose values are the labels; absent for exact labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    search: Option<String>,
    /// The search that values what the solver does not settle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unsettled_search: Option<String>,
}

/// What values the positions of a run.
enum Labeller<G: Solvable> {
    /// The solver: exact values where it settles them, and a search's
    /// where it does not, if one is given.
    Exact(std::sync::Arc<dyn ExactSolver<G>>, Option<AnyAgentSpec>),
    /// A search: its value of the position.
    Search(AnyAgentSpec),
}

/// One game's labels: a line of `labels.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelledGame {
    /// Its id in the run.
    pub id: u64,
    /// The agents in seats 0 and 1.
    pub agents: [String; 2],
    /// Every position after the opening until the game ended, in order.
    pub positions: Vec<LabelledPosition>,
}

/// One position with what the solver settled of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelledPosition {
    /// Plies played before it.
    pub ply: u32,
    /// The position, in the toolkit's notation.
    pub position: String,
    /// The final margin for the player to move with perfect play (`None`:
    /// not settled within the budget).
    pub value: Option<i32>,
    /// Each legal move, in move order, with the final margin for the player
    /// to move here after it (`None`: not settled).
    pub moves: Vec<(String, Option<i32>)>,
    /// Whether `value` is a search's estimate (a run with an unsettled
    /// search), not the solver's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub searched: bool,
}

/// Positions labelled with a number of seeds in the pits (a phase of the
/// game: many seeds early, few late), and what they cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PhaseTally {
    /// Positions labelled.
    pub positions: u64,
    /// Of those, positions whose value was settled.
    pub settled: u64,
    /// Of those not settled, positions valued by the unsettled search.
    pub searched: u64,
    /// Of those, positions with every move's value settled too.
    pub all_moves: u64,
    /// Seconds spent settling them (summed over threads).
    pub seconds: f64,
}

impl PhaseTally {
    fn add(&mut self, other: &PhaseTally) {
        self.positions += other.positions;
        self.settled += other.settled;
        self.searched += other.searched;
        self.all_moves += other.all_moves;
        self.seconds += other.seconds;
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LabelRun {
    /// Games labelled by this run.
    pub games: u64,
    /// Games found already labelled in the folder (a resumed run).
    pub kept: u64,
    /// By phase: entry `k` counts the positions with `PHASE_SEEDS * k` to
    /// `PHASE_SEEDS * (k + 1) - 1` seeds in the pits, labelled by this run.
    pub phases: Vec<PhaseTally>,
    /// Seeds in the endgame database's fullest level (its positions are
    /// settled at once).
    pub endgame_seeds: usize,
    /// Wall-clock seconds of the labelling (the database's build not
    /// counted).
    pub seconds: f64,
    /// Whether the stop flag ended it early (its whole games are kept).
    pub interrupted: bool,
}

impl LabelRun {
    /// All phases together.
    pub fn total(&self) -> PhaseTally {
        let mut all = PhaseTally::default();
        for p in &self.phases {
            all.add(p);
        }
        all
    }
}

/// Labels the games of `options` into `dir` (created if need be),
/// resuming the lines already there.
///
/// # Errors
/// [`AnalysisError::BadInput`] for an agent that cannot play the rules, a
/// folder another run holds or whose labels were made with other options;
/// [`AnalysisError::Damaged`] for a damaged `labels.jsonl`;
/// [`AnalysisError::Io`] when the files cannot be written.
pub fn label<G: Solvable>(
    options: &LabelOptions<G>,
    dir: &Path,
    observer: &dyn Observer,
    stop: &AtomicBool,
) -> Result<LabelRun> {
    let rules = options.rules;
    let (texts, sources) = source_agents(options)?;
    let valuing = Valuing::of(options)?;
    let endgame_seeds = valuing
        .solver_options
        .as_ref()
        .map_or(0, |o| o.endgame_seeds);
    let identity = LabelIdentity {
        format: FORMAT,
        game: rules.to_string(),
        games: options.games,
        agents: texts,
        opening_plies: options.opening_plies,
        seed: options.seed,
        nodes: options.nodes,
        endgame_seeds,
        shard: options.shard,
        max_pit_seeds: options.max_pit_seeds,
        search: options.search.clone(),
        unsettled_search: options.unsettled_search.clone(),
    };
    let (_lock, done) = take_folder(dir, &identity)?;

    let pool = crate::thread_pool(options.threads)?;
    let labeller = valuing.labeller(&rules, options.threads, observer)?;
    let ids = options
        .shard
        .map_or(0..options.games, |s| s.range(options.games));
    let todo: Vec<u64> = ids.filter(|id| !done.contains(id)).collect();
    let mut run = LabelRun {
        kept: done.len() as u64,
        endgame_seeds,
        ..LabelRun::default()
    };
    let path = dir.join(LABELS_FILE);
    let out = open_to_append(&path)?;
    let writer = LabelWriter {
        labeller,
        sources,
        options,
        out: Mutex::new(out),
        path,
        observer,
        stop,
    };
    let t0 = Instant::now();
    observer.start(todo.len() as u64, "games");
    let labelled: Result<Vec<(u64, Vec<PhaseTally>)>> = pool.install(|| {
        todo.par_iter()
            .with_max_len(1)
            .map(|&id| writer.label_and_write(id))
            .filter_map(Result::transpose)
            .collect()
    });
    observer.finish();
    for (_, phases) in labelled? {
        run.add_game(&phases);
    }
    run.seconds = t0.elapsed().as_secs_f64();
    run.interrupted = stop.load(Ordering::Relaxed);
    Ok(run)
}

impl LabelRun {
    /// Counts one more game labelled, with its positions by phase.
    fn add_game(&mut self, phases: &[PhaseTally]) {
        self.games += 1;
        if self.phases.len() < phases.len() {
            self.phases.resize(phases.len(), PhaseTally::default());
        }
        for (all, one) in self.phases.iter_mut().zip(phases) {
            all.add(one);
        }
    }
}

/// The agents of `options` (or [`DEFAULT_SOURCES`]) as given, and each
/// checked to play its rules.
fn source_agents<G: Solvable>(
    options: &LabelOptions<G>,
) -> Result<(Vec<String>, Vec<AnyAgentSpec>)> {
    let texts: Vec<String> = if options.agents.is_empty() {
        DEFAULT_SOURCES.iter().map(|s| s.to_string()).collect()
    } else {
        options.agents.clone()
    };
    let sources = texts
        .iter()
        .map(|t| {
            playing_spec(&options.rules, t).map_err(|e| bad_input(format!("--agent {t}: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((texts, sources))
}

/// Creates `dir` if need be and takes its lock (held while the run writes
/// it), checks that its labels are of `identity` (or writes it), and
/// returns the lock and the ids of the games already labelled there.
fn take_folder(
    dir: &Path,
    identity: &LabelIdentity,
) -> Result<(FolderLock, std::collections::HashSet<u64>)> {
    fs::create_dir_all(dir).map_err(|source| AnalysisError::Io {
        action: "create",
        path: dir.to_path_buf(),
        source,
    })?;
    let lock = FolderLock::take(dir).map_err(|e| bad_input(e.to_string()))?;
    check_identity(dir, identity)?;
    let done = kept_games(&dir.join(LABELS_FILE))?;
    Ok((lock, done))
}

/// How a run values positions, as its options ask, checked before
/// anything is written.
struct Valuing {
    /// The search that labels without the solver (`--search`).
    search: Option<AnyAgentSpec>,
    /// The search that values what the solver leaves (`--unsettled-search`).
    unsettled: Option<AnyAgentSpec>,
    /// The solver's options, when the solver labels.
    solver_options: Option<SolverOptions>,
}

impl Valuing {
    /// The searches and solver options of `options`.
    ///
    /// # Errors
    /// A bad input for both searches at once, a search that cannot label,
    /// or rules past the exact solvers without a search.
    fn of<G: Solvable>(options: &LabelOptions<G>) -> Result<Valuing> {
        let rules = &options.rules;
        // A search labels without the solver; the solver's options are
        // checked before anything is written.
        let unsettled = match (&options.search, &options.unsettled_search) {
            (Some(_), Some(_)) => {
                return Err(bad_input(
                    "--unsettled-search values what the solver leaves; with --search \
                     the solver is not used"
                        .to_string(),
                ))
            }
            (None, Some(text)) => Some(labelling_search(rules, text, "--unsettled-search")?),
            _ => None,
        };
        let (search, solver_options) = match &options.search {
            Some(text) => (Some(labelling_search(rules, text, "--search")?), None),
            None => {
                let o = solver_options(
                    rules,
                    Profile::Solve,
                    None,
                    options.db_seeds,
                    options.db_dir.as_deref(),
                )
                .map_err(|e| match e {
                    // Past the exact solvers, a search still labels.
                    AnalysisError::Refused(_) => bad_input(format!(
                        "{e}; label it by a search instead (--search minimax:depth=D)"
                    )),
                    e => e,
                })?;
                (None, Some(o))
            }
        };
        Ok(Valuing {
            search,
            unsettled,
            solver_options,
        })
    }

    /// The labeller: the search, or the solver built (its database too).
    fn labeller<G: Solvable>(
        self,
        rules: &G,
        threads: usize,
        observer: &dyn Observer,
    ) -> Result<Labeller<G>> {
        Ok(match (self.search, self.solver_options) {
            (Some(spec), _) => Labeller::Search(spec),
            (None, Some(o)) => Labeller::Exact(
                build_solver(rules, &o, threads, &rules.to_string(), observer)?,
                self.unsettled,
            ),
            (None, None) => unreachable!("a run without a search has solver options"),
        })
    }
}

/// Opens `labels.jsonl` at `path` to append lines (created if need be).
fn open_to_append(path: &Path) -> Result<File> {
    OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|source| AnalysisError::Io {
            action: "write",
            path: path.to_path_buf(),
            source,
        })
}

/// Labels games and appends their lines, from many threads at once.
struct LabelWriter<'a, G: Solvable> {
    /// What values the positions.
    labeller: Labeller<G>,
    /// The agents whose games give the positions.
    sources: Vec<AnyAgentSpec>,
    /// The run's options.
    options: &'a LabelOptions<G>,
    /// The open `labels.jsonl`.
    out: Mutex<File>,
    /// Its path (named in errors).
    path: PathBuf,
    /// Told of each game labelled.
    observer: &'a dyn Observer,
    /// Raised to stop.
    stop: &'a AtomicBool,
}

impl<G: Solvable> LabelWriter<'_, G> {
    /// Labels game `id` and appends its line; `None` when stopped first or
    /// the game gave no labels.
    fn label_and_write(&self, id: u64) -> Result<Option<(u64, Vec<PhaseTally>)>> {
        if self.stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let Some((game, phases)) = label_game(&self.labeller, &self.sources, self.options, id)
        else {
            return Ok(None);
        };
        let mut line = serde_json::to_vec(&game)
            .map_err(|e| AnalysisError::Solver(format!("game {id}: {e}")))?;
        line.push(b'\n');
        // One write of the whole line, under the lock: lines never
        // interleave, and a kill leaves at most a torn last one.
        self.out
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .write_all(&line)
            .map_err(|source| AnalysisError::Io {
                action: "write",
                path: self.path.clone(),
                source,
            })?;
        self.observer.step();
        Ok(Some((id, phases)))
    }
}

/// The agent of `text`, checked to play `rules`.
fn playing_spec<G: Solvable>(rules: &G, text: &str) -> std::result::Result<AnyAgentSpec, String> {
    let spec = AnyAgentSpec::parse(text).map_err(|e| e.to_string())?;
    spec.check(rules).map_err(|e| e.to_string())?;
    Ok(spec)
}

/// Writes `identity` into a new folder, or checks that the folder's is the
/// same.
fn check_identity(dir: &Path, identity: &LabelIdentity) -> Result<()> {
    let path = dir.join(LABELS_IDENTITY);
    match fs::read_to_string(&path) {
        Ok(text) => {
            let found: LabelIdentity =
                serde_json::from_str(&text).map_err(|e| AnalysisError::Damaged {
                    path: path.clone(),
                    why: format!("not a description of labels ({e})"),
                })?;
            if &found != identity {
                return Err(bad_input(format!(
                    "{} holds labels made with other options ({}); label into another folder, \
                     or run the command that made them to resume it",
                    dir.display(),
                    serde_json::to_string(&found).unwrap_or_default()
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let text = serde_json::to_string_pretty(identity)
                .map_err(|e| AnalysisError::Solver(e.to_string()))?;
            fs::write(&path, text + "\n").map_err(|source| AnalysisError::Io {
                action: "write",
                path,
                source,
            })
        }
        Err(source) => Err(AnalysisError::Io {
            action: "read",
            path,
            source,
        }),
    }
}

/// Just the id of a line.
#[derive(Deserialize)]
struct Id {
    id: u64,
}

/// The ids of the whole lines of `path`; a torn last line (a run killed
/// while writing) is cut off the file, so that the next line starts clean.
fn kept_games(path: &Path) -> Result<std::collections::HashSet<u64>> {
    let mut ids = std::collections::HashSet::new();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ids),
        Err(source) => {
            return Err(AnalysisError::Io {
                action: "read",
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let damaged = |why: String| AnalysisError::Damaged {
        path: path.to_path_buf(),
        why,
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut whole_bytes = 0u64;
    for number in 1.. {
        match read_capped_line(&mut reader, &mut line, MAX_RECORD_BYTES)
            .map_err(|e| damaged(e.to_string()))?
        {
            CappedLine::End => break,
            CappedLine::Line { whole: false, .. } | CappedLine::TooLong { whole: false, .. } => {
                // Torn: cut off below.
                break;
            }
            CappedLine::TooLong { .. } => {
                return Err(damaged(format!(
                    "line {number} is longer than a game's labels"
                )))
            }
            CappedLine::Line { bytes, .. } => {
                let id: Id = serde_json::from_slice(&line).map_err(|e| {
                    damaged(format!(
                        "line {number}: {e}; delete it and the lines after it to label those \
                         games again"
                    ))
                })?;
                if !ids.insert(id.id) {
                    return Err(damaged(format!("line {number}: game {} twice", id.id)));
                }
                whole_bytes += bytes;
            }
        }
    }
    let len = fs::metadata(path).map(|m| m.len()).unwrap_or(whole_bytes);
    if len > whole_bytes {
        OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(whole_bytes))
            .map_err(|source| AnalysisError::Io {
                action: "write",
                path: path.to_path_buf(),
                source,
            })?;
    }
    Ok(ids)
}

/// The rules a labels folder was made for (its `labels.json`).
///
/// # Errors
/// [`AnalysisError::Io`] or [`AnalysisError::Damaged`].
pub fn labels_rules(dir: &Path) -> Result<GameSpec> {
    let path = dir.join(LABELS_IDENTITY);
    let text = fs::read_to_string(&path).map_err(|source| AnalysisError::Io {
        action: "read",
        path: path.clone(),
        source,
    })?;
    let damaged = |why: String| AnalysisError::Damaged {
        path: path.clone(),
        why,
    };
    let identity: LabelIdentity = serde_json::from_str(&text)
        .map_err(|e| damaged(format!("not a description of labels ({e})")))?;
    identity
        .game
        .parse::<GameSpec>()
        .map_err(|e| damaged(format!("game `{}`: {e}", identity.game)))
}

/// Adds the positions listed in `path` to `into`: one a line in the
/// toolkit's notation, blank lines and `#` comments skipped. This is what
/// `analyze exact-positions --held-out` writes (every position of a
/// yardstick's games), so that training can leave them out.
///
/// # Errors
/// [`AnalysisError::Io`] when the file cannot be read.
pub fn read_position_list(path: &Path, into: &mut std::collections::HashSet<String>) -> Result<()> {
    let text = fs::read_to_string(path).map_err(|source| AnalysisError::Io {
        action: "read",
        path: path.to_path_buf(),
        source,
    })?;
    for line in text.lines() {
        let line = line.trim();
        if !line.is_empty() && !line.starts_with('#') {
            into.insert(line.to_string());
        }
    }
    Ok(())
}

/// A labelled position whose every move the solver settled: what a
/// policy can be trained on (see [`solved_positions`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SolvedPosition<S> {
    /// The position.
    pub state: S,
    /// The final margin for the player to move with perfect play.
    pub margin: i32,
    /// The moves that keep it.
    pub best: Vec<Move>,
}

/// Calls `each` once with every distinct position of the label folders
/// `dirs` (labels of `rules`) whose value and every move's value the
/// solver settled (searched estimates are not exact, and are left out);
/// returns how many positions were read in all.
///
/// # Errors
/// [`AnalysisError::BadInput`] for a folder of other rules or a position
/// or move that does not fit them; the folders' read errors.
pub fn solved_positions<G: Game>(
    rules: &G,
    dirs: &[PathBuf],
    each: &mut dyn FnMut(SolvedPosition<G::State>),
) -> Result<u64> {
    let mut seen = std::collections::HashSet::new();
    let mut read = 0;
    read_label_folders(rules, dirs, &mut |game: &LabelledGame| {
        for p in &game.positions {
            read += 1;
            match solved(rules, p) {
                Ok(Some(solved)) if seen.insert(rules.key(&solved.state)) => each(solved),
                Ok(_) => {}
                Err(e) => return Err(format!("game {}: {e}", game.id)),
            }
        }
        Ok(())
    })?;
    Ok(read)
}

/// Calls `each` with every whole game of the label folders `dirs`, which
/// must all hold labels of `rules`, in order; the first error of `each`
/// ends the reading.
///
/// # Errors
/// [`AnalysisError::BadInput`] for a folder of other rules, or with the
/// error of `each` and its folder; the folders' read errors.
pub fn read_label_folders<G: Game>(
    rules: &G,
    dirs: &[PathBuf],
    each: &mut dyn FnMut(&LabelledGame) -> std::result::Result<(), String>,
) -> Result<()> {
    let name = rules.to_string();
    for dir in dirs {
        let other = labels_rules(dir)?.to_string();
        if other != name {
            return Err(bad_input(format!(
                "{} holds labels of {other}, not {name}",
                dir.display()
            )));
        }
        let mut failed = None;
        read_labels(dir, &mut |game: LabelledGame| {
            if failed.is_none() {
                failed = each(&game).err();
            }
        })?;
        if let Some(e) = failed {
            return Err(bad_input(format!("{}: {e}", dir.display())));
        }
    }
    Ok(())
}

/// `p` as a [`SolvedPosition`], if every move of it was settled.
fn solved<G: Game>(
    rules: &G,
    p: &LabelledPosition,
) -> std::result::Result<Option<SolvedPosition<G::State>>, String> {
    let (Some(margin), false) = (p.value, p.searched) else {
        return Ok(None);
    };
    if p.moves.is_empty() || p.moves.iter().any(|(_, v)| v.is_none()) {
        return Ok(None);
    }
    let state = rules
        .parse_position(&p.position)
        .map_err(|e| format!("position `{}`: {e}", p.position))?;
    let mut best = Vec::new();
    for (text, value) in &p.moves {
        if *value == Some(margin) {
            let mv: Move = text.parse().map_err(|e| format!("move `{text}`: {e}"))?;
            if !rules.legal_moves(&state).contains(mv) {
                return Err(format!("move `{text}` is not legal in `{}`", p.position));
            }
            best.push(mv);
        }
    }
    if best.is_empty() {
        return Err(format!(
            "`{}` is worth {margin}, but no move has that value",
            p.position
        ));
    }
    Ok(Some(SolvedPosition {
        state,
        margin,
        best,
    }))
}

/// Calls `each` with every whole game of the folder's `labels.jsonl`, in
/// the file's order (a torn last line, from a run still going or killed,
/// is left out); returns how many there were.
///
/// # Errors
/// [`AnalysisError::Io`], or [`AnalysisError::Damaged`] for a line that is
/// not a game's labels.
pub fn read_labels(dir: &Path, each: &mut dyn FnMut(LabelledGame)) -> Result<u64> {
    let path = dir.join(LABELS_FILE);
    let file = File::open(&path).map_err(|source| AnalysisError::Io {
        action: "read",
        path: path.clone(),
        source,
    })?;
    let damaged = |why: String| AnalysisError::Damaged {
        path: path.clone(),
        why,
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut games = 0;
    for number in 1.. {
        match read_capped_line(&mut reader, &mut line, MAX_RECORD_BYTES)
            .map_err(|e| damaged(e.to_string()))?
        {
            CappedLine::End
            | CappedLine::Line { whole: false, .. }
            | CappedLine::TooLong { whole: false, .. } => break,
            CappedLine::TooLong { .. } => {
                return Err(damaged(format!(
                    "line {number} is longer than a game's labels"
                )))
            }
            CappedLine::Line { .. } => {
                let game: LabelledGame = serde_json::from_slice(&line)
                    .map_err(|e| damaged(format!("line {number}: {e}")))?;
                each(game);
                games += 1;
            }
        }
    }
    Ok(games)
}

/// Plays game `id` and settles each of its positions after the opening;
/// `None` if the game ended within the opening or an agent failed.
fn label_game<G: Solvable>(
    labeller: &Labeller<G>,
    sources: &[AnyAgentSpec],
    options: &LabelOptions<G>,
    id: u64,
) -> Option<(LabelledGame, Vec<PhaseTally>)> {
    let rules = &options.rules;
    let (played, _) = sourced_game(
        rules,
        sources,
        options.opening_plies,
        derive_seed(options.seed, id),
    )?;
    let mut phases: Vec<PhaseTally> = Vec::new();
    let mut positions = Vec::with_capacity(played.positions.len());
    let mut searcher = match labeller {
        Labeller::Search(spec) | Labeller::Exact(_, Some(spec)) => Some(spec.build(rules)),
        Labeller::Exact(_, None) => None,
    };
    for (ply, state) in &played.positions {
        let t0 = Instant::now();
        let seeds_in_pits = seeds_in_pits(rules, state);
        let nodes = match options.max_pit_seeds {
            Some(max) if seeds_in_pits > max => 0,
            _ => options.nodes,
        };
        // A fresh search of each position: its value depends on the
        // position alone, not on the ones searched before it.
        let search = |agent: &mut Box<dyn Agent<G>>| {
            agent.new_game(derive_seed(options.seed, id));
            search_position(rules, agent.as_mut(), *ply, state)
        };
        let labelled = match (labeller, &mut searcher) {
            (Labeller::Exact(solver, _), None) => {
                label_position(solver.as_ref(), nodes, *ply, state)
            }
            (Labeller::Exact(solver, _), Some(agent)) => {
                let mut exact = label_position(solver.as_ref(), nodes, *ply, state);
                if exact.value.is_none() {
                    exact.value = search(agent).value;
                    exact.searched = exact.value.is_some();
                }
                exact
            }
            (Labeller::Search(_), Some(agent)) => search(agent),
            (Labeller::Search(_), None) => unreachable!("a search labeller has its agent"),
        };
        let phase = (seeds_in_pits / PHASE_SEEDS) as usize;
        if phases.len() <= phase {
            phases.resize(phase + 1, PhaseTally::default());
        }
        let tally = &mut phases[phase];
        tally.positions += 1;
        tally.settled += u64::from(labelled.value.is_some() && !labelled.searched);
        tally.searched += u64::from(labelled.searched);
        tally.all_moves += u64::from(labelled.moves.iter().all(|m| m.1.is_some()));
        tally.seconds += t0.elapsed().as_secs_f64();
        positions.push(labelled);
    }
    Some((
        LabelledGame {
            id,
            agents: played.agents,
            positions,
        },
        phases,
    ))
}

/// The search of `--search` or `--unsettled-search` (named by `flag`):
/// minimax to a depth, whose values are margins and the same everywhere.
fn labelling_search<G: Solvable>(rules: &G, text: &str, flag: &str) -> Result<AnyAgentSpec> {
    playing_spec(rules, text)
        .and_then(|spec| match &spec {
            AnyAgentSpec::Classical(AgentSpec::Minimax(m))
                if matches!(m.budget, Budget::Depth(_)) =>
            {
                Ok(spec)
            }
            _ => Err(
                "labels are searched by minimax to a depth (minimax:depth=D), \
                 whose values are margins in seeds and the same on any machine"
                    .to_string(),
            ),
        })
        .map_err(|e| bad_input(format!("{flag} {text}: {e}")))
}

/// Seeds in both rows of pits: the phase of the game.
pub(crate) fn seeds_in_pits<G: Game>(rules: &G, state: &G::State) -> u32 {
    let rows = rules.row_seeds(state);
    u32::from(rows[Player::ZERO]) + u32::from(rows[Player::ONE])
}

/// `state` with the value `agent`'s search gives it (`None` when the agent
/// fails or says no value); its moves get none.
fn search_position<G: Solvable>(
    rules: &G,
    agent: &mut dyn Agent<G>,
    ply: u32,
    state: &G::State,
) -> LabelledPosition {
    let mover = rules.to_move(state).expect("a position of a game not over");
    // A forced move is played without a search (the agent says no value):
    // the position's value is that of the first position after its forced
    // moves with a choice, or of the game's end.
    let mut at = state.clone();
    let value = loop {
        let Some(next) = rules.to_move(&at) else {
            break rules.outcome(&at).map(|o| o.margin_for(mover));
        };
        let legal = rules.legal_moves(&at);
        if legal.len() == 1 {
            rules.play_unchecked(&mut at, legal.nth(0));
            continue;
        }
        let value = agent
            .choose(rules, &at)
            .ok()
            .and_then(|_| agent.info().value)
            .map(|v| v.round() as i32);
        break if next == mover {
            value
        } else {
            value.map(|v| -v)
        };
    };
    LabelledPosition {
        ply,
        position: rules.setup(state).to_string(),
        value,
        moves: rules
            .legal_moves(state)
            .into_iter()
            .map(|mv: Move| (mv.to_string(), None))
            .collect(),
        searched: value.is_some(),
    }
}

/// `state`, settled: its value and each move's, for its mover.
fn label_position<G: Solvable>(
    solver: &dyn ExactSolver<G>,
    nodes: u64,
    ply: u32,
    state: &G::State,
) -> LabelledPosition {
    let rules = solver.rules();
    // A scratch table that cannot be had settles nothing: the position is
    // written unlabelled rather than the run stopped.
    let settle = |s: &G::State| solver.settle(s, nodes).ok().flatten();
    let mover = rules.to_move(state).expect("a position of a game not over");
    let moves: Vec<(String, Option<i32>)> = rules
        .legal_moves(state)
        .into_iter()
        .map(|mv: Move| {
            let mut child = state.clone();
            rules.play_unchecked(&mut child, mv);
            let value = match rules.outcome(&child) {
                Some(outcome) => Some(outcome.margin_for(mover)),
                None => settle(&child).map(|v| match rules.to_move(&child) {
                    Some(next) if next != mover => -v,
                    _ => v,
                }),
            };
            (mv.to_string(), value)
        })
        .collect();
    // Every move settled gives the value without another search.
    let value = if moves.iter().all(|m| m.1.is_some()) {
        moves.iter().filter_map(|m| m.1).max()
    } else {
        settle(state)
    };
    LabelledPosition {
        ply,
        position: rules.setup(state).to_string(),
        value,
        moves,
        searched: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_agents::StopCondition;

    use mancala_core::{KalahRules, OwareRules};

    fn options(games: u64, threads: usize) -> LabelOptions<KalahRules> {
        LabelOptions {
            rules: KalahRules::new(4, 3).unwrap(),
            games,
            agents: vec!["greedy".into(), "minimax:depth=2".into(), "random".into()],
            opening_plies: 2,
            seed: 7,
            nodes: 20_000,
            threads,
            db_seeds: Some(8),
            db_dir: None,
            shard: None,
            max_pit_seeds: None,
            search: None,
            unsettled_search: None,
        }
    }

    /// Labels `o` and checks every settled value against a solver of
    /// its own; returns the run and the values checked.
    fn check_against_solver<G: Solvable>(o: &LabelOptions<G>) -> (LabelRun, usize) {
        let dir = tempfile::tempdir().unwrap();
        let never = AtomicBool::new(false);
        let run = label(o, dir.path(), &(), &never).unwrap();
        assert_eq!(run.games, o.games);
        let games = lines(dir.path());
        assert_eq!(games.len() as u64, o.games);
        let solver =
            mancala_solver::exact_solver(&o.rules, &mancala_solver::SolverOptions::small())
                .unwrap();
        let mut checked = 0;
        for game in &games {
            for p in &game.positions {
                let state = o.rules.parse_position(&p.position).unwrap();
                let Some(value) = p.value else { continue };
                assert_eq!(value, solver.value(&state, StopCondition::NEVER).unwrap());
                if p.moves.iter().all(|m| m.1.is_some()) {
                    let exact = solver.move_values(&state, 1, StopCondition::NEVER).unwrap();
                    let want: Vec<(String, Option<i32>)> = exact
                        .iter()
                        .map(|m| (m.mv.to_string(), Some(m.value)))
                        .collect();
                    assert_eq!(p.moves, want, "{}", p.position);
                }
                checked += 1;
            }
        }
        assert_eq!(
            run.total().positions as usize,
            games.iter().map(|g| g.positions.len()).sum::<usize>()
        );
        (run, checked)
    }

    fn lines(dir: &Path) -> Vec<LabelledGame> {
        let mut all: Vec<LabelledGame> = fs::read_to_string(dir.join(LABELS_FILE))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        all.sort_by_key(|g| g.id);
        all
    }

    #[test]
    fn labels_are_the_solvers_values() {
        let (run, checked) = check_against_solver(&options(6, 2));
        // Kalah(4,3) is small: nearly everything settles.
        let total = run.total();
        assert!(
            checked > 40 && total.settled * 10 > total.positions * 9,
            "{total:?}"
        );
    }

    /// The positions a policy can learn from: each distinct one whose
    /// moves were all settled, once, with the moves of the best value as a
    /// solver finds them; nothing else, and other rules refused.
    #[test]
    fn solved_positions_are_the_fully_settled_ones_with_their_best_moves() {
        let o = LabelOptions {
            max_pit_seeds: Some(14),
            ..options(4, 2)
        };
        let dir = tempfile::tempdir().unwrap();
        label(&o, dir.path(), &(), &AtomicBool::new(false)).unwrap();
        let solver =
            mancala_solver::exact_solver(&o.rules, &mancala_solver::SolverOptions::small())
                .unwrap();
        let mut want = std::collections::HashSet::new();
        for game in lines(dir.path()) {
            for p in &game.positions {
                if p.value.is_some() && p.moves.iter().all(|m| m.1.is_some()) {
                    want.insert(p.position.clone());
                }
            }
        }
        let mut got = Vec::new();
        let dirs = vec![dir.path().to_path_buf()];
        let read = solved_positions(&o.rules, &dirs, &mut |s| got.push(s)).unwrap();
        let positions: usize = lines(dir.path()).iter().map(|g| g.positions.len()).sum();
        assert_eq!(read as usize, positions);
        // Some positions (past the seed cap) are left out, most are kept.
        assert!(
            got.len() < positions && got.len() * 2 > want.len(),
            "{} of {}",
            got.len(),
            positions
        );
        let mut texts = std::collections::HashSet::new();
        for s in &got {
            let text = o.rules.setup(&s.state).to_string();
            assert!(want.contains(&text), "{text} is not fully settled");
            assert!(texts.insert(text.clone()), "{text} twice");
            let values = solver
                .move_values(&s.state, 1, StopCondition::NEVER)
                .unwrap();
            let top = values.iter().map(|m| m.value).max().unwrap();
            assert_eq!(s.margin, top, "{text}");
            let best: Vec<Move> = values
                .iter()
                .filter(|m| m.value == top)
                .map(|m| m.mv)
                .collect();
            assert_eq!(s.best, best, "{text}");
        }
        assert_eq!(texts, want);
        let e = solved_positions(&KalahRules::new(4, 4).unwrap(), &dirs, &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("holds labels of"), "{e}");
    }

    #[test]
    fn congkak_labels_are_the_solvers_values() {
        let k = options(6, 2);
        let Ok(GameSpec::Congkak(rules)) = "congkak:pits=4,seeds=3".parse() else {
            panic!("a Congkak spec")
        };
        let o = LabelOptions {
            rules,
            games: k.games,
            agents: k.agents,
            opening_plies: k.opening_plies,
            seed: k.seed,
            nodes: k.nodes,
            max_pit_seeds: None,
            threads: k.threads,
            db_seeds: Some(6),
            db_dir: None,
            shard: None,
            search: None,
            unsettled_search: None,
        };
        let (run, checked) = check_against_solver(&o);
        let total = run.total();
        assert!(
            checked > 30 && total.settled * 10 > total.positions * 9,
            "{total:?}"
        );
    }

    #[test]
    fn a_forced_move_is_valued_by_the_first_position_with_a_choice_after_it() {
        // Kalah(2,1): south's only seed in pit 2 goes to the store (an extra
        // turn with nothing left: the game ends).
        let rules = KalahRules::new(2, 1).unwrap();
        let spec = AnyAgentSpec::parse("minimax:depth=4").unwrap();
        let mut agent = spec.build(&rules);
        let state = rules.parse_position("0,1/1,1/1,0/0").unwrap();
        let p = search_position(&rules, agent.as_mut(), 0, &state);
        assert_eq!(p.moves.len(), 1);
        let mut after = state;
        rules.play_unchecked(&mut after, rules.legal_moves(&state).nth(0));
        let want = match rules.outcome(&after) {
            Some(o) => o.margin_for(Player::ZERO),
            None => {
                let mut a = spec.build(&rules);
                a.choose(&rules, &after).unwrap();
                let v = a.info().value.unwrap().round() as i32;
                if rules.to_move(&after) == Some(Player::ZERO) {
                    v
                } else {
                    -v
                }
            }
        };
        assert_eq!(p.value, Some(want));
    }

    #[test]
    fn search_labels_are_minimax_values_and_only_minimax_to_a_depth_labels() {
        let never = AtomicBool::new(false);
        let rules = OwareRules::default();
        let o = LabelOptions {
            rules,
            games: 2,
            agents: vec!["greedy".into(), "minimax:depth=2".into()],
            opening_plies: 2,
            seed: 3,
            nodes: 0,
            max_pit_seeds: None,
            threads: 2,
            db_seeds: None,
            db_dir: None,
            shard: None,
            search: Some("minimax:depth=3".into()),
            unsettled_search: None,
        };
        let dir = tempfile::tempdir().unwrap();
        label(&o, dir.path(), &(), &never).unwrap();
        let identity = fs::read_to_string(dir.path().join(LABELS_IDENTITY)).unwrap();
        assert!(
            identity.contains("\"search\": \"minimax:depth=3\""),
            "{identity}"
        );
        let spec = AnyAgentSpec::parse("minimax:depth=3").unwrap();
        let mut checked = 0;
        for game in lines(dir.path()) {
            for p in &game.positions {
                assert!(p.value.is_some() && p.moves.iter().all(|m| m.1.is_none()));
                let state = rules.parse_position(&p.position).unwrap();
                if p.moves.len() == 1 {
                    // A forced move: its value comes from after it.
                    continue;
                }
                let mut agent = spec.build(&rules);
                agent.choose(&rules, &state).unwrap();
                let want = agent.info().value.map(|v| v.round() as i32);
                assert_eq!(p.value, want, "{}", p.position);
                checked += 1;
            }
        }
        assert!(checked > 20, "{checked}");

        for bad in ["mcts:sims=10", "minimax:time=10ms", "greedy", "bogus"] {
            let o = LabelOptions {
                search: Some(bad.into()),
                ..o.clone()
            };
            let dir = tempfile::tempdir().unwrap();
            let e = label(&o, dir.path(), &(), &never).unwrap_err().to_string();
            assert!(e.contains("--search"), "{bad}: {e}");
            assert!(!dir.path().join(LABELS_IDENTITY).exists());
        }
        // Without a search, a board the solver does not take is refused
        // before anything is written.
        let o = LabelOptions { search: None, ..o };
        let dir = tempfile::tempdir().unwrap();
        let e = label(&o, dir.path(), &(), &never).unwrap_err().to_string();
        assert!(e.contains("too large") && e.contains("--search"), "{e}");
        assert!(!dir.path().join(LABELS_IDENTITY).exists());
    }

    #[test]
    fn the_labels_are_the_same_at_any_thread_count_resumed_or_sharded() {
        let never = AtomicBool::new(false);
        let whole = tempfile::tempdir().unwrap();
        label(&options(8, 1), whole.path(), &(), &never).unwrap();
        let want = lines(whole.path());

        let threaded = tempfile::tempdir().unwrap();
        label(&options(8, 2), threaded.path(), &(), &never).unwrap();
        assert_eq!(lines(threaded.path()), want);

        // A run killed mid-line, then resumed.
        let resumed = tempfile::tempdir().unwrap();
        label(&options(8, 2), resumed.path(), &(), &never).unwrap();
        let path = resumed.path().join(LABELS_FILE);
        let text = fs::read_to_string(&path).unwrap();
        let keep: Vec<&str> = text.lines().take(3).collect();
        let torn = &text.lines().nth(3).unwrap()[..20];
        fs::write(&path, format!("{}\n{torn}", keep.join("\n"))).unwrap();
        let run = label(&options(8, 2), resumed.path(), &(), &never).unwrap();
        assert_eq!((run.kept, run.games), (3, 5));
        assert_eq!(lines(resumed.path()), want);

        // Two shards hold the whole run between them.
        let mut sharded = Vec::new();
        for k in 1..=2 {
            let dir = tempfile::tempdir().unwrap();
            let o = LabelOptions {
                shard: Some(Shard::new(k, 2).unwrap()),
                ..options(8, 1)
            };
            label(&o, dir.path(), &(), &never).unwrap();
            sharded.extend(lines(dir.path()));
        }
        sharded.sort_by_key(|g| g.id);
        assert_eq!(sharded, want);
    }

    #[test]
    fn a_folder_of_other_labels_or_damaged_ones_is_refused() {
        let never = AtomicBool::new(false);
        let dir = tempfile::tempdir().unwrap();
        label(&options(2, 1), dir.path(), &(), &never).unwrap();
        let other = LabelOptions {
            nodes: 5,
            ..options(2, 1)
        };
        let e = label(&other, dir.path(), &(), &never)
            .unwrap_err()
            .to_string();
        assert!(e.contains("other options"), "{e}");
        let path = dir.path().join(LABELS_FILE);
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, format!("not json\n{text}")).unwrap();
        let e = label(&options(2, 1), dir.path(), &(), &never)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1"), "{e}");
    }

    #[test]
    fn positions_past_the_seed_cap_are_not_searched_and_others_are_unchanged() {
        let never = AtomicBool::new(false);
        let full = tempfile::tempdir().unwrap();
        label(&options(6, 2), full.path(), &(), &never).unwrap();
        let capped_dir = tempfile::tempdir().unwrap();
        let capped = LabelOptions {
            max_pit_seeds: Some(12),
            ..options(6, 2)
        };
        label(&capped, capped_dir.path(), &(), &never).unwrap();
        let identity = fs::read_to_string(capped_dir.path().join(LABELS_IDENTITY)).unwrap();
        assert!(identity.contains("\"max_pit_seeds\": 12"), "{identity}");
        let seeds = |p: &LabelledPosition| -> u32 {
            let rows: Vec<&str> = p.position.split('/').collect();
            rows[..2]
                .iter()
                .flat_map(|r| r.split(','))
                .map(|n| n.parse::<u32>().unwrap())
                .sum()
        };
        let (mut above, mut dropped) = (0, 0);
        for (a, b) in lines(full.path()).iter().zip(lines(capped_dir.path())) {
            assert_eq!(a.id, b.id);
            for (p, q) in a.positions.iter().zip(&b.positions) {
                assert_eq!(p.position, q.position);
                if seeds(p) <= 12 {
                    assert_eq!(p, q, "below the cap nothing changes");
                } else {
                    above += 1;
                    // Whatever is still settled (the database, the end of
                    // the game) is right.
                    assert!(q.value.is_none() || q.value == p.value, "{q:?}");
                    dropped += usize::from(p.value.is_some() && q.value.is_none());
                }
            }
        }
        assert!(
            above > 20 && dropped > 10,
            "{above} above the cap, {dropped} dropped"
        );
    }

    #[test]
    fn an_unsettled_search_values_what_the_solver_leaves_and_nothing_else() {
        let never = AtomicBool::new(false);
        let capped = LabelOptions {
            max_pit_seeds: Some(12),
            ..options(6, 2)
        };
        let exact_dir = tempfile::tempdir().unwrap();
        label(&capped, exact_dir.path(), &(), &never).unwrap();
        let mixed = LabelOptions {
            unsettled_search: Some("minimax:depth=3".into()),
            ..capped.clone()
        };
        let mixed_dir = tempfile::tempdir().unwrap();
        let run = label(&mixed, mixed_dir.path(), &(), &never).unwrap();
        let identity = fs::read_to_string(mixed_dir.path().join(LABELS_IDENTITY)).unwrap();
        assert!(
            identity.contains("\"unsettled_search\": \"minimax:depth=3\""),
            "{identity}"
        );
        let rules = capped.rules;
        let spec = labelling_search(&rules, "minimax:depth=3", "--unsettled-search").unwrap();
        let mut agent = spec.build(&rules);
        let mut searched = 0;
        for (a, b) in lines(exact_dir.path()).iter().zip(lines(mixed_dir.path())) {
            for (p, q) in a.positions.iter().zip(&b.positions) {
                assert_eq!(p.moves, q.moves, "moves keep the solver's values");
                if p.value.is_some() {
                    assert_eq!(p, q, "what the solver settles is kept");
                    continue;
                }
                // The rest get the search's value of the position.
                assert!(q.searched && q.value.is_some(), "{q:?}");
                let state = rules.parse_position(&q.position).unwrap();
                let expected = search_position(&rules, agent.as_mut(), q.ply, &state);
                assert_eq!(q.value, expected.value, "{q:?}");
                searched += 1;
            }
        }
        assert!(searched > 10, "{searched} positions searched");
        assert_eq!(run.total().searched, searched as u64);
        // With --search the solver is not used: nothing is left to it.
        let both = LabelOptions {
            search: Some("minimax:depth=3".into()),
            ..mixed
        };
        let dir = tempfile::tempdir().unwrap();
        let e = label(&both, dir.path(), &(), &never)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--unsettled-search"), "{e}");
    }
}
