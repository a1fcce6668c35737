//! One running engine program: its pipes, the threads that read them, and
//! replies awaited with a deadline, so that no engine can block its caller,
//! fill its memory, or outlive it.
//!
//! The engine runs in a process group of its own, and the whole group is
//! killed when the engine is done with: a wrapper script (`sh -c ...`) or
//! an engine that starts helpers leaves nothing behind. Helpers that leave
//! the group (`setsid`) are found as the engine's descendants and killed
//! too (see [`crate::descendants`]).

use std::collections::VecDeque;
use std::io::{BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command as Process, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use mancala_core::spec::truncate_input;

use crate::descendants::{self, Leftover, Tracked};
use crate::log::EngineLog;
use crate::protocol::{read_line, Command, InputLine, OptionDecl, Reply};
use crate::EngineError;

/// Longest line an engine may print; a longer one is garbage (and may be a
/// runaway loop filling memory).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// How much an engine may print at once: its output is metered like a
/// bucket of this many bytes, refilled at [`FLOOD_RATE_BYTES`] a second.
/// An engine that prints more is flooding: it loses its game and is killed.
pub const FLOOD_BURST_BYTES: u64 = 4 << 20;

/// How many bytes a second an engine may print on average (see
/// [`FLOOD_BURST_BYTES`]). A thousand `info` lines a second are a tenth of
/// it.
pub const FLOOD_RATE_BYTES: u64 = 1 << 20;

/// How many bytes of lines an engine may have waiting to be read (while
/// its opponent thinks, say); consecutive `info` lines count as their
/// last. More is flooding.
pub const MAX_HELD_BYTES: usize = 4 << 20;

/// How many lines an engine may have waiting to be read, counted as for
/// [`MAX_HELD_BYTES`]. More is flooding.
pub const MAX_HELD_LINES: usize = 10_000;

/// How often a wait looks at the cancel flag and at whether the engine
/// has exited.
const POLL: Duration = Duration::from_millis(20);

/// Once the engine itself has exited, how long what it printed may still
/// take to arrive, when a process it left behind keeps its output open.
const EXIT_GRACE: Duration = Duration::from_millis(100);

/// How long `quit` is given before the process is killed.
const QUIT_GRACE: Duration = Duration::from_millis(200);

/// How often a tournament looks for the processes an engine started
/// ([`EngineProcess::track_descendants_if_due`]): walking `/proc` costs
/// about a millisecond, as much as a whole game of a small board.
const TRACK_INTERVAL: Duration = Duration::from_secs(1);

/// How long a dropped engine's standard error may take to reach its log.
const LOG_GRACE: Duration = Duration::from_millis(200);

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

/// Why the reader stopped reading the engine's output.
#[derive(Debug)]
enum End {
    /// The output closed.
    Closed,
    /// It could not be read, or held a line too long.
    Failed(String),
    /// The engine broke a flood limit (and was killed).
    Flood(String),
}

/// The lines the reader has read and nobody has taken yet.
#[derive(Debug, Default)]
struct Inbox {
    lines: VecDeque<String>,
    /// Bytes in `lines`.
    held: usize,
    /// Whether the last line in `lines` is an `info`: the next `info`
    /// replaces it, since only the latest one of a search matters.
    last_is_info: bool,
    end: Option<End>,
    /// Raised once the owner no longer listens and may reap the process:
    /// from then on the reader neither keeps lines nor kills.
    closed: bool,
}

impl Inbox {
    fn take(&mut self) -> Option<String> {
        let line = self.lines.pop_front()?;
        self.held -= line.len();
        if self.lines.is_empty() {
            self.last_is_info = false;
        }
        Some(line)
    }

    fn clear(&mut self) {
        self.lines.clear();
        self.held = 0;
        self.last_is_info = false;
    }

    /// Keeps `line`, or says why the engine is flooding.
    fn keep(&mut self, line: String) -> Result<(), String> {
        let info = line.split_whitespace().next() == Some("info");
        if info && self.last_is_info {
            if let Some(last) = self.lines.pop_back() {
                self.held -= last.len();
            }
        }
        if self.held + line.len() > MAX_HELD_BYTES || self.lines.len() >= MAX_HELD_LINES {
            return Err(format!(
                "more than {MAX_HELD_LINES} lines or {} MiB waiting to be read",
                MAX_HELD_BYTES >> 20
            ));
        }
        self.held += line.len();
        self.lines.push_back(line);
        self.last_is_info = info;
        Ok(())
    }
}

/// The inbox and its signal, shared with the reader thread.
#[derive(Debug, Default)]
struct Shared {
    inbox: Mutex<Inbox>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inbox> {
        self.inbox.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The flood meter: a bucket of [`FLOOD_BURST_BYTES`] refilled at
/// [`FLOOD_RATE_BYTES`] a second.
struct Meter {
    bytes: f64,
    at: Instant,
}

impl Meter {
    fn new(now: Instant) -> Meter {
        Meter {
            bytes: FLOOD_BURST_BYTES as f64,
            at: now,
        }
    }

    /// Takes `n` bytes from the bucket; `false` when it does not hold them.
    fn spend(&mut self, n: usize, now: Instant) -> bool {
        let refill = now.duration_since(self.at).as_secs_f64() * FLOOD_RATE_BYTES as f64;
        self.bytes = (self.bytes + refill).min(FLOOD_BURST_BYTES as f64);
        self.at = now;
        self.bytes -= n as f64;
        self.bytes >= 0.0
    }
}

/// A started engine that has introduced itself.
#[derive(Debug)]
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    shared: Arc<Shared>,
    /// The stderr log, and a channel that closes when the copy into it ends.
    log: Option<(EngineLog, Receiver<()>)>,
    /// The engine's introduction.
    pub id: EngineId,
    program: String,
    /// `isready`s sent whose `readyok` has not come: whatever the engine
    /// prints before it answers them is stale.
    fences: usize,
    /// When the engine was first seen to have exited.
    exited_at: Option<Instant>,
    /// Whether the engine has been reaped: its process group id may then
    /// belong to someone else, and is never signalled again.
    reaped: bool,
    /// The engine's descendants seen so far, found while it was alive:
    /// once it exits, nothing links those that left its group to it.
    descendants: Vec<Tracked>,
    /// When the descendants were last looked for.
    tracked_at: Option<Instant>,
    /// The last lines exchanged (`> ` sent, `< ` received), shortened, for
    /// messages that show what went wrong.
    transcript: VecDeque<String>,
}

/// How many lines [`EngineProcess::transcript`] keeps.
pub const TRANSCRIPT_LINES: usize = 16;

/// The command that starts an engine: `program` with `args`, its standard
/// input and output piped, its standard error piped only when it is kept,
/// in `workdir` when one is given.
fn engine_command(
    program: &str,
    args: &[String],
    workdir: Option<&PathBuf>,
    keep_stderr: bool,
) -> Process {
    let mut process = Process::new(program);
    process
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if keep_stderr {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own group, so that killing the group reaches whatever it
        // starts (a wrapper's real engine, helpers), and a Ctrl-C meant
        // for the runner is the runner's to handle.
        process.process_group(0);
    }
    if let Some(dir) = workdir {
        process.current_dir(dir);
    }
    process
}

/// Takes the started engine's pipes (standard error only where it is kept).
///
/// # Errors
/// Its standard input or output pipe was not made; the engine is then
/// killed and reaped.
fn take_pipes(
    child: &mut Child,
) -> std::io::Result<(ChildStdin, ChildStdout, Option<ChildStderr>)> {
    match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
        (Some(stdin), Some(stdout), stderr_pipe) => Ok((stdin, stdout, stderr_pipe)),
        _ => {
            kill_group(child);
            let _ = child.wait();
            Err(std::io::Error::other("its pipes were not made"))
        }
    }
}

/// Copies the engine's standard error from `pipe` into `log` on a thread of
/// its own; the returned receiver disconnects when the copy is done.
///
/// # Errors
/// The thread cannot be started.
fn copy_stderr(log: &EngineLog, pipe: ChildStderr) -> std::io::Result<Receiver<()>> {
    let (done, copied) = mpsc::channel::<()>();
    let copy = log.clone();
    thread::Builder::new()
        .name("engine-stderr".into())
        .spawn(move || {
            copy.copy_from(pipe);
            drop(done);
        })?;
    Ok(copied)
}

/// How an engine ended after `quit` ([`EngineProcess::quit_and_wait`]).
#[derive(Debug)]
pub enum QuitOutcome {
    /// It exited by itself.
    Exited {
        /// How long after `quit`.
        after: Duration,
        /// Its exit status, in words.
        status: String,
        /// The processes it started that were still running: of its group,
        /// or descendants seen while it ran (they are killed).
        left_behind: Vec<Leftover>,
    },
    /// It was still running at the limit (it is killed).
    StillRunning,
}

impl EngineProcess {
    /// Starts `command` (program and arguments) in a process group of its
    /// own, with its standard error copied into `stderr` (or dropped), and
    /// waits for `mancalaok` until `timeout` has passed.
    ///
    /// # Errors
    /// The program cannot start, exits, prints garbage or is too slow.
    pub fn start(
        command: &[String],
        workdir: Option<&PathBuf>,
        stderr: Option<&EngineLog>,
        timeout: Duration,
        cancel: Option<&AtomicBool>,
    ) -> Result<EngineProcess, EngineError> {
        let mut engine = EngineProcess::spawn(command, workdir, stderr)?;
        engine.introduce(timeout, cancel)?;
        Ok(engine)
    }

    /// Starts `command` as [`EngineProcess::start`] does, without the
    /// introduction: [`EngineProcess::introduce`] is the next step.
    ///
    /// # Errors
    /// The program cannot start.
    pub fn spawn(
        command: &[String],
        workdir: Option<&PathBuf>,
        stderr: Option<&EngineLog>,
    ) -> Result<EngineProcess, EngineError> {
        let (program, args) = command.split_first().ok_or(EngineError::NoCommand)?;
        let spawn_error = |source| EngineError::Spawn {
            program: program.clone(),
            source,
        };
        let mut process = engine_command(program, args, workdir, stderr.is_some());
        if let Some(log) = stderr {
            log.write(format!("--- mancala: starting {}\n", command.join(" ")).as_bytes());
        }
        let mut child = process.spawn().map_err(spawn_error)?;
        let shared = Arc::new(Shared::default());
        let (stdin, stdout, stderr_pipe) = take_pipes(&mut child).map_err(spawn_error)?;
        // Built before the threads, so that an early return kills the child.
        let mut engine = EngineProcess {
            child,
            stdin,
            shared: Arc::clone(&shared),
            log: None,
            id: EngineId::default(),
            program: program.clone(),
            fences: 0,
            exited_at: None,
            reaped: false,
            descendants: Vec::new(),
            tracked_at: None,
            transcript: VecDeque::new(),
        };
        let pid = engine.child.id();
        thread::Builder::new()
            .name("engine-reader".into())
            .spawn(move || read_output(stdout, &shared, pid))
            .map_err(spawn_error)?;
        if let (Some(log), Some(pipe)) = (stderr, stderr_pipe) {
            let copied = copy_stderr(log, pipe).map_err(spawn_error)?;
            engine.log = Some((log.clone(), copied));
        }
        Ok(engine)
    }

    /// Sends `mancala` and reads the engine's introduction (its `id` and
    /// `option` lines) until `mancalaok`, waiting until `timeout` has
    /// passed.
    ///
    /// # Errors
    /// The engine exits, prints garbage or is too slow.
    pub fn introduce(
        &mut self,
        timeout: Duration,
        cancel: Option<&AtomicBool>,
    ) -> Result<(), EngineError> {
        self.send(&Command::Mancala)?;
        let since = Instant::now();
        let deadline = since + timeout;
        loop {
            match self.next_reply("mancalaok", since, deadline, cancel)? {
                Reply::IdName(name) => self.id.name = Some(name),
                Reply::IdAuthor(author) => self.id.author = Some(author),
                Reply::Option(decl) => self.id.options.push(decl),
                Reply::MancalaOk => return Ok(()),
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
        self.note("> ", line.trim_end());
        let written = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush());
        written.map_err(|_| EngineError::Exited {
            waiting_for: "its input to be read",
            status: self.status(),
        })
    }

    /// Sends `isready` without waiting: everything the engine prints
    /// before its `readyok` is stale, and [`EngineProcess::clear_stale`]
    /// drops it. Sent after each `bestmove`, it costs no time.
    ///
    /// # Errors
    /// As [`EngineProcess::send`].
    pub fn fence(&mut self) -> Result<(), EngineError> {
        self.send(&Command::IsReady)?;
        self.fences += 1;
        Ok(())
    }

    /// Drops whatever the engine printed before the `readyok`s of every
    /// `isready` sent so far (waiting for them until `deadline`), and
    /// whatever has come since: call it before a command whose answer
    /// counts, so that a stale line (a second `bestmove`) cannot pass for
    /// the answer.
    ///
    /// # Errors
    /// As [`EngineProcess::next_reply`].
    pub fn clear_stale(
        &mut self,
        since: Instant,
        deadline: Instant,
        cancel: Option<&AtomicBool>,
    ) -> Result<(), EngineError> {
        while self.fences > 0 {
            let line = self.next_line("readyok", since, deadline, cancel)?;
            if matches!(Reply::parse(&line), Ok(Reply::ReadyOk)) {
                self.fences -= 1;
            }
        }
        self.shared.lock().clear();
        Ok(())
    }

    /// The next line, waiting at most until `deadline` and no longer than
    /// `cancel` stays low.
    fn next_line(
        &mut self,
        waiting_for: &'static str,
        since: Instant,
        deadline: Instant,
        cancel: Option<&AtomicBool>,
    ) -> Result<String, EngineError> {
        let mut inbox = self.shared.lock();
        loop {
            if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(EngineError::Cancelled);
            }
            // A flood is reported at once, before the lines it brought.
            if let Some(End::Flood(why)) = &inbox.end {
                return Err(EngineError::Flood(why.clone()));
            }
            // An engine that exits while a process it started still holds
            // its output open never closes that output: its exit is
            // noticed here instead, once what it printed has had time to
            // be read (lines that keep coming after that are the leftover
            // process's).
            let now = Instant::now();
            if self.exited_at.is_none() && has_exited(&mut self.child) {
                self.exited_at = Some(now);
            }
            if self.exited_at.is_some_and(|at| now >= at + EXIT_GRACE) {
                drop(inbox);
                return Err(EngineError::Exited {
                    waiting_for,
                    status: self.status(),
                });
            }
            if let Some(line) = inbox.take() {
                drop(inbox);
                self.note("< ", &line);
                return Ok(line);
            }
            match &inbox.end {
                Some(End::Failed(why)) => return Err(EngineError::Output(why.clone())),
                Some(End::Closed) => {
                    drop(inbox);
                    return Err(EngineError::Exited {
                        waiting_for,
                        status: self.status(),
                    });
                }
                Some(End::Flood(_)) | None => {}
            }
            if now >= deadline {
                return Err(EngineError::Timeout {
                    waiting_for,
                    // The limit, not the time it took to notice: a loaded
                    // machine wakes a few ms late, and the message (and
                    // what it is compared with) should not depend on it.
                    after: deadline.saturating_duration_since(since),
                });
            }
            let wait = (deadline - now).min(POLL);
            inbox = match self.shared.changed.wait_timeout(inbox, wait) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// The next reply, waiting at most until `deadline` and no longer than
    /// `cancel` stays low. Empty lines are skipped. A timeout counts from
    /// `since`, when the awaited command was sent.
    ///
    /// # Errors
    /// Timeout, exit, flood, cancel, or a line that is not a reply.
    pub fn next_reply(
        &mut self,
        waiting_for: &'static str,
        since: Instant,
        deadline: Instant,
        cancel: Option<&AtomicBool>,
    ) -> Result<Reply, EngineError> {
        loop {
            let line = self.next_line(waiting_for, since, deadline, cancel)?;
            if line.trim().is_empty() {
                continue;
            }
            let reply = Reply::parse(&line)?;
            if reply == Reply::ReadyOk && self.fences > 0 {
                // The answer to an `isready` sent earlier: not the reply
                // awaited, unless it is the `readyok` itself.
                self.fences -= 1;
                if waiting_for != "readyok" {
                    continue;
                }
            }
            return Ok(reply);
        }
    }

    /// Sends `isready` and waits for its `readyok` (and those of any
    /// earlier `isready`) until `deadline`.
    ///
    /// # Errors
    /// As [`EngineProcess::next_reply`]; an `error` reply is
    /// [`EngineError::Refused`].
    pub fn sync(
        &mut self,
        deadline: Instant,
        cancel: Option<&AtomicBool>,
    ) -> Result<(), EngineError> {
        let since = Instant::now();
        self.fence()?;
        while self.fences > 0 {
            match self.next_reply("readyok", since, deadline, cancel)? {
                Reply::ReadyOk => {}
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
        Ok(())
    }

    /// Adds a line to the transcript, shortened.
    fn note(&mut self, direction: &str, line: &str) {
        if self.transcript.len() == TRANSCRIPT_LINES {
            self.transcript.pop_front();
        }
        self.transcript
            .push_back(format!("{direction}{}", truncate_input(line)));
    }

    /// The last `lines` lines exchanged with the engine (at most
    /// [`TRANSCRIPT_LINES`]), oldest first: `> ` sent, `< ` received
    /// (read by the runner, so lines still unread are not among them).
    pub fn transcript(&self, lines: usize) -> Vec<String> {
        let skip = self.transcript.len().saturating_sub(lines);
        self.transcript.iter().skip(skip).cloned().collect()
    }

    /// How the process ended, in words, waiting briefly for it to finish
    /// exiting (its output closes a moment before it is reaped).
    fn status(&mut self) -> String {
        let until = Instant::now() + Duration::from_millis(100);
        while !has_exited(&mut self.child) {
            if Instant::now() >= until {
                return format!("{} is still running but closed its output", self.program);
            }
            thread::sleep(Duration::from_millis(2));
        }
        // Whatever it left behind goes before it is reaped, while its
        // group id is still its own.
        self.stop();
        match self.reap() {
            Ok(Some(status)) => format!("{} {status}", self.program),
            Ok(None) => format!("{} has exited", self.program),
            Err(e) => format!("{}: {e}", self.program),
        }
    }

    /// Reaps the engine if it has exited.
    fn reap(&mut self) -> std::io::Result<Option<std::process::ExitStatus>> {
        let status = self.child.try_wait()?;
        self.reaped |= status.is_some();
        Ok(status)
    }

    /// Looks for the processes the engine has started and remembers them,
    /// so that those that leave its group (`setsid`) can still be killed
    /// once it has exited: call it while the engine is alive (at each new
    /// game, before `quit`).
    pub(crate) fn track_descendants(&mut self) {
        if self.reaped || has_exited(&mut self.child) {
            // Its children have been handed to init: nothing to walk.
            return;
        }
        let found = descendants::descendants(self.child.id());
        descendants::remember(&mut self.descendants, found);
        self.tracked_at = Some(Instant::now());
    }

    /// [`EngineProcess::track_descendants`], unless it was done less than
    /// [`TRACK_INTERVAL`] ago: for each game of a tournament. What it can
    /// miss in between is only a helper whose parent exits before the
    /// engine is killed, since killing it walks its tree again.
    pub(crate) fn track_descendants_if_due(&mut self) {
        if self
            .tracked_at
            .is_none_or(|at| at.elapsed() >= TRACK_INTERVAL)
        {
            self.track_descendants();
        }
    }

    /// Stops listening and kills the engine's whole group and every
    /// descendant of it seen (unless the engine was reaped, its group id
    /// may be another's by then: only the descendants are killed).
    fn stop(&mut self) {
        self.shared.lock().closed = true;
        if !self.reaped {
            if !has_exited(&mut self.child) {
                // Stopped first, so that nothing of it forks while it is
                // looked through and killed.
                descendants::freeze(self.child.id(), &mut self.descendants);
            }
            kill_group(&mut self.child);
        }
        descendants::kill_all(&self.descendants);
    }

    /// Sends `quit` and waits until `limit` for the engine to exit by
    /// itself, then says how it ended; whatever is still running of its
    /// group is killed either way. What `mancala engine check` asks of an
    /// engine: a tournament only waits a moment before killing it.
    pub fn quit_and_wait(mut self, limit: Duration) -> QuitOutcome {
        // Once it has exited, its helpers that left its group can only be
        // found as the descendants seen before.
        self.track_descendants();
        let since = Instant::now();
        // An engine that no longer reads its input may still exit.
        let _ = self.send(&Command::Quit);
        while !has_exited(&mut self.child) {
            if since.elapsed() >= limit {
                return QuitOutcome::StillRunning;
            }
            thread::sleep(Duration::from_millis(2));
        }
        let after = since.elapsed();
        self.shared.lock().closed = true;
        let status = match self.reap() {
            Ok(Some(status)) => status.to_string(),
            Ok(None) => "exited".into(),
            Err(e) => e.to_string(),
        };
        // Reaped, the engine no longer holds its group id, but any process
        // still in the group does: the id cannot be given to anyone else
        // while one is left, so asking it (and killing it) reaches only
        // the engine's leftovers.
        let mut left: Vec<Tracked> = descendants::group_members(self.child.id());
        descendants::remember(&mut left, self.descendants.clone());
        let mut left_behind: Vec<Leftover> =
            left.iter().map(|&p| descendants::leftover(p)).collect();
        let group = self.child.id();
        if left_behind.is_empty() && group_alive(group) {
            // Where processes cannot be listed (no /proc), the group still
            // tells that something of the engine is left: that fails the
            // check as it did before the listing.
            left_behind.push(Leftover {
                pid: group,
                command: format!("a process of the engine's group {group}, not listed here"),
            });
        }
        if !left_behind.is_empty() {
            kill_group_of(group);
        }
        descendants::kill_all(&left);
        QuitOutcome::Exited {
            after,
            status,
            left_behind,
        }
    }

    /// Asks the engine to quit, then kills it (and whatever it started) if
    /// it has not within a moment.
    pub fn quit(mut self) {
        self.track_descendants();
        if self.send(&Command::Quit).is_ok() {
            let until = Instant::now() + QUIT_GRACE;
            while Instant::now() < until && !has_exited(&mut self.child) {
                thread::sleep(Duration::from_millis(2));
            }
        }
        // Drop kills the group.
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        // Even an engine that quit may have left processes in its group.
        self.stop();
        if !self.reaped {
            let _ = self.child.wait();
        }
        if let Some((log, copied)) = &self.log {
            // The group is gone, so its standard error ends soon (unless a
            // process left the group and holds it): wait a moment for the
            // copy, then write out the log's tail either way.
            let _ = copied.recv_timeout(LOG_GRACE);
            log.flush();
        }
    }
}

/// Reads the engine's output on a thread of its own, line by line, so that
/// waiting for a reply can time out; meters it, and kills the engine's
/// group `pid` when it floods.
fn read_output(stdout: impl Read, shared: &Shared, pid: u32) {
    let mut input = BufReader::new(stdout);
    let mut meter = Meter::new(Instant::now());
    let end = loop {
        let line = match read_line(&mut input, MAX_LINE_BYTES) {
            Ok(Some(InputLine::Text(line) | InputLine::NotUtf8(line))) => line,
            Ok(Some(InputLine::TooLong(_))) => {
                break End::Failed(format!("a line longer than {} KiB", MAX_LINE_BYTES / 1024))
            }
            Ok(None) => break End::Closed,
            Err(e) => break End::Failed(format!("reading its output failed: {e}")),
        };
        // A line costs its line break too, so that a flood of empty lines
        // is metered; empty lines are not kept.
        if !meter.spend(line.len() + 1, Instant::now()) {
            break End::Flood(format!(
                "more than {} MiB at once, or over {} MiB a second",
                FLOOD_BURST_BYTES >> 20,
                FLOOD_RATE_BYTES >> 20
            ));
        }
        if line.trim().is_empty() {
            continue;
        }
        let mut inbox = shared.lock();
        if inbox.closed {
            return;
        }
        if let Err(why) = inbox.keep(line) {
            break End::Flood(why);
        }
        shared.changed.notify_all();
    };
    let mut inbox = shared.lock();
    if inbox.closed {
        return;
    }
    if matches!(end, End::Flood(_)) {
        // Killed now rather than when next asked: a flood between moves
        // would otherwise go on while the opponent thinks. The owner has
        // not reaped the engine (`closed` is low, and stays so while this
        // holds the lock), so the group id is still the engine's.
        kill_group_of(pid);
    }
    inbox.end = Some(end);
    shared.changed.notify_all();
}

/// Whether `child` has exited, without reaping it: until it is reaped, its
/// process group id cannot be given to anyone else, so killing the group
/// stays safe.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn has_exited(child: &mut Child) -> bool {
    let pid = child.id();
    // SAFETY: `siginfo_t` is plain data, for which all zeroes is a valid
    // value, and `waitid` only writes into it. WNOHANG makes the call
    // return at once; WNOWAIT leaves the child waitable, so that `Child`
    // still reaps it and learns its status. Reading `si_pid` is sound once
    // `waitid` has returned 0: it then fills the field (0: still running).
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let r = libc::waitid(
            libc::P_PID,
            pid,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        // A failure means that the child was already reaped.
        r != 0 || info.si_pid() != 0
    }
}

#[cfg(not(target_os = "linux"))]
fn has_exited(child: &mut Child) -> bool {
    matches!(child.try_wait(), Ok(Some(_)))
}

/// Kills `child` and every process of its group.
fn kill_group(child: &mut Child) {
    kill_group_of(child.id());
    // For a child that has left its group, and where groups are not
    // available; a no-op for a child already reaped.
    let _ = child.kill();
}

/// Kills the process group `pgid` (an engine's: it leads its own group).
#[cfg(unix)]
#[allow(unsafe_code)]
fn kill_group_of(pgid: u32) {
    // 0 and 1 would be our own group and init's; never signal those.
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid > 1 {
        // SAFETY: killpg only sends a signal; it reads and writes no memory
        // of ours. The callers only pass an engine's group id while the
        // engine is unreaped, so the id names that group and no other.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group_of(_pgid: u32) {}

/// Whether any process is left in the group `pgid`.
#[cfg(unix)]
#[allow(unsafe_code)]
fn group_alive(pgid: u32) -> bool {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return false;
    };
    // SAFETY: signal 0 is not sent: killpg only checks that the group
    // exists; it reads and writes no memory of ours.
    pgid > 1 && unsafe { libc::killpg(pgid, 0) } == 0
}

#[cfg(not(unix))]
fn group_alive(_pgid: u32) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Output without end, as fast as it can be read.
    struct Endless {
        line: &'static [u8],
        at: usize,
        served: u64,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            for b in buf.iter_mut() {
                *b = self.line[self.at];
                self.at = (self.at + 1) % self.line.len();
            }
            self.served += buf.len() as u64;
            Ok(buf.len())
        }
    }

    #[test]
    fn an_engine_that_floods_is_cut_off_with_bounded_memory() {
        for line in [
            &b"info depth 1 nodes 10\n"[..],
            &b"readyok\n"[..],
            &b"\n"[..],
        ] {
            let shared = Shared::default();
            let mut flood = Endless {
                line,
                at: 0,
                served: 0,
            };
            // Pid 0: nothing to kill.
            read_output(&mut flood, &shared, 0);
            let inbox = shared.lock();
            assert!(
                matches!(inbox.end, Some(End::Flood(_))),
                "{:?}: {:?}",
                String::from_utf8_lossy(line),
                inbox.end
            );
            assert!(inbox.held <= MAX_HELD_BYTES);
            assert!(inbox.lines.len() <= MAX_HELD_LINES);
            // Consecutive `info`s are kept as one.
            if line.starts_with(b"info") {
                assert_eq!(inbox.lines.len(), 1);
            }
            // It stopped reading soon after the burst (the reader's buffer
            // reads ahead a little).
            let bound = FLOOD_BURST_BYTES + MAX_HELD_BYTES as u64 + (1 << 20);
            assert!(flood.served < bound, "{} bytes read", flood.served);
        }
    }

    #[test]
    fn the_meter_refills_with_time() {
        let t0 = Instant::now();
        let mut meter = Meter::new(t0);
        assert!(meter.spend(FLOOD_BURST_BYTES as usize, t0));
        assert!(!meter.spend(1, t0));
        let mut meter = Meter::new(t0);
        assert!(meter.spend(FLOOD_BURST_BYTES as usize, t0));
        let later = t0 + Duration::from_secs(1);
        assert!(meter.spend(FLOOD_RATE_BYTES as usize, later));
        assert!(!meter.spend(1024, later));
    }
}
