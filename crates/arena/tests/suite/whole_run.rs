//! A whole run through [`mancala_arena::tournament::run`], as the command
//! line and the Python package drive it: the folder written, what the
//! observer hears, a rerun that plays nothing, a stop that keeps the
//! games, and refusals of bad requests.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use mancala_agents::AgentSpec;
use mancala_arena::tournament::{self, RunStart};
use mancala_arena::{
    GameRecord, Observer, RunEnd, RunSettings, Shard, TournamentConfig, TournamentError,
};
use mancala_core::{GameSpec, KalahRules};

const CONFIG: &str = r#"
name = "whole"
game = "kalah:pits=4,seeds=3"
games_per_pair = 4
seed = 3
rating_interval = 4
[[agents]]
spec = "random"
[[agents]]
spec = "greedy"
[[agents]]
spec = "minimax:depth=2"
"#;

/// Counts what it hears.
#[derive(Default)]
struct Counting {
    starts: Mutex<Vec<RunStart>>,
    games: AtomicU64,
    tables: AtomicU64,
    over: AtomicU64,
}

impl Observer for Counting {
    fn started(&self, start: &RunStart) {
        self.starts.lock().unwrap().push(start.clone());
    }
    fn game_done(&self, _record: &GameRecord, _leader: Option<&str>) {
        self.games.fetch_add(1, Ordering::SeqCst);
    }
    fn standings(&self, table: &str) {
        assert!(table.starts_with("standings after "), "{table}");
        self.tables.fetch_add(1, Ordering::SeqCst);
    }
    fn games_over(&self) {
        self.over.fetch_add(1, Ordering::SeqCst);
    }
}

fn settings(dir: &Path) -> RunSettings {
    RunSettings {
        dir: dir.to_path_buf(),
        shard: None,
        resume: false,
        fresh: false,
        threads: Some(2),
        rating_interval: None,
    }
}

fn play(
    config: &TournamentConfig,
    settings: &RunSettings,
    stop: &AtomicBool,
    observer: &dyn Observer,
) -> Result<RunEnd, TournamentError> {
    let spec: GameSpec = config.game.parse().unwrap();
    let game = KalahRules::new(4, 3).unwrap();
    let agents: Vec<AgentSpec> = config
        .agents
        .iter()
        .map(|a| a.spec.parse().unwrap())
        .collect();
    let specs = agents.iter().map(ToString::to_string).collect();
    tournament::run(
        &game,
        &spec,
        config,
        specs,
        Box::new(move |i| agents[i].build::<KalahRules>()),
        None,
        settings,
        stop,
        observer,
        "test config",
    )
}

fn log_lines(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("games.jsonl"))
        .unwrap()
        .lines()
        .count()
}

#[test]
fn a_run_writes_the_folder_and_a_rerun_plays_nothing() {
    let config = TournamentConfig::parse(CONFIG, "test").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    let observer = Counting::default();
    let end = play(&config, &settings(&dir), &AtomicBool::new(false), &observer).unwrap();
    let RunEnd::Finished(results) = end else {
        panic!("a whole tournament finishes")
    };
    assert_eq!(results.summary.games_played, 12);
    assert_eq!(results.dir, dir);
    assert_eq!(observer.games.load(Ordering::SeqCst), 12);
    assert_eq!(observer.over.load(Ordering::SeqCst), 1);
    // Standings after 4 and 8 games; the 12th is the end's.
    assert_eq!(observer.tables.load(Ordering::SeqCst), 2);
    let start = observer.starts.lock().unwrap()[0].clone();
    assert_eq!(
        (start.games, start.already_played, start.threads),
        (12, 0, 2)
    );
    assert!(
        start.description.contains("12 games (0 already played)"),
        "{}",
        start.description
    );
    for file in [
        "games.jsonl",
        "games.csv",
        "summary.json",
        "ratings.csv",
        "moves.json",
    ] {
        assert!(dir.join(file).exists(), "{file}");
    }
    assert_eq!(log_lines(&dir), 12);

    let again = Counting::default();
    let mut resume = settings(&dir);
    resume.resume = true;
    let RunEnd::Finished(second) = play(&config, &resume, &AtomicBool::new(false), &again).unwrap()
    else {
        panic!("finishes")
    };
    assert_eq!(again.games.load(Ordering::SeqCst), 0);
    assert_eq!(again.starts.lock().unwrap()[0].already_played, 12);
    assert_eq!(second.summary.standings.len(), 3);
    for (a, b) in second
        .summary
        .standings
        .iter()
        .zip(&results.summary.standings)
    {
        assert_eq!((&a.name, a.elo, a.games), (&b.name, b.elo, b.games));
    }
    assert_eq!(log_lines(&dir), 12);
}

#[test]
fn a_raised_stop_keeps_the_log_and_says_how_far_it_got() {
    let config = TournamentConfig::parse(CONFIG, "test").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    let stop = AtomicBool::new(true);
    match play(&config, &settings(&dir), &stop, &tournament::Silent) {
        Err(TournamentError::Stopped {
            played,
            planned,
            dir: at,
        }) => {
            assert_eq!(planned, 12);
            assert!(played < 12);
            assert_eq!(at, dir);
            assert_eq!(log_lines(&dir) as u64, played);
        }
        other => panic!("expected a stop, got {other:?}"),
    }
    // The next run finishes what the stopped one left.
    let end = play(
        &config,
        &settings(&dir),
        &AtomicBool::new(false),
        &tournament::Silent,
    );
    assert!(matches!(end, Ok(RunEnd::Finished(_))));
    assert_eq!(log_lines(&dir), 12);
}

#[test]
fn a_shard_plays_its_slice_and_is_not_rated() {
    let config = TournamentConfig::parse(CONFIG, "test").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let shard: Shard = "2/3".parse().unwrap();
    let dir = tournament::output_folder(&config, None, Some(shard)).unwrap();
    assert_eq!(dir, Path::new("results/whole-shard-2-of-3"));
    let mut s = settings(&tmp.path().join("shard"));
    s.shard = Some(shard);
    match play(&config, &s, &AtomicBool::new(false), &tournament::Silent).unwrap() {
        RunEnd::Shard {
            played, planned, ..
        } => assert_eq!((played, planned), (4, 12)),
        RunEnd::Finished(_) => panic!("a shard is not rated"),
    }
    assert!(!tmp.path().join("shard/summary.json").exists());
}

#[test]
fn bad_requests_are_refused_before_any_game() {
    let config = TournamentConfig::parse(CONFIG, "test").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut resume = settings(&tmp.path().join("none"));
    resume.resume = true;
    let err = play(
        &config,
        &resume,
        &AtomicBool::new(false),
        &tournament::Silent,
    )
    .unwrap_err();
    assert!(
        matches!(&err, TournamentError::Input(m) if m.contains("holds no tournament")),
        "{err}"
    );
    let err = tournament::output_folder(&config, Some(Path::new("")), None).unwrap_err();
    assert!(matches!(err, TournamentError::Input(_)));
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let err = play(
        &config,
        &settings(&file),
        &AtomicBool::new(false),
        &tournament::Silent,
    )
    .unwrap_err();
    assert!(matches!(err, TournamentError::Output(_)), "{err}");
    // A folder of another tournament is refused, and its games are kept.
    let dir = tmp.path().join("out");
    play(
        &config,
        &settings(&dir),
        &AtomicBool::new(false),
        &tournament::Silent,
    )
    .unwrap();
    let other = TournamentConfig::parse(&CONFIG.replace("seed = 3", "seed = 4"), "test").unwrap();
    let err = play(
        &other,
        &settings(&dir),
        &AtomicBool::new(false),
        &tournament::Silent,
    )
    .unwrap_err();
    assert!(err.to_string().contains("different tournament"), "{err}");
    assert_eq!(log_lines(&dir), 12);
}

#[test]
fn a_config_table_reads_as_its_text_does() {
    let from_text = TournamentConfig::parse(CONFIG, "test").unwrap();
    let table: toml::Table = toml::from_str(CONFIG).unwrap();
    assert_eq!(
        TournamentConfig::from_table(table, "dict").unwrap(),
        from_text
    );
    let mut bad: toml::Table = toml::from_str(CONFIG).unwrap();
    bad.insert("gams_per_pair".into(), toml::Value::Integer(2));
    let err = TournamentConfig::from_table(bad, "the dict")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the dict") && err.contains("gams_per_pair"),
        "{err}"
    );
    let mut bad: toml::Table = toml::from_str(CONFIG).unwrap();
    bad.insert("name".into(), toml::Value::String("../up".into()));
    let err = TournamentConfig::from_table(bad, "the dict")
        .unwrap_err()
        .to_string();
    assert!(err.contains("plain folder name"), "{err}");
}
