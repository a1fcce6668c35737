//! The processes an engine started, found through `/proc` (Linux).
//!
//! Killing the engine's process group is not enough: a helper that calls
//! `setsid` (as daemons do) leaves the group, and a check of the group
//! then reports nothing left while it runs on. Such a helper is still a
//! descendant of the engine, but only while its parent lives: once the
//! parent exits it is handed to init (or the nearest subreaper), and
//! nothing links it to the engine any more. So the runner walks the
//! engine's descendants while the engine is alive (at each new game, at
//! each step of a check, before `quit`, before killing it), remembers
//! each with its start time, and kills what it remembers.
//!
//! Making the runner a subreaper (`PR_SET_CHILD_SUBREAPER`) would keep
//! such orphans its children, but it changes the whole host process (a
//! Python interpreter or the web server embedding this library would have
//! to reap every orphan of every program it runs), and orphans of engines
//! run side by side could not be told apart; the walk needs neither. What
//! it can miss is a helper whose parent exits between two walks (a double
//! fork done quickly); while the runner kills an engine it first stops it
//! and every descendant it finds, so that none of them forks more.

/// A process, told apart from a later one that gets the same pid by the
/// time it started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tracked {
    pid: u32,
    /// Clock ticks after boot (`/proc/PID/stat`, field 22).
    start: u64,
}

/// A process an engine left running: its pid and its command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leftover {
    /// Its process id.
    pub pid: u32,
    /// Its command line (its name when that cannot be read), shortened.
    pub command: String,
}

/// How many bytes of a leftover's command line are kept.
const COMMAND_BYTES: usize = 200;

/// How many rounds of "stop what was found, look again" a kill makes: each
/// round stops the processes the last one found, so more rounds are only
/// needed for a tree that forks faster than it is walked.
const FREEZE_ROUNDS: usize = 8;

/// What `/proc/PID/stat` says of a process.
#[cfg(target_os = "linux")]
struct Stat {
    ppid: u32,
    pgrp: u32,
    start: u64,
    /// Neither a zombie nor dead: it still runs (or sleeps, or is stopped).
    alive: bool,
}

#[cfg(target_os = "linux")]
fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `PID (NAME) STATE PPID PGRP ...`: the name may hold spaces and
    // parentheses, so the fields are counted from its last `)`.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Field 3 (the state) is fields[0], so field N is fields[N - 3].
    Some(Stat {
        ppid: fields.get(1)?.parse().ok()?,
        pgrp: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
        alive: !matches!(*fields.first()?, "Z" | "X" | "x"),
    })
}

/// Every process of the system with its stat.
#[cfg(target_os = "linux")]
fn all_processes() -> Vec<(u32, Stat)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect()
}

/// The living processes whose chain of parents leads to `root` (itself
/// not included).
#[cfg(target_os = "linux")]
pub(crate) fn descendants(root: u32) -> Vec<Tracked> {
    let all = all_processes();
    let mut found: Vec<Tracked> = Vec::new();
    let mut parents = vec![root];
    while let Some(parent) = parents.pop() {
        for (pid, s) in &all {
            // A pid seen twice would be a cycle, which /proc cannot show
            // in one consistent moment but can across a racing walk.
            if s.ppid == parent && s.alive && !found.iter().any(|t| t.pid == *pid) {
                found.push(Tracked {
                    pid: *pid,
                    start: s.start,
                });
                parents.push(*pid);
            }
        }
    }
    found
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn descendants(_root: u32) -> Vec<Tracked> {
    Vec::new()
}

/// The living processes of the process group `pgid`.
#[cfg(target_os = "linux")]
pub(crate) fn group_members(pgid: u32) -> Vec<Tracked> {
    all_processes()
        .into_iter()
        .filter(|(_, s)| s.pgrp == pgid && s.alive)
        .map(|(pid, s)| Tracked {
            pid,
            start: s.start,
        })
        .collect()
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn group_members(_pgid: u32) -> Vec<Tracked> {
    Vec::new()
}

/// Whether `process` still runs (a zombie has ended), and is the process
/// it was rather than a later one with its pid.
#[cfg(target_os = "linux")]
pub(crate) fn is_running(process: Tracked) -> bool {
    stat(process.pid).is_some_and(|s| s.alive && s.start == process.start)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn is_running(_process: Tracked) -> bool {
    false
}

/// `process` as a [`Leftover`], with its command line.
pub(crate) fn leftover(process: Tracked) -> Leftover {
    let pid = process.pid;
    let read = |file: &str| std::fs::read(format!("/proc/{pid}/{file}")).unwrap_or_default();
    let mut words: Vec<String> = read("cmdline")
        .split(|&b| b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect();
    if words.is_empty() {
        words.push(String::from_utf8_lossy(&read("comm")).trim().to_string());
    }
    let mut command = words.join(" ");
    if command.len() > COMMAND_BYTES {
        let mut end = COMMAND_BYTES;
        while !command.is_char_boundary(end) {
            end -= 1;
        }
        command.truncate(end);
        command.push_str("...");
    }
    Leftover { pid, command }
}

/// Sends `signal` to `process` if it is still the process it was.
///
/// A pidfd pins the process it was opened for, so once its start time is
/// checked through it, the signal cannot reach a later process that got
/// the pid; where pidfds are missing (kernels before 5.3), the check and
/// the signal are a moment apart.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub(crate) fn signal(process: Tracked, signal: libc::c_int) {
    let Ok(pid) = libc::pid_t::try_from(process.pid) else {
        return;
    };
    if pid <= 1 {
        return;
    }
    // SAFETY: pidfd_open takes a pid and flags and returns a new file
    // descriptor or -1; it touches no memory of ours.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        if std::io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS)
            && is_running(process)
        {
            // SAFETY: kill only sends a signal; it touches no memory of ours.
            unsafe {
                libc::kill(pid, signal);
            }
        }
        // Otherwise the process is gone (ESRCH).
        return;
    }
    let fd = fd as libc::c_int;
    if is_running(process) {
        // SAFETY: `fd` is the pidfd opened above; a null info pointer asks
        // the kernel to fill in the usual sender fields, and no memory of
        // ours is read or written.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                fd,
                signal,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            );
        }
    }
    // SAFETY: `fd` was opened above, is ours alone, and is closed once.
    unsafe {
        libc::close(fd);
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn signal(_process: Tracked, _signal: i32) {}

/// Stops (`SIGSTOP`) the engine `root`'s group and every descendant of
/// it, looking again until a walk finds nothing new, so that none of them
/// can start more while they are killed; adds what it finds to `known`.
#[cfg(unix)]
#[allow(unsafe_code)]
pub(crate) fn freeze(root: u32, known: &mut Vec<Tracked>) {
    let Ok(pgid) = libc::pid_t::try_from(root) else {
        return;
    };
    if pgid > 1 {
        // SAFETY: killpg only sends a signal; it touches no memory of
        // ours. The caller passes the engine's pid while the engine is
        // unreaped, so the group id is its own.
        unsafe {
            libc::killpg(pgid, libc::SIGSTOP);
        }
    }
    for _ in 0..FREEZE_ROUNDS {
        let new: Vec<Tracked> = descendants(root)
            .into_iter()
            .filter(|p| !known.contains(p))
            .collect();
        if new.is_empty() {
            break;
        }
        for &p in &new {
            signal(p, libc::SIGSTOP);
        }
        known.extend(new);
    }
}

#[cfg(not(unix))]
pub(crate) fn freeze(_root: u32, _known: &mut Vec<Tracked>) {}

/// Kills every process of `known` that still runs.
#[cfg(unix)]
pub(crate) fn kill_all(known: &[Tracked]) {
    for &p in known {
        signal(p, libc::SIGKILL);
    }
}

#[cfg(not(unix))]
pub(crate) fn kill_all(_known: &[Tracked]) {}

/// Adds to `known` the processes of `found` it does not hold yet.
pub(crate) fn remember(known: &mut Vec<Tracked>, found: Vec<Tracked>) {
    for p in found {
        if !known.contains(&p) {
            known.push(p);
        }
    }
    // Processes that have ended are forgotten, so that an engine that
    // starts a helper per move does not make the list grow for ever.
    known.retain(|&p| is_running(p));
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    #[test]
    fn a_child_that_left_the_group_is_found_stopped_and_killed() {
        // sh starts a sleeping child in a session of its own, says its
        // pid, and waits.
        let mut sh = Command::new("sh");
        sh.args(["-c", "setsid sleep 600 & echo $!; wait"])
            .stdout(Stdio::piped());
        // A group of its own, as an engine has.
        std::os::unix::process::CommandExt::process_group(&mut sh, 0);
        let mut sh = sh.spawn().unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(sh.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let sleeper: u32 = line.trim().parse().unwrap();
        let until = Instant::now() + Duration::from_secs(5);
        // Found once `setsid` has left the group and become `sleep`: until
        // then the child is sh's fork or `setsid sleep 600`, still in the
        // group (a command that merely contains "sleep 600" is too early).
        let tracked = loop {
            let sleeping = descendants(sh.id())
                .into_iter()
                .find(|&p| p.pid == sleeper && leftover(p).command.starts_with("sleep 600"));
            if sleeping.is_some() || Instant::now() > until {
                break sleeping;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let in_group = tracked.is_some_and(|p| group_members(sh.id()).contains(&p));
        let mut known = Vec::new();
        freeze(sh.id(), &mut known);
        kill_all(&known);
        let _ = sh.kill();
        let _ = sh.wait();
        let tracked = tracked.expect("the sleeper is found as sh's descendant");
        // Not in sh's group: killing the group would miss it.
        assert!(!in_group);
        assert!(known.contains(&tracked));
        let until = Instant::now() + Duration::from_secs(5);
        while is_running(tracked) {
            assert!(Instant::now() < until, "{sleeper} still runs");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
