//! Move-by-move records: every move's time, the clock after it, and what
//! the agent said of its search, the same at any thread count (timing
//! aside), checked on resume, and summed per agent by [`MoveTable`].

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use mancala_agents::{AgentSpec, TimeControl};
use mancala_arena::{
    movers, pairs, schedule, timeless_json, Arena, Format, GameRecord, MoveSearch, MoveTable,
    Opening, Players, RunOptions, ScheduledGame, DEFAULT_TIME_MARGIN,
};
use mancala_core::{Game, KalahRules};

const AGENTS: [&str; 4] = ["minimax:depth=3", "mcts:sims=64", "greedy", "random"];

fn arena<'a>(game: &'a KalahRules, threads: usize, control: Option<&str>) -> Arena<'a, KalahRules> {
    let specs: Vec<AgentSpec> = AGENTS.iter().map(|s| s.parse().unwrap()).collect();
    Arena {
        game,
        game_spec: "kalah".into(),
        players: Players {
            names: AGENTS.iter().map(|s| s.to_string()).collect(),
            specs: AGENTS.iter().map(|s| s.to_string()).collect(),
            factory: Box::new(move |i| specs[i].build::<KalahRules>()),
        },
        // A free move first: the opening's moves are nobody's.
        openings: vec![Opening::default(), vec!["3".parse().unwrap()].into()],
        options: RunOptions {
            threads,
            seed: 11,
            move_timeout: None,
            time_control: control.map(|c| TimeControl::parse(c).unwrap().unwrap()),
            time_margin: DEFAULT_TIME_MARGIN,
            live: None,
        },
        adjudicator: None,
    }
}

fn run(arena: &Arena<'_, KalahRules>) -> (Vec<ScheduledGame>, Vec<GameRecord>) {
    let (plan, records, _) = run_with_table(arena);
    (plan, records)
}

/// The plan, the records in id order, and the runner's move table.
fn run_with_table(
    arena: &Arena<'_, KalahRules>,
) -> (Vec<ScheduledGame>, Vec<GameRecord>, MoveTable) {
    let plan = schedule(&pairs(Format::RoundRobin, AGENTS.len()), 4, 2);
    let records = Mutex::new(Vec::new());
    let table = arena
        .run(&plan, &AtomicBool::new(false), &|r| {
            records.lock().unwrap().push(r)
        })
        .unwrap();
    let mut records = records.into_inner().unwrap();
    records.sort_by_key(|r| r.id);
    for r in &records {
        arena.check_record(&plan[r.id as usize], r).unwrap();
    }
    (plan, records, table)
}

/// The note of the move at `ply` (from 1), if any.
fn note(r: &GameRecord, ply: usize) -> Option<&MoveSearch> {
    r.search.iter().find(|s| s.ply as usize == ply)
}

#[test]
fn every_move_is_timed_and_searches_say_what_they_found() {
    let game = KalahRules::default();
    let (_, records) = run(&arena(&game, 1, None));
    let mut alpha_beta = 0;
    let mut mcts = 0;
    for r in &records {
        let opening = r.opening_moves.split_whitespace().count();
        assert_eq!(r.move_us.len(), r.plies as usize - opening, "{r:?}");
        assert!(r.clock_ms.is_empty(), "no clock, no readings: {r:?}");
        let seats = movers(&game, r).unwrap();
        let moves: Vec<&str> = r.moves.split_whitespace().collect();
        for ply in 1..=r.plies as usize {
            let agent = &r.agents[usize::from(seats[ply - 1])];
            let note = note(r, ply);
            // Alpha-beta searches nothing for a forced move, and says so by
            // saying nothing (MCTS runs its simulations all the same).
            let forced = agent.starts_with("minimax") && {
                let mut state = game.start();
                for m in &moves[..ply - 1] {
                    game.try_play(&mut state, m.parse().unwrap()).unwrap();
                }
                game.legal_moves(&state).len() == 1
            };
            if ply <= opening || agent == "greedy" || agent == "random" || forced {
                assert_eq!(note, None, "ply {ply} by {agent}: {r:?}");
                continue;
            }
            let note = note.unwrap_or_else(|| panic!("ply {ply} by {agent}: no note: {r:?}"));
            // The line starts with the move played.
            assert_eq!(
                note.pv.split_whitespace().next(),
                Some(moves[ply - 1]),
                "{note:?}"
            );
            if agent.starts_with("minimax") {
                alpha_beta += 1;
                assert!(matches!(note.depth, Some(1..=3)), "{note:?}");
                assert!(note.nodes.unwrap() > 0 && note.score.is_some(), "{note:?}");
                assert!(note.sims.is_none() && note.win.is_none() && !note.exact);
            } else {
                mcts += 1;
                assert_eq!(note.sims, Some(64), "{note:?}");
                let (win, share) = (note.win.unwrap(), note.share.unwrap());
                assert!((0.0..=1.0).contains(&win), "{note:?}");
                assert!(share > 0.0 && share <= 1.0, "{note:?}");
                assert!(note.nodes.is_none() && note.score.is_none());
            }
        }
    }
    assert!(alpha_beta > 100 && mcts > 100, "{alpha_beta} {mcts}");
}

#[test]
fn records_are_the_same_at_any_thread_count_timing_aside() {
    let game = KalahRules::default();
    let (_, one) = run(&arena(&game, 1, None));
    let (_, three) = run(&arena(&game, 3, None));
    assert_eq!(one.len(), three.len());
    for (a, b) in one.iter().zip(&three) {
        assert_eq!(timeless_json(a), timeless_json(b));
        assert!(!a.search.is_empty() || a.agents.iter().all(|s| s == "greedy" || s == "random"));
    }
}

#[test]
fn with_a_clock_each_move_records_the_clock_after_it() {
    let game = KalahRules::default();
    let (_, records) = run(&arena(&game, 2, Some("60+1")));
    for r in &records {
        assert_eq!(r.clock_ms.len(), r.move_us.len(), "{r:?}");
        let seats = movers(&game, r).unwrap();
        let opening = r.plies as usize - r.move_us.len();
        // A player's clock after its k-th move: 60 s less its moves, plus
        // k increments.
        let mut spent = [0u64; 2];
        let mut count = [0u64; 2];
        for (k, (&us, &clock)) in r.move_us.iter().zip(&r.clock_ms).enumerate() {
            let seat = usize::from(seats[opening + k]);
            spent[seat] += us;
            count[seat] += 1;
            let expected = 60_000 + 1000 * count[seat] - spent[seat] / 1000;
            assert!(
                // Both sides truncated to whole ms and µs: 2 ms apart at most.
                clock.abs_diff(expected) <= 2,
                "move {}: clock {clock} ms, expected {expected}",
                opening + k + 1
            );
        }
    }
}

#[test]
fn a_resumed_run_refuses_records_whose_move_fields_do_not_fit() {
    let game = KalahRules::default();
    let arena = arena(&game, 1, None);
    let (plan, records) = run(&arena);
    let r = records.iter().find(|r| r.search.len() > 2).unwrap();
    let planned = &plan[r.id as usize];
    let mut short = r.clone();
    short.move_us.pop();
    let mut clocked = r.clone();
    clocked.clock_ms = vec![1; r.move_us.len()];
    let mut disorder = r.clone();
    disorder.search.swap(0, 1);
    let mut beyond = r.clone();
    beyond.search.last_mut().unwrap().ply = r.plies + 1;
    for (bad, why) in [
        (short, "the count of move times"),
        (clocked, "the count of clock readings"),
        (disorder, "search notes are not for its moves in order"),
        (beyond, "search notes are not for its moves in order"),
    ] {
        let e = arena.check_record(planned, &bad).unwrap_err().to_string();
        assert!(e.contains(why), "{e}");
    }
}

#[test]
fn the_move_table_sums_each_agents_moves() {
    let game = KalahRules::default();
    let (_, records, summed) = run_with_table(&arena(&game, 2, Some("60+1")));
    let mut table = MoveTable::default();
    for r in &records {
        table.add(&game, r);
    }
    assert_eq!(table.unreadable, 0);
    // What the runner summed as it played is what the records give.
    assert_eq!(summed, table);
    assert!(table.agents.values().all(|s| s.least_clock_ms.is_some()));
    let timed: usize = records.iter().map(|r| r.move_us.len()).sum();
    let counted: u64 = table.agents.values().map(|s| s.moves).sum();
    assert_eq!(counted, timed as u64);
    let notes = |agent: &str| -> u64 {
        records
            .iter()
            .map(|r| {
                let seats = movers(&game, r).unwrap();
                r.search
                    .iter()
                    .filter(|s| r.players[usize::from(seats[s.ply as usize - 1])] == agent)
                    .count() as u64
            })
            .sum()
    };
    let minimax = &table.agents["minimax:depth=3"];
    assert_eq!(minimax.depth_moves, notes("minimax:depth=3"));
    assert_eq!(minimax.node_moves, minimax.depth_moves);
    assert!(minimax.mean_depth().unwrap() > 2.0 && minimax.mean_depth().unwrap() <= 3.0);
    assert!(minimax.nodes_per_second().unwrap() > 0.0);
    let mcts = &table.agents["mcts:sims=64"];
    assert_eq!(mcts.sim_moves, notes("mcts:sims=64"));
    assert_eq!(mcts.sims_per_move(), Some(64.0));
    assert_eq!(mcts.node_moves, 0);
    for quiet in ["greedy", "random"] {
        let s = &table.agents[quiet];
        assert!(
            s.moves > 0 && s.depth_moves == 0 && s.sim_moves == 0,
            "{s:?}"
        );
    }
    // A record of another game is left out, not misread.
    let mut wrong = records[0].clone();
    wrong.moves = "9 9 9".into();
    table.add(&game, &wrong);
    assert_eq!(table.unreadable, 1);
}

#[test]
fn a_refused_record_says_what_differs_in_words_not_rust_debug_output() {
    let game = KalahRules::default();
    let arena = arena(&game, 1, None);
    let (plan, records) = run(&arena);
    let r = records.iter().find(|r| r.winner == Some(1)).unwrap();
    let planned = &plan[r.id as usize];
    let mut winner = r.clone();
    winner.winner = Some(0);
    let mut drawn = r.clone();
    drawn.winner = None;
    let mut started = r.clone();
    started.start = Some("4,4,4,4,4,4/4,4,4,4,4,4/0,0/0".into());
    let mut seated = r.clone();
    seated.seats = [seated.seats[1], seated.seats[0]];
    let (a, b) = (&r.players[0], &r.players[1]);
    for (bad, why) in [
        (
            winner,
            "the winner is seat 0 (the first player) but should be seat 1 (the second player)",
        ),
        (
            drawn,
            "the winner is a draw but should be seat 1 (the second player)",
        ),
        (
            started,
            "the start position is '4,4,4,4,4,4/4,4,4,4,4,4/0,0/0' but should be the rules' \
             start",
        ),
        (seated, "the pairing is pair "),
    ] {
        let e = arena.check_record(planned, &bad).unwrap_err().to_string();
        assert!(e.contains(why), "{e}");
        assert!(!e.contains("Some(") && !e.contains("None"), "{e}");
    }
    let mut players = r.clone();
    players.players.swap(0, 1);
    let e = arena
        .check_record(planned, &players)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!(
            "the players are '{b}' and '{a}' but should be '{a}' and '{b}'"
        )),
        "{e}"
    );
}

/// While a run plays, each game that lasts longer than LIVE_EVERY is shown
/// in the live folder with the moves so far (a prefix of its record's);
/// after the run the folder is gone.
#[test]
fn games_in_progress_are_shown_while_played_and_tidied_after() {
    use mancala_arena::live::{live_games, LIVE_DIR};
    // Kalah(6,4): a search of 40 ms a move takes it, where a small board's
    // would end early, solved.
    let game = KalahRules::new(6, 4).unwrap();
    let specs: Vec<AgentSpec> = ["minimax:time=40ms", "minimax:time=40ms"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    let results = tempfile::tempdir().unwrap();
    let arena = Arena {
        game: &game,
        game_spec: "kalah".into(),
        players: Players {
            names: vec!["a".into(), "b".into()],
            specs: vec!["minimax:time=40ms".into(), "minimax:time=40ms".into()],
            factory: Box::new(move |i| specs[i].build::<KalahRules>()),
        },
        openings: vec![Opening::default()],
        options: RunOptions {
            threads: 1,
            seed: 3,
            move_timeout: None,
            time_control: None,
            time_margin: DEFAULT_TIME_MARGIN,
            live: Some(results.path().join(LIVE_DIR)),
        },
        adjudicator: None,
    };
    let plan = schedule(&pairs(Format::RoundRobin, 2), 1, 1);
    let done = AtomicBool::new(false);
    let seen = Mutex::new(Vec::new());
    let records = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                seen.lock()
                    .unwrap()
                    .extend(live_games(results.path()).unwrap());
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        });
        arena
            .run(&plan, &AtomicBool::new(false), &|r| {
                records.lock().unwrap().push(r)
            })
            .unwrap();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let records = records.into_inner().unwrap();
    let seen = seen.into_inner().unwrap();
    assert!(!seen.is_empty(), "no game shown while it was played");
    for shown in &seen {
        let record = records
            .iter()
            .find(|r| r.id == shown.id)
            .expect("a game of the plan");
        assert!(
            record.moves.starts_with(&shown.moves) && shown.plies <= record.plies,
            "shown {:?}, played {}",
            shown.moves,
            record.moves
        );
        assert_eq!(shown.players, record.players);
    }
    assert!(
        !results.path().join(LIVE_DIR).exists(),
        "the live folder left behind"
    );
}
