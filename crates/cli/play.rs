//! `mancala play`: a person against an agent, in the terminal.
//!
//! Input is read line by line from standard input, so the game can also be
//! driven by a pipe (tests, scripts); prompts and boards go to standard
//! output.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{anyhow, Context, Result};
use clap::Args;
use mancala_agents::{derive_seed, Agent, SearchInfo, SearchKind};
use mancala_core::spec::truncate_input;
use mancala_core::{with_game, EndReason, Move, Outcome, Player};
use mancala_engine::protocol::{read_line, skip_rest_of_line, InputLine};
use mancala_engine::MAX_LINE_BYTES;

use crate::bad_input;
use crate::game_cmds::{start_state, GameArgs};
use mancala_core::board::{render_view, View};
use mancala_registry::AnyAgentSpec;

/// Arguments of `mancala play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The agent to play against, e.g. random, greedy, minimax:depth=8, mcts:time=1s.
    #[arg(long, short)]
    opponent: String,
    /// Move first: you are player 0 (the default).
    #[arg(long, conflicts_with = "second")]
    first: bool,
    /// Move second: you are player 1.
    #[arg(long)]
    second: bool,
    /// Seed of the opponent's (and the hints') random choices
    /// (default: a fresh one, printed at the start).
    #[arg(long)]
    seed: Option<u64>,
}

/// `mancala play`.
pub fn run(args: &PlayArgs) -> Result<()> {
    let spec = args.game.spec()?;
    let opponent =
        AnyAgentSpec::parse(&args.opponent).map_err(|e| bad_input(format!("--opponent: {e}")))?;
    let human = if args.second {
        Player::ONE
    } else {
        Player::ZERO
    };
    let seed = args
        .seed
        .unwrap_or_else(|| u64::from(rand::random::<u32>()));
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    let stdout = std::io::stdout();
    with_game!(&spec, game => {
        opponent.check(game).map_err(|e| bad_input(format!("--opponent: {e}")))?;
        let state = start_state(game, args.game.position.as_deref())?;
        let mut session = Session::new(game, state, human, &opponent, seed, stdout.lock());
        session.game_spec = spec.to_string();
        session.position = args.game.position.clone();
        session.echo = echo;
        session.run(stdin.lock())
    })
}

/// The state of the game at one of the person's decisions, for `undo`.
struct Snapshot<S> {
    state: S,
    last: Option<(Player, Move)>,
    moves: usize,
}

/// What the loop does after a line of input.
enum Flow {
    Continue,
    Quit,
}

/// One game between a person and an agent.
struct Session<'a, G: mancala_solver::Solvable, W: Write> {
    game: &'a G,
    state: G::State,
    human: Player,
    spec: &'a AnyAgentSpec,
    agent: Box<dyn Agent<G>>,
    /// Built on the first `hint`, so that hints never touch `agent`.
    hint_agent: Option<Box<dyn Agent<G>>>,
    seed: u64,
    hints: u64,
    last: Option<(Player, Move)>,
    moves: Vec<Move>,
    undo: Vec<Snapshot<G::State>>,
    view: View,
    /// Repeat each input line after the prompt (when input is not a terminal).
    echo: bool,
    /// The game spec and start position, for the replay command at the end.
    game_spec: String,
    position: Option<String>,
    out: W,
}

impl<'a, G: mancala_solver::Solvable, W: Write> Session<'a, G, W> {
    fn new(
        game: &'a G,
        state: G::State,
        human: Player,
        spec: &'a AnyAgentSpec,
        seed: u64,
        out: W,
    ) -> Self {
        let mut agent = spec.build(game);
        agent.new_game(derive_seed(seed, human.opponent().index() as u64));
        let mut names = [String::new(), String::new()];
        names[human.index()] = format!("player {human} (you)");
        names[human.opponent().index()] = format!("player {} ({spec})", human.opponent());
        let view = View {
            names,
            bottom: human,
            store: if game.name() == "oware" {
                "captured"
            } else {
                "store"
            },
        };
        Session {
            game,
            state,
            human,
            spec,
            agent,
            hint_agent: None,
            seed,
            hints: 0,
            last: None,
            moves: Vec::new(),
            undo: Vec::new(),
            view,
            echo: false,
            game_spec: game.name().to_string(),
            position: None,
            out,
        }
    }

    fn name(&self, p: Player) -> &str {
        &self.view.names[p.index()]
    }

    fn is_oware(&self) -> bool {
        self.game.name() == "oware"
    }

    fn pits(&self) -> usize {
        self.game.pits()
    }

    /// Plays until the game ends, the person quits or the input ends.
    fn run(&mut self, mut input: impl BufRead) -> Result<()> {
        self.intro()?;
        self.board()?;
        loop {
            let Some(mover) = self.game.to_move(&self.state) else {
                return self.game_over();
            };
            if mover != self.human {
                self.agent_move(mover)?;
                continue;
            }
            self.prompt()?;
            // Lines are capped as the engine protocol's are: a runaway
            // pipe's line is skipped, neither kept nor echoed.
            let read = read_line(&mut input, MAX_LINE_BYTES)
                .context("reading a move from standard input")?;
            let line = match read {
                None => {
                    writeln!(
                        self.out,
                        "\nend of input: game abandoned after {}.",
                        plural(self.moves.len(), "move")
                    )?;
                    self.print_moves()?;
                    return Ok(());
                }
                Some(InputLine::NotUtf8(_)) => {
                    writeln!(self.out, "\nthat line is not valid text; try again.")?;
                    continue;
                }
                Some(InputLine::TooLong(_)) => {
                    skip_rest_of_line(&mut input).context("reading a move from standard input")?;
                    writeln!(
                        self.out,
                        "\nthat line is too long (over {} KiB); try again.",
                        MAX_LINE_BYTES / 1024
                    )?;
                    continue;
                }
                Some(InputLine::Text(line)) => line,
            };
            if self.echo {
                writeln!(self.out, "{}", truncate_input(&line))?;
            }
            match self.human_input(&line)? {
                Flow::Continue => {}
                Flow::Quit => {
                    writeln!(
                        self.out,
                        "you quit: game abandoned after {}.",
                        plural(self.moves.len(), "move")
                    )?;
                    self.print_moves()?;
                    return Ok(());
                }
            }
        }
    }

    fn intro(&mut self) -> Result<()> {
        let n = self.pits();
        let human = self.human;
        let order = if human == Player::ZERO {
            "move first"
        } else {
            "move second"
        };
        writeln!(
            self.out,
            "{} against {} (seed {})",
            self.game_spec, self.spec, self.seed
        )?;
        let oware = self.is_oware();
        writeln!(
            self.out,
            "You are player {human} and {order}. Your row is the bottom one, pits 1 to {n} from \
             left to right; {}.",
            if oware {
                "the seeds you capture are counted on the right"
            } else {
                "your store is on the right"
            }
        )?;
        writeln!(
            self.out,
            "Your opponent, {}, has the top row (its pit 1 is on the right); {}.",
            self.view.names[human.opponent().index()],
            if oware {
                "its captures are counted on the left"
            } else {
                "its store is on the left"
            }
        )?;
        writeln!(
            self.out,
            "Type a pit number (1-{n}) to sow it, or hint, undo, help, quit.\n"
        )?;
        Ok(())
    }

    fn help(&mut self) -> Result<()> {
        let n = self.pits();
        writeln!(
            self.out,
            "commands:\n  \
             {:<9}sow that pit of your row (the bottom one, numbered from the left)\n  \
             swap     take over player 0's position (pie rule, player 1's first turn only)\n  \
             hint     ask {} for a suggestion (the game is not changed)\n  \
             undo     take back your last move and the replies to it\n  \
             board    show the board again\n  \
             help     this list\n  \
             quit, q  stop the game",
            format!("1-{n}"),
            self.spec
        )?;
        Ok(())
    }

    fn board(&mut self) -> Result<()> {
        let text = render_view(&self.game.setup(&self.state), self.last, &self.view);
        writeln!(self.out, "{text}")?;
        Ok(())
    }

    fn prompt(&mut self) -> Result<()> {
        let legal = self.game.legal_moves(&self.state).to_human();
        write!(self.out, "your move [{legal}]> ")?;
        self.out.flush()?;
        Ok(())
    }

    /// Handles one line typed at the prompt.
    fn human_input(&mut self, line: &str) -> Result<Flow> {
        let word = line.trim();
        match word.to_ascii_lowercase().as_str() {
            "" => {}
            "q" | "quit" | "exit" => return Ok(Flow::Quit),
            "help" | "h" | "?" => self.help()?,
            "hint" => self.hint()?,
            "undo" | "u" => self.take_back()?,
            "board" | "b" => self.board()?,
            _ => match self.check_move(word) {
                Ok(mv) => {
                    self.undo.push(Snapshot {
                        state: self.state.clone(),
                        last: self.last,
                        moves: self.moves.len(),
                    });
                    self.play(self.human, mv)?;
                }
                Err(why) => writeln!(self.out, "{why}")?,
            },
        }
        Ok(Flow::Continue)
    }

    /// The legal move `word` names, or a message saying why it is not one.
    fn check_move(&self, word: &str) -> Result<Move, String> {
        let n = self.pits();
        let legal = self.game.legal_moves(&self.state);
        if let Ok(k) = word.parse::<u64>() {
            if k == 0 || k > n as u64 {
                return Err(format!(
                    "there is no pit {k}: your pits are numbered 1 to {n}, from the left of \
                     the bottom row"
                ));
            }
        }
        let mv = Move::parse_human(word).map_err(|_| {
            format!(
                "'{}' is not a move or a command: type a pit number (1-{n}), or hint, \
                 undo, help, quit",
                truncate_input(word)
            )
        })?;
        if legal.contains(mv) {
            return Ok(mv);
        }
        let why = match mv {
            Move::Swap => "swap is only offered to player 1 on their first turn, in Kalah \
                           with the pie rule (pie=true)"
                .to_string(),
            Move::Pit(i) => {
                let setup = self.game.setup(&self.state);
                if i < 16 && setup.burnt[self.human] >> i & 1 == 1 {
                    format!("pit {mv} is burnt: it is out of play this round")
                } else if setup.rows[self.human][i as usize] == 0 {
                    format!("pit {mv} is empty")
                } else if setup.rows[self.human.opponent()].iter().all(|&s| s == 0) {
                    format!("pit {mv} does not give your opponent any seeds, and you must")
                } else {
                    format!("the rules do not allow pit {mv} here")
                }
            }
        };
        Err(format!(
            "illegal move: {why}. Legal moves: {}",
            legal.to_human()
        ))
    }

    /// Plays `mv` for `mover` and says what happened.
    fn play(&mut self, mover: Player, mv: Move) -> Result<()> {
        let before = self.game.setup(&self.state);
        let swap_offered = before.swap_available;
        let score_before = self.game.scores(&self.state)[mover];
        self.game
            .try_play(&mut self.state, mv)
            .map_err(|e| anyhow!("{} chose an illegal move: {e}", self.name(mover)))?;
        self.moves.push(mv);
        self.last = Some((mover, mv));
        let you = mover == self.human;
        let mut line = if you {
            format!("you play {mv}")
        } else {
            format!("{} plays {mv}", self.name(mover))
        };
        let next = self.game.to_move(&self.state);
        // In Oware the score only grows by captures (Kalah's store also by sowing).
        let gain = self.game.scores(&self.state)[mover].saturating_sub(score_before);
        if self.is_oware() && next.is_some() && gain > 0 {
            let verb = if you { "capture" } else { "captures" };
            line.push_str(&format!(" and {verb} {gain}"));
        }
        let after = self.game.setup(&self.state);
        let new_round = match (before.round, after.round) {
            (Some(a), Some(b)) if b.number != a.number => Some(b),
            _ => None,
        };
        if let Some(round) = new_round {
            // A multi-round game: the round ended with this move. What each
            // player owns is on their side now, refilled holes and store.
            let owned = |p: Player| {
                usize::from(after.stores[p])
                    + after.rows[p].iter().map(|&s| usize::from(s)).sum::<usize>()
            };
            let burnt = |p: Player| after.burnt[p].count_ones();
            let (p0, p1) = (Player::ZERO, Player::ONE);
            line.push_str(&format!(
                ": the round is over, {} {} to {} {}. Round {} begins: the holes are refilled \
                 from the stores ({} burnt for {}, {} for {}) and {} moves first",
                self.name(p0),
                owned(p0),
                self.name(p1),
                owned(p1),
                round.number,
                burnt(p0),
                self.name(p0),
                burnt(p1),
                self.name(p1),
                self.name(round.first),
            ));
        } else if mv == Move::Swap {
            line.push_str(
                " (pie rule): the rows and the stores change places, and player 0 moves next",
            );
        } else if next == Some(mover) {
            line.push_str(if you {
                ": your last seed landed in your store: extra turn, move again"
            } else {
                ": its last seed landed in its store: extra turn"
            });
        } else if next == Some(Player::ONE) && swap_offered && self.human == Player::ONE {
            line.push_str(": you may now answer with swap (pie rule) to take over this position");
        }
        writeln!(self.out, "{line}")?;
        self.board()
    }

    fn agent_move(&mut self, mover: Player) -> Result<()> {
        let mv = self
            .agent
            .choose(self.game, &self.state)
            .map_err(|e| anyhow!("{} could not choose a move: {e}", self.name(mover)))?;
        self.play(mover, mv)
    }

    /// `undo`: back to the person's previous decision.
    fn take_back(&mut self) -> Result<()> {
        let Some(snap) = self.undo.pop() else {
            writeln!(
                self.out,
                "nothing to undo: there is no move of yours to take back"
            )?;
            return Ok(());
        };
        let yours = self.moves[snap.moves];
        let replies: Vec<String> = self.moves[snap.moves + 1..]
            .iter()
            .map(Move::to_string)
            .collect();
        let mut text = format!("took back your move {yours}");
        if !replies.is_empty() {
            text.push_str(&format!(
                " and the {} {}",
                if replies.len() == 1 {
                    "reply"
                } else {
                    "replies"
                },
                replies.join(" ")
            ));
        }
        writeln!(self.out, "{text}")?;
        self.state = snap.state;
        self.last = snap.last;
        self.moves.truncate(snap.moves);
        self.board()
    }

    /// `hint`: what a fresh agent of the opponent's spec would play here.
    fn hint(&mut self) -> Result<()> {
        let seed = derive_seed(self.seed, 2 + self.hints);
        self.hints += 1;
        let agent = self
            .hint_agent
            .get_or_insert_with(|| self.spec.build(self.game));
        agent.new_game(seed);
        match agent.choose(self.game, &self.state) {
            Ok(mv) => {
                let details = describe_info(&agent.info());
                writeln!(self.out, "hint: {} suggests {mv}{details}", self.spec)?;
            }
            Err(e) => writeln!(self.out, "no hint: {} failed: {e}", self.spec)?,
        }
        Ok(())
    }

    fn game_over(&mut self) -> Result<()> {
        let outcome: Outcome = self
            .game
            .outcome(&self.state)
            .ok_or_else(|| anyhow!("the game has no move left but no result"))?;
        let (s0, s1) = (outcome.scores[Player::ZERO], outcome.scores[Player::ONE]);
        writeln!(
            self.out,
            "game over ({}): final score {} {s0}, {} {s1}",
            describe_end(outcome.reason),
            self.view.names[0],
            self.view.names[1]
        )?;
        let margin = outcome.margin();
        let result = match outcome.winner() {
            None => "draw".to_string(),
            Some(w) if w == self.human => format!("you win by {}", margin.abs()),
            Some(w) => format!("{} wins by {}: you lose", self.name(w), margin.abs()),
        };
        writeln!(
            self.out,
            "result: {result} (margin {margin:+}, player 0's score minus player 1's)"
        )?;
        self.print_moves()
    }

    fn print_moves(&mut self) -> Result<()> {
        if self.moves.is_empty() {
            return Ok(());
        }
        let moves = self
            .moves
            .iter()
            .map(Move::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        let position = match &self.position {
            Some(p) => format!(" --position {p}"),
            None => String::new(),
        };
        writeln!(
            self.out,
            "moves: {moves}\nreplay: mancala replay --game {}{position} --moves '{moves}'",
            self.game_spec
        )?;
        Ok(())
    }
}

/// The search details of a hint, for the person who asked.
fn describe_info(info: &SearchInfo) -> String {
    let mut parts = Vec::new();
    match (info.kind, info.value) {
        (SearchKind::Mcts, Some(v)) => {
            parts.push(format!("expected score for you {:.0}%", 100.0 * v));
        }
        (SearchKind::Exact, Some(v)) => parts.push(format!("exact value {v:+} seeds for you")),
        (_, Some(v)) => parts.push(format!("value {v:+.1} seeds for you")),
        (_, None) => {}
    }
    if info.depth > 0 {
        parts.push(format!("depth {}", info.depth));
    }
    if info.nodes > 0 {
        let what = if info.kind == SearchKind::Mcts {
            "simulations"
        } else {
            "nodes"
        };
        parts.push(format!("{} {what}", info.nodes));
    }
    if info.pv.moves().len() > 1 {
        let line: Vec<String> = info.pv.moves().iter().map(Move::to_string).collect();
        parts.push(format!("line {}", line.join(" ")));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// `1 move`, `2 moves`.
fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn describe_end(reason: EndReason) -> std::borrow::Cow<'static, str> {
    let text = match reason {
        EndReason::EmptyRow => "a row is empty",
        EndReason::Majority => "more than half the seeds captured",
        EndReason::Repetition => "the position repeated",
        EndReason::NoLegalMove => "no legal move",
        EndReason::MaxPlies => "move limit reached",
        EndReason::Ruin => "a player could not fill a single hole for the next round",
        EndReason::MaxRounds => "the last round (max_rounds) was played",
        // `EndReason` is non-exhaustive: a reason added for a new game is
        // shown by its name, as in games.csv.
        other => return other.to_string().into(),
    };
    text.into()
}
