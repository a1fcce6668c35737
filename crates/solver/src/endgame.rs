//! Endgame databases: the exact value of every position with at most `k`
//! seeds in the pits, for one rule set and pit count of a store-free game
//! ([`ExactGame`]: Kalah, single-round Congkak).
//!
//! A database holds, for each way of placing `s <= k` seeds in the 2n pits
//! (the mover's row first), the margin the mover still gains with perfect
//! play. It does not depend on the stores or on the seeds per pit at the
//! start, so one database serves Kalah(n, m) (or Congkak(n, m)) for every m.
//!
//! It is built level by level, `s = 0, 1, ..., k`. A move either puts
//! seeds in a store (the child has fewer seeds, its level is already built)
//! or moves seeds towards the store inside the mover's own row (same level,
//! and since that cannot go on for ever the recursion ends: for Congkak's
//! relays see `docs/RULES.md`, "Every move ends"). Each level is
//! filled in parallel; two threads may work out the same entry, and then
//! write the same value.
//!
//! Positions are numbered by the combinatorial number system: the index of
//! a placement is how many placements of the same seeds come before it in
//! lexicographic order, so the table has no holes.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI8, Ordering};
use std::time::{Duration, Instant};

use mancala_core::{Player, MAX_PITS};
use rayon::prelude::*;
use thiserror::Error;

use crate::game::ExactGame;

const UNKNOWN: i8 = i8::MIN;

/// The largest database levels this module builds (values fit an `i8`).
pub const MAX_DB_SEEDS: usize = 120;

/// Steps `board` to the next placement of its seeds in the order of the
/// ranking (lexicographic, first cell slowest): the last cell with seeds
/// after it gains one, and the seeds after it restart in the last cell.
/// Leaves the last placement as it is.
fn next_placement(board: &mut [u8]) {
    let last = board.len() - 1;
    let mut after = board[last];
    for j in (0..last).rev() {
        if after > 0 {
            board[j] += 1;
            board[j + 1..].fill(0);
            board[last] = after - 1;
            return;
        }
        after += board[j];
    }
}

/// FNV-1a over the values, 8 bytes at a time: catches a damaged file.
fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(0x0100_0000_01B3);
    }
    h
}

/// Errors of building, saving and loading endgame databases.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum EndgameError {
    /// More positions than this machine can index.
    #[error("an endgame database of {max_seeds} seeds is too large")]
    TooLarge {
        /// The fullest level asked for.
        max_seeds: usize,
    },
    /// The memory for the values cannot be had.
    #[error("cannot allocate {bytes} bytes for the endgame database")]
    Allocation {
        /// Bytes asked for.
        bytes: usize,
    },
    /// The database folder cannot be created.
    #[error("cannot create the database folder {}: {source}", dir.display())]
    CreateDir {
        /// The folder.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A database file cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A database file cannot be opened.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Something other than a file where the database should be (a folder,
    /// a FIFO, a device): refused by name, never opened, since reading a
    /// FIFO would wait for a writer for ever.
    #[error("{}: {kind}, not an endgame database file; remove it to have the database built there", path.display())]
    NotAFile {
        /// The database's path.
        path: PathBuf,
        /// What is there instead ("a directory", "a FIFO", ...).
        kind: &'static str,
    },
    /// A file that is damaged or not the database expected: refused, by
    /// name, rather than overwritten unseen.
    #[error("{}: {why}; delete it to have it built again", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
}

/// Room for `len` one-byte values, asked to be backed by huge pages.
fn allocate_values<T>(len: usize) -> Result<Vec<T>, EndgameError> {
    let mut values = Vec::new();
    values
        .try_reserve_exact(len)
        .map_err(|_| EndgameError::Allocation { bytes: len })?;
    crate::memory::advise(values.spare_capacity_mut());
    Ok(values)
}

/// A built database, of Kalah positions unless `G` says otherwise.
pub struct Endgame<G: ExactGame = mancala_core::KalahRules> {
    /// The rules the database plays by ([`ExactGame::database_rules`]).
    rules: G,
    /// Seeds in the fullest level.
    max_seeds: usize,
    /// Cells: 2n.
    cells: usize,
    /// Placements of `r` seeds in `m` cells at `r * (cells + 1) + m`: one
    /// flat table, read on every database look-up.
    count: Vec<u64>,
    /// First index of each level.
    offset: Vec<u64>,
    values: Vec<AtomicI8>,
    build_time: Duration,
}

/// Where endgame databases are kept between runs unless a caller names a
/// folder: `$MANCALA_DB_DIR`, else `$XDG_CACHE_HOME/mancala/endgame`, else
/// `~/.cache/mancala/endgame`; `None` when none of these is set. One
/// policy for every front end, so that `mancala solve`, `mancala analyze`
/// and other tools share the databases they build.
pub fn default_dir() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("MANCALA_DB_DIR") {
        return Some(dir.into());
    }
    let cache = var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| Path::new(&h).join(".cache")))?;
    Some(cache.join("mancala").join("endgame"))
}

impl<G: ExactGame> std::fmt::Debug for Endgame<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Endgame({} pits, up to {} seeds, {} positions)",
            self.cells / 2,
            self.max_seeds,
            self.values.len()
        )
    }
}

/// Positions with at most `max_seeds` seeds on a board of `pits` pits a row,
/// or `None` when the count does not fit a `u64`.
pub fn positions(pits: usize, max_seeds: usize) -> Option<u64> {
    // Placements of up to k seeds in L cells = placements of exactly k in L + 1.
    binomial(max_seeds + 2 * pits, 2 * pits)
}

/// Positions a database build values a second on one thread, for the
/// estimate told before a build (never for a decision). Measured with the
/// release build on the project's 2-core machine, 2 threads, the machine
/// partly busy: Kalah(6) to 16 seeds, 30.4 M positions in 11.05 s, and
/// Kalah(15) to 7 seeds, 10.3 M in 3.93 s (`mancala solve --game
/// kalah:pits=15,seeds=2 --position POS --db-seeds 7 --no-db-cache`, POS
/// one seed a side). A little under that, so that the estimate errs long.
pub const BUILD_POSITIONS_PER_SECOND: f64 = 1.2e6;

/// What getting a database will take, told before a long build starts:
/// how many positions, whether they are loaded or built, and where a build
/// is saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatabasePlan {
    /// Seeds in its fullest level.
    pub seeds: usize,
    /// Positions it holds (a byte each in memory).
    pub positions: u64,
    /// The file it is loaded from, or saved to once built (`None`: built
    /// in memory only).
    pub path: Option<PathBuf>,
    /// Whether it is loaded from `path` rather than built.
    pub load: bool,
}

impl DatabasePlan {
    /// The plan of a database of up to `seeds` seeds for `rules`, kept in
    /// `dir` (`None` when `seeds` is 0: no database).
    pub fn new<G: ExactGame>(rules: &G, seeds: usize, dir: Option<&Path>) -> Option<DatabasePlan> {
        if seeds == 0 {
            return None;
        }
        let seeds = seeds.min(MAX_DB_SEEDS);
        let path = dir.map(|d| Endgame::path_in(d, rules, seeds));
        Some(DatabasePlan {
            seeds,
            positions: positions(rules.pits(), seeds).unwrap_or(u64::MAX),
            load: path.as_ref().is_some_and(|p| p.exists()),
            path,
        })
    }

    /// About how long a build takes on `threads` threads.
    pub fn build_estimate(&self, threads: usize) -> Duration {
        let rate = BUILD_POSITIONS_PER_SECOND * threads.max(1) as f64;
        Duration::try_from_secs_f64(self.positions as f64 / rate).unwrap_or(Duration::MAX)
    }

    /// One line for the user: what is built or loaded, its size, and for a
    /// build about how long it takes on `threads` threads.
    pub fn describe(&self, threads: usize) -> String {
        let mib = self.positions.div_ceil(1 << 20);
        let size = format!(
            "up to {} seeds, {} positions, {mib} MiB",
            self.seeds, self.positions
        );
        match (&self.path, self.load) {
            (Some(path), true) => {
                format!(
                    "loading the endgame database ({size}) from {}",
                    path.display()
                )
            }
            (path, _) => {
                let kept = match path {
                    Some(path) => format!("once: it is saved as {}", path.display()),
                    None => "in memory only".to_string(),
                };
                format!(
                    "building the endgame database ({size}; about {} on {threads} thread{}; {kept})",
                    rough_duration(self.build_estimate(threads)),
                    if threads == 1 { "" } else { "s" }
                )
            }
        }
    }
}

/// A duration to the nearest unit a person reads: `3 s`, `4 min`, `2 h`.
fn rough_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1.0 {
        "a second".to_string()
    } else if s < 120.0 {
        format!("{:.0} s", s)
    } else if s < 2.0 * 3600.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.0} h", s / 3600.0)
    }
}

fn binomial(n: usize, k: usize) -> Option<u64> {
    let k = k.min(n - k.min(n));
    let mut r: u128 = 1;
    for i in 0..k {
        r = r * (n - i) as u128 / (i + 1) as u128;
        if r > u128::from(u64::MAX) {
            return None;
        }
    }
    u64::try_from(r).ok()
}

/// What a file type is, in words, unless it is a regular file.
fn not_a_file(kind: std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a FIFO");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
        if kind.is_block_device() || kind.is_char_device() {
            return Some("a device");
        }
    }
    Some("not a regular file")
}

/// `path` opened for reading if it is a regular file (a link to one
/// included), else [`EndgameError::NotAFile`]. Its type is looked at
/// before it is opened, since opening a FIFO waits for a writer; on Unix
/// it is opened without waiting too, and the file opened is looked at
/// again, in case another was put there in between.
fn open_file(path: &Path) -> Result<File, EndgameError> {
    let read = |source| EndgameError::Read {
        path: path.to_path_buf(),
        source,
    };
    let check = |meta: std::fs::Metadata| match not_a_file(meta.file_type()) {
        Some(kind) => Err(EndgameError::NotAFile {
            path: path.to_path_buf(),
            kind,
        }),
        None => Ok(()),
    };
    check(std::fs::metadata(path).map_err(read)?)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(read)?;
    check(file.metadata().map_err(read)?)?;
    Ok(file)
}

impl<G: ExactGame> Endgame<G> {
    /// Builds the database of every position of `rules`' board with at most
    /// `max_seeds` seeds, on the current rayon pool.
    ///
    /// # Errors
    /// [`EndgameError::TooLarge`] or [`EndgameError::Allocation`] when it
    /// is too large to hold.
    pub fn build(rules: &G, max_seeds: usize) -> Result<Endgame<G>, EndgameError> {
        let t0 = Instant::now();
        let max_seeds = max_seeds.min(MAX_DB_SEEDS);
        let cells = 2 * rules.pits();
        let mut db = Endgame::empty(rules, max_seeds, true)?;
        for level in 0..=max_seeds {
            let (start, end) = (db.offset[level], db.offset[level + 1]);
            // Chunks of indices, each unranked once and then stepped.
            let chunk = 1u64 << 12;
            let chunks = (end - start).div_ceil(chunk);
            (0..chunks).into_par_iter().for_each(|k| {
                let first = start + k * chunk;
                let last = (first + chunk).min(end);
                let mut board = [0u8; 2 * MAX_PITS];
                let board = &mut board[..cells];
                db.unrank(first - start, level, board);
                for _ in first..last {
                    db.value(board, level);
                    next_placement(board);
                }
            });
        }
        db.build_time = t0.elapsed();
        Ok(db)
    }

    /// The database's tables with every value unknown, or with no values
    /// at all unless `allocate` (for a load, which reads them in).
    fn empty(rules: &G, max_seeds: usize, allocate: bool) -> Result<Endgame<G>, EndgameError> {
        let pits = rules.pits();
        let cells = 2 * pits;
        let max_seeds = max_seeds.min(MAX_DB_SEEDS);
        let total = positions(pits, max_seeds)
            .filter(|&n| usize::try_from(n).is_ok())
            .ok_or(EndgameError::TooLarge { max_seeds })? as usize;
        let count: Vec<u64> = (0..=max_seeds)
            .flat_map(|r| {
                (0..=cells).map(move |m| match m {
                    0 => u64::from(r == 0),
                    _ => binomial(r + m - 1, m - 1).expect("fits, as the total does"),
                })
            })
            .collect();
        let mut offset = Vec::with_capacity(max_seeds + 2);
        let mut acc = 0u64;
        for level in 0..=max_seeds {
            offset.push(acc);
            acc += count[level * (cells + 1) + cells];
        }
        offset.push(acc);
        let mut values = Vec::new();
        if allocate {
            values = allocate_values(total)?;
            values.resize_with(total, || AtomicI8::new(UNKNOWN));
        }
        Ok(Endgame {
            rules: rules.database_rules(max_seeds),
            max_seeds,
            cells,
            count,
            offset,
            values,
            build_time: Duration::ZERO,
        })
    }

    /// What the values depend on: the game, the pit count and the rules
    /// that change play (not the seeds per pit, nor the pie rule, which a
    /// database position never has pending: see
    /// [`ExactGame::database_fingerprint`]), and the fullest level. Written
    /// in a saved database and part of its file name.
    pub fn fingerprint(rules: &G, max_seeds: usize) -> String {
        format!("{}-k{max_seeds}", rules.database_fingerprint())
    }

    /// Loads the database of `rules` up to `max_seeds` seeds from `dir`
    /// when a saved one is there, else builds it and saves it there, so
    /// that the next run (of any board with as many pits) skips the build.
    ///
    /// A database built but not saved (a full disk, a folder that cannot be
    /// created or written) is still returned, with why it was not saved:
    /// the build is the costly part, and the caller can use the values
    /// and say that the next run builds them again. Nothing half-written is
    /// left in `dir`. When another process saves the same database while
    /// this one builds it, the first file saved stays and the other build's
    /// copy is dropped: both hold the same values.
    ///
    /// # Errors
    /// As [`Endgame::build`] and [`Endgame::load`]. A saved file that is
    /// damaged or not a database of these rules, or something other than a
    /// file at its path ([`EndgameError::NotAFile`]), is an error too,
    /// naming the path, rather than being overwritten unseen.
    pub fn load_or_build(
        rules: &G,
        max_seeds: usize,
        dir: &Path,
    ) -> Result<(Endgame<G>, Option<EndgameError>), EndgameError> {
        let max_seeds = max_seeds.min(MAX_DB_SEEDS);
        let path = Endgame::path_in(dir, rules, max_seeds);
        // Whatever is at the path (a link followed) is for `load` to read
        // or refuse; only nothing at all (or a folder that cannot be
        // looked into, which the save then reports) means building.
        if std::fs::metadata(&path).is_ok() {
            return Endgame::load(rules, max_seeds, &path).map(|db| (db, None));
        }
        let db = Endgame::build(rules, max_seeds)?;
        let not_saved = db.save_new(dir, &path).err();
        Ok((db, not_saved))
    }

    /// Saves the database as `path` in `dir` (created if need be) unless a
    /// file is there by then: another process built the same database
    /// meanwhile and saved it first.
    fn save_new(&self, dir: &Path, path: &Path) -> Result<(), EndgameError> {
        std::fs::create_dir_all(dir).map_err(|source| EndgameError::CreateDir {
            dir: dir.to_path_buf(),
            source,
        })?;
        let tmp = self.write_temporary(dir, path)?;
        match tmp.persist_noclobber(path) {
            Ok(_) => Ok(()),
            // The winner's file holds the same values as ours (the same
            // rules and level, built the same way): keep it, drop ours.
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists && path.is_file() => {
                Ok(())
            }
            // Dropping the temporary file (in `e`) removes it.
            Err(e) => Err(EndgameError::Write {
                path: path.to_path_buf(),
                source: e.error,
            }),
        }
    }

    /// The database written, header to checksum, to a new file of a unique
    /// name in `dir`, flushed to the disk: two processes saving the same
    /// database never write one file, and a file that cannot be written
    /// whole (a full disk) is removed, as the returned file is when it is
    /// dropped rather than persisted. Errors name `path`, the database.
    fn write_temporary(
        &self,
        dir: &Path,
        path: &Path,
    ) -> Result<tempfile::NamedTempFile, EndgameError> {
        let err = |source: std::io::Error| EndgameError::Write {
            path: path.to_path_buf(),
            source,
        };
        let name = path
            .file_name()
            .map_or_else(|| "endgame".into(), |n| n.to_string_lossy().into_owned());
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".partial");
        // Read and write for all, less the umask, as any file the program
        // creates: a cache folder may be shared (the default is 0600).
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let mut tmp = builder.tempfile_in(dir).map_err(err)?;
        let bytes: Vec<u8> = self
            .values
            .iter()
            .map(|v| v.load(Ordering::Relaxed) as u8)
            .collect();
        let mut out = std::io::BufWriter::new(tmp.as_file_mut());
        out.write_all(self.header().as_bytes()).map_err(err)?;
        out.write_all(&bytes).map_err(err)?;
        out.write_all(&checksum(&bytes).to_le_bytes())
            .map_err(err)?;
        out.into_inner()
            .map_err(|e| err(e.into_error()))?
            .sync_all()
            .map_err(err)?;
        Ok(tmp)
    }

    /// Where [`Endgame::load_or_build`] keeps the database of `rules` up to
    /// `max_seeds` seeds in `dir`.
    pub fn path_in(dir: &Path, rules: &G, max_seeds: usize) -> PathBuf {
        dir.join(format!(
            "{}.endgame",
            Endgame::fingerprint(rules, max_seeds)
        ))
    }

    /// Writes the database to `path`: a header line naming what it holds,
    /// the values, and a checksum of them. The file is written under a
    /// temporary name of its own in the same folder and renamed, so an
    /// interrupted save leaves no half-written database behind and two
    /// saves at once never mix their bytes.
    ///
    /// # Errors
    /// [`EndgameError::Write`] naming the file when it cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), EndgameError> {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        self.write_temporary(dir, path)?
            .persist(path)
            .map(drop)
            .map_err(|e| EndgameError::Write {
                path: path.to_path_buf(),
                source: e.error,
            })
    }

    /// Reads a database saved by [`Endgame::save`], checking that it is the
    /// database of `rules` up to `max_seeds` seeds and is intact.
    ///
    /// # Errors
    /// [`EndgameError::Read`], [`EndgameError::NotAFile`] or
    /// [`EndgameError::Invalid`], naming the file and what is wrong with
    /// it, or [`EndgameError::Allocation`].
    pub fn load(rules: &G, max_seeds: usize, path: &Path) -> Result<Endgame<G>, EndgameError> {
        let t0 = Instant::now();
        let bad = |why: &str| EndgameError::Invalid {
            path: path.to_path_buf(),
            why: why.to_string(),
        };
        let mut db = Endgame::empty(rules, max_seeds, false)?;
        let mut file = std::io::BufReader::new(open_file(path)?);
        let header = db.header();
        let mut got = vec![0u8; header.len()];
        file.read_exact(&mut got)
            .map_err(|_| bad("too short to be an endgame database"))?;
        if got != header.as_bytes() {
            return Err(bad(&format!(
                "not the endgame database expected (its header is not {:?})",
                header.trim_end()
            )));
        }
        // Read straight into memory that becomes the values (collecting
        // `u8`s into `AtomicI8`s reuses the allocation), huge pages and all.
        let len = *db.offset.last().expect("a level at least") as usize;
        let mut bytes: Vec<u8> = allocate_values(len)?;
        bytes.resize(len, 0u8);
        file.read_exact(&mut bytes)
            .map_err(|_| bad("truncated: fewer values than the database holds"))?;
        let mut sum = [0u8; 8];
        file.read_exact(&mut sum)
            .map_err(|_| bad("truncated: its checksum is missing"))?;
        if file.read(&mut [0u8; 1]).map_err(|e| bad(&e.to_string()))? != 0 {
            return Err(bad("longer than the database it says it holds"));
        }
        if u64::from_le_bytes(sum) != checksum(&bytes) {
            return Err(bad("damaged: its checksum does not match its values"));
        }
        if bytes.iter().any(|&b| b as i8 == UNKNOWN) {
            return Err(bad("incomplete: some values were never worked out"));
        }
        db.values = bytes.into_iter().map(|b| AtomicI8::new(b as i8)).collect();
        db.build_time = t0.elapsed();
        Ok(db)
    }

    fn header(&self) -> String {
        format!(
            "mancala endgame database v1 {} positions={}\n",
            Endgame::fingerprint(&self.rules, self.max_seeds),
            self.len()
        )
    }

    /// The fullest level.
    pub fn max_seeds(&self) -> usize {
        self.max_seeds
    }

    /// Positions held.
    pub fn len(&self) -> usize {
        *self.offset.last().expect("a level at least") as usize
    }

    /// Whether it holds nothing (never: level 0 is always there).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Time the build took.
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// The margin still to come for the mover of `board` (the mover's row,
    /// then the opponent's), which holds `seeds <= max_seeds` seeds.
    #[inline]
    pub fn lookup(&self, board: &[u8], seeds: usize) -> i32 {
        self.value_at(self.index(board, seeds))
    }

    /// Where `board` (holding `seeds` seeds, at most [`Endgame::max_seeds`])
    /// is kept: look-up in two steps, so that the search can prefetch
    /// several entries before it reads any.
    #[inline]
    pub(crate) fn slot(&self, board: &[u8], seeds: usize) -> usize {
        let slot = self.index(board, seeds);
        crate::memory::prefetch(&self.values[slot]);
        slot
    }

    /// The value kept at `slot` (from [`Endgame::slot`]).
    #[inline]
    pub(crate) fn value_at(&self, slot: usize) -> i32 {
        let v = self.values[slot].load(Ordering::Relaxed);
        debug_assert_ne!(v, UNKNOWN, "its level is built");
        i32::from(v)
    }

    /// Placements of `seeds` seeds in `cells` cells.
    #[inline]
    fn placements(&self, seeds: usize, cells: usize) -> u64 {
        self.count[seeds * (self.cells + 1) + cells]
    }

    #[inline]
    fn index(&self, board: &[u8], seeds: usize) -> usize {
        let cells = self.cells;
        let mut rest = seeds;
        let mut rank = 0u64;
        for (i, &c) in board[..cells - 1].iter().enumerate() {
            let c = c as usize;
            let after = cells - i;
            rank += self.placements(rest, after) - self.placements(rest - c, after);
            rest -= c;
        }
        (self.offset[seeds] + rank) as usize
    }

    /// Writes the `index`-th placement of `seeds` seeds into `board`.
    fn unrank(&self, mut index: u64, seeds: usize, board: &mut [u8]) {
        let cells = board.len();
        let mut rest = seeds;
        for (i, cell) in board[..cells - 1].iter_mut().enumerate() {
            let after = cells - i - 1;
            let mut c = 0;
            while index >= self.placements(rest - c, after) {
                index -= self.placements(rest - c, after);
                c += 1;
            }
            *cell = c as u8;
            rest -= c;
        }
        board[cells - 1] = rest as u8;
    }

    /// The value of `board`, worked out (and recorded) if not yet known.
    fn value(&self, board: &[u8], seeds: usize) -> i32 {
        let slot = &self.values[self.index(board, seeds)];
        let known = slot.load(Ordering::Relaxed);
        if known != UNKNOWN {
            return i32::from(known);
        }
        let rules = &self.rules;
        let margin = |s: &G::State| {
            let stores = rules.scores(s);
            i32::from(stores[Player::ZERO]) - i32::from(stores[Player::ONE])
        };
        let best = match rules.database_position(board) {
            // A placement where play does not go on is never looked up (the
            // search asks only of positions with a move to make): any value.
            None => 0,
            // Kalah ends such a position at once, its leftovers counted in
            // stores that started empty.
            Some(state) if rules.is_over(&state) => margin(&state),
            Some(state) => {
                let before = margin(&state);
                let mut best = i32::MIN;
                for mv in rules.legal_moves(&state) {
                    let mut child = state;
                    rules.play_unchecked(&mut child, mv);
                    let gain = margin(&child) - before;
                    let v = match rules.to_move(&child) {
                        None => gain,
                        Some(next) => {
                            let view = rules.view(&child, next);
                            let f = self.value(view.board(), view.seeds() as usize);
                            if next == Player::ZERO {
                                gain + f
                            } else {
                                gain - f
                            }
                        }
                    };
                    best = best.max(v);
                }
                best
            }
        };
        slot.store(best as i8, Ordering::Relaxed);
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_core::KalahRules;

    #[test]
    fn a_plan_says_what_is_built_and_about_how_long_it_takes() {
        let rules = KalahRules::new(15, 2).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let plan = DatabasePlan::new(&rules, 10, Some(dir.path())).unwrap();
        // C(40, 30) placements of up to 10 seeds in 30 pits.
        assert_eq!(plan.positions, 847_660_528);
        assert!(!plan.load);
        let told = plan.describe(2);
        assert!(
            told.starts_with("building the endgame database (up to 10 seeds, 847660528 positions, 809 MiB; about 6 min on 2 threads; once: it is saved as "),
            "{told}"
        );
        assert_eq!(DatabasePlan::new(&rules, 0, None), None);
        let small = DatabasePlan::new(&rules, 2, None).unwrap();
        assert!(small
            .describe(1)
            .ends_with("about a second on 1 thread; in memory only)"));
        // Once saved, it is loaded.
        let saved = Endgame::load_or_build(&rules, 2, dir.path()).unwrap().0;
        drop(saved);
        let plan = DatabasePlan::new(&rules, 2, Some(dir.path())).unwrap();
        assert!(plan.load);
        assert!(plan
            .describe(2)
            .starts_with("loading the endgame database (up to 2 seeds"));
    }

    #[test]
    fn ranks_number_placements_without_gaps() {
        let rules = KalahRules::new(2, 1).unwrap();
        let db = Endgame::build(&rules, 3).unwrap();
        assert_eq!(db.len() as u64, positions(2, 3).unwrap());
        assert_eq!(db.len(), 35, "placements of up to 3 seeds in 4 cells");
        let mut seen = vec![false; db.len()];
        for level in 0..=3 {
            let n = db.offset[level + 1] - db.offset[level];
            for i in 0..n {
                let mut board = [0u8; 4];
                db.unrank(i, level, &mut board);
                assert_eq!(board.iter().map(|&c| c as usize).sum::<usize>(), level);
                let index = db.index(&board, level);
                assert_eq!(index as u64, db.offset[level] + i);
                if i > 0 {
                    let mut previous = [0u8; 4];
                    db.unrank(i - 1, level, &mut previous);
                    next_placement(&mut previous);
                    assert_eq!(previous, board, "stepping agrees with unranking");
                }
                assert!(!seen[index]);
                seen[index] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn a_saved_database_loads_with_the_same_values() {
        let dir = tempfile::tempdir().unwrap();
        let rules = KalahRules::new(3, 2).unwrap();
        let (built, not_saved) = Endgame::load_or_build(&rules, 6, dir.path()).unwrap();
        assert!(not_saved.is_none(), "{not_saved:?}");
        let path = Endgame::path_in(dir.path(), &rules, 6);
        assert!(path.exists());
        // Another board with as many pits reads the same file.
        let other = KalahRules::new(3, 5).unwrap();
        let (loaded, _) = Endgame::load_or_build(&other, 6, dir.path()).unwrap();
        assert_eq!(loaded.len(), built.len());
        for (a, b) in built.values.iter().zip(&loaded.values) {
            assert_eq!(a.load(Ordering::Relaxed), b.load(Ordering::Relaxed));
        }
    }

    #[test]
    fn a_damaged_or_foreign_database_file_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let rules = KalahRules::new(2, 2).unwrap();
        let db = Endgame::build(&rules, 4).unwrap();
        let path = dir.path().join("db.endgame");
        db.save(&path).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();

        let mut capture = rules;
        capture.empty_capture = true;
        let err = Endgame::load(&capture, 4, &path).unwrap_err();
        assert!(matches!(err, EndgameError::Invalid { .. }), "{err:?}");
        let err = err.to_string();
        assert!(err.contains("not the endgame database expected"), "{err}");
        assert!(err.contains("db.endgame"), "{err}");

        let last_value = bytes.len() - 9;
        bytes[last_value] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let err = Endgame::load(&rules, 4, &path).unwrap_err().to_string();
        assert!(err.contains("checksum does not match"), "{err}");

        std::fs::write(&path, &bytes[..bytes.len() - 20]).unwrap();
        let err = Endgame::load(&rules, 4, &path).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
    }

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_database_another_process_saved_first_is_kept_and_no_temporary_name_is_shared() {
        let dir = tempfile::tempdir().unwrap();
        let rules = KalahRules::new(2, 2).unwrap();
        let db = Endgame::build(&rules, 4).unwrap();
        let path = Endgame::path_in(dir.path(), &rules, 4);
        // Two processes that built the same database save it at once: each
        // writes a temporary file of its own...
        let first = db.write_temporary(dir.path(), &path).unwrap();
        let second = db.write_temporary(dir.path(), &path).unwrap();
        assert_ne!(first.path(), second.path());
        // ... the first renames its file into place, and the second, finding
        // it there, keeps it rather than failing or replacing it.
        first.persist_noclobber(&path).unwrap();
        let winner = std::fs::read(&path).unwrap();
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap());
        drop(second);
        db.save_new(dir.path(), &path).unwrap();
        #[cfg(unix)]
        assert_eq!(
            std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap()),
            inode,
            "the winner's file stays"
        );
        assert_eq!(std::fs::read(&path).unwrap(), winner);
        assert_eq!(
            names(dir.path()),
            [path.file_name().unwrap().to_string_lossy()]
        );
        // A name another save left behind (a folder, even) is not in the way.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(path.with_extension("partial")).unwrap();
        let (_, not_saved) = Endgame::load_or_build(&rules, 4, dir.path()).unwrap();
        assert!(not_saved.is_none(), "{not_saved:?}");
        assert!(Endgame::load(&rules, 4, &path).is_ok());
    }

    #[test]
    fn a_database_that_cannot_be_saved_is_still_built_and_says_why() {
        // A cache folder that cannot be created (it would be under a file):
        // what a read-only or missing home does, even to root, whom a
        // read-only mode does not stop.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, "not a folder").unwrap();
        let rules = KalahRules::new(2, 2).unwrap();
        let (db, not_saved) = Endgame::load_or_build(&rules, 4, &file.join("cache")).unwrap();
        let built = Endgame::build(&rules, 4).unwrap();
        assert_eq!(db.len(), built.len());
        for (a, b) in db.values.iter().zip(&built.values) {
            assert_eq!(a.load(Ordering::Relaxed), b.load(Ordering::Relaxed));
        }
        let not_saved = not_saved.expect("the save failed");
        assert!(
            matches!(not_saved, EndgameError::CreateDir { .. }),
            "{not_saved:?}"
        );
        assert!(not_saved.to_string().contains("a-file"), "{not_saved}");
        assert_eq!(names(dir.path()), ["a-file"]);
    }

    #[test]
    fn a_directory_at_the_database_path_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let rules = KalahRules::new(2, 2).unwrap();
        let path = Endgame::path_in(dir.path(), &rules, 4);
        std::fs::create_dir(&path).unwrap();
        for err in [
            Endgame::load_or_build(&rules, 4, dir.path()).unwrap_err(),
            Endgame::load(&rules, 4, &path).unwrap_err(),
        ] {
            assert!(
                matches!(
                    err,
                    EndgameError::NotAFile {
                        kind: "a directory",
                        ..
                    }
                ),
                "{err:?}"
            );
            let text = err.to_string();
            assert!(text.contains(&*path.to_string_lossy()), "{text}");
            assert!(!text.contains("too short"), "{text}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_at_the_database_path_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let rules = KalahRules::new(2, 2).unwrap();
        let path = Endgame::path_in(dir.path(), &rules, 4);
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: no mkfifo command to make a FIFO with");
            return;
        }
        // Opening a FIFO to read blocks until someone opens it to write: a
        // solver that did would never return. The test waits a minute at
        // most, on another thread, so that it fails rather than hangs.
        let (send, receive) = std::sync::mpsc::channel();
        let dir_path = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let _ = send.send(Endgame::load_or_build(&rules, 4, &dir_path).map(|_| ()));
        });
        let err = receive
            .recv_timeout(Duration::from_secs(60))
            .expect("load_or_build returned instead of waiting on the FIFO")
            .unwrap_err();
        assert!(
            matches!(err, EndgameError::NotAFile { kind: "a FIFO", .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains(&*path.to_string_lossy()), "{err}");
    }
}
