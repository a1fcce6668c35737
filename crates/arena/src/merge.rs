//! Sharded tournaments: the label a shard's folder carries, and merging
//! shard folders back into one tournament's games.
//!
//! A tournament too long for one machine is split into `N` shards
//! ([`Shard`]): each machine plays one contiguous block of the schedule
//! into its own folder, whose `tournament.json` is the tournament's
//! identity plus a `shard` entry (a [`ShardStamp`]). [`open_shards`] reads
//! the labels of the folders to merge and checks that they are shards of
//! one tournament split one way; [`ShardSet::collect`] then reads their
//! games (each checked against the plan, as a resumed run checks its log),
//! one per planned game in id order, and says which games are missing and
//! which were found twice. Writing the merged folder and its summary is
//! the caller's: it is an ordinary tournament folder.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use mancala_core::{Game, GameSpec};

use crate::config::TournamentConfig;
use crate::identity::Identity;
use crate::log::{first_difference, lock_holder, read_folder, read_json, GameLog, LogError};
use crate::log::{OutputDir, LOCK_FILE};
use crate::moves::MoveTable;
use crate::record::{timeless_json, GameRecord, RecordMismatch};
use crate::report::Summary;
use crate::runner::Arena;
use crate::schedule::{ScheduledGame, Shard};
use crate::tournament::{write_results, Prepared, TournamentError};

/// The key of `tournament.json` that marks a shard's folder.
pub const SHARD_KEY: &str = "shard";

/// What a shard's `tournament.json` holds under [`SHARD_KEY`]: which shard
/// it is, and what the merged summary needs that the games do not say.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardStamp {
    /// Which shard, from 1.
    pub index: u64,
    /// Of how many.
    pub count: u64,
    /// The config's `ratings.anchor` (an agent's name, or `None` for mean
    /// 0): the merged ratings are anchored as a single run's would be.
    pub ratings_anchor: Option<String>,
}

impl ShardStamp {
    /// The stamp of `shard`.
    pub fn new(shard: Shard, ratings_anchor: Option<&str>) -> ShardStamp {
        ShardStamp {
            index: shard.index(),
            count: shard.count(),
            ratings_anchor: ratings_anchor.map(str::to_string),
        }
    }

    /// The shard it names.
    ///
    /// # Errors
    /// A [`crate::ShardError`] for a stamp that names no shard (`index`
    /// 0 or above `count`).
    pub fn shard(&self) -> Result<Shard, crate::ShardError> {
        Shard::new(self.index, self.count)
    }
}

/// The `tournament.json` of a shard's folder: the tournament's `identity`
/// (an object) with `stamp` added under [`SHARD_KEY`].
///
/// # Panics
/// If `identity` does not serialise to a JSON object.
pub fn shard_identity(identity: &impl Serialize, stamp: &ShardStamp) -> Value {
    let mut value = serde_json::to_value(identity).expect("identity serialises");
    let object = value
        .as_object_mut()
        .expect("a tournament's identity is a JSON object");
    object.insert(
        SHARD_KEY.to_string(),
        serde_json::to_value(stamp).expect("stamp serialises"),
    );
    value
}

/// What a tournament folder's `tournament.json` says it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct FolderIdentity {
    /// The tournament's identity, without any shard stamp: what a single
    /// run of the whole tournament writes.
    pub tournament: Value,
    /// The shard stamp, for a shard's folder.
    pub stamp: Option<ShardStamp>,
}

/// The label of the tournament folder `dir`, or `None` when it has no
/// `tournament.json` (a new or empty folder).
///
/// # Errors
/// [`MergeError::Log`] when the file cannot be read or is not JSON,
/// [`MergeError::BadStamp`] for a `shard` entry that names no shard.
pub fn read_identity(dir: &Path) -> Result<Option<FolderIdentity>, MergeError> {
    let path = dir.join(crate::folder::IDENTITY_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let mut tournament = read_json(&path)?;
    let stamp = match tournament.as_object_mut().and_then(|o| o.remove(SHARD_KEY)) {
        None => None,
        Some(v) => {
            let bad = |why: String| MergeError::BadStamp {
                path: path.display().to_string(),
                why,
            };
            let stamp: ShardStamp = serde_json::from_value(v).map_err(|e| bad(e.to_string()))?;
            stamp.shard().map_err(|e| bad(e.to_string()))?;
            Some(stamp)
        }
    };
    Ok(Some(FolderIdentity { tournament, stamp }))
}

/// A game found in two places with different contents: both are valid
/// games of the plan (a move timeout can end the same game differently on
/// two machines), so neither can be chosen.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// The game.
    pub id: u64,
    /// The folder whose copy was read first.
    pub first: PathBuf,
    /// The folder that disagrees.
    pub second: PathBuf,
    /// The first field that differs.
    pub what: String,
}

/// The planned games that no folder holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Gaps {
    /// Games in the schedule.
    pub planned: u64,
    /// The missing games' ids, in order.
    pub missing: Vec<u64>,
    /// Shards with games to play for which no folder was given.
    pub absent: Vec<Shard>,
    /// The folders given, by shard.
    pub folders: Vec<(Shard, PathBuf)>,
}

impl Gaps {
    /// Whether every planned game is there.
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty()
    }
}

impl fmt::Display for Gaps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} games are missing:",
            self.missing.len(),
            self.planned
        )?;
        let Some(count) = self
            .absent
            .first()
            .map(|s| s.count())
            .or(self.folders.first().map(|(s, _)| s.count()))
        else {
            return write!(f, " {}", id_ranges(&self.missing));
        };
        let mut by_shard: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for &id in &self.missing {
            let shard = Shard::of_game(id, self.planned, count);
            by_shard.entry(shard.index()).or_default().push(id);
        }
        for (index, ids) in by_shard {
            let shard = Shard::new(index, count).expect("a shard of the plan");
            let range = shard.range(self.planned);
            let all = ids.len() as u64 == range.end - range.start;
            let folders: Vec<String> = self
                .folders
                .iter()
                .filter(|(s, _)| *s == shard)
                .map(|(_, p)| p.display().to_string())
                .collect();
            write!(
                f,
                "\n  shard {shard} (games {}): ",
                id_ranges(&(range.start..range.end).collect::<Vec<_>>())
            )?;
            if folders.is_empty() {
                if all {
                    write!(f, "no folder was given")?;
                } else {
                    write!(f, "no folder was given; missing games {}", id_ranges(&ids))?;
                }
            } else {
                write!(
                    f,
                    "{} of its {} games are not in {} (a run that stopped early: run it again \
                     to finish): {}",
                    ids.len(),
                    range.end - range.start,
                    folders.join(" or "),
                    id_ranges(&ids)
                )?;
            }
        }
        Ok(())
    }
}

/// Ids as ranges, `0-4, 7, 9-12`, the first twenty of them.
pub fn id_ranges(ids: &[u64]) -> String {
    const SHOWN: usize = 20;
    let mut ranges: Vec<Range<u64>> = Vec::new();
    for &id in ids {
        match ranges.last_mut() {
            Some(r) if r.end == id => r.end = id + 1,
            _ => ranges.push(id..id + 1),
        }
    }
    let mut text: Vec<String> = ranges
        .iter()
        .take(SHOWN)
        .map(|r| {
            if r.end - r.start == 1 {
                r.start.to_string()
            } else {
                format!("{}-{}", r.start, r.end - 1)
            }
        })
        .collect();
    if ranges.len() > SHOWN {
        text.push(format!("and {} more ranges", ranges.len() - SHOWN));
    }
    if text.is_empty() {
        "none".into()
    } else {
        text.join(", ")
    }
}

/// Shard folders that cannot be merged.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MergeError {
    /// Nothing to merge.
    #[error("no shard folders given")]
    NoFolders,
    /// A folder that is not a tournament's.
    #[error("{path} is not a tournament folder (it has no tournament.json)")]
    NotATournament {
        /// The folder.
        path: String,
    },
    /// A folder of a whole tournament, not of a shard.
    #[error(
        "{path} holds a tournament run whole, not a shard (its tournament.json has no `{SHARD_KEY}`): \
         there is nothing to merge it with"
    )]
    NotAShard {
        /// The folder.
        path: String,
    },
    /// A `shard` entry that cannot be read.
    #[error("{path}: key `{SHARD_KEY}`: {why}")]
    BadStamp {
        /// The `tournament.json`.
        path: String,
        /// Why.
        why: String,
    },
    /// Shards of two different tournaments.
    #[error(
        "{path} is a shard of a different tournament than {first} ({what}); merge the shards \
         of one tournament only"
    )]
    DifferentTournament {
        /// The folder that differs.
        path: String,
        /// The first folder given.
        first: String,
        /// What differs.
        what: String,
    },
    /// Shards of one tournament split in two different ways.
    #[error(
        "{path} is shard {shard} but {first} is shard {first_shard}: all shards must come from \
         one split (the same N)"
    )]
    DifferentCount {
        /// The folder that differs.
        path: String,
        /// Its shard.
        shard: Shard,
        /// The first folder given.
        first: String,
        /// Its shard.
        first_shard: Shard,
    },
    /// A run is still writing a folder.
    #[error("{path} is in use by a run (process {pid}); wait for it to end")]
    InUse {
        /// The folder.
        path: String,
        /// The process that holds it, as it wrote it.
        pid: String,
    },
    /// A folder's log cannot be read or fails the checks.
    #[error(transparent)]
    Log(#[from] LogError),
    /// Games found twice with different contents.
    #[error("{}", conflicts_message(.0))]
    Conflicts(Vec<Conflict>),
    /// Planned games that no folder holds.
    #[error("{0}")]
    Incomplete(Gaps),
    /// The shards' tournament, as their `tournament.json` says it, is not
    /// one this version can merge (or not a tournament at all).
    #[error("{path}: {why}")]
    BadTournament {
        /// The first folder's `tournament.json`.
        path: String,
        /// Why.
        why: String,
    },
    /// The output folder is one of the shards'.
    #[error("--output {path} is one of the shard folders; merge into a new folder")]
    OutputIsShard {
        /// The folder.
        path: String,
    },
    /// The merged folder's own log (of an earlier merge or run) cannot be
    /// read or written.
    #[error(transparent)]
    Merged(LogError),
    /// The ratings and summary of the merged games cannot be made or
    /// written.
    #[error(transparent)]
    Results(Box<TournamentError>),
}

fn conflicts_message(conflicts: &[Conflict]) -> String {
    const SHOWN: usize = 10;
    let mut text = format!(
        "{} game{} differ between folders (both copies are valid games, so neither is chosen; \
         delete the wrong shard folder, or the game's line from one log):",
        conflicts.len(),
        if conflicts.len() == 1 { "" } else { "s" }
    );
    for c in conflicts.iter().take(SHOWN) {
        text.push_str(&format!(
            "\n  game {}: {} and {}: {}",
            c.id,
            c.first.display(),
            c.second.display(),
            c.what
        ));
    }
    if conflicts.len() > SHOWN {
        text.push_str(&format!("\n  and {} more", conflicts.len() - SHOWN));
    }
    text
}

/// One shard folder to merge.
#[derive(Clone, Debug)]
pub struct ShardFolder {
    /// The folder, as given.
    pub path: PathBuf,
    /// Its shard.
    pub shard: Shard,
    /// Its `tournament.json`, whole.
    label: Value,
}

/// Shard folders of one tournament, checked to belong together.
#[derive(Clone, Debug)]
pub struct ShardSet {
    tournament: Value,
    count: u64,
    ratings_anchor: Option<String>,
    folders: Vec<ShardFolder>,
    repeated: Vec<PathBuf>,
}

/// Reads the labels of the shard folders `dirs` and checks that they are
/// shards of one tournament, split into one number of shards, and that no
/// run is still writing one. A folder given twice (the same folder by two
/// paths, say) is read once; see [`ShardSet::repeated`].
///
/// # Errors
/// [`MergeError`]: no folders, a folder that is not a shard's, shards of
/// different tournaments or splits, a folder in use, a label that cannot
/// be read.
pub fn open_shards(dirs: &[PathBuf]) -> Result<ShardSet, MergeError> {
    let mut folders: Vec<ShardFolder> = Vec::with_capacity(dirs.len());
    let mut seen: Vec<PathBuf> = Vec::with_capacity(dirs.len());
    let mut repeated = Vec::new();
    let mut first: Option<(FolderIdentity, ShardFolder)> = None;
    for dir in dirs {
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        if seen.contains(&canonical) {
            repeated.push(dir.clone());
            continue;
        }
        seen.push(canonical);
        let (identity, folder) = read_shard_folder(dir)?;
        match &first {
            None => first = Some((identity, folder.clone())),
            Some(first) => check_same_split(first, &identity, &folder)?,
        }
        folders.push(folder);
    }
    let Some((reference, _)) = first else {
        return Err(MergeError::NoFolders);
    };
    let stamp = reference.stamp.expect("the first is a shard");
    Ok(ShardSet {
        tournament: reference.tournament,
        count: stamp.count,
        ratings_anchor: stamp.ratings_anchor,
        folders,
        repeated,
    })
}

/// The identity and label of shard folder `dir`.
///
/// # Errors
/// When `dir` is not a tournament's folder or not a shard's, a run is
/// writing it, or its label cannot be read.
fn read_shard_folder(dir: &Path) -> Result<(FolderIdentity, ShardFolder), MergeError> {
    let shown = dir.display().to_string();
    if !dir.is_dir() {
        return Err(MergeError::NotATournament { path: shown });
    }
    let Some(identity) = read_identity(dir)? else {
        return Err(MergeError::NotATournament { path: shown });
    };
    let Some(stamp) = identity.stamp.clone() else {
        return Err(MergeError::NotAShard { path: shown });
    };
    if let Some(pid) = lock_holder(dir) {
        return Err(MergeError::InUse { path: shown, pid });
    }
    let shard = stamp.shard().expect("read_identity checks the stamp");
    let folder = ShardFolder {
        path: dir.to_path_buf(),
        shard,
        label: read_json(&dir.join(crate::folder::IDENTITY_FILE))?,
    };
    Ok((identity, folder))
}

/// Checks that `folder` (whose identity is `identity`) holds a shard of the
/// same tournament as the `first` folder, split into as many shards, with
/// the same rating anchor: only such shards merge into one tournament.
fn check_same_split(
    first: &(FolderIdentity, ShardFolder),
    identity: &FolderIdentity,
    folder: &ShardFolder,
) -> Result<(), MergeError> {
    let (reference, first_folder) = first;
    let shown = folder.path.display().to_string();
    let stamp = identity.stamp.as_ref().expect("read_shard_folder checks");
    let differs = |what: String| MergeError::DifferentTournament {
        path: shown.clone(),
        first: first_folder.path.display().to_string(),
        what,
    };
    if identity.tournament != reference.tournament {
        return Err(differs(first_difference(
            &reference.tournament,
            &identity.tournament,
        )));
    }
    let first_stamp = reference.stamp.as_ref().expect("the first is a shard");
    if stamp.count != first_stamp.count {
        return Err(MergeError::DifferentCount {
            path: shown,
            shard: folder.shard,
            first: first_folder.path.display().to_string(),
            first_shard: first_folder.shard,
        });
    }
    if stamp.ratings_anchor != first_stamp.ratings_anchor {
        let show = |a: &Option<String>| {
            a.as_ref()
                .map_or("none (mean 0)".to_string(), |n| format!("'{n}'"))
        };
        return Err(differs(format!(
            "the rating anchor differs: {} there, {} here",
            show(&first_stamp.ratings_anchor),
            show(&stamp.ratings_anchor)
        )));
    }
    Ok(())
}

/// The games of a merge, one per planned game found, and what is wrong
/// with the set without making it unusable.
#[derive(Clone, Debug)]
pub struct Merged {
    /// The games, in id order, each once.
    pub records: Vec<GameRecord>,
    /// Planned games not found (empty when the merge is complete).
    pub gaps: Gaps,
    /// Shards given by more than one folder: their games were compared,
    /// and kept once.
    pub duplicate_shards: Vec<(Shard, Vec<PathBuf>)>,
    /// Games found in more than one shard folder with the same contents
    /// (the durations aside), kept once: the first folder's copy.
    pub duplicate_games: Vec<u64>,
    /// Games found both in the earlier results passed to
    /// [`ShardSet::collect`] and in a shard folder, the same.
    pub already_there: u64,
}

impl Merged {
    /// The error for a merge with missing games, if it has any.
    pub fn incomplete(&self) -> Option<MergeError> {
        (!self.gaps.is_empty()).then(|| MergeError::Incomplete(self.gaps.clone()))
    }
}

impl ShardSet {
    /// The tournament's identity without a shard stamp: the merged
    /// folder's `tournament.json`, as a single run would write it.
    pub fn tournament(&self) -> &Value {
        &self.tournament
    }

    /// How many shards the tournament was split into.
    pub fn shard_count(&self) -> u64 {
        self.count
    }

    /// The rating anchor the shards were run with (`None`: mean 0).
    pub fn ratings_anchor(&self) -> Option<&str> {
        self.ratings_anchor.as_deref()
    }

    /// The folders, as given, each once.
    pub fn folders(&self) -> &[ShardFolder] {
        &self.folders
    }

    /// Folders given more than once (after the first time).
    pub fn repeated(&self) -> &[PathBuf] {
        &self.repeated
    }

    /// Reads every folder's games. Each must be a game of `schedule` (the
    /// tournament's whole plan), of its folder's shard, and pass `check`
    /// (which should replay it, as a resumed run does). `earlier` are games
    /// already merged (the output folder's, when a merge is run again):
    /// they are kept, and a shard's copy must agree with them.
    ///
    /// Games found twice must be the same apart from their duration (the
    /// first copy is kept); a game found twice with different contents is
    /// an error. Missing games are not: see [`Merged::gaps`] and
    /// [`Merged::incomplete`].
    ///
    /// # Errors
    /// [`MergeError::Log`] for a log that cannot be read or a record that
    /// fails the checks, [`MergeError::Conflicts`] for games that differ.
    pub fn collect(
        &self,
        schedule: &[ScheduledGame],
        check: &dyn Fn(&ScheduledGame, &GameRecord) -> Result<(), RecordMismatch>,
        earlier: Option<(&Path, Vec<GameRecord>)>,
    ) -> Result<Merged, MergeError> {
        let planned = schedule.len() as u64;
        let Gathered {
            games,
            duplicate_games,
            already_there,
        } = self.gather(schedule, check, earlier)?;
        let (absent, duplicate_shards) = self.shard_coverage(planned);
        let missing = (0..planned).filter(|id| !games.contains_key(id)).collect();
        Ok(Merged {
            records: games.into_values().map(|(r, _)| r).collect(),
            gaps: Gaps {
                planned,
                missing,
                absent,
                folders: self
                    .folders
                    .iter()
                    .map(|f| (f.shard, f.path.clone()))
                    .collect(),
            },
            duplicate_shards,
            duplicate_games,
            already_there,
        })
    }

    /// Reads the `earlier` games and then every folder's (as
    /// [`ShardSet::collect`] says), each game once.
    ///
    /// # Errors
    /// As [`ShardSet::collect`].
    fn gather(
        &self,
        schedule: &[ScheduledGame],
        check: &dyn Fn(&ScheduledGame, &GameRecord) -> Result<(), RecordMismatch>,
        earlier: Option<(&Path, Vec<GameRecord>)>,
    ) -> Result<Gathered, MergeError> {
        // Each game with the folder it came from (index into `sources`).
        let mut games: BTreeMap<u64, (GameRecord, usize)> = BTreeMap::new();
        let mut sources: Vec<PathBuf> = Vec::new();
        let mut from_shards = 0;
        if let Some((path, records)) = earlier {
            sources.push(path.to_path_buf());
            from_shards = 1;
            for r in records {
                games.insert(r.id, (r, 0));
            }
        }
        let mut conflicts = Vec::new();
        let mut duplicate_games = Vec::new();
        let mut already_there = 0;
        for folder in &self.folders {
            let records = read_folder(
                &folder.path,
                &folder.label,
                schedule,
                Some(folder.shard),
                check,
            )?;
            let source = sources.len();
            sources.push(folder.path.clone());
            for r in records {
                match games.get(&r.id) {
                    None => {
                        games.insert(r.id, (r, source));
                    }
                    Some((kept, from)) => match difference(kept, &r) {
                        None if *from < from_shards => already_there += 1,
                        None => duplicate_games.push(r.id),
                        Some(what) => conflicts.push(Conflict {
                            id: r.id,
                            first: sources[*from].clone(),
                            second: folder.path.clone(),
                            what,
                        }),
                    },
                }
            }
        }
        if !conflicts.is_empty() {
            conflicts.sort_by_key(|c| c.id);
            return Err(MergeError::Conflicts(conflicts));
        }
        duplicate_games.sort_unstable();
        duplicate_games.dedup();
        Ok(Gathered {
            games,
            duplicate_games,
            already_there,
        })
    }

    /// Which of the tournament's `planned` games' shards no folder gives
    /// (only shards with games count), and which more than one folder
    /// gives, with those folders.
    fn shard_coverage(&self, planned: u64) -> (Vec<Shard>, Vec<(Shard, Vec<PathBuf>)>) {
        let mut by_shard: BTreeMap<u64, Vec<PathBuf>> = BTreeMap::new();
        for f in &self.folders {
            by_shard
                .entry(f.shard.index())
                .or_default()
                .push(f.path.clone());
        }
        let absent = (1..=self.count)
            .map(|k| Shard::new(k, self.count).expect("1 <= k <= count"))
            .filter(|s| !by_shard.contains_key(&s.index()) && !s.range(planned).is_empty())
            .collect();
        let duplicate_shards = by_shard
            .iter()
            .filter(|(_, paths)| paths.len() > 1)
            .map(|(&k, paths)| {
                (
                    Shard::new(k, self.count).expect("a folder's shard"),
                    paths.clone(),
                )
            })
            .collect();
        (absent, duplicate_shards)
    }
}

/// The games a merge found, before the gaps are counted.
struct Gathered {
    /// Each game, with the index of the folder it came from.
    games: BTreeMap<u64, (GameRecord, usize)>,
    /// As [`Merged::duplicate_games`].
    duplicate_games: Vec<u64>,
    /// As [`Merged::already_there`].
    already_there: u64,
}

/// What differs between two records of one game, their timings aside
/// (the fields that vary between identical runs).
fn difference(a: &GameRecord, b: &GameRecord) -> Option<String> {
    let (a, b) = (timeless_json(a), timeless_json(b));
    (a != b).then(|| first_difference(&a, &b))
}

/// Shard folders opened for a merge: their set, and the tournament they
/// are shards of, as its `tournament.json` says.
pub struct MergeSource {
    /// The folders.
    pub set: ShardSet,
    /// The tournament's identity.
    pub identity: Identity,
    /// Its config, as a single run of it would read it.
    pub config: TournamentConfig,
    /// Its game.
    pub spec: GameSpec,
    /// The first folder's `tournament.json`, for messages.
    pub origin: String,
}

/// Opens the shard folders `dirs` and reads the tournament they are shards
/// of. The caller then prepares that tournament for its game (with the
/// adjudicator that ended its games, if any) and calls [`merge_shards`].
///
/// # Errors
/// As [`open_shards`]; [`MergeError::BadTournament`] for a tournament this
/// version cannot read back.
pub fn open_merge(dirs: &[PathBuf]) -> Result<MergeSource, MergeError> {
    let set = open_shards(dirs)?;
    let origin = set.folders()[0]
        .path
        .join(crate::folder::IDENTITY_FILE)
        .display()
        .to_string();
    let bad = |why: String| MergeError::BadTournament {
        path: origin.clone(),
        why,
    };
    let identity = Identity::from_value(set.tournament())
        .map_err(|e| bad(format!("not a tournament this program can merge: {e}")))?;
    let config = identity
        .config(set.ratings_anchor())
        .map_err(|e| bad(e.to_string()))?;
    let spec: GameSpec = config
        .game
        .parse()
        .map_err(|e| bad(format!("key `game`: {e}")))?;
    Ok(MergeSource {
        set,
        identity,
        config,
        spec,
        origin,
    })
}

/// What [`merge_shards`] did, and what it noticed on the way.
#[derive(Debug)]
pub struct MergeOutcome {
    /// Games in the merged folder.
    pub games: u64,
    /// Games the tournament plans.
    pub planned: u64,
    /// Games that were in the output folder already and in a shard, the
    /// same.
    pub already_there: u64,
    /// Folders given more than once (read once).
    pub repeated: Vec<PathBuf>,
    /// Shards given by more than one folder, with the folders.
    pub duplicate_shards: Vec<(Shard, Vec<PathBuf>)>,
    /// Games found in more than one folder, the same, kept once.
    pub duplicate_games: Vec<u64>,
    /// The games missing from a partial merge (`allow_partial`): then no
    /// ratings are written.
    pub gaps: Option<Gaps>,
    /// The merged tournament's summary, written beside its games, when
    /// none is missing.
    pub summary: Option<Summary>,
}

impl MergeOutcome {
    /// What the merge noticed without refusing it, one sentence each:
    /// folders given twice, shards in several folders, games found twice.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings: Vec<String> = self
            .repeated
            .iter()
            .map(|p| format!("{} was given twice; read once", p.display()))
            .collect();
        warnings.extend(self.duplicate_shards.iter().map(|(shard, paths)| {
            let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            format!(
                "shard {shard} is in {} folders: {}",
                paths.len(),
                paths.join(", ")
            )
        }));
        if !self.duplicate_games.is_empty() {
            warnings.push(format!(
                "{} games were found more than once, the same each time, and kept once: {}",
                self.duplicate_games.len(),
                id_ranges(&self.duplicate_games)
            ));
        }
        warnings
    }
}

/// Merges the folders of `source` into `output`, whose games are kept (an
/// earlier merge or run of the same tournament): every game is checked
/// by replaying it with `prepared` (the tournament prepared for its game,
/// with the adjudicator that ended its games), written once, and when
/// none is missing the ratings and summary are written as a single run of
/// the tournament writes them. With `allow_partial`, the games found are
/// written even when some are missing, and no ratings. A refused merge
/// leaves no new folder behind.
///
/// # Errors
/// [`MergeError::BadTournament`] when `prepared` would not write the
/// shards' `tournament.json`; [`MergeError::OutputIsShard`];
/// [`MergeError::Log`] for a shard's log, [`MergeError::Merged`] for the
/// output folder's; [`MergeError::Incomplete`] for missing games without
/// `allow_partial`; [`MergeError::Conflicts`]; [`MergeError::Results`].
pub fn merge_shards<G: Game>(
    source: &MergeSource,
    prepared: &Prepared<'_, G>,
    output: &Path,
    allow_partial: bool,
) -> Result<MergeOutcome, MergeError> {
    let set = &source.set;
    let Prepared {
        arena,
        plan,
        identity,
    } = prepared;
    let label = identity.to_value();
    check_merge_target(source, &label, output)?;
    let created = !output.exists();
    let out = OutputDir::claim(output).map_err(MergeError::Merged)?;
    let check = |planned: &_, record: &_| arena.check_record(planned, record);
    let collected = read_folder(output, &label, plan, None, &check)
        .map_err(MergeError::Merged)
        .and_then(|earlier| set.collect(plan, &check, Some((output, earlier))))
        .and_then(|merged| match merged.incomplete() {
            Some(e) if !allow_partial => Err(e),
            _ => Ok(merged),
        });
    let merged = match collected {
        Ok(merged) => merged,
        Err(e) => {
            if created {
                remove_new_folder(out, output);
            }
            return Err(e);
        }
    };
    let (log, _) = GameLog::open(out, &label, plan, &check).map_err(MergeError::Merged)?;
    let _out = log.finish(&merged.records).map_err(MergeError::Merged)?;
    let complete = merged.gaps.is_empty();
    let summary = if complete {
        Some(write_merged_results(
            source,
            arena,
            &merged.records,
            output,
            plan.len() as u64,
        )?)
    } else {
        None
    };
    Ok(MergeOutcome {
        games: merged.records.len() as u64,
        planned: plan.len() as u64,
        already_there: merged.already_there,
        repeated: set.repeated().to_vec(),
        duplicate_shards: merged.duplicate_shards,
        duplicate_games: merged.duplicate_games,
        gaps: (!complete).then_some(merged.gaps),
        summary,
    })
}

/// Refuses to merge `source` into `output` where the merged folder would
/// not be what a single run writes: the shards' tournament is not `label`,
/// the one this version prepares, or `output` is one of the shard folders.
fn check_merge_target(
    source: &MergeSource,
    label: &Value,
    output: &Path,
) -> Result<(), MergeError> {
    let set = &source.set;
    if *label != *set.tournament() {
        // The merged folder must be what a single run writes: refuse
        // labels this version would not write for the same tournament.
        return Err(MergeError::BadTournament {
            path: source.origin.clone(),
            why: "the tournament it describes is not one this version of mancala writes; merge \
                  with the version that ran the shards"
                .into(),
        });
    }
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    if let Some(f) = set
        .folders()
        .iter()
        .find(|f| canonical(&f.path) == canonical(output))
    {
        return Err(MergeError::OutputIsShard {
            path: f.path.display().to_string(),
        });
    }
    Ok(())
}

/// Leaves no empty folder behind a refused merge: releases `out`'s lock
/// and removes `output`, which the merge created (only if it is empty).
fn remove_new_folder(out: OutputDir, output: &Path) {
    let lock = out.path().join(LOCK_FILE);
    drop(out);
    let _ = std::fs::remove_file(lock);
    let _ = std::fs::remove_dir(output);
}

/// Rates the complete merged `records` (of `planned` games, played in
/// `arena`) and writes the results into `output` as a single run of
/// `source`'s tournament writes them.
///
/// # Errors
/// [`MergeError::Results`].
fn write_merged_results<G: Game>(
    source: &MergeSource,
    arena: &Arena<'_, G>,
    records: &[GameRecord],
    output: &Path,
    planned: u64,
) -> Result<Summary, MergeError> {
    let mut moves = MoveTable::default();
    for r in records {
        moves.add(arena.game, r);
    }
    write_results(
        output,
        &source.config,
        &arena.players.names,
        &arena.players.specs,
        &source.spec.to_string(),
        records,
        &moves,
        planned,
    )
    .map_err(|e| MergeError::Results(Box::new(e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A tournament of 12 games in 3 shards, recorded by hand: the merge
    /// logic does not depend on what the games are.
    const GAMES: u64 = 12;

    fn plan() -> Vec<ScheduledGame> {
        (0..GAMES)
            .map(|id| ScheduledGame {
                id,
                pair: 0,
                round: id as u32,
                opening: 0,
                seats: [0, 1],
            })
            .collect()
    }

    fn record(id: u64) -> GameRecord {
        GameRecord {
            id,
            pair: 0,
            round: id as u32,
            opening: 0,
            game: "kalah".into(),
            players: ["a".into(), "b".into()],
            agents: ["random".into(), "greedy".into()],
            seats: [0, 1],
            seed: id,
            start: None,
            opening_moves: String::new(),
            moves: "1 2".into(),
            scores: [24, 24],
            winner: None,
            margin: 0,
            plies: 2,
            duration_ms: 1.5 * id as f64,
            end: "normal".into(),
            error: None,
            move_us: Vec::new(),
            clock_ms: Vec::new(),
            search: Vec::new(),
        }
    }

    fn accept(_: &ScheduledGame, _: &GameRecord) -> Result<(), RecordMismatch> {
        Ok(())
    }

    fn identity(seed: u64) -> Value {
        serde_json::json!({"name": "t", "game": "kalah", "agents": [["a", "random"], ["b", "greedy"]], "seed": seed})
    }

    /// Writes shard `k` of `n` of the tournament with `seed` into
    /// `root/name`, with the games `ids`.
    fn shard_folder(root: &Path, name: &str, k: u64, n: u64, seed: u64, ids: &[u64]) -> PathBuf {
        let dir = root.join(name);
        fs::create_dir_all(&dir).unwrap();
        let stamp = ShardStamp::new(Shard::new(k, n).unwrap(), None);
        let label = shard_identity(&identity(seed), &stamp);
        fs::write(dir.join("tournament.json"), label.to_string()).unwrap();
        let lines: String = ids
            .iter()
            .map(|&id| serde_json::to_string(&record(id)).unwrap() + "\n")
            .collect();
        fs::write(dir.join("games.jsonl"), lines).unwrap();
        dir
    }

    fn all_shards(root: &Path) -> Vec<PathBuf> {
        (1..=3)
            .map(|k| {
                let ids: Vec<u64> = Shard::new(k, 3).unwrap().range(GAMES).collect();
                shard_folder(root, &format!("s{k}"), k, 3, 1, &ids)
            })
            .collect()
    }

    #[test]
    fn complete_shards_merge_into_every_game_once_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let mut dirs = all_shards(tmp.path());
        dirs.reverse();
        let set = open_shards(&dirs).unwrap();
        assert_eq!(set.tournament(), &identity(1));
        assert_eq!(set.shard_count(), 3);
        assert_eq!(set.ratings_anchor(), None);
        let merged = set.collect(&plan(), &accept, None).unwrap();
        let ids: Vec<u64> = merged.records.iter().map(|r| r.id).collect();
        assert_eq!(ids, (0..GAMES).collect::<Vec<_>>());
        assert_eq!(merged.records[5], record(5));
        assert!(merged.gaps.is_empty() && merged.incomplete().is_none());
        assert!(merged.duplicate_shards.is_empty() && merged.duplicate_games.is_empty());
    }

    #[test]
    fn missing_shards_and_games_are_listed_by_shard() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = all_shards(tmp.path());
        // Shard 2 (games 4-7) stopped after game 5; shard 3 was never run.
        shard_folder(tmp.path(), "s2", 2, 3, 1, &[4, 5]);
        let set = open_shards(&dirs[..2]).unwrap();
        let merged = set.collect(&plan(), &accept, None).unwrap();
        assert_eq!(merged.gaps.missing, [6, 7, 8, 9, 10, 11]);
        assert_eq!(merged.gaps.absent, [Shard::new(3, 3).unwrap()]);
        let e = merged.incomplete().unwrap().to_string();
        let s2 = dirs[1].display();
        assert_eq!(
            e,
            format!(
                "6 of 12 games are missing:\n  shard 2/3 (games 4-7): 2 of its 4 games are not \
                 in {s2} (a run that stopped early: run it again to finish): 6-7\n  shard 3/3 \
                 (games 8-11): no folder was given"
            )
        );
    }

    #[test]
    fn a_shard_given_twice_is_reported_and_its_games_kept_once() {
        let tmp = tempfile::tempdir().unwrap();
        let mut dirs = all_shards(tmp.path());
        // The same folder twice is read once.
        dirs.push(dirs[0].clone());
        let set = open_shards(&dirs).unwrap();
        assert_eq!(set.repeated(), [dirs[0].clone()]);
        // A copy of shard 1 with other durations: the same games.
        let copy = shard_folder(tmp.path(), "copy", 1, 3, 1, &[0, 1, 2, 3]);
        let lines = fs::read_to_string(copy.join("games.jsonl"))
            .unwrap()
            .replace("\"duration_ms\":0.0", "\"duration_ms\":9.0");
        fs::write(copy.join("games.jsonl"), lines).unwrap();
        dirs.push(copy.clone());
        let merged = open_shards(&dirs)
            .unwrap()
            .collect(&plan(), &accept, None)
            .unwrap();
        assert_eq!(
            merged.duplicate_shards,
            [(Shard::new(1, 3).unwrap(), vec![dirs[0].clone(), copy])]
        );
        assert_eq!(merged.duplicate_games, [0, 1, 2, 3]);
        // The first copy is kept.
        assert_eq!(merged.records[0].duration_ms, 0.0);
        assert_eq!(merged.records.len(), GAMES as usize);
    }

    #[test]
    fn a_game_recorded_differently_twice_is_a_conflict() {
        let tmp = tempfile::tempdir().unwrap();
        let mut dirs = all_shards(tmp.path());
        let copy = shard_folder(tmp.path(), "copy", 1, 3, 1, &[0, 1, 2, 3]);
        let mut other = record(2);
        other.winner = Some(0);
        let lines = [0, 1, 3]
            .iter()
            .map(|&id| serde_json::to_string(&record(id)).unwrap())
            .chain([serde_json::to_string(&other).unwrap()])
            .collect::<Vec<_>>()
            .join("\n");
        fs::write(copy.join("games.jsonl"), lines + "\n").unwrap();
        dirs.push(copy.clone());
        let e = open_shards(&dirs)
            .unwrap()
            .collect(&plan(), &accept, None)
            .unwrap_err();
        let MergeError::Conflicts(c) = &e else {
            panic!("{e}")
        };
        assert_eq!(
            c,
            &[Conflict {
                id: 2,
                first: dirs[0].clone(),
                second: copy,
                what: "`winner` differs: was null, now 0".into()
            }]
        );
        assert!(e.to_string().contains("1 game differ"), "{e}");
    }

    #[test]
    fn earlier_results_are_kept_and_must_agree() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = all_shards(tmp.path());
        let set = open_shards(&dirs[..2]).unwrap();
        let out = tmp.path().join("out");
        // The output folder already holds games 0-1 and (played there)
        // shard 3's games: nothing is missing, nothing reported twice.
        let earlier: Vec<GameRecord> = [0, 1, 8, 9, 10, 11].map(record).to_vec();
        let merged = set
            .collect(&plan(), &accept, Some((&out, earlier)))
            .unwrap();
        assert!(merged.gaps.is_empty(), "{}", merged.gaps);
        assert_eq!(merged.already_there, 2);
        assert!(merged.duplicate_games.is_empty());
        let mut wrong = record(1);
        wrong.margin = 3;
        let e = set
            .collect(&plan(), &accept, Some((&out, vec![wrong])))
            .unwrap_err();
        assert!(matches!(e, MergeError::Conflicts(_)), "{e}");
    }

    #[test]
    fn shards_of_other_tournaments_or_splits_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = all_shards(tmp.path());
        let other = shard_folder(tmp.path(), "other", 2, 3, 99, &[]);
        let e = open_shards(&[dirs[0].clone(), other]).unwrap_err();
        assert!(
            matches!(&e, MergeError::DifferentTournament { what, .. } if what == "`seed` differs: was 1, now 99"),
            "{e}"
        );
        let split = shard_folder(tmp.path(), "split", 2, 4, 1, &[]);
        let e = open_shards(&[dirs[0].clone(), split]).unwrap_err();
        assert!(matches!(e, MergeError::DifferentCount { .. }), "{e}");
        assert!(e.to_string().contains("is shard 2/4 but"), "{e}");
        let anchored = tmp.path().join("anchored");
        fs::create_dir(&anchored).unwrap();
        let stamp = ShardStamp::new(Shard::new(2, 3).unwrap(), Some("a"));
        fs::write(
            anchored.join("tournament.json"),
            shard_identity(&identity(1), &stamp).to_string(),
        )
        .unwrap();
        let e = open_shards(&[dirs[0].clone(), anchored]).unwrap_err();
        assert!(e.to_string().contains("rating anchor differs"), "{e}");
    }

    #[test]
    fn folders_that_are_not_shards_are_refused_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(matches!(open_shards(&[]), Err(MergeError::NoFolders)));
        let e = open_shards(&[tmp.path().join("nowhere")]).unwrap_err();
        assert!(matches!(e, MergeError::NotATournament { .. }), "{e}");
        let whole = tmp.path().join("whole");
        fs::create_dir(&whole).unwrap();
        fs::write(whole.join("tournament.json"), identity(1).to_string()).unwrap();
        let e = open_shards(std::slice::from_ref(&whole)).unwrap_err();
        assert!(matches!(e, MergeError::NotAShard { .. }), "{e}");
        let mut bad = identity(1);
        bad["shard"] = serde_json::json!({"index": 4, "count": 3, "ratings_anchor": null});
        fs::write(whole.join("tournament.json"), bad.to_string()).unwrap();
        let e = open_shards(&[whole]).unwrap_err();
        assert!(matches!(e, MergeError::BadStamp { .. }), "{e}");
        assert!(e.to_string().contains("4/3"), "{e}");
    }

    #[test]
    fn a_game_of_another_shard_in_a_folder_is_refused_with_its_line() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = all_shards(tmp.path());
        shard_folder(tmp.path(), "s1", 1, 3, 1, &[0, 1, 5]);
        let e = open_shards(&dirs)
            .unwrap()
            .collect(&plan(), &accept, None)
            .unwrap_err();
        assert!(
            e.to_string()
                .ends_with("line 3: game 5 belongs to shard 2/3, not to this folder's shard 1/3"),
            "{e}"
        );
    }

    #[test]
    fn a_folder_still_being_written_is_not_merged() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = all_shards(tmp.path());
        let held = crate::OutputDir::claim(&dirs[1]).unwrap();
        let e = open_shards(&dirs).unwrap_err();
        assert!(
            matches!(&e, MergeError::InUse { pid, .. } if *pid == std::process::id().to_string()),
            "{e}"
        );
        drop(held);
        open_shards(&dirs).unwrap();
    }

    #[test]
    fn id_ranges_are_short() {
        assert_eq!(id_ranges(&[]), "none");
        assert_eq!(id_ranges(&[0, 1, 2, 4, 6, 7]), "0-2, 4, 6-7");
        let many: Vec<u64> = (0..50).map(|i| 2 * i).collect();
        assert!(id_ranges(&many).ends_with("38, and 30 more ranges"));
    }
}
