//! `mancala engine AGENT_SPEC`: serves one of this toolkit's agents over
//! the engine protocol on standard input and output, so that it can play in
//! other people's tools (and so that the protocol is tested against itself).
//!
//! `mancala engine check -- CMD ARGS...`: takes someone's engine through
//! every step of the protocol a tournament uses, one line per check.

use std::io::{self, BufWriter, Write};

use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use mancala_core::GameSpec;
use mancala_engine::{check_engine, CheckLine, CheckOptions, Verdict};
use mancala_registry::AnyAgentSpec;

use crate::bad_input;

/// Arguments of `mancala engine`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct EngineArgs {
    #[command(subcommand)]
    check: Option<EngineCommand>,
    /// The agent to serve, e.g. minimax:depth=8 or mcts:time=100ms.
    #[arg(required = true)]
    agent: Option<String>,
}

#[derive(Subcommand, Debug)]
enum EngineCommand {
    /// Check that an engine program follows the protocol as tournaments use
    /// it: `mancala engine check [--game SPEC] -- CMD ARGS...`. Prints one
    /// line per check; exits 1 if any fails.
    Check(CheckArgs),
}

/// Arguments of `mancala engine check`.
#[derive(Args, Debug)]
struct CheckArgs {
    /// A game the engine must play (repeat for more). Default: Kalah,
    /// Kalah(4,3), empty captures, the pie rule, Oware and Congkak, any of
    /// which it may refuse with `error`.
    #[arg(long = "game", value_name = "SPEC")]
    games: Vec<String>,
    /// `go movetime` of the position and `go` checks.
    #[arg(long, default_value = "100ms")]
    movetime: String,
    /// How long starting, `isready` and `newgame` may take.
    #[arg(long, default_value = "10s")]
    handshake: String,
    /// Seeds the positions tried and the engine's `Seed` option.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The engine's program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

/// `mancala engine`.
pub fn run(args: &EngineArgs) -> Result<()> {
    if let Some(EngineCommand::Check(check)) = &args.check {
        return run_check(check);
    }
    let spec = args.agent.as_deref().expect("clap requires the agent");
    let agent = AnyAgentSpec::parse(spec).map_err(bad_input)?;
    let stdin = io::stdin().lock();
    let stdout = BufWriter::new(io::stdout().lock());
    mancala_engine::serve(&agent, stdin, stdout)?;
    Ok(())
}

/// `mancala engine check`.
fn run_check(args: &CheckArgs) -> Result<()> {
    let games = if args.games.is_empty() {
        None
    } else {
        let parsed: Result<Vec<GameSpec>, _> = args.games.iter().map(|g| g.parse()).collect();
        Some(parsed.map_err(bad_input)?)
    };
    let options = CheckOptions {
        games,
        movetime: mancala_agents::parse_duration("--movetime", &args.movetime)
            .map_err(bad_input)?,
        handshake_timeout: mancala_agents::parse_duration("--handshake", &args.handshake)
            .map_err(bad_input)?,
        seed: args.seed,
    };
    println!("checking {}", args.command.join(" "));
    let mut out = io::stdout().lock();
    let lines = check_engine(&args.command, &options, &mut |line| {
        // A closed standard output only loses the printing.
        let _ = print_line(&mut out, line);
    });
    drop(out);
    let count = |v: Verdict| lines.iter().filter(|l| l.verdict == v).count();
    let (passed, failed, not_run) = (
        count(Verdict::Pass),
        count(Verdict::Fail),
        count(Verdict::NotRun),
    );
    let mut summary = format!("{} checks: {passed} passed, {failed} failed", lines.len());
    if not_run > 0 {
        summary.push_str(&format!(", {not_run} not run"));
    }
    if failed > 0 {
        bail!("{summary}");
    }
    println!("{summary}: the engine follows the protocol as tournaments use it");
    Ok(())
}

/// One check as a line (`pass  go depth 1: ...`), and for a failure the
/// lines exchanged before it, indented.
fn print_line(out: &mut impl Write, line: &CheckLine) -> io::Result<()> {
    let verdict = match line.verdict {
        Verdict::Pass => "pass",
        Verdict::Fail => "FAIL",
        Verdict::NotRun => "skip",
    };
    writeln!(out, "{verdict}  {}: {}", line.name, line.detail)?;
    for exchanged in &line.exchange {
        writeln!(out, "        {exchanged}")?;
    }
    out.flush()
}
