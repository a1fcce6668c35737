//! What a report needs of a tournament's `games.csv`, read row by row: a
//! tournament may hold millions of games, which are never all in memory at
//! once. Margins are counted per agent, times summed and the first
//! forfeits kept.

use std::collections::BTreeMap;
use std::path::Path;

use mancala_arena::MoveTable;

use crate::Result;

use crate::bad_input;

/// A forfeited game, as `games.csv` lists it.
#[derive(Clone, Debug)]
pub struct Forfeit {
    /// The game's id.
    pub id: u64,
    /// Display names in seat order.
    pub players: [String; 2],
    /// The winning seat; `None` for a draw.
    pub winner: Option<u8>,
    /// Why the game ended (`forfeit`).
    pub end: String,
    /// What went wrong, as the runner wrote it.
    pub error: String,
}

/// What the report needs of `games.csv`, gathered row by row: a tournament
/// may hold millions of games, which are never all in memory at once.
#[derive(Default)]
pub struct GameStats {
    /// Wall time of every game, summed, in seconds.
    pub seconds: f64,
    /// Per agent (display name), how many of its games ended with each
    /// margin from its side; forfeits left out, as in the summary.
    pub margins: BTreeMap<String, BTreeMap<i64, u64>>,
    /// Forfeited games.
    pub forfeit_count: u64,
    /// The first [`FORFEITS_SHOWN`] of them.
    pub forfeits: Vec<Forfeit>,
}

/// Forfeited games listed in a report; the rest are counted.
const FORFEITS_SHOWN: usize = 50;

/// The places in `games.csv` of what a report reads: the columns every
/// tournament's game list has, and those that older lists may lack.
struct Columns {
    id: usize,
    player0: usize,
    player1: usize,
    winner: usize,
    margin: usize,
    duration_ms: Option<usize>,
    end: Option<usize>,
    error: Option<usize>,
}

impl Columns {
    /// Finds the columns in `header`, the first row of `path`.
    ///
    /// # Errors
    /// Bad input when a column every game list has is missing.
    fn find(header: &csv::StringRecord, path: &Path) -> Result<Columns> {
        let column = |name: &str| header.iter().position(|h| h == name);
        let needed = ["id", "player0", "player1", "winner", "margin"];
        let [Some(id), Some(player0), Some(player1), Some(winner), Some(margin)] =
            needed.map(column)
        else {
            return Err(bad_input(format!(
                "{} is not a tournament's game list (it needs the columns {})",
                path.display(),
                needed.join(", ")
            )));
        };
        let [duration_ms, end, error] = ["duration_ms", "end", "error"].map(column);
        Ok(Columns {
            id,
            player0,
            player1,
            winner,
            margin,
            duration_ms,
            end,
            error,
        })
    }
}

/// Reads `games.csv` row by row into [`GameStats`].
pub fn read_games(path: &Path) -> Result<GameStats> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .map_err(|e| bad_input(format!("cannot read {}: {e}", path.display())))?;
    let header = reader
        .headers()
        .map_err(|e| bad_input(format!("{}: {e}", path.display())))?
        .clone();
    let columns = Columns::find(&header, path)?;
    let mut stats = GameStats::default();
    let mut record = csv::StringRecord::new();
    let mut row = 0usize;
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => row += 1,
            Ok(false) => break,
            Err(e) => {
                return Err(bad_input(format!(
                    "{}, row {}: {e}",
                    path.display(),
                    row + 1
                )))
            }
        }
        stats.add(&record, &columns, path, row)?;
    }
    stats.forfeits.sort_by_key(|f| f.id);
    Ok(stats)
}

impl GameStats {
    /// Counts the game of `record`, row `row` of `path`: its time, and its
    /// margin from each side or, when it was forfeited, the forfeit.
    ///
    /// # Errors
    /// Bad input when its id or margin is not a number.
    fn add(
        &mut self,
        record: &csv::StringRecord,
        columns: &Columns,
        path: &Path,
        row: usize,
    ) -> Result<()> {
        let field = |i: usize| record.get(i).unwrap_or("");
        let opt = |column: Option<usize>| column.map_or("", field);
        let number = |i: usize, what: &str| {
            field(i).trim().parse::<i64>().map_err(|_| {
                bad_input(format!(
                    "{}, row {row}: {what} is not a number",
                    path.display()
                ))
            })
        };
        let id = number(columns.id, "id")?;
        let margin = number(columns.margin, "margin")?;
        let players = [field(columns.player0), field(columns.player1)];
        let winner = match field(columns.winner) {
            "0" => Some(0),
            "1" => Some(1),
            _ => None,
        };
        self.seconds += opt(columns.duration_ms).parse::<f64>().unwrap_or(0.0) / 1000.0;
        let error = opt(columns.error);
        if error.is_empty() {
            for (player, m) in [(players[0], margin), (players[1], -margin)] {
                if !self.margins.contains_key(player) {
                    self.margins.insert(player.to_string(), BTreeMap::new());
                }
                if let Some(counts) = self.margins.get_mut(player) {
                    *counts.entry(m).or_insert(0) += 1;
                }
            }
        } else {
            self.forfeit_count += 1;
            if self.forfeits.len() < FORFEITS_SHOWN {
                self.forfeits.push(Forfeit {
                    id: id as u64,
                    players: players.map(str::to_string),
                    winner,
                    end: opt(columns.end).to_string(),
                    error: error.to_string(),
                });
            }
        }
        Ok(())
    }
}

/// The per-agent move figures of a tournament's `moves.json` (time per
/// move, depth or simulations, search speed); `None` when it lists no
/// agent (a log written before move records existed).
///
/// # Errors
/// Bad input for a file that is not a move table.
pub fn read_moves(path: &Path) -> Result<Option<MoveTable>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| bad_input(format!("cannot read {}: {e}", path.display())))?;
    let table: MoveTable = serde_json::from_str(&text)
        .map_err(|e| bad_input(format!("{} is not a table of moves: {e}", path.display())))?;
    Ok((!table.agents.is_empty()).then_some(table))
}
