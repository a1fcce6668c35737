//! The game log of a tournament's output folder: `games.jsonl` (full
//! records) and `games.csv` (one row per game), appended and flushed after
//! every game, read back to resume.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use crate::record::{GameRecord, RecordMismatch};
use crate::schedule::{ScheduledGame, Shard};

/// Problems with an output folder.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LogError {
    /// A file cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The folder holds results of a different tournament.
    #[error("{path} belongs to a different tournament ({what}); delete the folder or choose another `output` or `name`")]
    Mismatch {
        /// The identity file.
        path: String,
        /// What differs.
        what: String,
    },
    /// Another run holds the folder's lock.
    #[error("{path} is in use by another run (process {pid}); wait for it to end, or choose another output folder")]
    Locked {
        /// The folder.
        path: String,
        /// The process that holds it, as it wrote in the lock file.
        pid: String,
    },
    /// The folder holds files that no tournament wrote, and no tournament.
    #[error(
        "{path} is not a tournament folder (it holds {file}); choose a new or empty output folder"
    )]
    Foreign {
        /// The folder.
        path: String,
        /// One of its files.
        file: String,
    },
    /// A line of the log cannot be read (not the last line, which may be
    /// cut by a crash and is dropped), or records a game that this
    /// tournament cannot have played.
    #[error("{path}, line {line}: {why}")]
    Corrupt {
        /// The log.
        path: String,
        /// 1-based line.
        line: usize,
        /// Why.
        why: String,
    },
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> LogError + '_ {
    move |source| LogError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Every file a tournament writes in its folder: what `--fresh` deletes,
/// and what may be in a folder without making it someone else's.
pub const TOURNAMENT_FILES: &[&str] = &[
    crate::folder::IDENTITY_FILE,
    crate::folder::GAMES_FILE,
    "games.csv",
    crate::folder::SUMMARY_FILE,
    "ratings.csv",
    "moves.json",
    "report.html",
    LOCK_FILE,
];

/// Whether `name` is a file of `mancala report --format md` written into
/// the folder: `report.md` and its charts, `report-*.svg`.
fn is_markdown_report(name: &str) -> bool {
    name == "report.md" || (name.starts_with("report-") && name.ends_with(".svg"))
}

/// The lock file, held by the run that writes the folder.
pub const LOCK_FILE: &str = ".lock";

/// The subfolder where external engines' standard error is kept, one
/// `NAME.K.stderr` file per engine instance.
pub const ENGINE_LOG_DIR: &str = "engines";

/// A tournament's output folder, held exclusively while the run lasts (an
/// OS file lock, released when the process ends however it ends), so that
/// two runs never write into one folder.
#[derive(Debug)]
pub struct OutputDir {
    dir: PathBuf,
    _lock: FolderLock,
}

/// The lock of an output folder, held by the one run that writes it: an
/// OS file lock on its `.lock` file, released when the process ends
/// however it ends. Tournaments hold it through [`OutputDir`]; analyses
/// that write a folder take it directly.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

impl FolderLock {
    /// Takes the lock of the existing folder `dir`.
    ///
    /// # Errors
    /// [`LogError::Locked`] when another run holds it, naming the process
    /// it wrote in the lock file; [`LogError::Io`] when the lock file
    /// cannot be made.
    pub fn take(dir: &Path) -> Result<FolderLock, LogError> {
        let lock_path = dir.join(LOCK_FILE);
        let lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(io(&lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let pid = fs::read_to_string(&lock_path).unwrap_or_default();
                return Err(LogError::Locked {
                    path: dir.display().to_string(),
                    pid: if pid.trim().is_empty() {
                        "unknown".into()
                    } else {
                        pid.trim().to_string()
                    },
                });
            }
            Err(fs::TryLockError::Error(e)) => return Err(io(&lock_path)(e)),
        }
        // Only for the message a second run prints; the lock is the OS's.
        lock.set_len(0)
            .and_then(|()| (&lock).write_all(std::process::id().to_string().as_bytes()))
            .map_err(io(&lock_path))?;
        Ok(FolderLock { _file: lock })
    }
}

impl OutputDir {
    /// Creates `dir` if needed and takes its lock. The folder must be new,
    /// empty, or a tournament's (it has `tournament.json`): a run never
    /// writes into, or deletes from, a folder of other files.
    ///
    /// # Errors
    /// [`LogError::Locked`] when another run holds it, [`LogError::Foreign`]
    /// for a folder of other files, [`LogError::Io`] when it cannot be made.
    pub fn claim(dir: &Path) -> Result<OutputDir, LogError> {
        if dir.exists() && !dir.is_dir() {
            return Err(LogError::Io {
                path: dir.display().to_string(),
                source: std::io::Error::other("exists and is not a folder"),
            });
        }
        fs::create_dir_all(dir).map_err(io(dir))?;
        let id_path = dir.join(crate::folder::IDENTITY_FILE);
        if id_path.exists() {
            // Only a tournament.json of ours makes the folder a tournament's.
            let ours = fs::read(&id_path)
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                .is_some_and(|v| v.get("agents").is_some() && v.get("game").is_some());
            if !ours {
                return Err(LogError::Foreign {
                    path: dir.display().to_string(),
                    file: "a tournament.json that no tournament of this program wrote".into(),
                });
            }
        } else {
            for entry in fs::read_dir(dir).map_err(io(dir))? {
                let name = entry.map_err(io(dir))?.file_name();
                let name = name.to_string_lossy();
                let ours = TOURNAMENT_FILES.contains(&name.as_ref())
                    || name.ends_with(".tmp")
                    || is_markdown_report(&name);
                if !ours {
                    return Err(LogError::Foreign {
                        path: dir.display().to_string(),
                        file: name.into_owned(),
                    });
                }
            }
        }
        Ok(OutputDir {
            dir: dir.to_path_buf(),
            _lock: FolderLock::take(dir)?,
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Deletes the files a tournament writes (`--fresh`), and nothing else.
    ///
    /// # Errors
    /// [`LogError::Io`] when a file cannot be deleted.
    pub fn clear(&self) -> Result<(), LogError> {
        for entry in fs::read_dir(&self.dir).map_err(io(&self.dir))? {
            let entry = entry.map_err(io(&self.dir))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let ours = (TOURNAMENT_FILES.contains(&name.as_ref()) && name != LOCK_FILE)
                || name.ends_with(".tmp")
                || is_markdown_report(&name);
            if ours && entry.path().is_file() {
                fs::remove_file(entry.path()).map_err(io(&entry.path()))?;
            }
        }
        // Engine logs, and the folder if nothing else is in it.
        let logs = self.dir.join(ENGINE_LOG_DIR);
        if logs.is_dir() {
            for entry in fs::read_dir(&logs).map_err(io(&logs))? {
                let path = entry.map_err(io(&logs))?.path();
                if path.is_file() && path.extension().is_some_and(|e| e == "stderr") {
                    fs::remove_file(&path).map_err(io(&path))?;
                }
            }
            let _ = fs::remove_dir(&logs);
        }
        Ok(())
    }
}

/// The CSV columns, one row per game.
pub const CSV_HEADER: &[&str] = &[
    "id",
    "pair",
    "round",
    "opening",
    "player0",
    "player1",
    "winner",
    "score0",
    "score1",
    "margin",
    "plies",
    "duration_ms",
    "end",
    "error",
];

fn csv_row(r: &GameRecord) -> Vec<String> {
    vec![
        r.id.to_string(),
        r.pair.to_string(),
        r.round.to_string(),
        r.opening.to_string(),
        r.players[0].clone(),
        r.players[1].clone(),
        r.winner.map_or("draw".to_string(), |w| w.to_string()),
        r.scores[0].to_string(),
        r.scores[1].to_string(),
        r.margin.to_string(),
        r.plies.to_string(),
        format!("{:.3}", r.duration_ms),
        r.end.clone(),
        r.error.as_deref().map(printable).unwrap_or_default(),
    ]
}

/// `text` with its control characters escaped as Rust writes them (`\n`,
/// `\u{0}`): an error can quote an engine's raw output, and a NUL, an
/// escape sequence or a line break would make `games.csv` binary, paint
/// a terminal or split a row. `games.jsonl` keeps the exact text.
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A game as the lines it adds to `games.jsonl` and `games.csv`.
#[derive(Clone, Debug)]
pub struct EncodedRecord {
    id: u64,
    json: String,
    csv: Vec<u8>,
}

impl EncodedRecord {
    /// Encodes `record` for both files.
    pub fn new(record: &GameRecord) -> EncodedRecord {
        let mut json = serde_json::to_string(record).expect("records serialise");
        json.push('\n');
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.write_record(csv_row(record))
            .expect("writing to memory cannot fail");
        let csv = w.into_inner().expect("writing to memory cannot fail");
        EncodedRecord {
            id: record.id,
            json,
            csv,
        }
    }
}

/// An open game log.
pub struct GameLog {
    /// Held until the log is finished: the folder stays locked.
    dir: OutputDir,
    jsonl_path: PathBuf,
    csv_path: PathBuf,
    jsonl: BufWriter<File>,
    csv: BufWriter<File>,
    /// Every game in the files, in file order: its id and the bytes of
    /// its line in each file, so that the end of a run can put the lines in
    /// id order without encoding a record again.
    lines: Vec<LineSpan>,
}

/// Where one game is in the log's files: its id and its lines' lengths.
#[derive(Clone, Copy)]
struct LineSpan {
    id: u64,
    json: u32,
    csv: u32,
}

impl GameLog {
    /// Opens the claimed folder for the tournament described by `identity`
    /// (any serialisable description that must match to resume). Returns
    /// the log and the games already recorded there. Each record must be
    /// a game of `schedule` and pass `check` (which replays it), so that an
    /// edited or foreign log cannot change the results unnoticed.
    ///
    /// # Errors
    /// [`LogError`] when the folder is of another tournament, a log line is
    /// corrupt or fails the check, or a file cannot be written.
    pub fn open(
        out: OutputDir,
        identity: &impl Serialize,
        schedule: &[ScheduledGame],
        check: &dyn Fn(&ScheduledGame, &GameRecord) -> Result<(), RecordMismatch>,
    ) -> Result<(GameLog, Vec<GameRecord>), LogError> {
        GameLog::open_shard(out, identity, schedule, None, check)
    }

    /// [`GameLog::open`] for a run that plays only `shard` of `schedule`
    /// (the whole schedule when `None`): a record of a game outside the
    /// shard is refused like a foreign line. `identity` should say which
    /// shard this is, so that a rerun as another shard is refused too.
    ///
    /// # Errors
    /// As [`GameLog::open`].
    pub fn open_shard(
        out: OutputDir,
        identity: &impl Serialize,
        schedule: &[ScheduledGame],
        shard: Option<Shard>,
        check: &dyn Fn(&ScheduledGame, &GameRecord) -> Result<(), RecordMismatch>,
    ) -> Result<(GameLog, Vec<GameRecord>), LogError> {
        let dir = out.path();
        let id_path = dir.join("tournament.json");
        let identity = serde_json::to_value(identity).expect("identity serialises");
        // Records are checked before the folder is labelled, so a log left
        // without its tournament.json is not adopted by another tournament.
        let done = read_folder(dir, &identity, schedule, shard, check)?;
        let jsonl_path = dir.join(crate::folder::GAMES_FILE);
        let csv_path = dir.join("games.csv");
        if !id_path.exists() {
            let text = serde_json::to_string_pretty(&identity).expect("identity serialises");
            let tmp = id_path.with_extension("json.tmp");
            fs::write(&tmp, text + "\n").map_err(io(&tmp))?;
            fs::rename(&tmp, &id_path).map_err(io(&id_path))?;
        }
        // Rewrite both files from what was read: drops a line cut by a
        // crash, and makes the CSV agree with the JSON log.
        let lines = write_all(&jsonl_path, &csv_path, &done)?;
        let jsonl = OpenOptions::new()
            .append(true)
            .open(&jsonl_path)
            .map_err(io(&jsonl_path))?;
        let csv_file = OpenOptions::new()
            .append(true)
            .open(&csv_path)
            .map_err(io(&csv_path))?;
        let log = GameLog {
            dir: out,
            jsonl: BufWriter::new(jsonl),
            csv: BufWriter::new(csv_file),
            jsonl_path,
            csv_path,
            lines,
        };
        Ok((log, done))
    }

    /// Appends one game to both files and flushes them.
    ///
    /// # Errors
    /// [`LogError::Io`] when writing fails.
    pub fn append(&mut self, record: &GameRecord) -> Result<(), LogError> {
        self.append_encoded(&EncodedRecord::new(record))
    }

    /// Appends a game encoded beforehand (so that workers can encode in
    /// parallel and only the writes are serialised), and flushes both files.
    ///
    /// # Errors
    /// [`LogError::Io`] when writing fails.
    pub fn append_encoded(&mut self, encoded: &EncodedRecord) -> Result<(), LogError> {
        self.lines.push(LineSpan {
            id: encoded.id,
            json: encoded.json.len() as u32,
            csv: encoded.csv.len() as u32,
        });
        self.jsonl
            .write_all(encoded.json.as_bytes())
            .and_then(|()| self.jsonl.flush())
            .map_err(io(&self.jsonl_path))?;
        let csv = self.csv.get_mut();
        csv.write_all(&encoded.csv)
            .and_then(|()| csv.flush())
            .map_err(io(&self.csv_path))
    }

    /// Rewrites both files in game-id order, so that a finished tournament's
    /// files are the same whatever the thread count: `records` are the
    /// games the files hold. The lines written are moved, not encoded
    /// again (files already in id order, as a run on one thread writes
    /// them, are left as they are); files that do not hold what this log
    /// wrote are written anew from `records`.
    ///
    /// # Errors
    /// [`LogError::Io`] when writing fails.
    pub fn finish(self, records: &[GameRecord]) -> Result<OutputDir, LogError> {
        let GameLog {
            dir,
            jsonl_path,
            csv_path,
            jsonl,
            csv,
            lines,
        } = self;
        drop((jsonl, csv));
        let complete = lines.len() == records.len();
        if complete && lines.windows(2).all(|w| w[0].id < w[1].id) {
            return Ok(dir);
        }
        if !complete || !sort_lines(&jsonl_path, &csv_path, &lines)? {
            write_all(&jsonl_path, &csv_path, records)?;
        }
        Ok(dir)
    }
}

/// The games recorded in the tournament folder `dir`, without writing
/// anything: what [`GameLog::open_shard`] would resume from. The folder's
/// `tournament.json`, if it has one, must be `identity`; every record must
/// be a game of `schedule` (of `shard` of it, if given) and pass `check`.
/// A folder without a log has no games.
///
/// # Errors
/// [`LogError::Mismatch`] when the folder is of another tournament (or
/// another shard), [`LogError::Corrupt`] for a line that cannot be read or
/// fails the check, [`LogError::Io`] when a file cannot be read.
pub fn read_folder(
    dir: &Path,
    identity: &serde_json::Value,
    schedule: &[ScheduledGame],
    shard: Option<Shard>,
    check: &dyn Fn(&ScheduledGame, &GameRecord) -> Result<(), RecordMismatch>,
) -> Result<Vec<GameRecord>, LogError> {
    let id_path = dir.join("tournament.json");
    if id_path.exists() {
        let old = read_json(&id_path)?;
        if old != *identity {
            return Err(LogError::Mismatch {
                path: dir.display().to_string(),
                what: first_difference(&old, identity),
            });
        }
    }
    read_records(&dir.join(crate::folder::GAMES_FILE), schedule, shard, check)
}

/// A JSON file, parsed.
pub(crate) fn read_json(path: &Path) -> Result<serde_json::Value, LogError> {
    let text = fs::read_to_string(path).map_err(io(path))?;
    serde_json::from_str(&text).map_err(|e| LogError::Corrupt {
        path: path.display().to_string(),
        line: e.line(),
        why: e.to_string(),
    })
}

/// Whether another process holds the lock of the tournament folder `dir`
/// (a run still writing it): its process id as it wrote it, or `None`.
/// Takes nothing: only a shared lock for a moment, so that it works on
/// read-only copies of a folder too (which no run can be writing).
pub fn lock_holder(dir: &Path) -> Option<String> {
    let path = dir.join(LOCK_FILE);
    let file = File::open(&path).ok()?;
    match file.try_lock_shared() {
        Err(fs::TryLockError::WouldBlock) => {
            let pid = fs::read_to_string(&path).unwrap_or_default();
            Some(if pid.trim().is_empty() {
                "unknown".into()
            } else {
                pid.trim().to_string()
            })
        }
        // Unlocked when `file` is dropped. A file system without locks
        // cannot tell: trust it, as a run there could not lock either.
        Ok(()) | Err(fs::TryLockError::Error(_)) => None,
    }
}

/// Reads the JSON log; a missing file is an empty log. The last line may
/// have been cut by a crash or a full disk (even inside a character): it is
/// dropped, and that game is played again.
fn read_records(
    path: &Path,
    schedule: &[ScheduledGame],
    shard: Option<Shard>,
    check: &dyn Fn(&ScheduledGame, &GameRecord) -> Result<(), RecordMismatch>,
) -> Result<Vec<GameRecord>, LogError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(path)(e)),
    };
    let corrupt = |line: usize, why: String| LogError::Corrupt {
        path: path.display().to_string(),
        line,
        why,
    };
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let last = lines
        .iter()
        .rposition(|l| !l.trim_ascii().is_empty())
        .unwrap_or(0);
    let mut records: Vec<GameRecord> = Vec::with_capacity(lines.len());
    let mut seen = std::collections::HashSet::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim_ascii().is_empty() {
            continue;
        }
        let parsed = std::str::from_utf8(line)
            .map_err(|e| format!("not UTF-8 text ({e})"))
            .and_then(|text| serde_json::from_str::<GameRecord>(text).map_err(|e| e.to_string()));
        let record = match parsed {
            Ok(r) => r,
            Err(_) if i == last => break,
            Err(why) => return Err(corrupt(i + 1, why)),
        };
        let planned = usize::try_from(record.id)
            .ok()
            .and_then(|id| schedule.get(id))
            .filter(|g| g.id == record.id);
        let Some(planned) = planned else {
            return Err(corrupt(
                i + 1,
                format!("game {} is not in this tournament's schedule", record.id),
            ));
        };
        let games = schedule.len() as u64;
        if let Some(shard) = shard.filter(|s| !s.contains(record.id, games)) {
            return Err(corrupt(
                i + 1,
                format!(
                    "game {} belongs to shard {}, not to this folder's shard {shard}",
                    record.id,
                    Shard::of_game(record.id, games, shard.count())
                ),
            ));
        }
        check(planned, &record)
            .map_err(|why| corrupt(i + 1, format!("game {}: {why}", record.id)))?;
        if seen.insert(record.id) {
            records.push(record);
        }
    }
    records.sort_by_key(|r| r.id);
    Ok(records)
}

/// Writes both files whole (through a temporary file and a rename, so a
/// crash leaves either the old or the new file).
/// Puts the lines of both files in id order, `lines` saying where each
/// game's lines are; `false` (and nothing written) when the files are not
/// as long as `lines` says.
fn sort_lines(jsonl_path: &Path, csv_path: &Path, lines: &[LineSpan]) -> Result<bool, LogError> {
    let jsonl = fs::read(jsonl_path).map_err(io(jsonl_path))?;
    let csv = fs::read(csv_path).map_err(io(csv_path))?;
    let json_total: usize = lines.iter().map(|l| l.json as usize).sum();
    let csv_total: usize = lines.iter().map(|l| l.csv as usize).sum();
    let Some(header) = csv.len().checked_sub(csv_total) else {
        return Ok(false);
    };
    if jsonl.len() != json_total {
        return Ok(false);
    }
    // Each game's lines as byte ranges of the two files, then by id.
    let mut at = (0usize, header);
    let mut ranges = Vec::with_capacity(lines.len());
    for l in lines {
        let (json, csv) = (l.json as usize, l.csv as usize);
        ranges.push((l.id, at.0..at.0 + json, at.1..at.1 + csv));
        at = (at.0 + json, at.1 + csv);
    }
    ranges.sort_by_key(|r| r.0);
    let json_lines = ranges.iter().map(|r| &jsonl[r.1.clone()]);
    write_lines(jsonl_path, &[], json_lines)?;
    let csv_lines = ranges.iter().map(|r| &csv[r.2.clone()]);
    write_lines(csv_path, &csv[..header], csv_lines)?;
    Ok(true)
}

/// Replaces the file at `path` with `head` and then `lines`, through a
/// temporary file renamed over it.
fn write_lines<'a>(
    path: &Path,
    head: &[u8],
    lines: impl Iterator<Item = &'a [u8]>,
) -> Result<(), LogError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("log");
    let tmp = path.with_extension(format!("{ext}.tmp"));
    {
        let mut w = BufWriter::new(File::create(&tmp).map_err(io(&tmp))?);
        w.write_all(head).map_err(io(&tmp))?;
        for line in lines {
            w.write_all(line).map_err(io(&tmp))?;
        }
        w.flush().map_err(io(&tmp))?;
    }
    fs::rename(&tmp, path).map_err(io(path))
}

/// Writes `records` into both files in id order; returns where each game's
/// lines are.
fn write_all(
    jsonl_path: &Path,
    csv_path: &Path,
    records: &[GameRecord],
) -> Result<Vec<LineSpan>, LogError> {
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.id);
    let mut header = csv::WriterBuilder::new().from_writer(Vec::new());
    header
        .write_record(CSV_HEADER)
        .expect("writing to memory cannot fail");
    let header = header.into_inner().expect("writing to memory cannot fail");
    let (json_tmp, csv_tmp) = (
        jsonl_path.with_extension("jsonl.tmp"),
        csv_path.with_extension("csv.tmp"),
    );
    let mut spans = Vec::with_capacity(sorted.len());
    {
        let mut json = BufWriter::new(File::create(&json_tmp).map_err(io(&json_tmp))?);
        let mut csv = BufWriter::new(File::create(&csv_tmp).map_err(io(&csv_tmp))?);
        csv.write_all(&header).map_err(io(&csv_tmp))?;
        for r in &sorted {
            let encoded = EncodedRecord::new(r);
            json.write_all(encoded.json.as_bytes())
                .map_err(io(&json_tmp))?;
            csv.write_all(&encoded.csv).map_err(io(&csv_tmp))?;
            spans.push(LineSpan {
                id: r.id,
                json: encoded.json.len() as u32,
                csv: encoded.csv.len() as u32,
            });
        }
        json.flush().map_err(io(&json_tmp))?;
        csv.flush().map_err(io(&csv_tmp))?;
    }
    fs::rename(&json_tmp, jsonl_path).map_err(io(jsonl_path))?;
    fs::rename(&csv_tmp, csv_path).map_err(io(csv_path))?;
    Ok(spans)
}

/// The first key whose values differ, for a readable mismatch message.
pub(crate) fn first_difference(old: &serde_json::Value, new: &serde_json::Value) -> String {
    match (old, new) {
        (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
            for (k, v) in b {
                match a.get(k) {
                    Some(w) if w == v => {}
                    Some(w) => return format!("`{k}` differs: was {w}, now {v}"),
                    None => return format!("`{k}` is new"),
                }
            }
            a.keys()
                .find(|k| !b.contains_key(*k))
                .map_or("the configuration differs".into(), |k| {
                    format!("`{k}` is gone")
                })
        }
        _ => "the configuration differs".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: u64, name: &str) -> GameRecord {
        GameRecord {
            id,
            pair: 0,
            round: id as u32,
            opening: 0,
            game: "kalah".into(),
            players: [name.into(), "b".into()],
            agents: ["random".into(), "greedy".into()],
            seats: [0, 1],
            seed: 1,
            start: None,
            opening_moves: String::new(),
            moves: "1 2".into(),
            scores: [24, 24],
            winner: None,
            margin: 0,
            plies: 2,
            duration_ms: 1.0,
            end: "normal".into(),
            error: None,
            move_us: Vec::new(),
            clock_ms: Vec::new(),
            search: Vec::new(),
        }
    }

    fn plan(n: u64) -> Vec<ScheduledGame> {
        (0..n)
            .map(|id| ScheduledGame {
                id,
                pair: 0,
                round: id as u32,
                opening: 0,
                seats: [0, 1],
            })
            .collect()
    }

    fn accept(_: &ScheduledGame, _: &GameRecord) -> Result<(), RecordMismatch> {
        Ok(())
    }

    #[test]
    fn control_characters_of_an_error_are_escaped_in_the_csv_and_kept_in_the_json() {
        let mut r = record(0, "a");
        let raw = "engine said 'x\u{0}y\u{1b}[31m\r\nz\u{7f}' \u{85}ok";
        r.error = Some(raw.into());
        let encoded = EncodedRecord::new(&r);
        let csv = String::from_utf8(encoded.csv.clone()).unwrap();
        let row = csv.strip_suffix('\n').unwrap();
        assert!(!row.chars().any(char::is_control), "{row:?}");
        assert!(
            row.ends_with(r"engine said 'x\u{0}y\u{1b}[31m\r\nz\u{7f}' \u{85}ok"),
            "{row}"
        );
        let back: GameRecord = serde_json::from_str(&encoded.json).unwrap();
        assert_eq!(back.error.as_deref(), Some(raw));
    }

    #[test]
    fn a_last_line_torn_inside_a_character_is_dropped_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.jsonl");
        let mut bytes = Vec::new();
        for id in 0..2 {
            bytes.extend(serde_json::to_vec(&record(id, "ñandú")).unwrap());
            bytes.push(b'\n');
        }
        let third = serde_json::to_vec(&record(2, "ñandú")).unwrap();
        let cut = third.iter().position(|&b| b >= 0x80).unwrap() + 1;
        bytes.extend(&third[..cut]);
        fs::write(&path, &bytes).unwrap();
        let records = read_records(&path, &plan(3), None, &accept).unwrap();
        assert_eq!(records.iter().map(|r| r.id).collect::<Vec<_>>(), [0, 1]);

        // The same damage before the last line is corruption, with its line.
        let mut middle = third[..cut].to_vec();
        middle.push(b'\n');
        middle.extend(serde_json::to_vec(&record(0, "a")).unwrap());
        fs::write(&path, &middle).unwrap();
        let e = read_records(&path, &plan(3), None, &accept).unwrap_err();
        assert!(
            matches!(e, LogError::Corrupt { line: 1, .. }) && e.to_string().contains("UTF-8"),
            "{e}"
        );
    }

    #[test]
    fn a_record_that_fails_the_check_is_refused_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.jsonl");
        let lines: Vec<String> = (0..3)
            .map(|id| serde_json::to_string(&record(id, "a")).unwrap())
            .collect();
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        let reject_one = |_: &ScheduledGame, r: &GameRecord| {
            if r.id == 1 {
                Err(RecordMismatch("the winner is wrong".to_string()))
            } else {
                Ok(())
            }
        };
        let e = read_records(&path, &plan(3), None, &reject_one).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}, line 2: game 1: the winner is wrong", path.display())
        );
        let e = read_records(&path, &plan(1), None, &accept).unwrap_err();
        assert!(e.to_string().contains("not in this tournament's schedule"));
    }

    /// The two files of a folder after a run that resumed `done` and
    /// appended `order`, then finished.
    fn finished(done: &[u64], order: &[u64]) -> (Vec<u8>, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let all = plan(8);
        let id = serde_json::json!({"game": "kalah", "agents": []});
        if !done.is_empty() {
            let (mut log, _) =
                GameLog::open(OutputDir::claim(&out).unwrap(), &id, &all, &accept).unwrap();
            for &id in done {
                log.append(&record(id, "a, \"quoted\"\nname")).unwrap();
            }
            // Stopped: the log holds the games in the order they came.
        }
        let (mut log, resumed) =
            GameLog::open(OutputDir::claim(&out).unwrap(), &id, &all, &accept).unwrap();
        let mut records = resumed;
        for &id in order {
            let r = record(id, "a, \"quoted\"\nname");
            log.append(&r).unwrap();
            records.push(r);
        }
        log.finish(&records).unwrap();
        (
            fs::read(out.join("games.jsonl")).unwrap(),
            fs::read(out.join("games.csv")).unwrap(),
        )
    }

    #[test]
    fn a_finished_log_is_in_id_order_however_its_games_came() {
        // The reference: every game encoded anew, in id order.
        let dir = tempfile::tempdir().unwrap();
        let records: Vec<GameRecord> = (0..8).map(|id| record(id, "a, \"quoted\"\nname")).collect();
        let lines = write_all(
            &dir.path().join("g.jsonl"),
            &dir.path().join("g.csv"),
            &records,
        )
        .unwrap();
        assert_eq!(lines.len(), 8);
        let expected = (
            fs::read(dir.path().join("g.jsonl")).unwrap(),
            fs::read(dir.path().join("g.csv")).unwrap(),
        );
        // Lines moved into order (a CSV line with a quoted line break
        // included), left in order, and after a resume.
        assert_eq!(finished(&[], &[3, 0, 7, 1, 2, 6, 4, 5]), expected);
        assert_eq!(finished(&[], &[0, 1, 2, 3, 4, 5, 6, 7]), expected);
        assert_eq!(finished(&[5, 1, 6], &[0, 7, 2, 3, 4]), expected);
        assert_eq!(finished(&[0, 1, 2], &[3, 4, 5, 6, 7]), expected);
    }

    #[test]
    fn one_folder_has_one_writer() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let first = OutputDir::claim(&out).unwrap();
        let e = OutputDir::claim(&out).unwrap_err();
        assert!(
            matches!(&e, LogError::Locked { pid, .. } if *pid == std::process::id().to_string()),
            "{e}"
        );
        drop(first);
        OutputDir::claim(&out).unwrap();
    }

    #[test]
    fn only_a_tournaments_own_files_are_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        fs::create_dir(&out).unwrap();
        fs::write(out.join("thesis.txt"), "x").unwrap();
        assert!(matches!(
            OutputDir::claim(&out),
            Err(LogError::Foreign { .. })
        ));
        fs::write(out.join("tournament.json"), "{\"x\": 1}").unwrap();
        assert!(matches!(
            OutputDir::claim(&out),
            Err(LogError::Foreign { .. })
        ));
        fs::write(
            out.join("tournament.json"),
            "{\"game\": \"kalah\", \"agents\": []}",
        )
        .unwrap();
        fs::write(out.join("games.csv"), "id\n").unwrap();
        let claimed = OutputDir::claim(&out).unwrap();
        claimed.clear().unwrap();
        let mut left: Vec<String> = fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".lock", "thesis.txt"]);
    }
}
