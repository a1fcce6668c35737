//! The report of a tournament folder: header and config to reproduce,
//! ratings ladder, crosstable heat map, first-move advantage, margin
//! distributions, pairs of games (pentanomial counts, SPRT curves where a
//! test is recorded), forfeits and errors.
//!
//! `summary.json` is read as a JSON value, leniently: fields this version
//! does not know are ignored and missing ones leave their part out, so that
//! summaries written before or after this version (pentanomial counts, a
//! merged-shards marker) report as well as they can.

use std::collections::BTreeMap;
use std::path::Path;

use crate::Result;
use mancala_arena::stats::{pentanomial_llr, Pentanomial};
use mancala_core::{Game, GameSpec};
use serde_json::Value;

use super::games::{read_games, GameStats, PairedGame};
use super::read::{
    count, duration, float, json_file, pair, pct, plain, signed, string, toml_string, toml_value,
    with_interval,
};
use super::{Block, Document, Section, Table};
use crate::bad_input;
use crate::svg::{self, Estimate, Reference};

/// What a tournament folder holds.
pub struct TournamentFolder {
    summary: Value,
    identity: Option<Value>,
    games: Option<GameStats>,
}

/// Reads the tournament in `dir`, if it holds one.
///
/// # Errors
/// Bad input for a shard's folder or an unfinished tournament (which have
/// no summary yet), and for damaged files.
pub fn detect(dir: &Path) -> Result<Option<TournamentFolder>> {
    let identity = json_file(&dir.join("tournament.json"))?;
    let Some(summary) = json_file(&dir.join("summary.json"))? else {
        let Some(identity) = identity else {
            return Ok(None);
        };
        if let Some(shard) = identity.get("shard") {
            return Err(bad_input(format!(
                "{} holds shard {} of {} of tournament {}: a shard has no ratings of its own; \
                 merge the shards' folders with `mancala merge DIR... --output MERGED`, then \
                 report the merged folder",
                dir.display(),
                count(shard.get("index")),
                count(shard.get("count")),
                string(identity.get("name"))
            )));
        }
        return Err(bad_input(format!(
            "{} holds tournament {} but no summary.json: it has not finished; run it again to \
             finish it (or `mancala merge` the shards), then report",
            dir.display(),
            string(identity.get("name"))
        )));
    };
    if summary.get("standings").is_none() {
        return Err(bad_input(format!(
            "{} is not a tournament summary (it has no standings)",
            dir.join("summary.json").display()
        )));
    }
    let games_path = dir.join("games.csv");
    let keep_pairs = sprt_spec(&summary, identity.as_ref()).is_some();
    let games = if games_path.is_file() {
        Some(read_games(&games_path, keep_pairs)?)
    } else {
        None
    };
    Ok(Some(TournamentFolder {
        summary,
        identity,
        games,
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

/// An agent's line of the standings.
struct Standing {
    name: String,
    spec: String,
    games: u64,
    score: Option<f64>,
    wdl: (u64, u64, u64),
    elo: f64,
    interval: Option<(f64, f64)>,
    margin: Option<f64>,
    margin_interval: Option<(f64, f64)>,
    first_seat: Option<f64>,
    second_seat: Option<f64>,
    forfeits: u64,
}

fn wdl(v: Option<&Value>) -> (u64, u64, u64) {
    v.map_or((0, 0, 0), |w| {
        (
            count(w.get("wins")),
            count(w.get("draws")),
            count(w.get("losses")),
        )
    })
}

fn standings(summary: &Value) -> Vec<Standing> {
    let list = summary.get("standings").and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .map(|a| {
            let margin = a.get("margin");
            Standing {
                name: string(a.get("name")),
                spec: string(a.get("spec")),
                games: count(a.get("games")),
                score: float(a.get("score")),
                wdl: wdl(a.get("wdl")),
                elo: float(a.get("elo")).unwrap_or(0.0),
                // The profile interval is the one to quote; older
                // summaries have only the Hessian one.
                interval: pair(a.get("elo_95_profile")).or_else(|| pair(a.get("elo_95"))),
                margin: float(margin.and_then(|m| m.get("mean"))),
                margin_interval: match (
                    float(margin.and_then(|m| m.get("lo"))),
                    float(margin.and_then(|m| m.get("hi"))),
                ) {
                    (Some(lo), Some(hi)) => Some((lo, hi)),
                    _ => None,
                },
                first_seat: float(a.get("as_first").and_then(|f| f.get("score"))),
                second_seat: float(a.get("as_second").and_then(|f| f.get("score")))
                    .map(|s| 1.0 - s),
                forfeits: count(a.get("forfeits")),
            }
        })
        .collect()
}

/// First-seat statistics as the summary writes them.
struct FirstSeat {
    wdl: (u64, u64, u64),
    score: Option<f64>,
    interval: Option<(f64, f64)>,
    margin: Option<f64>,
    margin_interval: Option<(f64, f64)>,
}

fn first_seat(v: Option<&Value>) -> FirstSeat {
    let margin = v.and_then(|f| f.get("margin"));
    FirstSeat {
        wdl: wdl(v.and_then(|f| f.get("wdl"))),
        score: float(v.and_then(|f| f.get("score"))),
        interval: pair(v.and_then(|f| f.get("score_interval"))),
        margin: float(margin.and_then(|m| m.get("mean"))),
        margin_interval: match (
            float(margin.and_then(|m| m.get("lo"))),
            float(margin.and_then(|m| m.get("hi"))),
        ) {
            (Some(lo), Some(hi)) => Some((lo, hi)),
            _ => None,
        },
    }
}

/// How a merged tournament says it was merged, in words; `None` for a
/// single run. The marker's name and shape are read leniently: a number of
/// shards, a list of shard folders, or an object with a `shards`/`count`.
fn merged_marker(summary: &Value) -> Option<String> {
    let marker = ["merged", "merged_shards", "merged_from", "shards"]
        .iter()
        .find_map(|k| {
            summary
                .get(*k)
                .filter(|v| !v.is_null() && *v != &Value::Bool(false))
        })?;
    let shards = match marker {
        Value::Number(n) => n.as_u64(),
        Value::Array(a) => Some(a.len() as u64),
        Value::Object(o) => {
            ["shards", "count", "shard_count"]
                .iter()
                .find_map(|k| match o.get(*k) {
                    Some(Value::Number(n)) => n.as_u64(),
                    Some(Value::Array(a)) => Some(a.len() as u64),
                    _ => None,
                })
        }
        _ => None,
    };
    Some(match shards {
        Some(n) => format!("yes: merged from {n} shards (mancala merge)"),
        None => "yes: merged from shards (mancala merge)".into(),
    })
}

/// The config that replays this tournament, as TOML, from `tournament.json`
/// (which holds everything that decides the games) and the summary's anchor.
fn config_toml(identity: &Value, anchor: &str) -> String {
    let mut out = String::new();
    for key in [
        "name",
        "game",
        "format",
        "champion",
        "games_per_pair",
        "seed",
        "move_timeout",
    ] {
        if let Some(v) = identity.get(key).and_then(toml_value) {
            out.push_str(&format!("{key} = {v}\n"));
        }
    }
    out.push_str("\n[openings]\n");
    if let Some(v) = identity.get("opening_plies").and_then(toml_value) {
        out.push_str(&format!("plies = {v}\n"));
    }
    if let Some(v) = identity.get("opening_count").and_then(toml_value) {
        out.push_str(&format!("count = {v}\n"));
    }
    if !anchor.is_empty() && anchor != "mean" {
        out.push_str(&format!("\n[ratings]\nanchor = {}\n", toml_string(anchor)));
    }
    for agent in identity
        .get("agents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        // The identity keeps each agent as [name, spec].
        let (name, spec) = match agent.as_array().map(Vec::as_slice) {
            Some([name, spec]) => (string(Some(name)), string(Some(spec))),
            _ => (string(agent.get("name")), string(agent.get("spec"))),
        };
        out.push_str(&format!(
            "\n[[agents]]\nname = {}\nspec = {}\n",
            toml_string(&name),
            toml_string(&spec)
        ));
    }
    out
}

/// Builds the report.
pub fn document(t: &TournamentFolder, folder: &str) -> Document {
    let s = &t.summary;
    let name = string(s.get("name"));
    let game = string(s.get("game"));
    let anchor = string(s.get("anchor"));
    let standings = standings(s);
    let agents: Vec<String> = s
        .get("agents")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|v| string(Some(v))).collect())
        .unwrap_or_else(|| standings.iter().map(|a| a.name.clone()).collect());
    let played = count(s.get("games_played"));
    let planned = count(s.get("games_planned"));
    let id = t.identity.as_ref();

    let mut doc = Document {
        title: format!("Tournament {name}"),
        lead: format!(
            "{} agents, {played} games of {game}, rated by a Bradley–Terry (Elo) fit with a \
             first-move term.",
            agents.len()
        ),
        ..Document::default()
    };
    let mut fact = |k: &str, v: String| doc.facts.push((k.to_string(), v));
    fact("Folder", folder.to_string());
    fact("Game", game.clone());
    fact("Rules", rules_in_words(&game));
    if let Some(id) = id {
        let format = string(id.get("format"));
        let champion = string(id.get("champion"));
        fact(
            "Format",
            match format.as_str() {
                "round_robin" => "round robin".to_string(),
                "gauntlet" => format!("gauntlet: {champion} against every other agent"),
                other => other.to_string(),
            },
        );
    }
    fact(
        "Agents",
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
            .join(", "),
    );
    fact(
        "Games",
        if planned > 0 && planned != played {
            format!("{played} of {planned} planned")
        } else {
            played.to_string()
        },
    );
    if let Some(id) = id {
        fact("Seed", string(id.get("seed")));
        fact(
            "Openings",
            format!(
                "{} random moves, {} distinct openings, each played with both seatings",
                count(id.get("opening_plies")),
                count(id.get("opening_count"))
            ),
        );
        if let Some(timeout) = id.get("move_timeout").filter(|v| !v.is_null()) {
            fact("Move timeout", string(Some(timeout)));
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
    if let Some(merged) = merged_marker(s) {
        fact("Merged", merged);
    }

    doc.sections.push(ratings_section(&standings, &anchor));
    doc.sections.push(crosstable_section(s, &agents));
    doc.sections.push(first_move_section(s));
    if let Some(games) = &t.games {
        doc.sections.push(margins_section(games, &standings));
    }
    if let Some(section) = pairs_section(s, t.games.as_ref(), id) {
        doc.sections.push(section);
    }
    doc.sections.push(forfeits_section(s, t.games.as_ref()));
    doc.sections.push(reproduce_section(s, id, &name, &anchor));
    doc
}

fn ratings_section(standings: &[Standing], anchor: &str) -> Section {
    let note = |a: &Standing| match a.interval {
        Some((lo, hi)) => format!(
            "{} [{}, {}]",
            signed(Some(a.elo), 0),
            signed(Some(lo), 0),
            signed(Some(hi), 0)
        ),
        None if a.name == anchor => format!("{} (anchor)", signed(Some(a.elo), 0)),
        None => signed(Some(a.elo), 0),
    };
    let chart = svg::IntervalChart {
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
                estimate: Some(match a.interval {
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
    };
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
            a.interval.map_or("(anchor)".into(), |(lo, hi)| {
                format!("[{}, {}]", signed(Some(lo), 1), signed(Some(hi), 1))
            }),
            a.games.to_string(),
            pct(a.score),
            format!("{}-{}-{}", a.wdl.0, a.wdl.1, a.wdl.2),
            with_interval(a.margin, a.margin_interval, |x| signed(x, 2)),
            pct(a.first_seat),
            pct(a.second_seat),
            a.forfeits.to_string(),
        ]);
    }
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

fn crosstable_section(s: &Value, agents: &[String]) -> Section {
    let rows = s.get("crosstable").and_then(Value::as_array);
    let cell = |i: usize, j: usize| -> Option<&Value> {
        rows?.get(i)?.as_array()?.get(j).filter(|c| !c.is_null())
    };
    let cells: Vec<Vec<Option<(f64, u64)>>> = (0..agents.len())
        .map(|i| {
            (0..agents.len())
                .map(|j| {
                    let c = cell(i, j)?;
                    Some((float(c.get("score"))?, count(c.get("games"))))
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
            row.push(cell(i, j).map_or("-".into(), |c| {
                let (w, d, l) = wdl(c.get("wdl"));
                format!("{w}-{d}-{l}")
            }));
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

fn first_move_section(s: &Value) -> Section {
    let fp = s.get("first_player");
    let overall = first_seat(fp.and_then(|f| f.get("overall")));
    let advantage = float(fp.and_then(|f| f.get("advantage_elo")));
    let advantage_interval = pair(fp.and_then(|f| f.get("advantage_elo_95_profile")))
        .or_else(|| pair(fp.and_then(|f| f.get("advantage_elo_95"))));
    let per_pair: Vec<(String, FirstSeat)> = fp
        .and_then(|f| f.get("per_pair"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|p| {
            let agents = p.get("agents").and_then(Value::as_array);
            let label = agents.map_or(String::new(), |a| {
                a.iter()
                    .map(|n| string(Some(n)))
                    .collect::<Vec<_>>()
                    .join(" vs ")
            });
            (label, first_seat(p.get("stats")))
        })
        .collect();
    let score_note = |f: &FirstSeat| with_interval(f.score, f.interval, pct);
    let mut rows = vec![svg::IntervalRow {
        label: "all games".into(),
        estimate: overall.score.map(|v| Estimate {
            value: v,
            lo: overall.interval.map_or(v, |i| i.0),
            hi: overall.interval.map_or(v, |i| i.1),
        }),
        note: score_note(&overall),
    }];
    for (label, f) in &per_pair {
        rows.push(svg::IntervalRow {
            label: label.clone(),
            estimate: f.score.map(|v| Estimate {
                value: v,
                lo: f.interval.map_or(v, |i| i.0),
                hi: f.interval.map_or(v, |i| i.1),
            }),
            note: score_note(f),
        });
    }
    let chart = svg::IntervalChart {
        title: "First-seat score".into(),
        desc: format!(
            "Score of the player who moved first, with its 95% Wilson interval, over all games \
             ({}) and per pairing.",
            score_note(&overall)
        ),
        x_label: "first seat's score (0 to 1; 0.5 is no advantage)".into(),
        rows,
        x_range: (0.0, 1.0),
        references: vec![Reference {
            y: 0.5,
            label: "even".into(),
            strong: false,
        }],
    };
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
    for (label, f) in std::iter::once(("all games".to_string(), &overall))
        .chain(per_pair.iter().map(|(l, f)| (l.clone(), f)))
    {
        table.row(vec![
            label,
            (f.wdl.0 + f.wdl.1 + f.wdl.2).to_string(),
            format!("{}-{}-{}", f.wdl.0, f.wdl.1, f.wdl.2),
            score_note(f),
            with_interval(f.margin, f.margin_interval, |x| signed(x, 2)),
        ]);
    }
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
                score_note(&overall),
                overall.wdl.0,
                overall.wdl.1,
                overall.wdl.2,
                with_interval(overall.margin, overall.margin_interval, |x| signed(x, 2)),
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

/// Bin width for margins spanning `span` seeds: at most about 24 bins.
fn bin_width(span: i64) -> i64 {
    [1, 2, 4, 5, 10, 20, 25, 50, 100]
        .into_iter()
        .find(|w| span / w <= 24)
        .unwrap_or(200)
}

fn margins_section(games: &GameStats, standings: &[Standing]) -> Section {
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

/// The SPRT a summary or identity records, as (elo0, elo1, alpha, beta).
fn sprt_spec(s: &Value, identity: Option<&Value>) -> Option<(f64, f64, f64, f64)> {
    let spec = s
        .get("sprt")
        .or_else(|| identity.and_then(|i| i.get("sprt")))?;
    let get = |k: &str| float(spec.get(k));
    Some((get("elo0")?, get("elo1")?, get("alpha")?, get("beta")?))
}

fn pairs_section(
    s: &Value,
    games: Option<&GameStats>,
    identity: Option<&Value>,
) -> Option<Section> {
    let entries = s.get("pentanomial").and_then(Value::as_array)?;
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
    let mut pairings = Vec::new();
    for e in entries {
        let agents: Vec<String> = e
            .get("agents")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|n| string(Some(n))).collect())
            .unwrap_or_default();
        let p = e.get("pentanomial");
        let c = |k: &str| count(p.and_then(|p| p.get(k)));
        let elo = e.get("elo").filter(|v| !v.is_null());
        table.row(vec![
            agents.join(" vs "),
            count(e.get("pairs")).to_string(),
            c("ll").to_string(),
            c("ld").to_string(),
            c("dd_wl").to_string(),
            c("wd").to_string(),
            c("ww").to_string(),
            elo.map_or("-".into(), |e| {
                format!(
                    "{} [{}, {}]",
                    signed(float(e.get("elo")), 1),
                    signed(float(e.get("lo")), 1),
                    signed(float(e.get("hi")), 1)
                )
            }),
            count(e.get("incomplete_pairs")).to_string(),
        ]);
        if agents.len() == 2 {
            pairings.push([agents[0].clone(), agents[1].clone()]);
        }
    }
    if table.rows.is_empty() {
        return None;
    }
    let mut blocks = vec![
        Block::Paragraph(
            "Each opening is played twice with the seats swapped; a pair's result for the \
             first agent of the pairing is LL (lost both), LD, DD+WL (one point), WD or WW. \
             The Elo from pairs has the right variance for paired openings."
                .into(),
        ),
        Block::Table(table),
    ];
    if let (Some((elo0, elo1, alpha, beta)), Some(games)) = (sprt_spec(s, identity), games) {
        blocks.push(sprt_figure(games, &pairings, elo0, elo1, alpha, beta));
    }
    Some(Section {
        id: "pairs".into(),
        title: "Pairs of games".into(),
        blocks,
    })
}

/// The SPRT's log-likelihood ratio of each pairing after each pair, in the
/// order the schedule completes them, against Wald's bounds.
fn sprt_figure(
    games: &GameStats,
    pairings: &[[String; 2]],
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
) -> Block {
    let lower = (beta / (1.0 - alpha)).ln();
    let upper = ((1.0 - beta) / alpha).ln();
    let index = |name: &str| games.names.iter().position(|n| n == name);
    let mut series = Vec::new();
    for (k, [a, b]) in pairings.iter().enumerate() {
        let (Some(ia), Some(ib)) = (index(a), index(b)) else {
            continue;
        };
        // Two games form a pair as the summary pairs them: the same
        // pairing's rounds 2k and 2k + 1, one opening, seats swapped.
        let mut groups: BTreeMap<(u64, u64), Vec<&PairedGame>> = BTreeMap::new();
        for g in games
            .paired
            .iter()
            .filter(|g| g.seats == [ia, ib] || g.seats == [ib, ia])
        {
            groups.entry((g.pair, g.round / 2)).or_default().push(g);
        }
        let score_of_a = |g: &PairedGame| {
            if g.seats[0] == ia {
                g.first_score
            } else {
                1.0 - g.first_score
            }
        };
        let mut penta = Pentanomial::default();
        let mut points = Vec::new();
        for pair_games in groups.values() {
            if let [x, y] = pair_games.as_slice() {
                if x.opening == y.opening
                    && x.seats == [y.seats[1], y.seats[0]]
                    && penta.record_pair(score_of_a(x), score_of_a(y)).is_ok()
                {
                    let n = penta.pairs() as f64;
                    points.push((n, pentanomial_llr(penta.counts(), elo0, elo1)));
                }
            }
        }
        series.push(svg::Series {
            name: format!("{a} vs {b}"),
            points,
            line: true,
            marker: svg::Marker::None,
            colour: k,
        });
    }
    let chart = svg::LineChart {
        title: format!("SPRT: elo0 {elo0}, elo1 {elo1}, alpha {alpha}, beta {beta}"),
        desc: format!(
            "Log-likelihood ratio of each pairing's SPRT after each pair of games; the test \
             accepts H1 above {} and H0 below {}.",
            plain(Some(upper), 2),
            plain(Some(lower), 2)
        ),
        x_label: "pairs of games".into(),
        panels: vec![svg::LinePanel {
            y_label: "log-likelihood ratio".into(),
            y_range: (lower, upper),
            series,
            references: vec![
                Reference {
                    y: upper,
                    label: format!("H1 {}", plain(Some(upper), 2)),
                    strong: true,
                },
                Reference {
                    y: lower,
                    label: format!("H0 {}", plain(Some(lower), 2)),
                    strong: true,
                },
            ],
        }],
    };
    Block::Figure {
        id: "sprt".into(),
        svg: svg::line_chart(&chart),
        caption: "SPRT log-likelihood ratio per pairing as pairs of games accumulate.".into(),
    }
}

fn forfeits_section(s: &Value, games: Option<&GameStats>) -> Section {
    let forfeits = count(s.get("forfeits"));
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

fn reproduce_section(s: &Value, identity: Option<&Value>, name: &str, anchor: &str) -> Section {
    let mut blocks = Vec::new();
    match identity {
        Some(id) => {
            let file = format!("{}.toml", if name.is_empty() { "tournament" } else { name });
            blocks.push(Block::Code {
                caption: format!("{file}, rebuilt from tournament.json"),
                text: config_toml(id, anchor),
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
        None => blocks.push(Block::Paragraph(
            "The folder has no tournament.json, so the config cannot be rebuilt.".into(),
        )),
    }
    let method = string(s.get("rating_method"));
    if !method.is_empty() {
        blocks.push(Block::Paragraph(format!("Rating method: {method}.")));
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
    use serde_json::json;

    #[test]
    fn rules_read_as_words() {
        assert!(rules_in_words("kalah").starts_with("Kalah(6,4): 6 pits a side"));
        assert!(rules_in_words("kalah:pie=true").contains("pie rule: the second player"));
        assert!(rules_in_words("oware").starts_with("Oware (Abapa)"));
        assert_eq!(rules_in_words("chess"), "chess");
    }

    #[test]
    fn merged_markers_of_any_shape_are_recognised() {
        assert_eq!(merged_marker(&json!({})), None);
        assert_eq!(merged_marker(&json!({"merged": null})), None);
        assert!(merged_marker(&json!({"merged": {"shards": 4}}))
            .unwrap()
            .contains("4 shards"));
        assert!(merged_marker(&json!({"merged_shards": 3}))
            .unwrap()
            .contains("3 shards"));
        assert!(merged_marker(&json!({"merged": true})).is_some());
    }

    #[test]
    fn the_config_is_rebuilt_as_toml() {
        let id = json!({
            "name": "t", "game": "kalah", "format": "round_robin", "champion": null,
            "games_per_pair": 4, "seed": 3, "opening_plies": 2, "opening_count": 2,
            "move_timeout": null, "agents": [["r", "random"], ["g \"x\"", "greedy"]]
        });
        let toml = config_toml(&id, "r");
        assert!(toml.starts_with("name = \"t\"\ngame = \"kalah\"\nformat = \"round_robin\"\n"));
        assert!(!toml.contains("champion"));
        assert!(toml.contains("[openings]\nplies = 2\ncount = 2\n"));
        assert!(toml.contains("[ratings]\nanchor = \"r\"\n"));
        assert!(toml.contains("name = \"g \\\"x\\\"\"\nspec = \"greedy\"\n"));
    }

    #[test]
    fn margins_are_binned_around_zero() {
        assert_eq!(bin_width(10), 1);
        assert_eq!(bin_width(48), 2);
        assert_eq!(bin_width(60), 4);
    }

    #[test]
    fn an_sprt_curve_is_drawn_only_when_a_test_is_recorded() {
        let game = |round: u64, seats: [usize; 2], first_score: f64| PairedGame {
            pair: 0,
            round,
            opening: round / 2,
            seats,
            first_score,
        };
        // a (index 0) wins both games of the first pair, draws and wins
        // the second.
        let games = GameStats {
            names: vec!["a".into(), "b".into()],
            paired: vec![
                game(0, [0, 1], 1.0),
                game(1, [1, 0], 0.0),
                game(2, [0, 1], 0.5),
                game(3, [1, 0], 0.0),
            ],
            ..GameStats::default()
        };
        let summary = json!({
            "pentanomial": [{"agents": ["a", "b"], "pairs": 2, "incomplete_pairs": 0,
                "pentanomial": {"ll": 0, "ld": 0, "dd_wl": 0, "wd": 1, "ww": 1, "dd": 0, "wl": 0},
                "elo": {"elo": "inf", "lo": 100.0, "hi": "inf"}}]
        });
        let without = pairs_section(&summary, Some(&games), None).unwrap();
        assert_eq!(without.blocks.len(), 2);
        let mut with = summary.clone();
        with["sprt"] = json!({"elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05});
        let section = pairs_section(&with, Some(&games), None).unwrap();
        let Some(Block::Figure { svg, .. }) = section.blocks.last() else {
            panic!("no SPRT figure");
        };
        assert!(svg.contains("a vs b"));
        assert!(svg.contains("H1 2.94"));
    }
}
