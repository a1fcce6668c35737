//! One running engine program: its pipes, a reader thread, and replies
//! awaited with a deadline, so that no engine can block its caller.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use crate::protocol::{Command, OptionDecl, Reply};
use crate::EngineError;

/// Longest line an engine may print; a longer one is garbage (and may be a
/// runaway loop filling memory).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// How often a wait looks at the cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// How long `quit` is given before the process is killed.
const QUIT_GRACE: Duration = Duration::from_millis(200);

/// What an engine said about itself before `mancalaok`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineId {
    /// `id name`.
    pub name: Option<String>,
    /// `id author`.
    pub author: Option<String>,
    /// Declared options.
    pub options: Vec<OptionDecl>,
}

impl EngineId {
    /// Whether the engine declared an option of this name (case-insensitive,
    /// as in UCI).
    pub fn has_option(&self, name: &str) -> bool {
        self.options
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(name))
    }
}

/// A line read from the engine, or why reading stopped.
type Line = Result<String, String>;

/// A started engine that has introduced itself.
#[derive(Debug)]
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    /// The engine's introduction.
    pub id: EngineId,
    program: String,
}

impl EngineProcess {
    /// Starts `command` (program and arguments), with its standard error
    /// appended to `stderr` (or dropped), and waits for `mancalaok` until
    /// `timeout` has passed.
    ///
    /// # Errors
    /// The program cannot start, exits, prints garbage or is too slow.
    pub fn start(
        command: &[String],
        workdir: Option<&PathBuf>,
        stderr: Option<&PathBuf>,
        timeout: Duration,
        cancel: Option<&AtomicBool>,
    ) -> Result<EngineProcess, EngineError> {
        let (program, args) = command.split_first().ok_or(EngineError::NoCommand)?;
        let mut process = Process::new(program);
        process
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match stderr {
                Some(path) => Stdio::from(open_log(path, command)?),
                None => Stdio::null(),
            });
        if let Some(dir) = workdir {
            process.current_dir(dir);
        }
        let mut child = process.spawn().map_err(|source| EngineError::Spawn {
            program: program.clone(),
            source,
        })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let lines = spawn_reader(stdout);
        let mut engine = EngineProcess {
            child,
            stdin,
            lines,
            id: EngineId::default(),
            program: program.clone(),
        };
        engine.send(&Command::Mancala)?;
        let deadline = Instant::now() + timeout;
        loop {
            match engine.next_reply("mancalaok", deadline, cancel)? {
                Reply::IdName(name) => engine.id.name = Some(name),
                Reply::IdAuthor(author) => engine.id.author = Some(author),
                Reply::Option(decl) => engine.id.options.push(decl),
                Reply::MancalaOk => return Ok(engine),
                Reply::Info(_) => {}
                other => {
                    return Err(EngineError::Unexpected {
                        waiting_for: "mancalaok",
                        line: other.to_string(),
                    })
                }
            }
        }
    }

    /// Sends one command line.
    ///
    /// # Errors
    /// [`EngineError::Exited`] when the engine no longer reads its input.
    pub fn send(&mut self, command: &Command) -> Result<(), EngineError> {
        let line = format!("{command}\n");
        let written = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush());
        written.map_err(|_| EngineError::Exited {
            waiting_for: "its input to be read",
            status: self.status(),
        })
    }

    /// The next reply, waiting at most until `deadline` and no longer than
    /// `cancel` stays low. Empty lines are skipped.
    ///
    /// # Errors
    /// Timeout, exit, cancel, or a line that is not a reply.
    pub fn next_reply(
        &mut self,
        waiting_for: &'static str,
        deadline: Instant,
        cancel: Option<&AtomicBool>,
    ) -> Result<Reply, EngineError> {
        let started = Instant::now();
        loop {
            if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(EngineError::Cancelled);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(EngineError::Timeout {
                    waiting_for,
                    after: now - started,
                });
            }
            let slice = (deadline - now).min(if cancel.is_some() {
                CANCEL_POLL
            } else {
                Duration::MAX
            });
            match self.lines.recv_timeout(slice) {
                Ok(Ok(line)) if line.trim().is_empty() => {}
                Ok(Ok(line)) => return Ok(Reply::parse(&line)?),
                Ok(Err(why)) => return Err(EngineError::Output(why)),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(EngineError::Exited {
                        waiting_for,
                        status: self.status(),
                    })
                }
            }
        }
    }

    /// Sends `isready` and waits for `readyok` until `deadline`.
    ///
    /// # Errors
    /// As [`EngineProcess::next_reply`]; an `error` reply is
    /// [`EngineError::Refused`].
    pub fn sync(
        &mut self,
        deadline: Instant,
        cancel: Option<&AtomicBool>,
    ) -> Result<(), EngineError> {
        self.send(&Command::IsReady)?;
        loop {
            match self.next_reply("readyok", deadline, cancel)? {
                Reply::ReadyOk => return Ok(()),
                Reply::Info(_) => {}
                Reply::Error(why) => return Err(EngineError::Refused(why)),
                other => {
                    return Err(EngineError::Unexpected {
                        waiting_for: "readyok",
                        line: other.to_string(),
                    })
                }
            }
        }
    }

    /// How the process ended, in words, waiting briefly for it to finish
    /// exiting (its output closes a moment before it is reaped).
    fn status(&mut self) -> String {
        let until = Instant::now() + Duration::from_millis(100);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!("{} {status}", self.program),
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(2)),
                Ok(None) => {
                    return format!("{} is still running but closed its output", self.program)
                }
                Err(e) => return format!("{}: {e}", self.program),
            }
        }
    }

    /// Asks the engine to quit, then kills it if it has not within a moment.
    pub fn quit(mut self) {
        let _ = self.send(&Command::Quit);
        let until = Instant::now() + QUIT_GRACE;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(2));
        }
        // Drop kills it.
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Opens the engine's stderr log for appending, with a line that says
/// which start of the program follows, so restarts stay apart.
fn open_log(path: &PathBuf, command: &[String]) -> Result<File, EngineError> {
    let io = |source| EngineError::Log {
        path: path.clone(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io)?;
    writeln!(file, "--- mancala: starting {}", command.join(" ")).map_err(io)?;
    Ok(file)
}

/// Reads the engine's output on a thread of its own, line by line, so that
/// waiting for a reply can time out.
fn spawn_reader(stdout: impl Read + Send + 'static) -> Receiver<Line> {
    let (send, receive) = mpsc::channel();
    thread::Builder::new()
        .name("engine-reader".into())
        .spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match (&mut reader)
                    .take(MAX_LINE_BYTES as u64)
                    .read_until(b'\n', &mut buf)
                {
                    Ok(0) => return,
                    Ok(n) if n == MAX_LINE_BYTES && buf.last() != Some(&b'\n') => {
                        let _ = send.send(Err(format!(
                            "a line longer than {} KiB",
                            MAX_LINE_BYTES / 1024
                        )));
                        return;
                    }
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf)
                            .trim_end_matches(['\n', '\r'])
                            .to_string();
                        if send.send(Ok(line)).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = send.send(Err(format!("reading its output failed: {e}")));
                        return;
                    }
                }
            }
        })
        .expect("a reader thread starts");
    receive
}
