//! The game log of a tournament's output folder: `games.jsonl` (full
//! records) and `games.csv` (one row per game), appended and flushed after
//! every game, read back to resume.

use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use crate::record::GameRecord;
use crate::schedule::ScheduledGame;

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
    /// A line of the log cannot be read (not the last line, which may be
    /// cut by a crash and is dropped).
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
        r.error.clone().unwrap_or_default(),
    ]
}

/// A game as the lines it adds to `games.jsonl` and `games.csv`.
#[derive(Clone, Debug)]
pub struct EncodedRecord {
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
        EncodedRecord { json, csv }
    }
}

/// An open game log.
pub struct GameLog {
    jsonl_path: PathBuf,
    csv_path: PathBuf,
    jsonl: BufWriter<File>,
    csv: BufWriter<File>,
}

impl GameLog {
    /// Opens `dir` for the tournament described by `identity` (any
    /// serialisable description that must match to resume). Returns the log
    /// and the games already recorded there, checked against `schedule`.
    ///
    /// # Errors
    /// [`LogError`] when the folder is of another tournament, a log line is
    /// corrupt, or a file cannot be written.
    pub fn open(
        dir: &Path,
        identity: &impl Serialize,
        schedule: &[ScheduledGame],
    ) -> Result<(GameLog, Vec<GameRecord>), LogError> {
        fs::create_dir_all(dir).map_err(io(dir))?;
        let id_path = dir.join("tournament.json");
        let identity = serde_json::to_value(identity).expect("identity serialises");
        if id_path.exists() {
            let text = fs::read_to_string(&id_path).map_err(io(&id_path))?;
            let old: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| LogError::Corrupt {
                    path: id_path.display().to_string(),
                    line: e.line(),
                    why: e.to_string(),
                })?;
            if old != identity {
                return Err(LogError::Mismatch {
                    path: dir.display().to_string(),
                    what: first_difference(&old, &identity),
                });
            }
        } else {
            let text = serde_json::to_string_pretty(&identity).expect("identity serialises");
            let tmp = id_path.with_extension("json.tmp");
            fs::write(&tmp, text + "\n").map_err(io(&tmp))?;
            fs::rename(&tmp, &id_path).map_err(io(&id_path))?;
        }

        let jsonl_path = dir.join("games.jsonl");
        let csv_path = dir.join("games.csv");
        let done = read_records(&jsonl_path, schedule)?;
        // Rewrite both files from what was read: drops a line cut by a
        // crash, and makes the CSV agree with the JSON log.
        write_all(&jsonl_path, &csv_path, &done)?;
        let jsonl = OpenOptions::new()
            .append(true)
            .open(&jsonl_path)
            .map_err(io(&jsonl_path))?;
        let csv_file = OpenOptions::new()
            .append(true)
            .open(&csv_path)
            .map_err(io(&csv_path))?;
        let log = GameLog {
            jsonl: BufWriter::new(jsonl),
            csv: BufWriter::new(csv_file),
            jsonl_path,
            csv_path,
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
    /// files are the same whatever the thread count.
    ///
    /// # Errors
    /// [`LogError::Io`] when writing fails.
    pub fn finish(self, records: &[GameRecord]) -> Result<(), LogError> {
        let (jsonl_path, csv_path) = (self.jsonl_path.clone(), self.csv_path.clone());
        drop(self);
        write_all(&jsonl_path, &csv_path, records)
    }
}

/// Reads the JSON log; a missing file is an empty log.
fn read_records(path: &Path, schedule: &[ScheduledGame]) -> Result<Vec<GameRecord>, LogError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(path)(e)),
    };
    let lines: Vec<String> = BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(io(path))?;
    let corrupt = |line: usize, why: String| LogError::Corrupt {
        path: path.display().to_string(),
        line,
        why,
    };
    let mut records: Vec<GameRecord> = Vec::with_capacity(lines.len());
    let mut seen = std::collections::HashSet::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: GameRecord = match serde_json::from_str(line) {
            Ok(r) => r,
            // The last line may have been cut by a crash: that game is replayed.
            Err(_) if i + 1 == lines.len() => break,
            Err(e) => return Err(corrupt(i + 1, e.to_string())),
        };
        let planned = schedule
            .get(record.id as usize)
            .filter(|g| g.id == record.id);
        match planned {
            Some(g) if g.seats == record.seats && g.opening == record.opening => {}
            _ => {
                return Err(corrupt(
                    i + 1,
                    format!("game {} is not in this tournament's schedule", record.id),
                ))
            }
        }
        if seen.insert(record.id) {
            records.push(record);
        }
    }
    records.sort_by_key(|r| r.id);
    Ok(records)
}

/// Writes both files whole (through a temporary file and a rename, so a
/// crash leaves either the old or the new file).
fn write_all(jsonl_path: &Path, csv_path: &Path, records: &[GameRecord]) -> Result<(), LogError> {
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.id);
    let tmp = jsonl_path.with_extension("jsonl.tmp");
    {
        let mut w = BufWriter::new(File::create(&tmp).map_err(io(&tmp))?);
        for r in &sorted {
            writeln!(
                w,
                "{}",
                serde_json::to_string(r).expect("records serialise")
            )
            .map_err(io(&tmp))?;
        }
        w.flush().map_err(io(&tmp))?;
    }
    fs::rename(&tmp, jsonl_path).map_err(io(jsonl_path))?;

    let tmp = csv_path.with_extension("csv.tmp");
    {
        let mut w = csv::Writer::from_path(&tmp).map_err(|e| LogError::Io {
            path: tmp.display().to_string(),
            source: e.into(),
        })?;
        let to_io = |e: csv::Error| LogError::Io {
            path: tmp.display().to_string(),
            source: e.into(),
        };
        w.write_record(CSV_HEADER).map_err(to_io)?;
        for r in &sorted {
            w.write_record(csv_row(r)).map_err(to_io)?;
        }
        w.flush().map_err(io(&tmp))?;
    }
    fs::rename(&tmp, csv_path).map_err(io(csv_path))
}

/// The first key whose values differ, for a readable mismatch message.
fn first_difference(old: &serde_json::Value, new: &serde_json::Value) -> String {
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
