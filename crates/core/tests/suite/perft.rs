//! Perft against a second, deliberately naive implementation of the rules.
//!
//! The naive games below are written from `docs/RULES.md` alone, for
//! clarity rather than speed: boards are `Vec`s, seeds are sown one at a time
//! by walking from place to place, Oware keeps every position since the last
//! capture in a list, and legal moves are found by trying each one on a copy.
//! The engine's perft must match them, and the committed counts in
//! `tests/data/perft.txt`, for the standard boards to depth 8.

use std::collections::BTreeMap;
use std::path::PathBuf;

use mancala_core::{perft, Game, GameSpec, Move};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

// ---------------------------------------------------------------------------
// The naive games

trait Naive {
    type State: Clone;
    fn start(&self) -> Self::State;
    /// A position from notation `P0 pits/P1 pits/store0,store1/to_move`.
    fn parse(&self, text: &str) -> Self::State;
    /// The position in the same notation.
    fn show(&self, state: &Self::State) -> String;
    fn legal(&self, state: &Self::State) -> Vec<Move>;
    fn play(&self, state: &mut Self::State, mv: Move);
}

/// Fields of a position in notation, read without the engine's parser.
struct Fields {
    rows: [Vec<u8>; 2],
    stores: [u8; 2],
    to_move: Option<usize>,
    swap: bool,
}

fn read_fields(text: &str) -> Fields {
    let parts: Vec<&str> = text.split('/').collect();
    assert_eq!(parts.len(), 4, "{text}");
    let nums = |s: &str| -> Vec<u8> { s.split(',').map(|x| x.parse().unwrap()).collect() };
    let stores = nums(parts[2]);
    let (to_move, swap) = match parts[3] {
        "0" => (Some(0), false),
        "1" => (Some(1), false),
        "0s" => (Some(0), true),
        "1s" => (Some(1), true),
        "-" => (None, false),
        other => panic!("to move {other}"),
    };
    Fields {
        rows: [nums(parts[0]), nums(parts[1])],
        stores: [stores[0], stores[1]],
        to_move,
        swap,
    }
}

fn write_fields(
    rows: &[Vec<u8>; 2],
    stores: [u8; 2],
    to_move: Option<usize>,
    swap: bool,
) -> String {
    let row = |r: &Vec<u8>| {
        r.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let tm = match to_move {
        None => "-".to_string(),
        Some(p) if swap => format!("{p}s"),
        Some(p) => p.to_string(),
    };
    format!(
        "{}/{}/{},{}/{}",
        row(&rows[0]),
        row(&rows[1]),
        stores[0],
        stores[1],
        tm
    )
}

// --- Kalah ---------------------------------------------------------------

#[derive(Clone, Debug)]
struct NaiveKalah {
    pits: usize,
    seeds: u8,
    empty_capture: bool,
    delayed: bool,
    set_aside: bool,
    pie: bool,
}

#[derive(Clone, Debug)]
struct KalahPos {
    rows: [Vec<u8>; 2],
    stores: [u8; 2],
    to_move: Option<usize>,
    /// Player 1 has not yet moved (so, with the pie rule, may still swap).
    p1_not_moved: bool,
}

/// A place seeds can be sown into.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Place {
    Pit(usize, usize),
    Store(usize),
}

impl NaiveKalah {
    fn next_place(&self, place: Place) -> Place {
        match place {
            Place::Pit(p, i) if i + 1 < self.pits => Place::Pit(p, i + 1),
            Place::Pit(p, _) => Place::Store(p),
            Place::Store(p) => Place::Pit(1 - p, 0),
        }
    }

    fn end_game(&self, s: &mut KalahPos) {
        for p in 0..2 {
            let left: u8 = s.rows[p].iter().sum();
            if !self.set_aside {
                s.stores[p] += left;
            }
            for x in s.rows[p].iter_mut() {
                *x = 0;
            }
        }
        s.to_move = None;
    }

    fn row_empty(s: &KalahPos, p: usize) -> bool {
        s.rows[p].iter().all(|&x| x == 0)
    }

    /// The end-of-game rule, applied after every move.
    fn after_move(&self, s: &mut KalahPos, next: usize) {
        let over = if self.delayed {
            Self::row_empty(s, next)
        } else {
            Self::row_empty(s, 0) || Self::row_empty(s, 1)
        };
        if over {
            self.end_game(s);
        } else {
            s.to_move = Some(next);
        }
    }
}

impl Naive for NaiveKalah {
    type State = KalahPos;

    fn start(&self) -> KalahPos {
        KalahPos {
            rows: [vec![self.seeds; self.pits], vec![self.seeds; self.pits]],
            stores: [0, 0],
            to_move: Some(0),
            p1_not_moved: true,
        }
    }

    fn parse(&self, text: &str) -> KalahPos {
        let f = read_fields(text);
        assert_eq!(f.rows[0].len(), self.pits);
        KalahPos {
            rows: f.rows,
            stores: f.stores,
            to_move: f.to_move,
            p1_not_moved: f.swap,
        }
    }

    fn show(&self, s: &KalahPos) -> String {
        let swap = self.pie && s.p1_not_moved && s.to_move.is_some();
        write_fields(&s.rows, s.stores, s.to_move, swap)
    }

    fn legal(&self, s: &KalahPos) -> Vec<Move> {
        let Some(p) = s.to_move else {
            return Vec::new();
        };
        let mut moves: Vec<Move> = (0..self.pits)
            .filter(|&i| s.rows[p][i] > 0)
            .map(|i| Move::Pit(i as u8))
            .collect();
        if self.pie && p == 1 && s.p1_not_moved {
            moves.push(Move::Swap);
        }
        moves
    }

    fn play(&self, s: &mut KalahPos, mv: Move) {
        let p = s.to_move.expect("game not over");
        let opp = 1 - p;
        if p == 1 {
            s.p1_not_moved = false;
        }
        let i = match mv {
            Move::Swap => {
                s.rows.swap(0, 1);
                s.stores.swap(0, 1);
                self.after_move(s, 0);
                return;
            }
            Move::Pit(i) => i as usize,
        };
        let mut seeds = s.rows[p][i];
        s.rows[p][i] = 0;
        let mut place = Place::Pit(p, i);
        while seeds > 0 {
            place = self.next_place(place);
            if place == Place::Store(opp) {
                continue;
            }
            match place {
                Place::Pit(q, j) => s.rows[q][j] += 1,
                Place::Store(q) => s.stores[q] += 1,
            }
            seeds -= 1;
        }
        let next = match place {
            Place::Store(_) => p,
            Place::Pit(q, j) => {
                if q == p && s.rows[p][j] == 1 {
                    let across = self.pits - 1 - j;
                    let opposite = s.rows[opp][across];
                    if opposite > 0 || self.empty_capture {
                        s.stores[p] += 1 + opposite;
                        s.rows[p][j] = 0;
                        s.rows[opp][across] = 0;
                    }
                }
                opp
            }
        };
        self.after_move(s, next);
    }
}

// --- Oware ---------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Slam {
    NoCapture,
    Illegal,
    CaptureAll,
}

#[derive(Clone, Debug)]
struct NaiveOware {
    pits: usize,
    seeds: u8,
    slam: Slam,
    max_plies: u32,
}

/// Board (P0's houses then P1's), scores, player to move.
type OwarePosition = (Vec<u8>, [u8; 2], Option<usize>);

#[derive(Clone, Debug)]
struct OwarePos {
    board: Vec<u8>,
    scores: [u8; 2],
    to_move: Option<usize>,
    plies: u32,
    /// Every position since the last capture (or the start), in order.
    seen: Vec<OwarePosition>,
}

/// What sowing a house does, worked out on a copy.
struct Sowing {
    board: Vec<u8>,
    fed: bool,
    captured: Vec<usize>,
    grand_slam: bool,
}

impl NaiveOware {
    fn owner(&self, house: usize) -> usize {
        house / self.pits
    }

    fn total(&self) -> u32 {
        2 * self.pits as u32 * u32::from(self.seeds)
    }

    fn sow(&self, board: &[u8], p: usize, i: usize) -> Sowing {
        let mut b = board.to_vec();
        let houses = b.len();
        let origin = p * self.pits + i;
        let mut seeds = b[origin];
        b[origin] = 0;
        let mut h = origin;
        let mut fed = false;
        while seeds > 0 {
            h = (h + 1) % houses;
            if h == origin {
                continue;
            }
            b[h] += 1;
            seeds -= 1;
            if self.owner(h) != p {
                fed = true;
            }
        }
        // From the last house back, while it is the opponent's and holds 2 or 3.
        let mut captured = Vec::new();
        let mut c = h;
        while self.owner(c) != p && (b[c] == 2 || b[c] == 3) {
            captured.push(c);
            c = (c + houses - 1) % houses;
        }
        let taken: u32 = captured.iter().map(|&c| u32::from(b[c])).sum();
        let opp_row: u32 = (0..houses)
            .filter(|&c| self.owner(c) != p)
            .map(|c| u32::from(b[c]))
            .sum();
        let grand_slam = !captured.is_empty() && taken == opp_row;
        Sowing {
            board: b,
            fed,
            captured,
            grand_slam,
        }
    }

    fn moves_of(&self, board: &[u8], p: usize) -> Vec<u8> {
        let opp_empty = (0..board.len())
            .filter(|&c| self.owner(c) != p)
            .all(|c| board[c] == 0);
        let candidates: Vec<u8> = (0..self.pits)
            .filter(|&i| board[p * self.pits + i] > 0)
            .filter(|&i| !opp_empty || self.sow(board, p, i).fed)
            .map(|i| i as u8)
            .collect();
        if self.slam == Slam::Illegal {
            let fine: Vec<u8> = candidates
                .iter()
                .copied()
                .filter(|&i| !self.sow(board, p, i as usize).grand_slam)
                .collect();
            if !fine.is_empty() {
                return fine;
            }
        }
        candidates
    }

    fn end_game(&self, s: &mut OwarePos) {
        for c in 0..s.board.len() {
            s.scores[self.owner(c)] += s.board[c];
            s.board[c] = 0;
        }
        s.to_move = None;
    }
}

impl Naive for NaiveOware {
    type State = OwarePos;

    fn start(&self) -> OwarePos {
        let board = vec![self.seeds; 2 * self.pits];
        OwarePos {
            seen: vec![(board.clone(), [0, 0], Some(0))],
            board,
            scores: [0, 0],
            to_move: Some(0),
            plies: 0,
        }
    }

    fn parse(&self, text: &str) -> OwarePos {
        let f = read_fields(text);
        let board: Vec<u8> = f.rows[0].iter().chain(&f.rows[1]).copied().collect();
        assert_eq!(board.len(), 2 * self.pits);
        OwarePos {
            seen: vec![(board.clone(), f.stores, f.to_move)],
            board,
            scores: f.stores,
            to_move: f.to_move,
            plies: 0,
        }
    }

    fn show(&self, s: &OwarePos) -> String {
        let rows = [s.board[..self.pits].to_vec(), s.board[self.pits..].to_vec()];
        write_fields(&rows, s.scores, s.to_move, false)
    }

    fn legal(&self, s: &OwarePos) -> Vec<Move> {
        match s.to_move {
            None => Vec::new(),
            Some(p) => self
                .moves_of(&s.board, p)
                .into_iter()
                .map(Move::Pit)
                .collect(),
        }
    }

    fn play(&self, s: &mut OwarePos, mv: Move) {
        let p = s.to_move.expect("game not over");
        let Move::Pit(i) = mv else {
            panic!("no swap in Oware")
        };
        let sowing = self.sow(&s.board, p, i as usize);
        s.board = sowing.board;
        let capture =
            !sowing.captured.is_empty() && (!sowing.grand_slam || self.slam == Slam::CaptureAll);
        if capture {
            for &c in &sowing.captured {
                s.scores[p] += s.board[c];
                s.board[c] = 0;
            }
        }
        s.plies += 1;
        let next = 1 - p;
        s.to_move = Some(next);
        let total = self.total();
        let [a, b] = s.scores.map(u32::from);
        if 2 * a > total || 2 * b > total || (2 * a == total && 2 * b == total) {
            return self.end_game(s);
        }
        let position: OwarePosition = (s.board.clone(), s.scores, Some(next));
        if capture {
            s.seen = vec![position];
        } else if s.seen.contains(&position) {
            return self.end_game(s);
        } else {
            s.seen.push(position);
        }
        if s.plies >= self.max_plies {
            return self.end_game(s);
        }
        if self.moves_of(&s.board, next).is_empty() {
            self.end_game(s);
        }
    }
}

// ---------------------------------------------------------------------------
// Naive perft and helpers

/// `counts[d]` += the number of move sequences of length `d` (perft(d)) for
/// every `d` up to `counts.len() - 1`, in one walk of the tree.
fn naive_counts<N: Naive>(game: &N, state: &N::State, depth: usize, counts: &mut [u64]) {
    counts[depth] += 1;
    if depth + 1 == counts.len() {
        return;
    }
    for mv in game.legal(state) {
        let mut child = state.clone();
        game.play(&mut child, mv);
        naive_counts(game, &child, depth + 1, counts);
    }
}

fn naive_perft<N: Naive>(game: &N, state: &N::State, depth: usize) -> Vec<u64> {
    let mut counts = vec![0; depth + 1];
    naive_counts(game, state, 0, &mut counts);
    counts
}

fn engine_perft<G: Game>(game: &G, state: &G::State, depth: usize) -> Vec<u64> {
    (0..=depth).map(|d| perft(game, state, d as u32)).collect()
}

/// The engine's rules and the naive ones for a spec.
enum Pair {
    Kalah(mancala_core::KalahRules, NaiveKalah),
    Oware(mancala_core::OwareRules, NaiveOware),
}

fn pair(spec: &str) -> Pair {
    let game: GameSpec = spec.parse().unwrap();
    let opts: BTreeMap<&str, &str> = spec
        .split_once(':')
        .map(|(_, rest)| {
            rest.split(',')
                .filter_map(|kv| kv.split_once('='))
                .collect()
        })
        .unwrap_or_default();
    let num = |k: &str, d: usize| opts.get(k).map_or(d, |v| v.parse().unwrap());
    let is = |k: &str, v: &str| opts.get(k) == Some(&v);
    match game {
        GameSpec::Kalah(rules) => Pair::Kalah(
            rules,
            NaiveKalah {
                pits: num("pits", 6),
                seeds: num("seeds", 4) as u8,
                empty_capture: is("empty_capture", "true"),
                delayed: is("game_end", "delayed"),
                set_aside: is("leftover", "set_aside"),
                pie: is("pie", "true"),
            },
        ),
        GameSpec::Oware(rules) => Pair::Oware(
            rules,
            NaiveOware {
                pits: num("pits", 6),
                seeds: num("seeds", 4) as u8,
                slam: match opts.get("grand_slam") {
                    Some(&"illegal") => Slam::Illegal,
                    Some(&"capture_all") => Slam::CaptureAll,
                    _ => Slam::NoCapture,
                },
                max_plies: num("max_plies", 1000) as u32,
            },
        ),
        GameSpec::Congkak(_) => panic!("{spec}: Congkak's naive twin is in tests/suite/congkak.rs"),
    }
}

/// Engine and naive perft for `depth` 0..=`depth` from `position` (or the start).
fn both_counts(spec: &str, position: Option<&str>, depth: usize) -> (Vec<u64>, Vec<u64>) {
    fn run<G: Game, N: Naive>(
        game: &G,
        naive: &N,
        position: Option<&str>,
        depth: usize,
    ) -> (Vec<u64>, Vec<u64>) {
        let (state, nstate) = match position {
            None => (game.start(), naive.start()),
            Some(text) => (
                game.from_setup(&text.parse().unwrap())
                    .unwrap_or_else(|e| panic!("{text}: {e}")),
                naive.parse(text),
            ),
        };
        assert_eq!(game.setup(&state).to_string(), naive.show(&nstate));
        (
            engine_perft(game, &state, depth),
            naive_perft(naive, &nstate, depth),
        )
    }
    match pair(spec) {
        Pair::Kalah(g, n) => run(&g, &n, position, depth),
        Pair::Oware(g, n) => run(&g, &n, position, depth),
    }
}

fn assert_agree(spec: &str, position: Option<&str>, depth: usize) -> Vec<u64> {
    let (engine, naive) = both_counts(spec, position, depth);
    assert_eq!(
        engine,
        naive,
        "{spec} from {}: engine vs naive perft, depths 0..={depth}",
        position.unwrap_or("the start")
    );
    engine
}

fn committed_counts() -> BTreeMap<(String, usize), u64> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/perft.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 3, "bad line '{l}'");
            (
                (f[0].to_string(), f[1].parse().unwrap()),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

fn check_committed(game: &str, spec: &str) {
    let counts = assert_agree(spec, None, 8);
    let committed = committed_counts();
    let lines: Vec<String> = (1..counts.len())
        .map(|d| format!("{game} {d} {}", counts[d]))
        .collect();
    for (d, &count) in counts.iter().enumerate().skip(1) {
        assert_eq!(
            committed.get(&(game.to_string(), d)),
            Some(&count),
            "{game} perft({d}) against tests/data/perft.txt; engine and naive give:\n{}",
            lines.join("\n")
        );
    }
}

// ---------------------------------------------------------------------------
// Tests

#[test]
fn kalah_perft_matches_naive_and_committed_counts() {
    check_committed("kalah", "kalah");
}

#[test]
fn oware_perft_matches_naive_and_committed_counts() {
    check_committed("oware", "oware");
}

#[test]
fn perft_of_depth_zero_and_one() {
    assert_eq!(assert_agree("kalah", None, 1), vec![1, 6]);
    assert_eq!(assert_agree("oware", None, 1), vec![1, 6]);
    // A finished game has no moves.
    assert_eq!(
        assert_agree("kalah", Some("0,0,0,0,0,0/0,0,0,0,0,0/20,28/-"), 2),
        vec![1, 0, 0]
    );
}

#[test]
fn kalah_variants_perft_match_naive() {
    for spec in [
        "kalah:pie=true",
        "kalah:empty_capture=true",
        "kalah:game_end=delayed",
        "kalah:leftover=set_aside",
        "kalah:empty_capture=true,game_end=delayed,leftover=set_aside,pie=true",
    ] {
        assert_agree(spec, None, 7);
    }
}

#[test]
fn kalah_other_boards_perft_match_naive() {
    for (spec, depth) in [
        ("kalah:pits=1,seeds=1", 4),
        ("kalah:pits=1,seeds=7", 8),
        ("kalah:pits=2,seeds=5,pie=true", 10),
        ("kalah:pits=3,seeds=3,empty_capture=true", 9),
        ("kalah:pits=4,seeds=3", 8),
        ("kalah:pits=6,seeds=6,pie=true", 6),
        ("kalah:pits=8,seeds=2,game_end=delayed", 6),
        ("kalah:pits=15,seeds=8", 4),
    ] {
        assert_agree(spec, None, depth);
    }
}

#[test]
fn kalah_mid_game_perft_match_naive() {
    for (spec, position, depth) in [
        ("kalah", "0,0,0,3,2,1/4,4,4,4,4,4/10,8/0", 7),
        ("kalah", "14,1,1,1,1,1/1,1,1,1,1,1/10,13/1", 6),
        ("kalah", "1,1,13,1,1,1/2,2,2,2,2,2/5,13/0", 6),
        ("kalah", "0,0,0,0,0,2/4,4,4,4,4,4/10,12/0", 6),
        (
            "kalah:game_end=delayed",
            "0,0,0,0,0,2/4,4,4,4,4,4/10,12/0",
            7,
        ),
        (
            "kalah:game_end=delayed,leftover=set_aside",
            "0,0,0,0,2,1/0,0,0,0,0,0/20,25/0",
            5,
        ),
        (
            "kalah:empty_capture=true",
            "1,0,0,0,0,0/4,4,4,4,0,4/20,7/0",
            4,
        ),
        ("kalah:pie=true", "0,5,1,6,6,5/4,4,4,4,4,4/1,0/1s", 6),
        ("kalah:pie=true", "4,4,0,5,5,5/4,4,4,4,4,4/1,0/0s", 6),
        ("kalah:pie=true", "0,5,1,6,6,5/4,4,4,4,4,4/1,0/1", 6),
        (
            "kalah:pits=15,seeds=2",
            "31,0,0,0,0,0,0,0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0,0,0,0,0,0,0,2/10,17/0",
            5,
        ),
    ] {
        assert_agree(spec, Some(position), depth);
    }
}

#[test]
fn oware_variants_perft_match_naive() {
    for (spec, depth) in [
        ("oware:grand_slam=illegal", 7),
        ("oware:grand_slam=capture_all", 7),
        ("oware:max_plies=5", 7),
        ("oware:pits=1,seeds=1", 5),
        ("oware:pits=1,seeds=5", 8),
        ("oware:pits=2,seeds=1", 12),
        ("oware:pits=3,seeds=2,grand_slam=illegal", 10),
        ("oware:pits=4,seeds=3,grand_slam=capture_all", 8),
        ("oware:pits=8,seeds=3", 6),
        ("oware:pits=15,seeds=8,max_plies=3", 5),
    ] {
        assert_agree(spec, None, depth);
    }
}

#[test]
fn oware_mid_game_perft_match_naive() {
    for (spec, position, depth) in [
        // The two single seeds that go round and repeat after 12 plies.
        ("oware", "0,0,0,0,0,1/0,0,0,0,0,1/23,23/0", 14),
        ("oware:max_plies=7", "0,0,0,0,0,1/0,0,0,0,0,1/23,23/0", 9),
        ("oware", "4,4,4,4,4,2/1,2,0,0,0,0/13,10/0", 6),
        (
            "oware:grand_slam=illegal",
            "4,4,4,4,4,2/1,2,0,0,0,0/13,10/0",
            6,
        ),
        (
            "oware:grand_slam=capture_all",
            "4,4,4,4,4,2/1,2,0,0,0,0/13,10/0",
            6,
        ),
        (
            "oware:grand_slam=illegal",
            "0,0,0,0,0,4/2,2,2,2,0,0/18,18/0",
            8,
        ),
        ("oware", "0,0,3,1,2,0/0,0,0,0,0,0/20,22/0", 8),
        ("oware", "17,0,0,0,0,0/0,1,1,1,1,1/3,23/0", 6),
        ("oware", "1,1,3,1,1,1/11,0,0,0,0,0/20,9/1", 6),
        ("oware", "1,0,0,0,0,1/1,1,0,0,0,0/22,22/0", 10),
    ] {
        assert_agree(spec, Some(position), depth);
    }
}

/// Random games in many variants, played by the engine and the naive rules
/// side by side: the same legal moves and the same position after every move,
/// with a small perft from a few positions on the way.
#[test]
fn engine_and_naive_agree_move_by_move() {
    fn game_pair<G: Game, N: Naive>(spec: &str, game: &G, naive: &N, rng: &mut SmallRng) {
        let mut state = game.start();
        let mut nstate = naive.start();
        for ply in 0.. {
            let ctx = format!("{spec}, ply {ply}");
            let shown = game.setup(&state).to_string();
            assert_eq!(shown, naive.show(&nstate), "{ctx}");
            let legal: Vec<Move> = game.legal_moves(&state).into_iter().collect();
            assert_eq!(legal, naive.legal(&nstate), "{ctx}: legal moves at {shown}");
            if legal.is_empty() {
                assert!(game.outcome(&state).is_some(), "{ctx}");
                break;
            }
            if ply % 7 == 3 {
                assert_eq!(
                    engine_perft(game, &state, 3),
                    naive_perft(naive, &nstate, 3),
                    "{ctx}: perft from {shown}"
                );
            }
            let mv = legal[rng.random_range(0..legal.len())];
            game.play_unchecked(&mut state, mv);
            naive.play(&mut nstate, mv);
        }
    }
    let mut rng = SmallRng::seed_from_u64(20_240_601);
    for round in 0..400 {
        let pits = rng.random_range(1..=8);
        let seeds = rng.random_range(1..=10);
        let spec = if round % 2 == 0 {
            format!(
                "kalah:pits={pits},seeds={seeds},empty_capture={},game_end={},leftover={},pie={}",
                rng.random_bool(0.5),
                ["immediate", "delayed"][rng.random_range(0..2)],
                ["owner", "set_aside"][rng.random_range(0..2)],
                rng.random_bool(0.5),
            )
        } else {
            format!(
                "oware:pits={pits},seeds={seeds},grand_slam={},max_plies={}",
                ["no_capture", "illegal", "capture_all"][rng.random_range(0..3)],
                [1, 2, 5, 20, 60, 1000][rng.random_range(0..6)],
            )
        };
        match pair(&spec) {
            Pair::Kalah(g, n) => game_pair(&spec, &g, &n, &mut rng),
            Pair::Oware(g, n) => game_pair(&spec, &g, &n, &mut rng),
        }
    }
}
