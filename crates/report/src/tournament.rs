//! The report of a tournament folder: header and config to reproduce,
//! ratings ladder, crosstable heat map, first-move advantage, margin
//! distributions, pairs of games (pentanomial counts), forfeits and errors.
//!
//! `summary.json` is read as the arena's [`Summary`], which accepts the
//! summaries of earlier versions (without the fields added since) and of
//! later ones (ignoring fields it does not know); `tournament.json` as the
//! arena's [`Identity`], from which the config that replays the tournament
//! is rebuilt.

use mancala_analysis::annotate::AgentAccuracy;
use std::collections::BTreeMap;
use std::path::Path;

use crate::Result;
use mancala_arena::identity::Identity;
use mancala_arena::merge::read_identity;
use mancala_arena::report::{AgentSummary, FirstPlayerSummary, Summary};
use mancala_arena::stats::{FirstPlayerStats, MeanCi, Wdl};
use mancala_arena::{MoveTable, TournamentConfig};
use mancala_core::{Game, GameSpec};

use super::games::{read_games, read_moves, GameStats};
use super::read::{duration, json_file, pct, plain, signed, toml_string, with_interval};
use super::{Block, Document, Section, Table};
use crate::bad_input;
use crate::svg::{self, Estimate, Reference};

/// What a tournament folder holds.
pub struct TournamentFolder {
    summary: Summary,
    /// The config that replays the tournament, rebuilt from
    /// `tournament.json`, or why it cannot be; `None` without the file.
    config: Option<std::result::Result<TournamentConfig, String>>,
    games: Option<GameStats>,
    /// What `moves.json` sums of each agent's moves, when it lists any.
    moves: Option<MoveTable>,
    /// What `mancala annotate` found of each agent's moves, if it ran.
    accuracy: Option<Vec<AgentAccuracy>>,
}

/// Reads the tournament in `dir`, if it holds one.
///
/// # Errors
/// Bad input for a shard's folder or an unfinished tournament (which have
/// no summary yet), and for damaged files.
pub fn detect(dir: &Path) -> Result<Option<TournamentFolder>> {
    let found = read_identity(dir).map_err(|e| bad_input(e.to_string()))?;
    let identity = found
        .as_ref()
        .map(|f| Identity::from_value(&f.tournament).map_err(|e| e.to_string()));
    let summary_path = dir.join(mancala_arena::folder::SUMMARY_FILE);
    let Some(summary) = json_file(&summary_path)? else {
        let Some(found) = found else {
            return Ok(None);
        };
        let name = match identity {
            Some(Ok(identity)) => format!("tournament {}", identity.name()),
            _ => "a tournament".into(),
        };
        if let Some(stamp) = found.stamp {
            return Err(bad_input(format!(
                "{} holds shard {} of {} of {name}: a shard has no ratings of its own; \
                 merge the shards' folders with `mancala merge DIR... --output MERGED`, then \
                 report the merged folder",
                dir.display(),
                stamp.index,
                stamp.count,
            )));
        }
        return Err(bad_input(format!(
            "{} holds {name} but no summary.json: it has not finished; run it again to \
             finish it (or `mancala merge` the shards), then report",
            dir.display(),
        )));
    };
    let summary: Summary = serde_json::from_value(summary).map_err(|e| {
        bad_input(format!(
            "{} is not a tournament summary: {e}",
            summary_path.display()
        ))
    })?;
    let anchor = Some(summary.anchor.as_str()).filter(|a| !a.is_empty() && *a != "mean");
    let config = identity.map(|i| i.and_then(|i| i.config(anchor).map_err(|e| e.to_string())));
    let games_path = dir.join("games.csv");
    let games = if games_path.is_file() {
        Some(read_games(&games_path)?)
    } else {
        None
    };
    let moves_path = dir.join("moves.json");
    let moves = if moves_path.is_file() {
        read_moves(&moves_path)?
    } else {
        None
    };
    let accuracy_path = dir.join("accuracy.json");
    let accuracy = match json_file(&accuracy_path)? {
        None => None,
        Some(value) => Some(serde_json::from_value(value).map_err(|e| {
            bad_input(format!(
                "{} is not what `mancala annotate` writes: {e}",
                accuracy_path.display()
            ))
        })?),
    };
    Ok(Some(TournamentFolder {
        summary,
        config,
        games,
        moves,
        accuracy,
    }))
}

/// The rules of a game spec in words, or the spec itself when it does not
/// parse (a game of a later version).
pub fn rules_in_words(spec: &str) -> String {
    match spec.parse::<GameSpec>() {
        Ok(GameSpec::Kalah(r)) => {
            let (pits, seeds) = (r.pits(), r.seeds());
            let capture = if r.empty_capture {
                "a last seed sown into an own empty pit captures, even opposite an empty pit"
            } else {
                "a last seed sown into an own empty pit captures the seeds opposite (if any)"
            };
            let end = match r.game_end {
                mancala_core::GameEnd::Immediate => "the game ends as soon as either row is empty",
                mancala_core::GameEnd::Delayed => {
                    "the game ends when the player to move has no seeds"
                }
            };
            let leftover = match r.leftover {
                mancala_core::Leftover::Owner => "seeds left in a row go to its owner",
                mancala_core::Leftover::SetAside => "seeds left in the rows count for nobody",
            };
            let pie = if r.pie {
                "pie rule: the second player may swap after the first move"
            } else {
                "no pie rule"
            };
            format!(
                "Kalah({pits},{seeds}): {pits} pits a side, {seeds} seeds in each; {capture}; \
                 {end}; {leftover}; {pie}"
            )
        }
        Ok(GameSpec::Oware(r)) => {
            let slam = match r.grand_slam {
                mancala_core::GrandSlam::NoCapture => "a grand slam captures nothing",
                mancala_core::GrandSlam::Illegal => {
                    "a grand slam is illegal unless every move is one"
                }
                mancala_core::GrandSlam::CaptureAll => "a grand slam captures as usual",
            };
            format!(
                "Oware (Abapa) with {} houses a side, {} seeds in each; {slam}; the board is \
                 counted after {} moves",
                r.pits(),
                r.seeds(),
                r.max_plies
            )
        }
        // Other games (Congkak, later ones): their canonical spec says it.
        Ok(other) => other.to_string(),
        Err(_) => spec.to_string(),
    }
}

/// `W-D-L`.
fn wdl_text(w: &Wdl) -> String {
    format!("{}-{}-{}", w.wins, w.draws, w.losses)
}

/// A mean margin with its interval, as the tables write it.
fn margin_text(margin: Option<&MeanCi>) -> String {
    with_interval(margin.map(|m| m.mean), margin.map(|m| (m.lo, m.hi)), |x| {
        signed(x, 2)
    })
}

/// The interval of an agent's rating to quote: the profile one, or the
/// Hessian one in summaries written before profile intervals.
fn elo_interval(a: &AgentSummary) -> Option<(f64, f64)> {
    a.elo_95_profile.or(a.elo_95)
}

/// The config that replays this tournament, as TOML.
fn config_toml(config: &TournamentConfig) -> String {
    let mut out = format!(
        "name = {}\ngame = {}\nformat = {}\n",
        toml_string(&config.name),
        toml_string(&config.game),
        toml_string(&config.format)
    );
    if let Some(champion) = &config.champion {
        out.push_str(&format!("champion = {}\n", toml_string(champion)));
    }
    out.push_str(&format!(
        "games_per_pair = {}\nseed = {}\n",
        config.games_per_pair, config.seed
    ));
    if let Some(timeout) = &config.move_timeout {
        out.push_str(&format!("move_timeout = {}\n", toml_string(timeout)));
    }
    if let Some(tc) = &config.time_control {
        out.push_str(&format!("time_control = {}\n", toml_string(tc)));
    }
    if let Some(margin) = &config.time_margin {
        out.push_str(&format!("time_margin = {}\n", toml_string(margin)));
    }
    match &config.openings.file {
        Some(file) => {
            out.push_str(&format!(
                "\n[openings]\nfile = {}\n",
                toml_string(&file.display().to_string())
            ));
            if let Some(order) = &config.openings.order {
                out.push_str(&format!("order = {}\n", toml_string(order)));
            }
        }
        None => out.push_str(&format!(
            "\n[openings]\nplies = {}\ncount = {}\n",
            config.openings.plies,
            config.opening_count()
        )),
    }
    if let Some(anchor) = &config.ratings.anchor {
        out.push_str(&format!("\n[ratings]\nanchor = {}\n", toml_string(anchor)));
    }
    for (name, agent) in config.agent_names().iter().zip(&config.agents) {
        out.push_str(&format!("\n[[agents]]\nname = {}\n", toml_string(name)));
        out.push_str(&agent_keys(agent));
    }
    out
}

/// An agent entry's keys after its name, as TOML lines: `spec`, or an
/// engine's `command` and its settings.
fn agent_keys(agent: &mancala_arena::config::AgentEntry) -> String {
    let Some(command) = &agent.command else {
        return format!("spec = {}\n", toml_string(&agent.spec));
    };
    let list = |items: Vec<String>| items.join(", ");
    let mut out = format!(
        "command = [{}]\n",
        list(command.iter().map(|a| toml_string(a)).collect())
    );
    if let Some(options) = &agent.options {
        let pairs = options
            .iter()
            .map(|(k, v)| format!("{} = {v}", toml_string(k)))
            .collect();
        out.push_str(&format!("options = {{ {} }}\n", list(pairs)));
    }
    for (key, value) in [
        ("go", &agent.go),
        ("handshake_timeout", &agent.handshake_timeout),
    ] {
        if let Some(value) = value {
            out.push_str(&format!("{key} = {}\n", toml_string(value)));
        }
    }
    out
}

/// Builds the report.
pub fn document(t: &TournamentFolder, folder: &str) -> Document {
    let s = &t.summary;
    let (name, game, anchor) = (&s.name, &s.game, &s.anchor);
    let (played, planned) = (s.games_played, s.games_planned);
    let config = t.config.as_ref().and_then(|c| c.as_ref().ok());

    let mut doc = Document {
        title: format!("Tournament {name}"),
        lead: format!(
            "{} agents, {played} games of {game}, rated by a Bradley–Terry (Elo) fit with a \
             first-move term.",
            s.agents.len()
        ),
        ..Document::default()
    };
    let mut fact = |k: &str, v: String| doc.facts.push((k.to_string(), v));
    fact("Folder", folder.to_string());
    fact("Game", game.clone());
    fact("Rules", rules_in_words(game));
    if let Some(config) = config {
        fact("Format", format_in_words(config));
    }
    fact("Agents", agents_in_words(&s.standings));
    fact(
        "Games",
        if planned > 0 && planned != played {
            format!("{played} of {planned} planned")
        } else {
            played.to_string()
        },
    );
    if let Some(config) = config {
        fact("Seed", config.seed.to_string());
        fact("Openings", openings_in_words(config));
        if let Some(tc) = &config.time_control {
            fact("Time control", tc.clone());
        }
        if let Some(timeout) = &config.move_timeout {
            fact("Move timeout", timeout.clone());
        }
    }
    if let Some(games) = &t.games {
        let total = games.seconds;
        fact(
            "Time",
            format!(
                "{} of play summed over games (games run in parallel, so the run took less)",
                duration(total)
            ),
        );
    }
    fact(
        "Ratings",
        if anchor.is_empty() || anchor == "mean" {
            "mean 0 Elo".into()
        } else {
            format!("{anchor} fixed at 0 Elo")
        },
    );
    doc.sections = sections(t);
    doc
}

/// The tournament's format in words: a round robin, or a gauntlet of its
/// champion against every other agent.
fn format_in_words(config: &TournamentConfig) -> String {
    match (config.format.as_str(), &config.champion) {
        ("round_robin", _) => "round robin".to_string(),
        ("gauntlet", champion) => format!(
            "gauntlet: {} against every other agent",
            champion.as_deref().unwrap_or_default()
        ),
        (other, _) => other.to_string(),
    }
}

/// The agents, best first, each with its spec where its name is not the
/// spec.
fn agents_in_words(standings: &[AgentSummary]) -> String {
    standings
        .iter()
        .map(|a| {
            if a.name == a.spec {
                a.name.clone()
            } else {
                format!("{} ({})", a.name, a.spec)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where the games' openings came from, in words: a file's lines or
/// random moves, each opening played with both seatings.
fn openings_in_words(config: &TournamentConfig) -> String {
    match &config.openings.file {
        Some(file) => format!(
            "the lines of {} ({} order), each played with both seatings",
            file.display(),
            config.openings.order.as_deref().unwrap_or("sequential")
        ),
        None => format!(
            "{} random moves, {} distinct openings, each played with both seatings",
            config.openings.plies,
            config.opening_count()
        ),
    }
}

/// The report's sections, in order; a section whose file the folder
/// lacks (games, moves, annotations) or that has nothing to show (pairs)
/// is left out.
fn sections(t: &TournamentFolder) -> Vec<Section> {
    let s = &t.summary;
    let mut sections = vec![
        ratings_section(&s.standings, &s.anchor),
        crosstable_section(s),
        first_move_section(&s.first_player),
    ];
    if let Some(games) = &t.games {
        sections.push(margins_section(games, &s.standings));
    }
    if let Some(section) = pairs_section(s) {
        sections.push(section);
    }
    if let Some(moves) = &t.moves {
        sections.push(moves_section(moves, &s.standings));
    }
    if let Some(accuracy) = &t.accuracy {
        sections.push(accuracy_section(accuracy));
    }
    sections.push(forfeits_section(s, t.games.as_ref()));
    sections.push(reproduce_section(s, t.config.as_ref()));
    sections
}

fn ratings_section(standings: &[AgentSummary], anchor: &str) -> Section {
    let chart = ratings_chart(standings, anchor);
    let table = standings_table(standings);
    Section {
        id: "ratings".into(),
        title: "Ratings".into(),
        blocks: vec![
            Block::Figure {
                id: "ladder".into(),
                svg: svg::interval_chart(&chart),
                caption: "Elo ratings, best first, with 95% profile-likelihood intervals (an \
                          arrow: the interval is unbounded on that side)."
                    .into(),
            },
            Block::Table(table),
            Block::Paragraph(
                "Score: points per game (a draw is half). As first, as second: the agent's \
                 score in the games it began and in those its opponent began. Margins are in \
                 seeds, from the agent's side, forfeits left out."
                    .into(),
            ),
        ],
    }
}

/// The ratings ladder: each agent's Elo with its interval, best first.
fn ratings_chart(standings: &[AgentSummary], anchor: &str) -> svg::IntervalChart {
    let note = |a: &AgentSummary| match elo_interval(a) {
        Some((lo, hi)) => format!(
            "{} [{}, {}]",
            signed(Some(a.elo), 0),
            signed(Some(lo), 0),
            signed(Some(hi), 0)
        ),
        None if a.name == anchor => format!("{} (anchor)", signed(Some(a.elo), 0)),
        None => signed(Some(a.elo), 0),
    };
    svg::IntervalChart {
        title: "Ratings ladder".into(),
        desc: format!(
            "Elo rating of each agent with its 95% profile-likelihood interval, best first: {}.",
            standings
                .iter()
                .map(|a| format!("{} {}", a.name, note(a)))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        x_label: "Elo (rating points; 95% interval bars)".into(),
        rows: standings
            .iter()
            .map(|a| svg::IntervalRow {
                label: a.name.clone(),
                estimate: Some(match elo_interval(a) {
                    Some((lo, hi)) => Estimate {
                        value: a.elo,
                        lo,
                        hi,
                    },
                    None => Estimate {
                        value: a.elo,
                        lo: a.elo,
                        hi: a.elo,
                    },
                }),
                note: note(a),
            })
            .collect(),
        x_range: (0.0, 0.0),
        references: vec![Reference {
            y: 0.0,
            label: if anchor.is_empty() || anchor == "mean" {
                "0 (mean)".into()
            } else {
                format!("0 ({anchor})")
            },
            strong: false,
        }],
    }
}

/// The standings table: rank, rating, score, margin and seats of each agent.
fn standings_table(standings: &[AgentSummary]) -> Table {
    let mut table = Table::new(
        "Standings",
        &[
            "rank",
            "agent",
            "spec",
            "Elo",
            "95% interval",
            "games",
            "score",
            "W-D-L",
            "mean margin [95%]",
            "as first",
            "as second",
            "forfeits",
        ],
        &[
            true, false, false, true, false, true, true, true, false, true, true, true,
        ],
    );
    for (i, a) in standings.iter().enumerate() {
        table.row(vec![
            (i + 1).to_string(),
            a.name.clone(),
            a.spec.clone(),
            signed(Some(a.elo), 1),
            elo_interval(a).map_or("(anchor)".into(), |(lo, hi)| {
                format!("[{}, {}]", signed(Some(lo), 1), signed(Some(hi), 1))
            }),
            a.games.to_string(),
            pct(a.score),
            wdl_text(&a.wdl),
            margin_text(a.margin.as_ref()),
            pct(a.as_first.score),
            pct(a.as_second.score.map(|s| 1.0 - s)),
            a.forfeits.to_string(),
        ]);
    }
    table
}

fn crosstable_section(s: &Summary) -> Section {
    let agents = &s.agents;
    let cell = |i: usize, j: usize| s.crosstable.get(i)?.get(j)?.as_ref();
    let cells: Vec<Vec<Option<(f64, u64)>>> = (0..agents.len())
        .map(|i| {
            (0..agents.len())
                .map(|j| {
                    let c = cell(i, j)?;
                    Some((c.score?, c.games))
                })
                .collect()
        })
        .collect();
    let chart = svg::Crosstable {
        title: "Crosstable".into(),
        desc: format!(
            "Score of each row agent against each column agent, in percent, with the games \
             they played; agents {}.",
            agents.join(", ")
        ),
        agents: agents.to_vec(),
        cells,
        note: "Row agent's score against the column agent: blue above 50%, red below.".into(),
    };
    let mut header = vec!["agent".to_string()];
    header.extend(agents.iter().cloned());
    let mut table = Table {
        caption: "Crosstable: the row agent's W-D-L against the column agent".into(),
        numeric: (0..=agents.len()).map(|j| j > 0).collect(),
        header,
        rows: Vec::new(),
    };
    for (i, a) in agents.iter().enumerate() {
        let mut row = vec![a.clone()];
        for j in 0..agents.len() {
            row.push(cell(i, j).map_or("-".into(), |c| wdl_text(&c.wdl)));
        }
        table.row(row);
    }
    Section {
        id: "crosstable".into(),
        title: "Crosstable".into(),
        blocks: vec![
            Block::Figure {
                id: "crosstable".into(),
                svg: svg::crosstable(&chart),
                caption: "Each cell: the row agent's score against the column agent and the \
                          number of games between them."
                    .into(),
            },
            Block::Details {
                summary: "Wins, draws and losses as a table".into(),
                blocks: vec![Block::Table(table)],
            },
        ],
    }
}

fn first_move_section(fp: &FirstPlayerSummary) -> Section {
    let overall = &fp.overall;
    let advantage = Some(fp.advantage_elo).filter(|a| !a.is_nan());
    let advantage_interval = fp.advantage_elo_95_profile.or(fp.advantage_elo_95);
    let per_pair: Vec<(String, &FirstPlayerStats)> = fp
        .per_pair
        .iter()
        .map(|p| (p.agents.join(" vs "), &p.stats))
        .collect();
    let chart = first_seat_chart(overall, &per_pair);
    let table = first_seat_table(overall, &per_pair);
    let fitted = match advantage {
        Some(a) => format!(
            "The rating fit puts the first move's worth at {} Elo{}: the first seat's edge \
             with the agents' strengths taken into account.",
            signed(Some(a), 1),
            advantage_interval.map_or(String::new(), |(lo, hi)| format!(
                " (95% interval {} to {})",
                signed(Some(lo), 1),
                signed(Some(hi), 1)
            ))
        ),
        None => "The summary has no fitted first-move term.".into(),
    };
    Section {
        id: "first-move".into(),
        title: "First-move advantage".into(),
        blocks: vec![
            Block::Paragraph(format!(
                "Over all games the player who moved first scored {} ({}-{}-{} W-D-L), with a \
                 mean margin of {} seeds. {fitted}",
                first_seat_score(overall),
                overall.wdl.wins,
                overall.wdl.draws,
                overall.wdl.losses,
                margin_text(overall.margin.as_ref()),
            )),
            Block::Figure {
                id: "first-seat".into(),
                svg: svg::interval_chart(&chart),
                caption: "The first seat's score, whoever sat there, with 95% Wilson intervals; \
                          right of the dashed line, moving first helped."
                    .into(),
            },
            Block::Table(table),
        ],
    }
}

/// The first seat's score with its interval, as the chart and table note it.
fn first_seat_score(f: &FirstPlayerStats) -> String {
    with_interval(f.score, Some(f.score_interval), pct)
}

/// The first seat's score over all games and per pairing, with intervals.
fn first_seat_chart(
    overall: &FirstPlayerStats,
    per_pair: &[(String, &FirstPlayerStats)],
) -> svg::IntervalChart {
    let mut rows = vec![svg::IntervalRow {
        label: "all games".into(),
        estimate: overall.score.map(|v| Estimate {
            value: v,
            lo: overall.score_interval.0,
            hi: overall.score_interval.1,
        }),
        note: first_seat_score(overall),
    }];
    for (label, f) in per_pair {
        rows.push(svg::IntervalRow {
            label: label.clone(),
            estimate: f.score.map(|v| Estimate {
                value: v,
                lo: f.score_interval.0,
                hi: f.score_interval.1,
            }),
            note: first_seat_score(f),
        });
    }
    svg::IntervalChart {
        title: "First-seat score".into(),
        desc: format!(
            "Score of the player who moved first, with its 95% Wilson interval, over all games \
             ({}) and per pairing.",
            first_seat_score(overall)
        ),
        x_label: "first seat's score (0 to 1; 0.5 is no advantage)".into(),
        rows,
        x_range: (0.0, 1.0),
        references: vec![Reference {
            y: 0.5,
            label: "even".into(),
            strong: false,
        }],
    }
}

/// The first seat's results per pairing, from its own side.
fn first_seat_table(overall: &FirstPlayerStats, per_pair: &[(String, &FirstPlayerStats)]) -> Table {
    let mut table = Table::new(
        "First seat's results, from its own side, per pairing",
        &[
            "pairing",
            "games",
            "first W-D-L",
            "first-seat score [95%]",
            "first-seat margin [95%]",
        ],
        &[false, true, true, false, false],
    );
    for (label, f) in std::iter::once(("all games".to_string(), overall))
        .chain(per_pair.iter().map(|(l, f)| (l.clone(), *f)))
    {
        table.row(vec![
            label,
            f.wdl.games().to_string(),
            wdl_text(&f.wdl),
            first_seat_score(f),
            margin_text(f.margin.as_ref()),
        ]);
    }
    table
}

/// Bin width for margins spanning `span` seeds: at most about 24 bins.
fn bin_width(span: i64) -> i64 {
    [1, 2, 4, 5, 10, 20, 25, 50, 100]
        .into_iter()
        .find(|w| span / w <= 24)
        .unwrap_or(200)
}

fn margins_section(games: &GameStats, standings: &[AgentSummary]) -> Section {
    let all = games
        .margins
        .values()
        .flat_map(|counts| counts.keys().copied());
    let (lo, hi) = all.fold((0i64, 0i64), |(lo, hi), m| (lo.min(m), hi.max(m)));
    let w = bin_width(hi - lo);
    // Bins centred on multiples of the width, so that 0 (a draw) sits in
    // the middle of a bin.
    let bin_of = |m: i64| (2 * m + w).div_euclid(2 * w);
    let (first, last) = (bin_of(lo), bin_of(hi));
    let edges: Vec<f64> = (first..=last + 1)
        .map(|k| (k * w) as f64 - w as f64 / 2.0)
        .collect();
    let mut rows = Vec::new();
    let mut marks = Vec::new();
    let none = BTreeMap::new();
    for a in standings {
        let margins = games.margins.get(&a.name).unwrap_or(&none);
        let mut counts = vec![0u64; (last - first + 1) as usize];
        let (mut n, mut sum) = (0u64, 0i64);
        for (&m, &c) in margins {
            counts[(bin_of(m) - first) as usize] += c;
            n += c;
            sum += m * c as i64;
        }
        let mean = (n > 0).then(|| sum as f64 / n as f64);
        rows.push((a.name.clone(), counts));
        marks.push(mean.map(|m| (m, format!("mean {}", signed(Some(m), 2)))));
    }
    let chart = svg::Histograms {
        title: "Final margins per agent".into(),
        desc: format!(
            "For each agent, how many of its games ended with each final margin in seeds, \
             from its own side (positive: it won by that many); bins {w} seed{} wide; the red \
             tick is the mean.",
            if w == 1 { "" } else { "s" }
        ),
        x_label: format!("final margin (seeds, from the agent's side; bins {w} wide)"),
        unit: "games".into(),
        edges,
        rows,
        marks,
        even: Some(0.0),
    };
    Section {
        id: "margins".into(),
        title: "Margins".into(),
        blocks: vec![Block::Figure {
            id: "margins".into(),
            svg: svg::histograms(&chart),
            caption: "Distribution of final margins, agents in standing order; the dashed line \
                      is a draw, the red tick each agent's mean; forfeits left out."
                .into(),
        }],
    }
}

/// Per agent: what its moves cost and searched, from `games.jsonl`.
fn moves_section(moves: &MoveTable, standings: &[AgentSummary]) -> Section {
    let clocked = moves.agents.values().any(|m| m.least_clock_ms.is_some());
    let mut header = vec!["agent", "moves", "ms per move", "longest (ms)"];
    if clocked {
        header.push("least clock left (s)");
    }
    header.extend([
        "mean depth",
        "simulations per move",
        "nodes per second",
        "simulations per second",
    ]);
    let numeric: Vec<bool> = header.iter().map(|&h| h != "agent").collect();
    let mut table = Table::new("Moves, by agent", &header, &numeric);
    let rate = |x: Option<f64>| x.map_or("-".into(), |x| format!("{:.0}", x));
    for a in standings {
        let Some(m) = moves.agents.get(&a.name) else {
            continue;
        };
        let mut row = vec![
            a.name.clone(),
            m.moves.to_string(),
            plain(m.ms_per_move(), 2),
            plain(Some(m.longest_us as f64 / 1000.0), 1),
        ];
        if clocked {
            row.push(
                m.least_clock_ms
                    .map_or("-".into(), |c| format!("{:.2}", c as f64 / 1000.0)),
            );
        }
        row.extend([
            m.mean_depth().map_or("-".into(), |d| format!("{d:.1}")),
            m.sims_per_move().map_or("-".into(), |s| format!("{s:.0}")),
            rate(m.nodes_per_second()),
            rate(m.sims_per_second()),
        ]);
        table.row(row);
    }
    let mut blocks = vec![
        Block::Table(table),
        Block::Paragraph(
            "From the move-by-move records of games.jsonl, summed in moves.json: the wall time of each move as the \
             runner measured it (pipes included for engines), the depth or simulations the \
             agent reported, and its search speed over the moves that reported nodes or \
             simulations. Times depend on the machine and its load; the rest, with fixed \
             budgets, on the seeds alone."
                .into(),
        ),
    ];
    if moves.unreadable > 0 {
        blocks.push(Block::Paragraph(format!(
            "{} games whose moves did not replay were left out.",
            moves.unreadable
        )));
    }
    Section {
        id: "moves".into(),
        title: "Moves".into(),
        blocks,
    }
}

/// The game phases of `mancala annotate`, in the order games pass them.
const PHASES: [&str; 3] = ["opening", "middle", "endgame"];

fn accuracy_section(rows: &[AgentAccuracy]) -> Section {
    Section {
        id: "accuracy".into(),
        title: "Accuracy".into(),
        blocks: vec![
            Block::Table(accuracy_table(rows)),
            Block::Figure {
                id: "accuracy".into(),
                svg: accuracy_chart(rows),
                caption: "Seeds given away per move against perfect play, by phase".into(),
            },
            Block::Paragraph(
                "Every move after the opening, judged by `mancala annotate` where the solver \
                 gives its exact value within the budget: a best move loses 0 seeds; a \
                 blunder turns a won position into a draw or a loss, or a drawn one into a \
                 loss. Phases by the seeds still in the pits: the opening while more than two \
                 thirds are, the endgame once a third or fewer are. Per-move details are in \
                 annotations.jsonl."
                    .into(),
            ),
        ],
    }
}

/// Each agent's share of best moves with its interval, the seeds it gave
/// away per move overall and in each phase, and its blunders.
fn accuracy_table(rows: &[AgentAccuracy]) -> Table {
    let mut table = Table::new(
        "Accuracy against perfect play, by agent (mancala annotate)",
        &[
            "agent",
            "moves judged",
            "best moves",
            "95% interval",
            "mean seeds lost",
            "opening",
            "middle",
            "endgame",
            "blunders per game",
            "first blunder (ply)",
        ],
        &[false, true, true, true, true, true, true, true, true, true],
    );
    for a in rows {
        let o = &a.overall;
        let mut row = vec![
            a.agent.clone(),
            o.judged.to_string(),
            pct(o.best_share),
            o.best_share_95.map_or("-".into(), |(lo, hi)| {
                format!("{} .. {}", pct(Some(lo)), pct(Some(hi)))
            }),
            plain(o.mean_loss, 3),
        ];
        for phase in PHASES {
            row.push(plain(a.phases.get(phase).and_then(|p| p.mean_loss), 3));
        }
        row.push(plain(Some(a.blunders_per_game), 2));
        row.push(plain(a.first_blunder_ply, 1));
        table.row(row);
    }
    table
}

/// A line chart of the seeds each agent gave away per move in each phase
/// (a phase it did not play breaks its line).
fn accuracy_chart(rows: &[AgentAccuracy]) -> String {
    let series = rows
        .iter()
        .enumerate()
        .map(|(i, a)| svg::Series {
            name: a.agent.clone(),
            points: PHASES
                .iter()
                .enumerate()
                .map(|(x, phase)| {
                    let loss = a.phases.get(*phase).and_then(|p| p.mean_loss);
                    (x as f64 + 1.0, loss.unwrap_or(f64::NAN))
                })
                .collect(),
            line: true,
            marker: svg::Marker::Circle,
            colour: i % 6,
        })
        .collect();
    svg::line_chart(&svg::LineChart {
        title: "Seeds lost per move against perfect play, by phase".into(),
        desc: format!(
            "Mean seeds given away per judged move in the opening (1), middle game (2) and \
             endgame (3), for {} agents.",
            rows.len()
        ),
        x_label: "phase: 1 opening, 2 middle game, 3 endgame".into(),
        panels: vec![svg::LinePanel {
            y_label: "seeds lost per move".into(),
            y_range: (0.0, 0.0),
            series,
            references: Vec::new(),
        }],
    })
}

fn pairs_section(s: &Summary) -> Option<Section> {
    if s.pentanomial.is_empty() {
        return None;
    }
    let mut table = Table::new(
        "Pairs of games (one opening, seats swapped), counted for the first agent",
        &[
            "pairing",
            "pairs",
            "LL",
            "LD",
            "DD+WL",
            "WD",
            "WW",
            "Elo from pairs [95%]",
            "incomplete",
        ],
        &[false, true, true, true, true, true, true, false, true],
    );
    for e in &s.pentanomial {
        let mut row = vec![e.agents.join(" vs "), e.pairs.to_string()];
        row.extend(e.pentanomial.counts().map(|c| c.to_string()));
        row.push(e.elo.map_or("-".into(), |e| {
            format!(
                "{} [{}, {}]",
                signed(Some(e.elo), 1),
                signed(Some(e.lo), 1),
                signed(Some(e.hi), 1)
            )
        }));
        row.push(e.incomplete_pairs.to_string());
        table.row(row);
    }
    Some(Section {
        id: "pairs".into(),
        title: "Pairs of games".into(),
        blocks: vec![
            Block::Paragraph(
                "Each opening is played twice with the seats swapped; a pair's result for the \
                 first agent of the pairing is LL (lost both), LD, DD+WL (one point), WD or WW. \
                 The Elo from pairs has the right variance for paired openings."
                    .into(),
            ),
            Block::Table(table),
        ],
    })
}

fn forfeits_section(s: &Summary, games: Option<&GameStats>) -> Section {
    let forfeits = s.forfeits;
    let mut blocks = Vec::new();
    match games {
        Some(games) if games.forfeit_count == 0 => blocks.push(Block::Paragraph(
            "No game was forfeited: every agent answered every move in time and legally.".into(),
        )),
        Some(games) => {
            let mut table = Table::new(
                &format!("{} forfeited games", games.forfeit_count),
                &[
                    "game",
                    "first seat",
                    "second seat",
                    "winner",
                    "end",
                    "error",
                ],
                &[true, false, false, false, false, false],
            );
            for g in &games.forfeits {
                table.row(vec![
                    g.id.to_string(),
                    g.players[0].clone(),
                    g.players[1].clone(),
                    match g.winner {
                        Some(w) => g.players[usize::from(w.min(1))].clone(),
                        None => "draw".into(),
                    },
                    g.end.clone(),
                    g.error.clone(),
                ]);
            }
            blocks.push(Block::Table(table));
            let more = games.forfeit_count - games.forfeits.len() as u64;
            if more > 0 {
                blocks.push(Block::Paragraph(format!(
                    "... and {more} more: games.csv, column error, has them all."
                )));
            }
        }
        None if forfeits == 0 => blocks.push(Block::Paragraph("No game was forfeited.".into())),
        None => blocks.push(Block::Paragraph(format!(
            "{forfeits} games were forfeited; games.csv (absent here) lists the reasons."
        ))),
    }
    Section {
        id: "forfeits".into(),
        title: "Forfeits and errors".into(),
        blocks,
    }
}

fn reproduce_section(
    s: &Summary,
    config: Option<&std::result::Result<TournamentConfig, String>>,
) -> Section {
    let mut blocks = Vec::new();
    match config {
        Some(Ok(config)) => {
            let name = &config.name;
            let file = format!("{}.toml", if name.is_empty() { "tournament" } else { name });
            blocks.push(Block::Code {
                caption: format!("{file}, rebuilt from tournament.json"),
                text: config_toml(config),
            });
            blocks.push(Block::Code {
                caption: "Command".into(),
                text: format!("mancala tournament {file}"),
            });
            blocks.push(Block::Paragraph(
                "Games are seeded by their id: the same config plays the same games on any \
                 number of threads (only the durations differ)."
                    .into(),
            ));
        }
        Some(Err(why)) => blocks.push(Block::Paragraph(format!(
            "The folder's tournament.json does not give back a config ({why}), so the config \
             cannot be rebuilt."
        ))),
        None => blocks.push(Block::Paragraph(
            "The folder has no tournament.json, so the config cannot be rebuilt.".into(),
        )),
    }
    if !s.rating_method.is_empty() {
        blocks.push(Block::Paragraph(format!(
            "Rating method: {}.",
            s.rating_method
        )));
    }
    Section {
        id: "reproduce".into(),
        title: "Reproduce".into(),
        blocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_to_reproduce_a_run_reads_back_as_the_run_s() {
        let text = "name = \"t\"\ngame = \"kalah:pits=4,seeds=3\"\ngames_per_pair = 2\nseed = 7\n\
                    [[agents]]\nname = \"g\"\nspec = \"greedy\"\n\
                    [[agents]]\nname = \"py \\\"bot\\\"\"\ncommand = [\"python3\", \"my bot.py\"]\n\
                    options = { Hash = 64, Book = \"off\", Ponder = false }\n\
                    go = \"movetime 100\"\nhandshake_timeout = \"5s\"\n";
        let config = TournamentConfig::parse(text, "t.toml").unwrap();
        let again = TournamentConfig::parse(&config_toml(&config), "again.toml").unwrap();
        assert_eq!(again.agents, config.agents);
        assert_eq!(again.agents[1].command.as_ref().unwrap()[1], "my bot.py");
        assert_eq!(again.agent_names(), ["g", "py \"bot\""]);
    }

    #[test]
    fn rules_read_as_words() {
        assert!(rules_in_words("kalah").starts_with("Kalah(6,4): 6 pits a side"));
        assert!(rules_in_words("kalah:pie=true").contains("pie rule: the second player"));
        assert!(rules_in_words("oware").starts_with("Oware (Abapa)"));
        assert_eq!(rules_in_words("chess"), "chess");
    }

    #[test]
    fn the_config_is_rebuilt_as_toml() {
        let config = TournamentConfig::parse(
            r#"
name = "t"
game = "kalah"
games_per_pair = 4
seed = 3
openings = { plies = 2 }
ratings = { anchor = "r" }
agents = [{ name = "r", spec = "random" }, { name = 'g "x"', spec = "greedy" }]
"#,
            "t.toml",
        )
        .unwrap();
        let toml = config_toml(&config);
        assert!(toml.starts_with(
            "name = \"t\"\ngame = \"kalah\"\nformat = \"round_robin\"\ngames_per_pair = 4\nseed = 3\n"
        ));
        assert!(!toml.contains("champion") && !toml.contains("move_timeout"));
        assert!(toml.contains("[openings]\nplies = 2\ncount = 2\n"));
        assert!(toml.contains("[ratings]\nanchor = \"r\"\n"));
        assert!(toml.contains("name = \"g \\\"x\\\"\"\nspec = \"greedy\"\n"));
        // What it writes reads back as the same tournament.
        let again = TournamentConfig::parse(&toml, "again.toml").unwrap();
        assert_eq!(config_toml(&again), toml);
        assert_eq!(again.agent_names(), config.agent_names());
        assert_eq!(again.planned_games(), config.planned_games());
    }

    #[test]
    fn margins_are_binned_around_zero() {
        assert_eq!(bin_width(10), 1);
        assert_eq!(bin_width(48), 2);
        assert_eq!(bin_width(60), 4);
    }
}
