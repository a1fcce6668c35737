//! Which games a tournament plays: pairings, seats and openings, with ids
//! fixed up front so that a resumed run knows exactly what is missing.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use mancala_core::{Game, Move};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use mancala_agents::derive_seed;

use crate::ArenaError;

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScheduledGame {
    /// Position in the schedule, from 0; also the game's seed stream.
    pub id: u64,
    /// Which pair of agents (index into the schedule's pairs).
    pub pair: u32,
    /// How many games this pair played before this one.
    pub round: u32,
    /// Which opening (index into the opening list).
    pub opening: u32,
    /// The agents (indices) in seat order: `seats[0]` moves first.
    pub seats: [usize; 2],
}

/// How agents are paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    /// Every pair of agents.
    RoundRobin,
    /// The agent with this index against every other one.
    Gauntlet(usize),
}

/// The pairs of agents a format plays, in a fixed order.
pub fn pairs(format: Format, agents: usize) -> Vec<[usize; 2]> {
    match format {
        Format::RoundRobin => (0..agents)
            .flat_map(|a| (a + 1..agents).map(move |b| [a, b]))
            .collect(),
        Format::Gauntlet(champion) => (0..agents)
            .filter(|&b| b != champion)
            .map(|b| [champion, b])
            .collect(),
    }
}

/// How many pairs [`pairs`] gives, without listing them.
pub fn pair_count(format: Format, agents: usize) -> u64 {
    let n = agents as u64;
    match format {
        Format::RoundRobin => n * n.saturating_sub(1) / 2,
        Format::Gauntlet(_) => n.saturating_sub(1),
    }
}

/// The whole schedule: for each pair, `games_per_pair` games; opening `k`
/// is played twice in a row with seats swapped (games `2k` and `2k + 1` of
/// the pair), cycling through `openings` openings.
///
/// Games are interleaved pair by pair (every pair's first game, then every
/// pair's second, ...) so that a tournament stopped early is balanced.
pub fn schedule(pairs: &[[usize; 2]], games_per_pair: u32, openings: usize) -> Vec<ScheduledGame> {
    let mut games = Vec::with_capacity(pairs.len() * games_per_pair as usize);
    for round in 0..games_per_pair {
        for (pair, &[a, b]) in pairs.iter().enumerate() {
            let opening = (round / 2) as usize % openings.max(1);
            let seats = if round % 2 == 0 { [a, b] } else { [b, a] };
            games.push(ScheduledGame {
                id: games.len() as u64,
                pair: pair as u32,
                round,
                opening: opening as u32,
                seats,
            });
        }
    }
    games
}

/// A slice of a tournament's schedule played by one machine: shard
/// `index` of `count`, numbered from 1 as people write them (`2/8`).
///
/// Shard `k` of `n` plays the games with ids in
/// `[(k - 1) * games / n, k * games / n)` (rounded down): one contiguous
/// block of the schedule. Because the schedule interleaves the pairs (every
/// pair's first game, then every pair's second, ...), a block of ids is a
/// block of whole rounds, so each shard gets every pairing in proportion,
/// within a game or two, whatever the number of shards and pairs. That
/// balances the load: the slow pairings (deep searches against each other)
/// are spread over all shards. Taking ids modulo `n` instead would give
/// all of a pair's games to the shards congruent to it modulo
/// `gcd(n, pairs)` (with 4 agents, 6 pairs and 3 shards, shard 1 would
/// play only pairs 0 and 3), and a shard that never ran would take whole
/// pairings out of the results rather than a few rounds of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "ShardFields")]
pub struct Shard {
    index: u64,
    count: u64,
}

/// [`Shard`] as written, checked when read.
#[derive(Deserialize)]
struct ShardFields {
    index: u64,
    count: u64,
}

impl TryFrom<ShardFields> for Shard {
    type Error = ShardError;
    fn try_from(f: ShardFields) -> Result<Shard, ShardError> {
        Shard::new(f.index, f.count)
    }
}

/// A shard that cannot be used.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShardError {
    /// Not of the form `K/N`.
    #[error(
        "'{0}' is not a shard: write K/N, e.g. 2/8 for the second of eight shards (or `auto`)"
    )]
    Syntax(String),
    /// `K` outside `1..=N`, or `N` zero.
    #[error(
        "shard {index}/{count} does not exist: shards are numbered from 1 to N (N at least 1)"
    )]
    OutOfRange {
        /// `K` as given.
        index: u64,
        /// `N` as given.
        count: u64,
    },
    /// The environment does not say which shard this is.
    #[error("--shard auto: {0}")]
    Environment(String),
}

impl Shard {
    /// Shard `index` of `count`, numbered from 1.
    ///
    /// # Errors
    /// [`ShardError::OutOfRange`] unless `1 <= index <= count`.
    pub fn new(index: u64, count: u64) -> Result<Shard, ShardError> {
        if index == 0 || index > count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// Which shard this is, from 1.
    pub fn index(self) -> u64 {
        self.index
    }

    /// How many shards there are.
    pub fn count(self) -> u64 {
        self.count
    }

    /// Where shard `k` (from 0) starts in a schedule of `games` games.
    fn start(k: u64, count: u64, games: u64) -> u64 {
        // u128: `k * games` must not overflow for any count.
        (u128::from(k) * u128::from(games) / u128::from(count)) as u64
    }

    /// The ids of the games this shard plays in a schedule of `games`
    /// games (possibly none, when there are more shards than games).
    pub fn range(self, games: u64) -> Range<u64> {
        Shard::start(self.index - 1, self.count, games)..Shard::start(self.index, self.count, games)
    }

    /// Whether this shard plays game `id` of a schedule of `games` games.
    pub fn contains(self, id: u64, games: u64) -> bool {
        self.range(games).contains(&id)
    }

    /// The shard, of `count`, that plays game `id` (which must be below
    /// `games`) of a schedule of `games` games.
    ///
    /// # Panics
    /// If `id >= games` or `count == 0`.
    pub fn of_game(id: u64, games: u64, count: u64) -> Shard {
        assert!(
            id < games && count > 0,
            "game {id} of {games}, {count} shards"
        );
        // The last k (from 0) with start(k) <= id: start(k) <= id exactly
        // when k * games < (id + 1) * count.
        let k = ((u128::from(id) + 1) * u128::from(count) - 1) / u128::from(games);
        Shard {
            index: k as u64 + 1,
            count,
        }
    }

    /// This task's shard, from a cluster scheduler's environment (`get`
    /// looks a variable up; pass `std::env::var(name).ok()`):
    ///
    /// - a Slurm job array task: `SLURM_ARRAY_TASK_ID` among
    ///   `SLURM_ARRAY_TASK_COUNT` tasks numbered from `SLURM_ARRAY_TASK_MIN`
    ///   by `SLURM_ARRAY_TASK_STEP` (1 if unset), so that any evenly spaced
    ///   `--array` range works (`0-7`, `1-8`, `100-107`, `0-14:2`), and
    ///   the lowest task is shard 1;
    /// - a Kubernetes Indexed Job pod: `JOB_COMPLETION_INDEX` (from 0) of
    ///   `MANCALA_SHARD_COUNT` (Kubernetes does not tell a pod how many
    ///   completions its Job has: set it to the Job's `completions`).
    ///
    /// Slurm's variables win when both are set.
    ///
    /// # Errors
    /// [`ShardError::Environment`] naming the variable that is missing,
    /// not a number, or inconsistent (a task list that is not evenly
    /// spaced, such as `--array=1,2,5`).
    pub fn from_env(get: &dyn Fn(&str) -> Option<String>) -> Result<Shard, ShardError> {
        let env_err = |m: String| ShardError::Environment(m);
        let number = |name: &str| -> Result<Option<u64>, ShardError> {
            match get(name) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<u64>()
                    .map(Some)
                    .map_err(|_| env_err(format!("{name}={v} is not a whole number"))),
            }
        };
        let required = |name: &str, why: &str| -> Result<u64, ShardError> {
            number(name)?.ok_or_else(|| env_err(format!("{name} is not set ({why})")))
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let why = "Slurm sets it in every array task";
            let count = required("SLURM_ARRAY_TASK_COUNT", why)?;
            let min = required("SLURM_ARRAY_TASK_MIN", why)?;
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            let evenly_spaced = count > 0
                && id >= min
                && (id - min) % step == 0
                && number("SLURM_ARRAY_TASK_MAX")?.is_none_or(|max| {
                    Some(max)
                        == (count - 1)
                            .checked_mul(step)
                            .and_then(|d| d.checked_add(min))
                });
            if !evenly_spaced {
                return Err(env_err(format!(
                    "Slurm array task {id} is not in an evenly spaced range of {count} tasks from \
                     {min} by {step}: submit with --array=A-B (or A-B:STEP), or give --shard K/N"
                )));
            }
            return Shard::new((id - min) / step + 1, count)
                .map_err(|e| env_err(format!("Slurm array task {id}: {e}")));
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let count = required(
                "MANCALA_SHARD_COUNT",
                "a Kubernetes Indexed Job does not tell its pods how many completions it has: \
                 set it to the Job's `completions`",
            )?;
            return Shard::new(index.saturating_add(1), count)
                .map_err(|e| env_err(format!("JOB_COMPLETION_INDEX={index}: {e}")));
        }
        let hint = if get("SLURM_JOB_ID").is_some() {
            "this Slurm job is not an array task (no SLURM_ARRAY_TASK_ID): submit it with \
             sbatch --array=1-N"
        } else {
            "neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX (a \
             Kubernetes Indexed Job) is set"
        };
        Err(env_err(format!("{hint}; or give --shard K/N")))
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    /// `K/N`, e.g. `2/8`.
    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let syntax = || ShardError::Syntax(mancala_core::spec::truncate_input(text).to_string());
        let (k, n) = text.trim().split_once('/').ok_or_else(syntax)?;
        let k = k.trim().parse::<u64>().map_err(|_| syntax())?;
        let n = n.trim().parse::<u64>().map_err(|_| syntax())?;
        Shard::new(k, n)
    }
}

/// `count` random openings of `plies` moves each (seeded), none of which
/// ends the game, all different where the game allows. With `plies == 0`,
/// one opening: the start position.
///
/// Small games may have fewer distinct openings than asked, and then some
/// repeat; tries are bounded, so no board or ply count can make this loop.
///
/// # Errors
/// [`ArenaError::Opening`] when no random line of `plies` moves leaves the
/// game unfinished (every game of that board ends sooner).
pub fn random_openings<G: Game>(
    game: &G,
    count: usize,
    plies: u32,
    seed: u64,
) -> Result<Vec<Vec<Move>>, ArenaError> {
    if plies == 0 || count == 0 {
        return Ok(vec![Vec::new()]);
    }
    let mut openings: Vec<Vec<Move>> = Vec::with_capacity(count.min(1 << 16));
    // Duplicates are skipped for a while, then accepted; unfinished lines
    // are looked for a while longer, then the ones found are reused.
    let patience = 50 * count as u64 + 1000;
    let give_up = 2 * patience;
    let mut attempt = 0u64;
    while openings.len() < count {
        attempt += 1;
        if attempt > give_up {
            if openings.is_empty() {
                return Err(ArenaError::Opening(format!(
                    "no random opening of {plies} moves leaves the game unfinished \
                     ({give_up} tries): games of this board end sooner; use fewer opening moves"
                )));
            }
            let found = openings.len();
            for i in 0..count - found {
                openings.push(openings[i % found].clone());
            }
            break;
        }
        let mut rng = SmallRng::seed_from_u64(derive_seed(seed, attempt));
        let mut state = game.start();
        let mut moves = Vec::with_capacity(plies.min(1024) as usize);
        for _ in 0..plies {
            let legal = game.legal_moves(&state);
            if legal.is_empty() {
                break;
            }
            let mv = legal.nth(rand::Rng::random_range(&mut rng, 0..legal.len()));
            game.play_unchecked(&mut state, mv);
            moves.push(mv);
        }
        if game.is_over(&state) {
            continue;
        }
        if attempt < patience && openings.contains(&moves) {
            continue;
        }
        openings.push(moves);
    }
    Ok(openings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_core::KalahRules;

    #[test]
    fn shards_are_written_k_of_n_from_one() {
        let s: Shard = " 2/8 ".parse().unwrap();
        assert_eq!((s.index(), s.count()), (2, 8));
        assert_eq!(s.to_string(), "2/8");
        assert_eq!("1/1".parse::<Shard>().unwrap(), Shard::new(1, 1).unwrap());
        for bad in ["0/3", "4/3", "1/0", "0/0"] {
            assert!(
                matches!(bad.parse::<Shard>(), Err(ShardError::OutOfRange { .. })),
                "{bad}"
            );
        }
        for bad in ["", "3", "a/b", "1/3/4", "-1/3", "1.5/3", "auto"] {
            assert!(
                matches!(bad.parse::<Shard>(), Err(ShardError::Syntax(_))),
                "{bad}"
            );
        }
        // Serialised as written, and checked when read back.
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, r#"{"index":2,"count":8}"#);
        assert_eq!(serde_json::from_str::<Shard>(&json).unwrap(), s);
        assert!(serde_json::from_str::<Shard>(r#"{"index":9,"count":8}"#).is_err());
    }

    #[test]
    fn shards_split_any_schedule_into_contiguous_blocks_that_cover_it_once() {
        for games in [0u64, 1, 2, 5, 17, 36, 100, 601] {
            for count in 1..=12u64 {
                let mut next = 0;
                for k in 1..=count {
                    let shard = Shard::new(k, count).unwrap();
                    let r = shard.range(games);
                    assert_eq!(r.start, next, "{games} games, shard {shard}");
                    // Sizes differ by at most one game.
                    assert!(r.end - r.start <= games.div_ceil(count));
                    assert!(r.end - r.start >= games / count);
                    for id in r.clone() {
                        assert_eq!(Shard::of_game(id, games, count), shard);
                        assert!(shard.contains(id, games));
                    }
                    next = r.end;
                }
                assert_eq!(next, games);
            }
        }
        // No overflow for huge shard counts.
        let s = Shard::new(u64::MAX, u64::MAX).unwrap();
        assert_eq!(s.range(10), 9..10);
        assert_eq!(Shard::of_game(9, 10, u64::MAX).index(), u64::MAX);
    }

    /// Games of each pair in each shard.
    fn per_pair(
        games: &[ScheduledGame],
        pairs: usize,
        shard_of: impl Fn(u64) -> u64,
        n: u64,
    ) -> Vec<Vec<u64>> {
        let mut counts = vec![vec![0u64; pairs]; n as usize];
        for g in games {
            counts[shard_of(g.id) as usize - 1][g.pair as usize] += 1;
        }
        counts
    }

    #[test]
    fn every_shard_gets_every_pairing_in_proportion() {
        // 4 agents: 6 pairs; with 3 shards, ids mod 3 would give each shard
        // only two of the pairs. Contiguous blocks give each shard a third of
        // every pair's games.
        for agents in 2..=7 {
            let pairs = pairs(Format::RoundRobin, agents);
            for games_per_pair in [6u32, 10, 40, 100] {
                let plan = schedule(&pairs, games_per_pair, 10);
                let total = plan.len() as u64;
                for n in 1..=8u64 {
                    let counts = per_pair(
                        &plan,
                        pairs.len(),
                        |id| Shard::of_game(id, total, n).index(),
                        n,
                    );
                    let fair = f64::from(games_per_pair) / n as f64;
                    for (k, shard) in counts.iter().enumerate() {
                        for (p, &c) in shard.iter().enumerate() {
                            assert!(
                                (c as f64 - fair).abs() < 1.0,
                                "{agents} agents, {games_per_pair} games a pair, shard {}/{n}: pair {p} \
                                 plays {c} games, a fair share is {fair}",
                                k + 1
                            );
                        }
                    }
                }
            }
        }
        // What the modulo rule would have done.
        let plan = schedule(&pairs(Format::RoundRobin, 4), 30, 10);
        let modulo = per_pair(&plan, 6, |id| id % 3 + 1, 3);
        assert_eq!(modulo[0], [30, 0, 0, 30, 0, 0]);
    }

    /// An environment of `vars` alone.
    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    fn slurm(id: &str, min: &str, max: &str, count: &str) -> Result<Shard, ShardError> {
        let vars = [
            ("SLURM_JOB_ID", "77"),
            ("SLURM_ARRAY_TASK_ID", id),
            ("SLURM_ARRAY_TASK_MIN", min),
            ("SLURM_ARRAY_TASK_MAX", max),
            ("SLURM_ARRAY_TASK_COUNT", count),
        ];
        Shard::from_env(&env(&vars))
    }

    #[test]
    fn slurm_array_tasks_of_any_evenly_spaced_range_are_shards_from_one() {
        let s = |k, n| Shard::new(k, n).unwrap();
        assert_eq!(slurm("0", "0", "2", "3"), Ok(s(1, 3)));
        assert_eq!(slurm("2", "0", "2", "3"), Ok(s(3, 3)));
        assert_eq!(slurm("1", "1", "3", "3"), Ok(s(1, 3)));
        assert_eq!(slurm("3", "1", "3", "3"), Ok(s(3, 3)));
        assert_eq!(slurm("105", "100", "107", "8"), Ok(s(6, 8)));
        // --array=0-14:2
        let vars = [
            ("SLURM_ARRAY_TASK_ID", "6"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "14"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ];
        assert_eq!(Shard::from_env(&env(&vars)), Ok(s(4, 8)));
        // --array=1,2,5: three tasks that are not a range.
        let e = slurm("5", "1", "5", "3").unwrap_err().to_string();
        assert!(
            e.contains("evenly spaced") && e.contains("--shard K/N"),
            "{e}"
        );
        let e = slurm("x", "1", "5", "3").unwrap_err().to_string();
        assert!(
            e.contains("SLURM_ARRAY_TASK_ID=x is not a whole number"),
            "{e}"
        );
        let vars = [("SLURM_ARRAY_TASK_ID", "1")];
        let e = Shard::from_env(&env(&vars)).unwrap_err().to_string();
        assert!(e.contains("SLURM_ARRAY_TASK_COUNT is not set"), "{e}");
        let e = Shard::from_env(&env(&[("SLURM_JOB_ID", "3")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not an array task"), "{e}");
    }

    #[test]
    fn kubernetes_indexed_job_pods_need_the_shard_count() {
        let vars = [("JOB_COMPLETION_INDEX", "0"), ("MANCALA_SHARD_COUNT", "4")];
        assert_eq!(Shard::from_env(&env(&vars)), Ok(Shard::new(1, 4).unwrap()));
        let vars = [("JOB_COMPLETION_INDEX", "3"), ("MANCALA_SHARD_COUNT", "4")];
        assert_eq!(Shard::from_env(&env(&vars)), Ok(Shard::new(4, 4).unwrap()));
        let vars = [("JOB_COMPLETION_INDEX", "4"), ("MANCALA_SHARD_COUNT", "4")];
        let e = Shard::from_env(&env(&vars)).unwrap_err().to_string();
        assert!(
            e.contains("JOB_COMPLETION_INDEX=4") && e.contains("5/4"),
            "{e}"
        );
        let vars = [("JOB_COMPLETION_INDEX", "1")];
        let e = Shard::from_env(&env(&vars)).unwrap_err().to_string();
        assert!(e.contains("MANCALA_SHARD_COUNT is not set"), "{e}");
        let e = Shard::from_env(&env(&[])).unwrap_err().to_string();
        assert!(
            e.starts_with("--shard auto: neither SLURM_ARRAY_TASK_ID"),
            "{e}"
        );
    }

    #[test]
    fn round_robin_pairs_every_two_agents_once() {
        assert_eq!(pairs(Format::RoundRobin, 3), vec![[0, 1], [0, 2], [1, 2]]);
        assert_eq!(pairs(Format::Gauntlet(1), 3), vec![[1, 0], [1, 2]]);
    }

    #[test]
    fn each_opening_is_played_twice_with_seats_swapped() {
        let games = schedule(&pairs(Format::RoundRobin, 3), 4, 10);
        assert_eq!(games.len(), 12);
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.id, i as u64);
        }
        let pair0: Vec<_> = games.iter().filter(|g| g.pair == 0).collect();
        assert_eq!(pair0[0].seats, [0, 1]);
        assert_eq!(pair0[1].seats, [1, 0]);
        assert_eq!(pair0[0].opening, pair0[1].opening);
        assert_ne!(pair0[1].opening, pair0[2].opening);
    }

    #[test]
    fn openings_are_seeded_distinct_and_unfinished() {
        let game = KalahRules::default();
        let a = random_openings(&game, 20, 4, 7).unwrap();
        let b = random_openings(&game, 20, 4, 7).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, random_openings(&game, 20, 4, 8).unwrap());
        for (i, o) in a.iter().enumerate() {
            assert_eq!(o.len(), 4);
            assert!(!a[..i].contains(o), "opening {i} repeats");
            let mut s = game.start();
            for &m in o {
                game.try_play(&mut s, m).unwrap();
            }
            assert!(!game.is_over(&s));
        }
        assert_eq!(
            random_openings(&game, 5, 0, 1).unwrap(),
            vec![Vec::<Move>::new()]
        );
    }

    #[test]
    fn openings_longer_than_any_game_are_an_error_not_a_hang() {
        let game = KalahRules::default();
        let e = random_openings(&game, 10, 500, 1).unwrap_err().to_string();
        assert!(e.contains("500 moves") && e.contains("fewer"), "{e}");
        let tiny: KalahRules = "kalah:pits=1,seeds=1"
            .parse::<mancala_core::GameSpec>()
            .map(|s| match s {
                mancala_core::GameSpec::Kalah(r) => r,
                _ => unreachable!(),
            })
            .unwrap();
        assert!(random_openings(&tiny, 3, 1, 1).is_err());
    }

    #[test]
    fn rare_unfinished_openings_are_reused_rather_than_searched_for_ever() {
        // Kalah(2,1) has only two one-move openings: far fewer than asked,
        // so the ones found are reused.
        let game: KalahRules = match "kalah:pits=2,seeds=1".parse::<mancala_core::GameSpec>() {
            Ok(mancala_core::GameSpec::Kalah(r)) => r,
            _ => unreachable!(),
        };
        let openings = random_openings(&game, 500, 1, 3).unwrap();
        assert_eq!(openings.len(), 500);
        for o in &openings {
            let mut s = game.start();
            for &m in o {
                game.try_play(&mut s, m).unwrap();
            }
            assert!(!game.is_over(&s));
        }
    }
}
