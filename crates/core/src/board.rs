//! A readable text board for people: what `mancala show` and `play` draw,
//! and what the Python package's `State.__str__` gives.

use crate::{Move, Player, Setup};

/// How a board is drawn: who is called what, and whose row is at the bottom.
#[derive(Clone, Debug)]
pub struct View {
    /// What each player is called, e.g. `player 0 (you)`.
    pub names: [String; 2],
    /// The player whose row is drawn at the bottom, pits 1.. from left to
    /// right, with their store on the right.
    pub bottom: Player,
    /// What a store is called: `store` (Kalah) or `captured` (Oware).
    pub store: &'static str,
}

impl Default for View {
    fn default() -> View {
        View {
            names: ["player 0".to_string(), "player 1".to_string()],
            bottom: Player::ZERO,
            store: "store",
        }
    }
}

impl View {
    fn name(&self, p: Player) -> &str {
        &self.names[p.index()]
    }
}

/// Draws the board with player 1's row on top (right to left, as it faces
/// player 0), the stores at the ends, pit numbers from 1, burnt holes
/// (multi-round Congkak) as `x`, and the last move marked with brackets.
pub fn render(setup: &Setup, last: Option<(Player, Move)>) -> String {
    render_view(setup, last, &View::default())
}

/// Width of one cell between the `|`s: a seed count up to 255 in brackets.
const CELL: usize = 5;

/// Draws the board as [`render`] does, with the names and the bottom row of
/// `view`:
///
/// ```text
///               3     2     1        <- player 1
///       +-----+-----+-----+-----+-----+
///       |     |  1  |  1  |  0  |     |
///       |  0  |-----+-----+-----|  1  |
///       |     |  1  |  1  | [0] |     |
///       +-----+-----+-----+-----+-----+
///               1     2     3        <- player 0
///       store: player 1 on the left, player 0 on the right
/// player 0 to move   (last move: player 0 played 3)
/// ```
pub fn render_view(setup: &Setup, last: Option<(Player, Move)>, view: &View) -> String {
    let bottom = view.bottom;
    let top = bottom.opponent();
    let n = setup.rows[bottom].len();
    let cell = |p: Player, i: usize| {
        let seeds = if i < 16 && setup.burnt[p] >> i & 1 == 1 {
            "x".to_string()
        } else {
            setup.rows[p][i].to_string()
        };
        let text = match last {
            Some((who, Move::Pit(pit))) if who == p && pit as usize == i => format!("[{seeds}]"),
            _ => seeds,
        };
        format!("|{text:^CELL$}")
    };
    let indent = "      ";
    let store_gap = " ".repeat(CELL + 1);
    let numbers = |order: &mut dyn Iterator<Item = usize>, who: Player| {
        let nums: String = order
            .map(|i| format!(" {:^CELL$}", i + 1))
            .collect::<String>();
        format!(
            "{indent}{store_gap}{nums}{store_gap}   <- {}\n",
            view.name(who)
        )
    };
    let border = format!(
        "{indent}+{}\n",
        format!("{}+", "-".repeat(CELL)).repeat(n + 2)
    );
    let blank_store = format!("|{}", " ".repeat(CELL));
    let store = |p: Player| format!("|{:^CELL$}", setup.stores[p]);

    let mut out = String::new();
    out.push_str(&numbers(&mut (0..n).rev(), top));
    out.push_str(&border);
    let top_row: String = (0..n).rev().map(|i| cell(top, i)).collect();
    out.push_str(&format!("{indent}{blank_store}{top_row}{blank_store}|\n"));
    let middle = vec!["-".repeat(CELL); n].join("+");
    out.push_str(&format!(
        "{indent}{}|{middle}{}|\n",
        store(top),
        store(bottom)
    ));
    let bottom_row: String = (0..n).map(|i| cell(bottom, i)).collect();
    out.push_str(&format!(
        "{indent}{blank_store}{bottom_row}{blank_store}|\n"
    ));
    out.push_str(&border);
    out.push_str(&numbers(&mut (0..n), bottom));
    out.push_str(&format!(
        "{indent}{}: {} on the left, {} on the right\n",
        view.store,
        view.name(top),
        view.name(bottom)
    ));
    let status = match setup.to_move {
        None => "game over".to_string(),
        Some(p) if setup.swap_available && p == Player::ONE => {
            format!("{} to move (may swap)", view.name(p))
        }
        Some(p) => format!("{} to move", view.name(p)),
    };
    out.push_str(&status);
    if let Some(round) = setup.round {
        out.push_str(&format!(
            ", round {} (begun by {})",
            round.number,
            view.name(round.first)
        ));
    }
    if let Some((who, mv)) = last {
        out.push_str(&format!("   (last move: {} played {mv})", view.name(who)));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_and_the_last_move_is_marked() {
        let setup: Setup = "1,2,0/3,4,5/1,0/0".parse().unwrap();
        let text = render(&setup, Some((Player::ZERO, Move::Pit(2))));
        let lines: Vec<&str> = text.lines().collect();
        // The pit numbers stand over the middles of their cells.
        let col = |line: &str, what: &str| line.find(what).unwrap();
        assert_eq!(col(lines[0], "3"), col(lines[2], "5"));
        assert_eq!(col(lines[0], "1"), col(lines[2], "3"));
        assert_eq!(col(lines[6], "3"), col(lines[4], "[0]") + 1);
        assert!(lines[3].contains("|  0  |"), "{text}");
        assert!(lines[3].trim_end().ends_with("|  1  |"), "{text}");
        assert!(text.contains("last move: player 0 played 3"), "{text}");
        for line in &lines {
            assert_eq!(line.trim_end(), *line, "trailing spaces in {line:?}");
        }
    }

    #[test]
    fn a_view_can_put_player_one_at_the_bottom() {
        let setup: Setup = "1,2,3/4,5,6/7,8/1".parse().unwrap();
        let view = View {
            names: ["player 0 (bot)".into(), "player 1 (you)".into()],
            bottom: Player::ONE,
            store: "store",
        };
        let text = render_view(&setup, None, &view);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with("<- player 0 (bot)"), "{text}");
        // Player 0's row on top, right to left; player 1's at the bottom.
        assert!(lines[2].contains("|  3  |  2  |  1  |"), "{text}");
        assert!(lines[4].contains("|  4  |  5  |  6  |"), "{text}");
        assert!(lines[3].contains("|  7  |"), "{text}");
        assert!(lines[3].ends_with("|  8  |"), "{text}");
        assert!(text.contains("player 1 (you) to move"), "{text}");
    }

    #[test]
    fn burnt_holes_and_the_round_are_shown() {
        let setup: Setup = "x,2,2/2,x,2/1,1/1/r2,0".parse().unwrap();
        let text = render(&setup, None);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[2].contains("|  2  |  x  |  2  |"), "{text}");
        assert!(lines[4].contains("|  x  |  2  |  2  |"), "{text}");
        assert!(
            text.contains("player 1 to move, round 2 (begun by player 0)"),
            "{text}"
        );
    }
}
