//! `mancala match A B`: many games between two agents, seats swapped; with
//! `--sprt`, pairs of games until a sequential test decides.

use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::Result;
use clap::Args;
use mancala_arena::config::MAX_GAMES;
use mancala_arena::sequential::play_until_decided;
use mancala_arena::stats::{Sprt, SprtDecision, SprtSpec};
use mancala_arena::Adjudicator;
use mancala_arena::{
    pairs, random_openings, schedule, Arena, Format, GameRecord, MatchSummary, Opening,
    OpeningOrder, Players, RunOptions, ScheduledGame,
};
use mancala_core::spec::truncate_input;
use mancala_core::{with_game, GameSpec};

use crate::bad_input;
use crate::progress::Progress;
use mancala_registry::AnyAgentSpec;

/// Games of a match without `--games`.
const DEFAULT_GAMES: u64 = 100;

/// Games of an SPRT match without `--games`: the most it plays before
/// giving up undecided. 10,000 pairs settle a test of a 5 Elo difference
/// at 5% error rates in most cases, and the cap keeps a hopeless test
/// (elo0 and elo1 a hair apart) from running for ever.
const DEFAULT_SPRT_GAMES: u64 = 20_000;

fn parse_order(text: &str) -> Result<OpeningOrder, String> {
    text.parse()
        .map_err(|e: mancala_arena::openings::UnknownOrder| e.to_string())
}

/// Arguments of `mancala match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// First agent spec, e.g. minimax:depth=8.
    a: String,
    /// Second agent spec, e.g. mcts:sims=2000. Several make a gauntlet:
    /// A plays a match (and with --sprt, a test) against each in turn, with
    /// the same openings and seeds; --json then prints one line each.
    #[arg(required = true, value_name = "B")]
    opponents: Vec<String>,
    /// Game spec, e.g. kalah, kalah:pits=4,seeds=3, oware:grand_slam=illegal.
    /// Games start from its initial position (see --opening-plies).
    #[arg(long, short, default_value = "kalah")]
    game: String,
    /// Games to play (each opening twice, seats swapped) [default: 100].
    /// With --sprt, the most games to play (even) [default: 20000].
    #[arg(long, short = 'n')]
    games: Option<u64>,
    /// Seed of the whole match.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, short, value_parser = crate::parse_threads)]
    threads: Option<usize>,
    /// Start each pair of games from a random opening of this many moves.
    #[arg(long, default_value_t = 0, conflicts_with = "openings")]
    opening_plies: u32,
    /// Start the pairs of games from the openings of this file, one per
    /// line: a position in the project's notation, or moves from the start
    /// (`3 6 2`); `#` comments. The first pair plays the first line.
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// The order of the --openings file's lines: sequential, or random
    /// (shuffled by --seed).
    #[arg(long, value_name = "ORDER", requires = "openings", value_parser = parse_order)]
    openings_order: Option<OpeningOrder>,
    /// Play pairs of games until a sequential probability ratio test
    /// (GSPRT on the pairs' pentanomial counts, logistic Elo of A over B)
    /// accepts H0 (elo0) or H1 (elo1), e.g.
    /// elo0=0,elo1=10,alpha=0.05,beta=0.05. --games is then a cap.
    #[arg(long, value_name = "SPEC")]
    sprt: Option<String>,
    /// A game clock, as fastchess writes it: BASE+INCREMENT in seconds
    /// (10+0.1), MOVES/BASE+INCREMENT (40/60+0), or inf. A player whose
    /// clock runs out loses the game on time; agents with time=auto and
    /// engines without limits of their own are given the clocks.
    #[arg(long, value_name = "TC")]
    tc: Option<String>,
    /// How far a move may overrun its clock without losing (pipes and the
    /// runner take some time) [default: 50ms].
    #[arg(long, value_name = "TIME")]
    time_margin: Option<String>,
    /// End games early by adjudication: `exact` ends a game after any move
    /// whose position's exact value is known (the endgame database holds
    /// it, or the solver proves it within --exact-nodes), with the result
    /// of perfect play from there (Kalah and single-round Congkak).
    #[arg(long, value_enum, value_name = "HOW")]
    adjudicate: Option<Adjudicate>,
    /// Nodes the solver may search for each position when adjudicating
    /// (default 0: the endgame database only). A node budget, so the same
    /// command gives the same games on any machine.
    #[arg(long, value_name = "N", requires = "adjudicate",
          value_parser = clap::value_parser!(u64).range(0..=mancala_arena::config::MAX_EXACT_NODES))]
    exact_nodes: Option<u64>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// How `--adjudicate` ends games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Adjudicate {
    /// With the exact result of perfect play, where it is known.
    Exact,
}

/// `mancala match`.
pub fn run(args: &MatchArgs) -> Result<()> {
    let sprt = args
        .sprt
        .as_deref()
        .map(|text| {
            text.parse::<SprtSpec>()
                .map_err(|e| bad_input(format!("--sprt: {e}")))
        })
        .transpose()?;
    let games = games_to_play(args, sprt.is_some())?;
    let spec = args
        .game
        .parse::<GameSpec>()
        .map_err(|e| bad_input(format!("--game: {e}")))?;
    let entrants = Entrants::parse(args, &spec)?;
    let (time_control, time_margin) = parse_clock(args)?;
    if !args.json {
        let mut all = vec![entrants.a.clone()];
        all.extend(entrants.opponents.iter().cloned());
        crate::clock_notes(&all, time_control.as_ref());
    }
    let plan = MatchPlan {
        games,
        sprt,
        time_control,
        time_margin,
        args,
    };
    with_game!(&spec, game => play_gauntlet(game, &spec, &entrants, &plan))
}

/// `--games`, or its default (larger with an SPRT), checked: at most
/// [`MAX_GAMES`], and even with an SPRT; an odd number gets a note.
fn games_to_play(args: &MatchArgs, sprt: bool) -> Result<u64> {
    let games = args.games.unwrap_or(if sprt {
        DEFAULT_SPRT_GAMES
    } else {
        DEFAULT_GAMES
    });
    if games == 0 || games > MAX_GAMES {
        return Err(bad_input(format!(
            "--games must be between 1 and {MAX_GAMES} (a tournament config with several \
             runs or shards goes further)"
        )));
    }
    if sprt && games % 2 == 1 {
        return Err(bad_input(format!(
            "--games must be even with --sprt (the test counts pairs of games), not {games}"
        )));
    }
    if games % 2 == 1 && !args.json {
        eprintln!("note: with an odd number of games, agent A moves first once more than agent B");
    }
    Ok(games)
}

/// Agent A and its opponents, one match each.
struct Entrants {
    a: AnyAgentSpec,
    opponents: Vec<AnyAgentSpec>,
}

impl Entrants {
    /// The agent specs of `args`, every one parsed, and the opponents
    /// checked against the game, before the first game of a gauntlet.
    fn parse(args: &MatchArgs, spec: &GameSpec) -> Result<Entrants> {
        let a = AnyAgentSpec::parse(&args.a).map_err(|e| bad_input(format!("agent A: {e}")))?;
        let opponents = args
            .opponents
            .iter()
            .map(|b| {
                AnyAgentSpec::parse(b)
                    .map_err(|e| bad_input(format!("agent B ({}): {e}", truncate_input(b))))
            })
            .collect::<Result<Vec<_>>>()?;
        with_game!(spec, game => opponents.iter().zip(&args.opponents).try_for_each(|(b, text)| {
            b.check(game)
                .map_err(|e| bad_input(format!("agent B ({}): {e}", truncate_input(text))))
        }))?;
        Ok(Entrants { a, opponents })
    }
}

/// `--tc` and `--time-margin` (which needs a clock to apply to, and has a
/// default).
fn parse_clock(
    args: &MatchArgs,
) -> Result<(Option<mancala_agents::TimeControl>, std::time::Duration)> {
    let time_control = match &args.tc {
        Some(text) => {
            mancala_agents::TimeControl::parse(text).map_err(|e| bad_input(format!("--tc: {e}")))?
        }
        None => None,
    };
    let time_margin = match &args.time_margin {
        Some(_) if time_control.is_none() => {
            return Err(bad_input(
                "--time-margin: there is no clock for it to apply to (give --tc)",
            ))
        }
        Some(t) => mancala_agents::parse_duration("--time-margin", t).map_err(bad_input)?,
        None => mancala_arena::DEFAULT_TIME_MARGIN,
    };
    Ok((time_control, time_margin))
}

/// Agent A's match against each opponent in turn, with one adjudicator
/// (and its database, loaded once) for every match of a gauntlet.
fn play_gauntlet<G: mancala_solver::Solvable>(
    game: &G,
    spec: &GameSpec,
    entrants: &Entrants,
    plan: &MatchPlan<'_>,
) -> Result<()> {
    let args = plan.args;
    let adjudication = mancala_arena::config::AdjudicationConfig {
        exact: args.adjudicate == Some(Adjudicate::Exact),
        exact_nodes: args.exact_nodes,
        db_seeds: None,
    };
    let adjudicator = mancala_analysis::adjudication::exact_adjudicator(
        game,
        &adjudication,
        crate::solve_cmd::default_db_dir().as_deref(),
        &crate::progress::AnalysisProgress::new(args.json),
    )
    .map_err(|e| bad_input(format!("--adjudicate: {e}")))?;
    if let (Some(a), false) = (&adjudicator, args.json) {
        eprintln!("{}", a.describe());
    }
    let adjudicator = adjudicator.as_ref().map(|a| a as &dyn Adjudicator<_>);
    for b in &entrants.opponents {
        let agents = [entrants.a.clone(), b.clone()];
        play_match(game, &spec.to_string(), &agents, plan, adjudicator)?;
    }
    Ok(())
}

/// What to play: the checked arguments.
struct MatchPlan<'a> {
    /// Games, or with an SPRT the cap.
    games: u64,
    sprt: Option<SprtSpec>,
    time_control: Option<mancala_agents::TimeControl>,
    time_margin: std::time::Duration,
    args: &'a MatchArgs,
}

fn play_match<'a, G: mancala_solver::Solvable>(
    game: &'a G,
    spec: &str,
    agents: &[AnyAgentSpec; 2],
    plan: &MatchPlan<'_>,
    adjudicator: Option<&'a dyn Adjudicator<G>>,
) -> Result<()> {
    let args = plan.args;
    for (agent, which) in agents.iter().zip(["A", "B"]) {
        agent
            .check(game)
            .map_err(|e| bad_input(format!("agent {which}: {e}")))?;
    }
    let names = vec![agents[0].to_string(), agents[1].to_string()];
    let players = Players {
        names: names.clone(),
        specs: names.clone(),
        factory: Box::new(|i: usize| agents[i].build(game)),
    };
    // The openings and schedule of a fixed match of `plan.games` games,
    // also with an SPRT: its games are then exactly the first pairs of
    // that match (same ids, openings and seeds).
    let openings = match &args.openings {
        Some(file) => mancala_arena::tournament::load_openings(
            game,
            file,
            args.openings_order.unwrap_or_default(),
            args.seed,
        )
        .map_err(|e| bad_input(format!("--openings: {e}")))?,
        None => random_openings(
            game,
            plan.games.div_ceil(2) as usize,
            args.opening_plies,
            args.seed,
        )
        .map_err(|e| bad_input(format!("--opening-plies: {e}")))?
        .into_iter()
        .map(Opening::from)
        .collect(),
    };
    let games = schedule(
        &pairs(Format::RoundRobin, 2),
        plan.games as u32,
        openings.len(),
    );
    let arena = Arena {
        game,
        game_spec: spec.to_string(),
        players,
        openings,
        options: RunOptions {
            threads: crate::threads(args.threads, games.len()),
            seed: args.seed,
            move_timeout: None,
            time_control: plan.time_control,
            time_margin: plan.time_margin,
            live: None,
        },
        adjudicator,
    };
    match plan.sprt {
        Some(sprt) => run_sprt(&arena, &games, sprt, &names, args),
        None => run_fixed(&arena, &games, &names, args),
    }
}

fn run_fixed<G: mancala_solver::Solvable>(
    arena: &Arena<'_, G>,
    games: &[ScheduledGame],
    names: &[String],
    args: &MatchArgs,
) -> Result<()> {
    let records = Mutex::new(Vec::new());
    let progress = Progress::new(games.len() as u64, args.json);
    arena.run(games, crate::stop_flag(), &|r: GameRecord| {
        progress.game_done(&r);
        records.lock().expect("records").push(r);
    })?;
    progress.finish();
    let mut records = records.into_inner().expect("records");
    records.sort_by_key(|r| r.id);
    report(names, &records, args, None)?;
    if records.len() < games.len() {
        eprintln!(
            "interrupted: these results cover {} of {} games",
            records.len(),
            games.len()
        );
        return Err(anyhow::Error::new(crate::Interrupted));
    }
    Ok(())
}

/// Plays pairs until the SPRT decides or the games run out
/// ([`play_until_decided`]), printing the test after each batch.
fn run_sprt<G: mancala_solver::Solvable>(
    arena: &Arena<'_, G>,
    games: &[ScheduledGame],
    spec: SprtSpec,
    names: &[String],
    args: &MatchArgs,
) -> Result<()> {
    let on_batch = |sprt: &Sprt| {
        if !args.json {
            eprintln!(
                "pairs {}  LLR {:.2} [{:.2}, {:.2}]{}",
                sprt.pentanomial().pairs(),
                sprt.llr(),
                spec.lower_bound(),
                spec.upper_bound(),
                match sprt.decision() {
                    SprtDecision::Continue => String::new(),
                    decision => format!("  {decision}"),
                }
            );
        }
    };
    let run = play_until_decided(arena, games, spec, crate::stop_flag(), &on_batch)?;
    report(names, &run.counted, args, Some((&run.sprt, games.len())))?;
    if run.interrupted {
        eprintln!(
            "interrupted: the test stopped undecided after {} pairs",
            run.sprt.pentanomial().pairs()
        );
        return Err(anyhow::Error::new(crate::Interrupted));
    }
    Ok(())
}

/// `+12.3`, or `+inf`/`-inf`.
fn signed(value: f64) -> String {
    if value.is_finite() {
        format!("{value:+.1}")
    } else if value > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    }
}

/// The match's results; with an SPRT, its state and the cap in games.
fn report(
    names: &[String],
    records: &[GameRecord],
    args: &MatchArgs,
    sprt: Option<(&Sprt, usize)>,
) -> Result<()> {
    let mut summary = MatchSummary::new([&names[0], &names[1]], &args.game, args.seed, records)?;
    if let Some((sprt, cap)) = sprt {
        summary = summary.with_sprt(sprt.status(), cap);
    }
    if args.json {
        // Through a JSON value, whose keys are written in order.
        println!("{}", serde_json::to_value(&summary)?);
        return Ok(());
    }
    print_summary(&summary, names, sprt);
    Ok(())
}

/// Prints `s` for a reader.
fn print_summary(s: &MatchSummary, names: &[String], sprt: Option<(&Sprt, usize)>) {
    println!(
        "{} vs {} on {}, {} games",
        names[0], names[1], s.game, s.games
    );
    if let Some((sprt, cap)) = sprt {
        print_sprt(s, names, sprt, cap);
    }
    println!(
        "  {}: {} wins, {} draws, {} losses   score {:.1}%",
        names[0],
        s.a_wdl.wins,
        s.a_wdl.draws,
        s.a_wdl.losses,
        100.0 * s.a_score.unwrap_or(0.0)
    );
    if let (Some(elo), Some((lo, hi))) = (s.elo, s.elo_95) {
        println!(
            "  Elo difference {}  (95% interval {} .. {})   LOS {:.1}%",
            signed(elo),
            signed(lo),
            signed(hi),
            100.0 * s.los
        );
    }
    print_pairs(s, names);
    let first = &s.first_player_wdl;
    println!(
        "  first player: {} wins, {} draws, {} losses   score {:.1}%",
        first.wins,
        first.draws,
        first.losses,
        100.0 * s.first_player_score.unwrap_or(0.0)
    );
    print_margin(s, names);
    print_endings(s, names);
}

/// The SPRT's line: its hypotheses, its decision (or why there is none),
/// and its log-likelihood ratio against the bounds.
fn print_sprt(s: &MatchSummary, names: &[String], sprt: &Sprt, cap: usize) {
    let spec = sprt.spec();
    let outcome = match sprt.decision() {
        SprtDecision::Continue if s.games >= cap => {
            format!("no decision within --games {cap}")
        }
        SprtDecision::Continue => "no decision (interrupted)".to_string(),
        decision => decision.to_string(),
    };
    println!(
        "  SPRT {spec} (logistic Elo of {} over {}): {outcome} after {} pairs, \
         LLR {:.2} [{:.2}, {:.2}]",
        names[0],
        names[1],
        sprt.pentanomial().pairs(),
        sprt.llr(),
        spec.lower_bound(),
        spec.upper_bound()
    );
}

/// The pairs of games (each opening with seats swapped): their pentanomial
/// counts and the Elo difference they give.
fn print_pairs(s: &MatchSummary, names: &[String]) {
    let p = &s.pentanomial;
    if p.pairs() > 0 {
        let [ll, ld, mid, wd, ww] = p.counts();
        print!(
            "  pairs for {}: LL {ll}, LD {ld}, DD+WL {mid} (DD {}, WL {}), WD {wd}, WW {ww}",
            names[0], p.dd, p.wl
        );
        if s.incomplete_pairs > 0 {
            print!("; {} incomplete", s.incomplete_pairs);
        }
        println!();
    }
    if let (Some(elo), Some((lo, hi))) = (s.pair_elo, s.pair_elo_95) {
        println!(
            "  Elo difference from pairs {}  (95% interval {} .. {})",
            signed(elo),
            signed(lo),
            signed(hi)
        );
    }
}

/// Agent A's mean margin in seeds, with its interval where two whole pairs
/// give one.
fn print_margin(s: &MatchSummary, names: &[String]) {
    if let (Some(mean), Some((lo, hi))) = (s.a_mean_margin, s.a_mean_margin_95) {
        if hi.is_finite() {
            println!(
                "  mean margin for {}: {mean:+.2} seeds (95% interval {lo:+.2} .. {hi:+.2}, from {} pairs)",
                names[0],
                s.a_margin_pairs
            );
        } else {
            println!(
                "  mean margin for {}: {mean:+.2} seeds (no interval: fewer than two whole pairs)",
                names[0]
            );
        }
    }
}

/// Games that did not end by the rules: adjudicated, forfeited, or lost on
/// time; nothing when there were none.
fn print_endings(s: &MatchSummary, names: &[String]) {
    if s.adjudicated > 0 {
        println!(
            "  adjudicated: {} games ended with their exact result; {:.1} plies a game",
            s.adjudicated, s.mean_plies
        );
    }
    if s.forfeits > 0 {
        println!(
            "  forfeits: {} (see the errors with --json or a tournament log)",
            s.forfeits
        );
    }
    if s.time_losses != [0, 0] {
        println!(
            "  lost on time: {} by {}, {} by {} (see the errors with --json)",
            s.time_losses[0], names[0], s.time_losses[1], names[1]
        );
    }
}
