//! An engine's standard error, kept in a file of bounded size: an engine
//! that prints without end must not fill the disk of a tournament.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::EngineError;

/// How much of the beginning of an engine instance's standard error is
/// kept (its first start usually says the most).
pub const LOG_HEAD_BYTES: u64 = 1 << 20;

/// How much of the end of an engine instance's standard error is kept
/// (what it said before its last failure).
pub const LOG_TAIL_BYTES: usize = 1 << 20;

/// The standard error of one engine instance over all its starts, in a
/// file that holds at most its first [`LOG_HEAD_BYTES`] and its last
/// [`LOG_TAIL_BYTES`], with a line saying how much was left out between.
///
/// Clones share the file.
#[derive(Clone, Debug)]
pub struct EngineLog {
    state: Arc<Mutex<LogState>>,
}

#[derive(Debug)]
struct LogState {
    path: PathBuf,
    file: File,
    /// Where the head ends in the file: the tail is written from here.
    head_end: u64,
    /// The last bytes past the head, written out by `flush`.
    tail: VecDeque<u8>,
    /// Bytes dropped from the tail's front.
    left_out: u64,
    /// Whether `tail` or `left_out` changed since the last `flush`.
    dirty: bool,
}

impl EngineLog {
    /// Opens (or creates) the log at `path`, keeping what is already there
    /// as the start of its head.
    ///
    /// # Errors
    /// [`EngineError::Log`] when the file or its folder cannot be made.
    pub fn open(path: &Path) -> Result<EngineLog, EngineError> {
        let io = |source| EngineError::Log {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        // Not in append mode: the tail is rewritten in place.
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .map_err(io)?;
        let head_end = file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok(EngineLog {
            state: Arc::new(Mutex::new(LogState {
                path: path.to_path_buf(),
                file,
                head_end,
                tail: VecDeque::new(),
                left_out: 0,
                dirty: false,
            })),
        })
    }

    fn lock(&self) -> MutexGuard<'_, LogState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where the log is.
    pub fn path(&self) -> PathBuf {
        self.lock().path.clone()
    }

    /// Adds `bytes` to the log. Failing to write a log never stops an
    /// engine, so errors are dropped.
    pub fn write(&self, bytes: &[u8]) {
        let mut state = self.lock();
        let room = LOG_HEAD_BYTES.saturating_sub(state.head_end);
        let direct = bytes.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        // The head is written straight through while nothing is in the
        // tail yet (the file ends at `head_end`).
        if direct > 0 && state.tail.is_empty() {
            let at = state.head_end;
            if state.file.seek(SeekFrom::Start(at)).is_ok()
                && state.file.write_all(&bytes[..direct]).is_ok()
            {
                state.head_end += direct as u64;
            }
        }
        let rest = if state.tail.is_empty() {
            &bytes[direct..]
        } else {
            bytes
        };
        if rest.is_empty() {
            return;
        }
        // Only the last LOG_TAIL_BYTES of `rest` can stay.
        let keep = &rest[rest.len().saturating_sub(LOG_TAIL_BYTES)..];
        state.left_out += (rest.len() - keep.len()) as u64;
        let overflow = (state.tail.len() + keep.len()).saturating_sub(LOG_TAIL_BYTES);
        state.tail.drain(..overflow);
        state.left_out += overflow as u64;
        state.tail.extend(keep);
        state.dirty = true;
    }

    /// Writes the tail out after the head (and the line saying what was
    /// left out), replacing the last one written.
    pub fn flush(&self) {
        let mut state = self.lock();
        if !state.dirty {
            return;
        }
        state.dirty = false;
        let mut text = Vec::with_capacity(state.tail.len() + 80);
        if state.left_out > 0 {
            text.extend_from_slice(
                format!(
                    "\n--- mancala: {} bytes left out (a log keeps its first {} KiB and its last {} KiB)\n",
                    state.left_out,
                    LOG_HEAD_BYTES / 1024,
                    LOG_TAIL_BYTES / 1024
                )
                .as_bytes(),
            );
        }
        let (front, back) = state.tail.as_slices();
        text.extend_from_slice(front);
        text.extend_from_slice(back);
        let at = state.head_end;
        let file = &mut state.file;
        let _ = file
            .seek(SeekFrom::Start(at))
            .and_then(|_| file.write_all(&text))
            .and_then(|()| file.set_len(at + text.len() as u64));
    }

    /// Copies `stream` into the log until it ends, then flushes.
    pub(crate) fn copy_from(&self, mut stream: impl Read) {
        let mut buf = vec![0u8; 8192];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => self.write(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_keeps_its_beginning_and_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs").join("bot.1.stderr");
        let log = EngineLog::open(&path).unwrap();
        log.write(b"BEGIN\n");
        let junk = vec![b'x'; 1 << 16];
        for _ in 0..100 {
            log.write(&junk);
        }
        log.write(b"\nEND\n");
        log.flush();
        let text = std::fs::read(&path).unwrap();
        let bound = LOG_HEAD_BYTES as usize + LOG_TAIL_BYTES + 200;
        assert!(text.len() <= bound, "{} bytes", text.len());
        assert!(text.starts_with(b"BEGIN\n"));
        assert!(text.ends_with(b"\nEND\n"));
        let written = 6 + 100 * (1 << 16) + 5;
        let left_out = written - LOG_HEAD_BYTES as usize - LOG_TAIL_BYTES;
        let marker = format!("--- mancala: {left_out} bytes left out");
        assert!(String::from_utf8_lossy(&text).contains(&marker), "{marker}");
        // A second flush, and more output, rewrite the tail in place.
        log.write(b"MORE\n");
        log.flush();
        log.flush();
        let again = std::fs::read(&path).unwrap();
        assert!(again.len() <= bound);
        assert!(again.ends_with(b"\nEND\nMORE\n"));
        // Reopened (a resumed tournament), the old content is kept.
        let small = dir.path().join("small.stderr");
        std::fs::write(&small, "old\n").unwrap();
        let log = EngineLog::open(&small).unwrap();
        log.write(b"new\n");
        log.flush();
        assert_eq!(std::fs::read_to_string(&small).unwrap(), "old\nnew\n");
    }
}
