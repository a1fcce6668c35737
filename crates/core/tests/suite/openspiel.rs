//! The engine against independent traces: random games played by DeepMind
//! OpenSpiel 2.0.2, kept in `tests/data/openspiel/` (its `README.md` says
//! where they come from and what each field means). Every legal set, board,
//! side to move and final score must agree.

use std::path::PathBuf;

use mancala_core::{Game, KalahRules, Move, OwareRules, Player};
use serde_json::Value;

fn testdata(name: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/openspiel")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reference traces {} are needed: {e}", path.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number") as i64)
        .collect()
}

fn board_of<G: Game>(game: &G, state: &G::State) -> Vec<i64> {
    game.setup(state)
        .board()
        .into_iter()
        .map(i64::from)
        .collect()
}

/// Replays every trace; `last_board_swept` says whether the reference's last
/// board already has the leftovers counted (Oware) or not (Kalah).
fn replay_all<G: Game>(game: &G, file: &str, last_board_swept: bool) -> usize {
    let games = testdata(file);
    assert_eq!(games.len(), 300, "{file} should hold 300 games");
    let mut positions = 0;
    for g in &games {
        let id = g["index"].as_i64().unwrap();
        let mut state = game.start();
        assert_eq!(
            board_of(game, &state),
            ints(&g["initial"]),
            "game {id}: start"
        );
        let players = ints(&g["players"]);
        let legal = ints(&g["legal"]);
        let moves = ints(&g["moves"]);
        let boards = g["boards"].as_array().unwrap();
        let to_move = ints(&g["to_move"]);
        for k in 0..moves.len() {
            let ctx = format!("game {id}, move {k}");
            assert_eq!(
                game.to_move(&state).map(|p| p.index() as i64),
                Some(players[k]),
                "{ctx}: player to move"
            );
            assert_eq!(
                i64::from(game.legal_moves(&state).bits()),
                legal[k],
                "{ctx}: legal moves"
            );
            game.try_play(&mut state, Move::Pit(moves[k] as u8))
                .unwrap_or_else(|e| panic!("{ctx}: {e}"));
            let expected = ints(&boards[k]);
            let ours = board_of(game, &state);
            let finished = to_move[k] == -1;
            if finished && !last_board_swept {
                // Reference leaves leftovers in the pits: compare each side's total.
                let n = game.pits();
                for p in 0..2 {
                    let side = |b: &[i64]| b[p * n..(p + 1) * n].iter().sum::<i64>() + b[2 * n + p];
                    assert_eq!(
                        side(&ours),
                        side(&expected),
                        "{ctx}: player {p}'s seeds at the end"
                    );
                }
            } else {
                assert_eq!(ours, expected, "{ctx}: board");
            }
            assert_eq!(
                game.to_move(&state).map_or(-1, |p| p.index() as i64),
                to_move[k],
                "{ctx}: side to move after the move"
            );
            positions += 1;
        }
        let outcome = game
            .outcome(&state)
            .unwrap_or_else(|| panic!("game {id} should be over"));
        let finals = ints(&g["final_scores"]);
        assert_eq!(
            vec![
                i64::from(outcome.scores[Player::ZERO]),
                i64::from(outcome.scores[Player::ONE])
            ],
            finals,
            "game {id}: final scores"
        );
        let returns = ints(&g["returns"]);
        let winner = match returns[0] {
            1 => Some(Player::ZERO),
            -1 => Some(Player::ONE),
            _ => None,
        };
        assert_eq!(outcome.winner(), winner, "game {id}: winner");
    }
    positions
}

#[test]
fn kalah_agrees_with_openspiel_on_every_position() {
    let n = replay_all(&KalahRules::default(), "kalah_6x4_random.jsonl", false);
    assert!(n > 10_000, "only {n} positions checked");
}

#[test]
fn oware_agrees_with_openspiel_on_every_position() {
    let n = replay_all(&OwareRules::default(), "oware_6x4_random.jsonl", true);
    assert!(n > 30_000, "only {n} positions checked");
}
