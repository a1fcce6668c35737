//! A readable text board for people.

use mancala_core::{Move, Player, Setup};

/// Draws the board with player 1's row on top (right to left, as it faces
/// player 0), the stores at the ends, pit numbers from 1, and the last move
/// marked with `*`.
pub fn render(setup: &Setup, last: Option<(Player, Move)>) -> String {
    let n = setup.rows[Player::ZERO].len();
    let cell = |p: Player, i: usize| {
        let mark = match last {
            Some((who, Move::Pit(pit))) if who == p && pit as usize == i => '*',
            _ => ' ',
        };
        format!("{:>3}{mark}", setup.rows[p][i])
    };
    let numbers = |order: &mut dyn Iterator<Item = usize>| {
        order.map(|i| format!("{:>3} ", i + 1)).collect::<String>()
    };
    let top: String = (0..n).rev().map(|i| cell(Player::ONE, i)).collect();
    let bottom: String = (0..n).map(|i| cell(Player::ZERO, i)).collect();
    let mut out = String::new();
    out.push_str(&format!(
        "       {}  <- player 1's pits\n",
        numbers(&mut (0..n).rev())
    ));
    out.push_str(&format!("      {top}\n"));
    out.push_str(&format!(
        "{:>4} {}{:>4}   stores: player 1 left, player 0 right\n",
        setup.stores[Player::ONE],
        " ".repeat(4 * n + 1),
        setup.stores[Player::ZERO]
    ));
    out.push_str(&format!("      {bottom}\n"));
    out.push_str(&format!(
        "       {}  <- player 0's pits\n",
        numbers(&mut (0..n))
    ));
    let status = match setup.to_move {
        None => "game over".to_string(),
        Some(p) if setup.swap_available && p == Player::ONE => {
            "player 1 to move (may swap)".to_string()
        }
        Some(p) => format!("player {p} to move"),
    };
    out.push_str(&status);
    if let Some((who, mv)) = last {
        out.push_str(&format!("   (last move: player {who} played {mv})"));
    }
    out.push('\n');
    out
}
