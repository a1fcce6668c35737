//! The JSON API over real HTTP: a server on an ephemeral port, spoken to
//! with a plain HTTP/1.1 client on a TCP socket (so that the tests can send
//! what no well-behaved client would: oversize bodies, bad headers, and a
//! disconnection in the middle of a search).
#![allow(clippy::print_stdout)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mancala_core::{Game, KalahRules, Move};
use mancala_web::{App, ServeOptions};
use serde_json::{json, Value};

/// A server running on its own runtime until dropped.
struct Server {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _root: Option<tempfile::TempDir>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/small")
}

/// A results root holding a copy of the fixture tournament, a nested
/// folder, and a link that leads out of the root.
fn results_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let copy = |to: &Path| {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(fixture()).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    };
    copy(&root.path().join("small"));
    copy(&root.path().join("runs/nested"));
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap().keep();
        std::fs::write(outside.join("games.jsonl"), "").unwrap();
        std::fs::write(outside.join("secret.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(&outside, root.path().join("escape")).unwrap();
        // A folder whose games are a link out, and one whose games are a
        // device that never ends.
        let linked = root.path().join("linked");
        std::fs::create_dir(&linked).unwrap();
        std::os::unix::fs::symlink(outside.join("games.jsonl"), linked.join("games.jsonl"))
            .unwrap();
        let device = root.path().join("device");
        std::fs::create_dir(&device).unwrap();
        std::os::unix::fs::symlink("/dev/zero", device.join("games.jsonl")).unwrap();
    }
    root
}

fn start(threads: usize, results: bool) -> Server {
    let root = results.then(results_root);
    let options = ServeOptions {
        results: root.as_ref().map(|r| r.path().to_path_buf()),
        threads,
        ..ServeOptions::default()
    };
    start_with(options, root)
}

fn start_with(options: ServeOptions, root: Option<tempfile::TempDir>) -> Server {
    let app = App::new(options).unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (tx, rx) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            mancala_web::serve(listener, app, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
    });
    Server {
        addr: rx.recv().unwrap(),
        stop: Some(stop),
        thread: Some(thread),
        _root: root,
    }
}

/// A response: status, headers (lower-case names) and body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
    fn error(&self) -> String {
        // A report's refusal is a page for the app's frame.
        if let Some(page) = self.body.strip_prefix("<!doctype html>") {
            let marker = "<p id=\"error\">";
            let start = page.find(marker).expect("a refusal page") + marker.len();
            let end = start + page[start..].find("</p>").expect("the refusal's end");
            return page[start..end]
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&amp;", "&");
        }
        self.json()["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error message: {}", self.body))
            .to_string()
    }
}

/// Sends raw request bytes and reads the whole response.
fn raw(addr: SocketAddr, request: &[u8]) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    // A refused body may be answered before it is all sent.
    let _ = s.write_all(request);
    let mut bytes = Vec::new();
    let _ = s.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no response: {text:?}"));
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect::<Vec<_>>();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_string()
    };
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
    out
}

fn get(server: &Server, path: &str) -> Reply {
    raw(
        server.addr,
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

fn post(server: &Server, path: &str, body: &Value) -> Reply {
    post_text(server, path, &body.to_string(), "application/json")
}

fn post_text(server: &Server, path: &str, body: &str, kind: &str) -> Reply {
    raw(
        server.addr,
        format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
}

fn ok(reply: Reply) -> Value {
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()
}

fn refused(reply: Reply, status: u16, needle: &str) {
    assert_eq!(reply.status, status, "{}", reply.body);
    let error = reply.error();
    assert!(error.contains(needle), "`{needle}` not in `{error}`");
}

#[test]
fn the_page_and_its_assets_are_served_with_a_strict_policy() {
    let server = start(1, false);
    for (path, kind) in [
        ("/", "text/html"),
        ("/app.css", "text/css"),
        ("/app.js", "text/javascript"),
    ] {
        let r = get(&server, path);
        assert_eq!(r.status, 200);
        assert!(
            r.header("content-type").unwrap().starts_with(kind),
            "{path}"
        );
        let policy = r.header("content-security-policy").unwrap();
        assert!(policy.contains("default-src 'self'") && policy.contains("script-src 'self'"));
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    }
}

#[test]
fn info_lists_games_agents_and_limits() {
    let server = start(3, false);
    let info = ok(get(&server, "/api/info"));
    assert_eq!(info["games"], json!(["kalah", "oware", "congkak"]));
    assert_eq!(info["limits"]["searches"], 3);
    assert_eq!(info["limits"]["max_body_bytes"], 65536);
    assert_eq!(info["results"], false);
    let names: Vec<&str> = info["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["random", "greedy", "minimax", "mcts", "perfect"]);
}

#[test]
fn new_game_gives_the_start_or_a_position_and_names_what_is_wrong() {
    let server = start(1, false);
    let s = ok(post(
        &server,
        "/api/new",
        &json!({"game": "kalah:pits=4,seeds=3"}),
    ));
    assert_eq!(s["state"]["board"], json!([3, 3, 3, 3, 3, 3, 3, 3, 0, 0]));
    assert_eq!(s["state"]["legal"], json!(["1", "2", "3", "4"]));
    assert_eq!(s["state"]["to_move"], 0);
    let s = ok(post(
        &server,
        "/api/new",
        &json!({"game": "kalah:pits=4,seeds=3", "position": "0,0,0,1/3,3,3,3/4,7/1"}),
    ));
    assert_eq!(s["state"]["to_move"], 1);
    assert_eq!(s["state"]["position"], "0,0,0,1/3,3,3,3/4,7/1");
    refused(
        post(&server, "/api/new", &json!({"game": "kalah:pit=4"})),
        400,
        "'pit'",
    );
    refused(
        post(&server, "/api/new", &json!({"game": "chess"})),
        400,
        "unknown game 'chess'",
    );
    // 12 seeds where the rules have 24.
    refused(
        post(
            &server,
            "/api/new",
            &json!({"game": "kalah:pits=4,seeds=3", "position": "0,0,0,1/3,3,3,3/5,0/1"}),
        ),
        422,
        "position",
    );
}

#[test]
fn play_applies_a_move_and_refuses_an_illegal_one_listing_the_legal() {
    let server = start(1, false);
    let r = ok(post(
        &server,
        "/api/play",
        &json!({"game": "kalah", "move": "3"}),
    ));
    let ply = &r["ply"];
    // Pit 3's four seeds: pits 4-6 and the store, an extra turn.
    assert_eq!(ply["sowing"], json!([{"from": 2, "to": [3, 4, 5, 12]}]));
    assert_eq!(ply["extra_turn"], true);
    assert_eq!(ply["state"]["to_move"], 0);
    assert_eq!(
        ply["state"]["board"],
        json!([4, 4, 0, 5, 5, 5, 4, 4, 4, 4, 4, 4, 1, 0])
    );
    let position = ply["state"]["position"].as_str().unwrap();
    refused(
        post(
            &server,
            "/api/play",
            &json!({"game": "kalah", "position": position, "move": "3"}),
        ),
        422,
        "legal: 1 2 4 5 6",
    );
    refused(
        post(
            &server,
            "/api/play",
            &json!({"game": "kalah", "move": "seven"}),
        ),
        422,
        "move `seven`",
    );
    // A move after a line keeps the line's history: Oware's fourth ply of
    // four ends the game, which the position alone does not know.
    let line = json!(["1", "1", "2"]);
    let r = ok(post(
        &server,
        "/api/play",
        &json!({"game": "oware:max_plies=4", "moves": line, "move": "3"}),
    ));
    assert_eq!(r["ply"]["state"]["outcome"]["reason"], "max_plies", "{r}");
    let position = ok(post(
        &server,
        "/api/line",
        &json!({"game": "oware:max_plies=4", "moves": line}),
    ))["plies"][2]["state"]["position"]
        .clone();
    let r = ok(post(
        &server,
        "/api/play",
        &json!({"game": "oware:max_plies=4", "position": position, "move": "3"}),
    ));
    assert!(r["ply"]["state"]["outcome"].is_null(), "{r}");
    refused(
        post(
            &server,
            "/api/play",
            &json!({"game": "kalah", "moves": ["1", "9"], "move": "3"}),
        ),
        422,
        "ply 2",
    );
    // The pie rule's swap turns the board round: pit 1's four seeds went
    // to pits 2-5, and player 0 now owns the other row.
    let r = ok(post(
        &server,
        "/api/line",
        &json!({"game": "kalah:pie=true", "moves": ["1", "swap"]}),
    ));
    let plies = r["plies"].as_array().unwrap();
    assert_eq!(plies[1]["swap"], true);
    assert_eq!(plies[1]["sowing"], json!([]));
    assert_eq!(
        plies[1]["state"]["board"],
        json!([4, 4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 0, 0])
    );
    assert_eq!(plies[1]["state"]["to_move"], 0);
}

#[test]
fn a_line_replays_as_the_engine_plays_it_and_is_bounded() {
    let server = start(1, false);
    let rules = KalahRules::new(6, 4).unwrap();
    let mut state = rules.start();
    let mut moves = Vec::new();
    let mut k = 0usize;
    while rules.to_move(&state).is_some() {
        let legal: Vec<Move> = rules.legal_moves(&state).into_iter().collect();
        let mv = legal[(k * 7 + 3) % legal.len()];
        rules.play_unchecked(&mut state, mv);
        moves.push(mv.to_string());
        k += 1;
    }
    let r = ok(post(
        &server,
        "/api/line",
        &json!({"game": "kalah", "moves": moves}),
    ));
    let last = &r["plies"].as_array().unwrap().last().unwrap()["state"];
    let setup = rules.setup(&state);
    assert_eq!(last["board"], json!(setup.board()));
    assert_eq!(last["position"], setup.to_string());
    let outcome = rules.outcome(&state).unwrap();
    assert_eq!(last["outcome"]["scores"], json!(outcome.scores.0));
    assert_eq!(last["outcome"]["reason"], outcome.reason.to_string());
    assert_eq!(last["legal"], json!([]));
    refused(
        post(
            &server,
            "/api/line",
            &json!({"game": "kalah", "moves": ["1", "2", "1", "9"]}),
        ),
        422,
        "ply 3",
    );
    let long = vec!["1"; 2001];
    refused(
        post(
            &server,
            "/api/line",
            &json!({"game": "kalah", "moves": long}),
        ),
        400,
        "at most 2000",
    );
}

#[test]
fn agents_move_from_the_web_but_engines_and_models_are_refused() {
    let server = start(2, false);
    let r = ok(post(
        &server,
        "/api/agent",
        &json!({"game": "kalah", "agent": "minimax:depth=6"}),
    ));
    assert!(["1", "2", "3", "4", "5", "6"].contains(&r["move"].as_str().unwrap()));
    assert_eq!(r["search"]["kind"], "alpha_beta");
    assert_eq!(r["search"]["depth"], 6);
    assert_eq!(r["cut"], false);
    // The same seed, the same random move; `random` reports no search.
    let draw = |seed: u64| {
        ok(post(
            &server,
            "/api/agent",
            &json!({"game": "congkak", "agent": "random", "seed": seed}),
        ))
    };
    let first = draw(5);
    assert_eq!(first["move"], draw(5)["move"]);
    assert!(first["search"].is_null());
    let moves: std::collections::HashSet<String> = (0..20)
        .map(|s| draw(s)["move"].as_str().unwrap().to_string())
        .collect();
    assert!(moves.len() > 1, "one move for 20 seeds: {moves:?}");
    for spec in [
        "engine:cmd=python3 -c 'print(1)'",
        "ENGINE:cmd=sh",
        "neural:model=/etc/passwd",
        "minimax:depth=2,eval=net:/etc/passwd",
        "perfect:fallback=minimax:eval=net:/dev/zero",
    ] {
        refused(
            post(
                &server,
                "/api/agent",
                &json!({"game": "kalah", "agent": spec}),
            ),
            403,
            "cannot be started from the web",
        );
    }
    refused(
        post(
            &server,
            "/api/agent",
            &json!({"game": "kalah", "agent": "perfect:tt=1024,time=1s,fallback=greedy"}),
        ),
        403,
        "at most 256 MiB",
    );
    refused(
        post(
            &server,
            "/api/agent",
            &json!({"game": "kalah", "agent": "minimax:depth=1,tt=4096"}),
        ),
        403,
        "at most 256 MiB",
    );
    refused(
        post(
            &server,
            "/api/agent",
            &json!({"game": "kalah", "agent": "minimax:depht=3"}),
        ),
        400,
        "depht",
    );
    refused(
        post(
            &server,
            "/api/agent",
            &json!({"game": "oware", "agent": "perfect"}),
        ),
        422,
        "perfect play",
    );
    refused(
        post(
            &server,
            "/api/agent",
            &json!({"game": "kalah:pits=4,seeds=3", "position": "0,0,0,0/0,0,0,0/12,12/-", "agent": "greedy"}),
        ),
        422,
        "over",
    );
}

/// `serve --engine NAME=COMMAND`: the page picks an offered engine by its
/// name alone and it plays; an `engine:` spec is still refused, and so is
/// an offer with a bad name or a missing program.
#[test]
fn offered_engines_play_by_name_and_nothing_else_starts() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/engines/greedy_kalah.py"
    );
    let offer = |name: &str, command: String| ServeOptions {
        engines: vec![(name.to_string(), command)],
        ..ServeOptions::default()
    };
    let server = start_with(offer("greedy-py", format!("python3 {example}")), None);
    let info = ok(get(&server, "/api/info"));
    assert_eq!(info["engines"], json!(["greedy-py"]));
    let r = ok(post(
        &server,
        "/api/agent",
        &json!({"game": "kalah", "agent": "greedy-py", "moves": ["3"]}),
    ));
    let mv = r["move"].as_str().unwrap();
    assert!(["1", "2", "3", "4", "5", "6"].contains(&mv), "{r}");
    // Any other program, even the same one, is refused.
    let same = format!("engine:cmd=python3 {example}");
    refused(
        post(
            &server,
            "/api/agent",
            &json!({"game": "kalah", "agent": same}),
        ),
        403,
        "cannot be started from the web",
    );
    let unknown = post(
        &server,
        "/api/agent",
        &json!({"game": "kalah", "agent": "greedy-pyx"}),
    );
    assert_eq!(unknown.status, 400, "{}", unknown.body);
    for (name, command, why) in [
        ("random", format!("python3 {example}"), "built-in agent"),
        ("Bot", format!("python3 {example}"), "lowercase"),
        ("gone", "/nonexistent/bot".to_string(), "/nonexistent/bot"),
    ] {
        let e = App::new(offer(name, command))
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains(why) && e.contains("--engine"), "{name}: {e}");
    }
}

#[test]
fn perfect_plays_a_best_move_from_the_web() {
    let server = start(1, false);
    let rules = KalahRules::new(4, 3).unwrap();
    let solver =
        mancala_solver::Solver::new(rules, &mancala_solver::SolverOptions::small()).unwrap();
    let (_, best) = solver
        .best_moves(&rules.start(), 1, mancala_agents::StopCondition::NEVER)
        .unwrap();
    let r = ok(post(
        &server,
        "/api/agent",
        &json!({"game": "kalah:pits=4,seeds=3", "agent": "perfect"}),
    ));
    let mv: Move = r["move"].as_str().unwrap().parse().unwrap();
    assert!(best.contains(&mv), "{mv} not among {best:?}");
    assert_eq!(r["search"]["kind"], "exact");
}

#[test]
fn analysis_gives_the_solvers_values_or_marked_estimates() {
    let server = start(1, false);
    let rules = KalahRules::new(4, 3).unwrap();
    let solver =
        mancala_solver::Solver::new(rules, &mancala_solver::SolverOptions::small()).unwrap();
    // A position a few moves in, and the start.
    let mut later = rules.start();
    for mv in [Move::Pit(1), Move::Pit(3), Move::Pit(0)] {
        rules.try_play(&mut later, mv).unwrap();
    }
    for state in [rules.start(), later] {
        let expected = solver
            .move_values(&state, 1, mancala_agents::StopCondition::NEVER)
            .unwrap();
        let position = rules.setup(&state).to_string();
        let request = json!({"game": "kalah:pits=4,seeds=3", "position": position, "ms": 10000});
        // The first request starts the solver's build; on a loaded machine
        // it may still be building when the request's time is up.
        let t0 = Instant::now();
        let r = loop {
            let r = ok(post(&server, "/api/analyse", &request));
            if r["building"] == false || t0.elapsed() > Duration::from_secs(300) {
                break r;
            }
        };
        assert_eq!(r["exact"], true, "{r}");
        let got: Vec<(String, f64)> = r["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["move"].as_str().unwrap().to_string(),
                    m["value"].as_f64().unwrap(),
                )
            })
            .collect();
        let want: Vec<(String, f64)> = expected
            .iter()
            .map(|m| (m.mv.to_string(), f64::from(m.value)))
            .collect();
        assert_eq!(got, want, "{position}");
        let best = expected.iter().map(|m| m.value).max().unwrap();
        assert_eq!(r["value"].as_f64().unwrap(), f64::from(best));
        for m in r["moves"].as_array().unwrap() {
            assert_eq!(m["best"], m["value"].as_f64().unwrap() == f64::from(best));
        }
        // The principal variation starts with a best move and replays.
        let pv: Vec<String> = serde_json::from_value(r["pv"].clone()).unwrap();
        assert!(!pv.is_empty());
        let first: Move = pv[0].parse().unwrap();
        assert!(expected.iter().any(|m| m.mv == first && m.value == best));
        ok(post(
            &server,
            "/api/line",
            &json!({"game": "kalah:pits=4,seeds=3", "start": position, "moves": pv}),
        ));
    }
    // Oware's solver takes small boards only: every value an estimate.
    let r = ok(post(
        &server,
        "/api/analyse",
        &json!({"game": "oware", "ms": 200}),
    ));
    assert_eq!(r["exact"], false);
    // The default estimator searches for the time it is given (a depth
    // would end in a few milliseconds and leave the rest unused).
    assert_eq!(r["estimator"], mancala_web::search::DEFAULT_ESTIMATOR);
    let ms = r["ms"].as_f64().unwrap();
    assert!(
        (120.0..400.0).contains(&ms),
        "an analysis of 200 ms took {ms} ms"
    );
    assert!(r["solver"].as_str().unwrap().contains("too large"));
    assert_eq!(r["moves"].as_array().unwrap().len(), 6);
    assert!(r["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["exact"] == false && m["value"].is_number()));
    // A small Oware board is the Oware solver's.
    let rules = mancala_core::OwareRules::new(3, 2).unwrap();
    let oware =
        mancala_solver::oware::OwareSolver::new(rules, &mancala_solver::SolverOptions::small())
            .unwrap();
    let want: Vec<Value> = oware
        .move_values(&rules.start(), 1, mancala_agents::StopCondition::NEVER)
        .unwrap()
        .iter()
        .map(|m| json!(f64::from(m.value)))
        .collect();
    let r = ok(post(
        &server,
        "/api/analyse",
        &json!({"game": "oware:pits=3,seeds=2"}),
    ));
    assert_eq!(r["exact"], true);
    let got: Vec<Value> = r["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["value"].clone())
        .collect();
    assert_eq!(got, want);
    // Estimates keep to the time asked: the solver's share, then the
    // estimator's (a deep search is cut, its deepest depth kept).
    let t0 = Instant::now();
    let r = ok(post(
        &server,
        "/api/analyse",
        &json!({"game": "congkak:rounds=many", "ms": 300, "agent": "minimax:depth=30"}),
    ));
    assert!(t0.elapsed() < Duration::from_secs(4), "{:?}", t0.elapsed());
    assert!(r["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["exact"] == false));
    refused(
        post(
            &server,
            "/api/analyse",
            &json!({"game": "kalah", "ms": 60000}),
        ),
        400,
        "at most 10000 ms",
    );
    refused(
        post(
            &server,
            "/api/analyse",
            &json!({"game": "kalah", "nodes": 1u64 << 40}),
        ),
        400,
        "nodes",
    );
    refused(
        post(
            &server,
            "/api/analyse",
            &json!({"game": "kalah", "agent": "mcts:sims=100"}),
        ),
        400,
        "minimax",
    );
}

#[test]
fn bad_requests_get_json_errors_with_their_status() {
    let server = start(1, false);
    let big = format!(
        "{{\"game\": \"kalah\", \"position\": \"{}\"}}",
        "1".repeat(70_000)
    );
    refused(
        post_text(&server, "/api/new", &big, "application/json"),
        413,
        "65536 bytes",
    );
    refused(
        post_text(&server, "/api/new", "{\"game\":\"kalah\"}", "text/plain"),
        415,
        "application/json",
    );
    refused(
        post_text(&server, "/api/new", "{\"game\":", "application/json"),
        400,
        "bad request body",
    );
    refused(
        post(&server, "/api/new", &json!({"game": "kalah", "extra": 1})),
        400,
        "unknown field `extra`",
    );
    refused(get(&server, "/api/new"), 405, "/api/new");
    refused(get(&server, "/api/nothing"), 404, "/api/nothing");
    refused(get(&server, "/api/results"), 404, "--results");
    // A page elsewhere that rebinds its name to 127.0.0.1 is refused.
    for host in [
        "evil.example:8080",
        "[::1].evil.example",
        "[::1]evil.example:80",
        "127.0.0.1:80x",
        // A port that is not the server's, or not a port at all.
        "localhost:99999999999",
        "[::1]:1",
    ] {
        let r = raw(
            server.addr,
            format!("GET /api/info HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        );
        refused(r, 403, "localhost, 127.0.0.1");
    }
    let port = server.addr.port();
    for host in [
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "127.0.0.1".to_string(),
    ] {
        let r = raw(
            server.addr,
            format!("GET /api/info HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        );
        assert_eq!(r.status, 200, "{host}");
    }
    // Garbage is not HTTP; the server answers the next client.
    let _ = raw(server.addr, b"\x00\x01garbage\r\n\r\n");
    ok(get(&server, "/api/info"));
}

#[test]
fn results_are_listed_reported_filtered_and_replayed() {
    let server = start(1, true);
    let list = ok(get(&server, "/api/results"));
    let folders = list["folders"].as_array().unwrap();
    let paths: Vec<&str> = folders
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    // The link out of the root is not followed.
    assert_eq!(paths, ["runs/nested", "small"]);
    let small = &folders[1];
    assert_eq!(small["kind"], "tournament");
    assert_eq!(small["games"], 12);
    assert_eq!(small["annotated"], true);
    assert_eq!(small["annotated_games"], 12);

    let report = get(&server, "/api/results/report?path=small");
    assert_eq!(report.status, 200);
    assert!(report.body.contains("<svg") && report.body.contains("minimax-3"));
    assert!(report
        .header("content-security-policy")
        .unwrap()
        .contains("sandbox"));
    assert_eq!(
        get(&server, "/api/results/report?path=runs/nested").status,
        200
    );
    // In the page's theme when it asks: the dark palette always, or never.
    assert!(report.body.contains("prefers-color-scheme: dark"));
    let dark = get(&server, "/api/results/report?path=small&theme=dark");
    assert_eq!(dark.status, 200);
    assert!(!dark.body.contains("prefers-color-scheme") && dark.body.contains("@media all"));
    let light = get(&server, "/api/results/report?path=small&theme=light");
    assert!(!light.body.contains("prefers-color-scheme") && light.body.contains("@media not all"));
    let odd = get(&server, "/api/results/report?path=small&theme=sepia");
    assert_eq!(odd.status, 400);
    assert!(
        odd.body
            .contains("theme: &#39;sepia&#39; is neither light nor dark"),
        "{}",
        odd.body
    );

    let records: Vec<Value> = std::fs::read_to_string(fixture().join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let page = ok(get(&server, "/api/results/games?path=small"));
    assert_eq!(page["total"], 12);
    assert_eq!(page["matched"], 12);
    assert_eq!(page["agents"], json!(["greedy", "minimax-3", "random"]));
    let wins = records
        .iter()
        .filter(|r| {
            let seat = r["players"]
                .as_array()
                .unwrap()
                .iter()
                .position(|p| p == "greedy");
            seat.is_some_and(|s| r["winner"] == json!(s))
        })
        .count();
    let page = ok(get(
        &server,
        "/api/results/games?path=small&agent=greedy&result=win",
    ));
    assert_eq!(page["matched"], wins);
    assert!(page["games"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["players"].as_array().unwrap().contains(&json!("greedy"))));
    // The standings count every game of the folder, whatever the filters:
    // each agent's wins, draws and losses from the records themselves.
    let mut want: std::collections::BTreeMap<String, [u64; 3]> = Default::default();
    let mut seats = [0u64; 3];
    for r in &records {
        let winner = r["winner"].as_u64();
        seats[match winner {
            Some(0) => 0,
            None => 1,
            Some(_) => 2,
        }] += 1;
        for (seat, p) in r["players"].as_array().unwrap().iter().enumerate() {
            let line = want.entry(p.as_str().unwrap().to_string()).or_default();
            line[match winner {
                None => 1,
                Some(w) if w == seat as u64 => 0,
                Some(_) => 2,
            }] += 1;
        }
    }
    let standings = page["standings"].as_array().unwrap();
    assert_eq!(standings.len(), want.len());
    let share = |l: &Value| {
        (l["wins"].as_f64().unwrap() + l["draws"].as_f64().unwrap() / 2.0)
            / l["games"].as_f64().unwrap()
    };
    for pair in standings.windows(2) {
        assert!(
            share(&pair[0]) >= share(&pair[1]),
            "not best first: {standings:?}"
        );
    }
    for line in standings {
        let w = want[line["agent"].as_str().unwrap()];
        assert_eq!(
            [
                &line["wins"],
                &line["draws"],
                &line["losses"],
                &line["games"]
            ],
            [
                &json!(w[0]),
                &json!(w[1]),
                &json!(w[2]),
                &json!(w[0] + w[1] + w[2])
            ],
            "{line}"
        );
    }
    assert_eq!(page["seats"], json!(seats));
    let page = ok(get(
        &server,
        "/api/results/games?path=small&offset=10&limit=5",
    ));
    assert_eq!(page["games"].as_array().unwrap().len(), 2);
    refused(
        get(&server, "/api/results/games?path=small&result=maybe"),
        400,
        "win, loss or draw",
    );
    refused(
        get(&server, "/api/results/games?path=small&limit=100000"),
        400,
        "at most 500",
    );

    // Every game replays to its recorded scores, with its notes per ply.
    let notes: Vec<Value> = std::fs::read_to_string(fixture().join("annotations.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for record in &records {
        let id = record["id"].as_u64().unwrap();
        let game = ok(get(
            &server,
            &format!("/api/results/game?path=small&id={id}"),
        ));
        let plies = game["plies"].as_array().unwrap();
        assert_eq!(plies.len() as u64, record["plies"].as_u64().unwrap());
        let last = &plies.last().unwrap()["state"];
        assert_eq!(last["outcome"]["scores"], record["scores"]);
        let per_ply = game["moves"].as_array().unwrap();
        let note = notes.iter().find(|n| n["id"] == id).unwrap();
        for n in note["moves"].as_array().unwrap() {
            let ply = n["ply"].as_u64().unwrap() as usize;
            assert_eq!(per_ply[ply - 1]["note"], *n);
        }
        // The opening's move has no time; the others have the record's.
        assert!(per_ply[0]["ms"].is_null());
        let us = record["move_us"].as_array().unwrap();
        assert_eq!(
            per_ply[1]["ms"].as_f64().unwrap(),
            us[0].as_f64().unwrap() / 1e3
        );
    }
    refused(
        get(&server, "/api/results/game?path=small&id=99"),
        404,
        "no game 99",
    );
    refused(get(&server, "/api/results/game?path=small"), 400, "id");
    refused(get(&server, "/api/results/live-game?path=small"), 400, "id");
    refused(
        get(&server, "/api/results/live-game?path=small&id=x"),
        400,
        "id",
    );
    refused(get(&server, "/api/results/live"), 400, "path");
    refused(
        get(&server, "/api/results/live?path=small&more=1"),
        400,
        "more",
    );
}

#[test]
fn no_path_leads_out_of_the_results_root() {
    let server = start(1, true);
    for path in [
        "..",
        "../etc",
        "small/../..",
        "%2E%2E",
        "%2e%2e%2fetc",
        "/etc",
        "%2Fetc",
        "small%2F..%2F..",
    ] {
        let r = get(&server, &format!("/api/results/games?path={path}"));
        assert_eq!(r.status, 403, "{path}: {}", r.body);
        let r = get(&server, &format!("/api/results/report?path={path}"));
        assert_eq!(r.status, 403, "{path}: {}", r.body);
        let r = get(&server, &format!("/api/results/live?path={path}"));
        assert_eq!(r.status, 403, "{path}: {}", r.body);
        let r = get(&server, &format!("/api/results/live-game?path={path}&id=0"));
        assert_eq!(r.status, 403, "{path}: {}", r.body);
    }
    #[cfg(unix)]
    {
        refused(
            get(&server, "/api/results/live?path=escape"),
            403,
            "outside",
        );
        refused(
            get(&server, "/api/results/games?path=escape"),
            403,
            "outside",
        );
        refused(
            get(&server, "/api/results/game?path=escape&id=0"),
            403,
            "outside",
        );
        for path in ["linked", "device"] {
            refused(
                get(&server, &format!("/api/results/games?path={path}")),
                403,
                "not a plain file",
            );
            refused(
                get(&server, &format!("/api/results/report?path={path}")),
                403,
                "not a plain file",
            );
        }
    }
    refused(
        get(&server, "/api/results/games?path=missing"),
        404,
        "missing",
    );
    refused(
        get(&server, "/api/results/games?path=small/games.jsonl"),
        404,
        "not a folder",
    );
}

#[test]
fn concurrent_requests_all_get_their_answers() {
    let server = start(2, true);
    let addr = server.addr;
    let threads: Vec<_> = (0..8)
        .map(|k| {
            std::thread::spawn(move || {
                let body = json!({"game": "kalah", "agent": "minimax:depth=5", "seed": k});
                let text = body.to_string();
                let request = format!(
                    "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{text}",
                    text.len()
                );
                let agent = raw(addr, request.as_bytes());
                let list = raw(
                    addr,
                    b"GET /api/results/games?path=small HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                );
                (agent.status, agent.json()["move"].clone(), list.status)
            })
        })
        .collect();
    let answers: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    for (status, mv, list) in &answers {
        assert_eq!((*status, *list), (200, 200));
        // Depth 5 is deterministic whatever the seed.
        assert_eq!(mv, &answers[0].1);
    }
}

#[test]
fn a_search_stops_when_its_client_goes_away() {
    // One search thread: a search left running would hold it.
    let server = start(1, false);
    let body = json!({"game": "kalah:pits=6,seeds=6", "ms": 10000, "agent": "minimax:depth=30"})
        .to_string();
    let request = format!(
        "POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut s = TcpStream::connect(server.addr).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    drop(s);
    let t0 = Instant::now();
    let r = post(
        &server,
        "/api/agent",
        &json!({"game": "kalah", "agent": "greedy"}),
    );
    let waited = t0.elapsed();
    assert_eq!(r.status, 200, "{}", r.body);
    // Left running, the analysis would have held the thread for 10 s or
    // more, and this request would have been refused after 5.
    assert!(waited < Duration::from_secs(3), "waited {waited:?}");
}

#[test]
fn an_analysis_holds_its_thread_for_the_time_asked_and_no_longer() {
    let server = start(1, false);
    // Kalah(6,6) a few moves in: the solver settles no move with one node
    // and proves none within the time, so the estimator values them all.
    // It searches to a depth it cannot reach: the deadline alone ends it.
    let request = json!({
        "game": "kalah:pits=6,seeds=6",
        "position": "7,7,0,7,7,7/6,6,6,6,6,6/1,0/1",
        "ms": 3000,
        "nodes": 1,
        "agent": "minimax:depth=60",
    });
    let t0 = Instant::now();
    let r = ok(post(&server, "/api/analyse", &request));
    let took = t0.elapsed();
    assert_eq!(r["exact"], false, "{r}");
    assert!(
        r["moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["value"].is_number()),
        "{r}"
    );
    // The solver and the estimator share the 3 s (each used to have all
    // of it, one after the other: 6 s and more).
    assert!(took < Duration::from_millis(4500), "took {took:?}");
}

#[test]
fn an_analysis_estimator_is_admitted_as_an_agent_is() {
    let server = start(1, false);
    // A table of 4 GiB for a depth-1 search: refused before it is built,
    // as `/api/agent` refuses it.
    let hog = "minimax:depth=1,tt=4096";
    // The same table as the fallback of `perfect`, which plays on the
    // server too.
    let hidden = "perfect:time=1s,fallback=minimax:depth=1,tt=4096";
    for (endpoint, body) in [
        (
            "/api/analyse",
            json!({"game": "oware", "ms": 100, "agent": hog}),
        ),
        ("/api/agent", json!({"game": "oware", "agent": hog})),
        (
            "/api/agent",
            json!({"game": "kalah:pits=4,seeds=2", "agent": hidden}),
        ),
    ] {
        refused(
            post(&server, endpoint, &body),
            403,
            "minimax:tt= is at most 256 MiB",
        );
    }
    ok(post(
        &server,
        "/api/analyse",
        &json!({"game": "oware", "ms": 100, "agent": "minimax:depth=1,tt=16"}),
    ));
}

#[test]
fn a_busy_server_says_so() {
    let server = start(1, false);
    let addr = server.addr;
    let body = json!({"game": "kalah:pits=6,seeds=6", "agent": "minimax:depth=40"}).to_string();
    let hog = std::thread::spawn(move || {
        let request = format!(
            "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        raw(addr, request.as_bytes())
    });
    std::thread::sleep(Duration::from_millis(300));
    let r = post(
        &server,
        "/api/agent",
        &json!({"game": "kalah", "agent": "greedy"}),
    );
    refused(r, 503, "busy");
    // The hog's search was cut by the server's limit of 10 s, with a move.
    let hog = hog.join().unwrap();
    assert_eq!(hog.status, 200, "{}", hog.body);
    assert_eq!(hog.json()["cut"], true);
}

#[test]
fn connections_that_send_nothing_are_closed_and_hold_back_nobody_for_long() {
    let options = ServeOptions {
        threads: 1,
        max_connections: 4,
        header_timeout: Duration::from_millis(500),
        ..ServeOptions::default()
    };
    let server = start_with(options, None);
    // Every connection the server allows, each holding a request whose
    // headers never end, and one more that sends nothing at all.
    let mut stalled: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = TcpStream::connect(server.addr).unwrap();
            s.write_all(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                .unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    stalled.push(TcpStream::connect(server.addr).unwrap());
    // A well-behaved client waits for a slot (the header deadline frees
    // them all) rather than forever.
    let t0 = Instant::now();
    let r = get(&server, "/api/info");
    let waited = t0.elapsed();
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(waited < Duration::from_secs(5), "waited {waited:?}");
    assert!(
        waited >= Duration::from_millis(300),
        "waited only {waited:?}"
    );
    // Each stalled connection was closed by the server.
    for mut s in stalled {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut bytes = Vec::new();
        let closed = s.read_to_end(&mut bytes);
        assert!(
            closed.is_ok()
                || matches!(
                    closed.as_ref().map_err(|e| e.kind()),
                    Err(std::io::ErrorKind::ConnectionReset)
                ),
            "a stalled connection stayed open: {closed:?}"
        );
    }
}

#[test]
fn stopping_the_server_stops_its_searches_instead_of_waiting_for_them() {
    let server = start(1, false);
    let addr = server.addr;
    // A search the server's limit would end only after 10 s.
    let body = json!({"game": "kalah:pits=6,seeds=6", "agent": "minimax:depth=40"}).to_string();
    let client = std::thread::spawn(move || {
        let request = format!(
            "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut bytes = Vec::new();
        let _ = s.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    });
    std::thread::sleep(Duration::from_millis(500));
    let t0 = Instant::now();
    drop(server);
    let stopped = t0.elapsed();
    assert!(
        stopped < Duration::from_secs(3),
        "stopping took {stopped:?}"
    );
    // The client had the move found so far, or heard that its search was
    // stopped, or saw the connection close; in no case did it wait for the
    // search's own end.
    let reply = client.join().unwrap();
    assert!(
        reply.is_empty() || reply.starts_with("HTTP/1.1 408") || reply.starts_with("HTTP/1.1 200"),
        "{reply}"
    );
}

#[test]
fn a_solver_still_being_built_gives_estimates_within_the_time_then_exact_values() {
    let server = start(1, false);
    // Late in a Kalah(6,4) game: its solver's endgame database values it
    // at once, once it is built, which takes longer than the 5 ms asked
    // (a 64 MiB table and 2^21 endgame positions), even in a release build.
    let request = json!({
        "game": "kalah:pits=6,seeds=4",
        "position": "1,0,0,0,0,1/0,0,1,0,0,1/20,24/0",
        "ms": 5,
    });
    let t0 = Instant::now();
    let first = ok(post(&server, "/api/analyse", &request));
    let took = t0.elapsed();
    assert_eq!(first["building"], true, "{first}");
    assert_eq!(first["exact"], false, "{first}");
    assert!(
        first["solver"].as_str().unwrap().contains("being built"),
        "{first}"
    );
    assert!(
        first["moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["value"].is_number()),
        "{first}"
    );
    // The solver's time and the estimator's, and no more.
    assert!(took < Duration::from_secs(2), "took {took:?}");
    let t0 = Instant::now();
    let last = loop {
        let r = ok(post(&server, "/api/analyse", &request));
        if r["building"] == false {
            break r;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(300),
            "the build never ended"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(last["exact"], true, "{last}");
    assert!(last["solver"].is_null(), "{last}");
    // The estimates were the same moves, now valued exactly.
    let moves = |r: &Value| -> Vec<Value> {
        r["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].clone())
            .collect()
    };
    assert_eq!(moves(&first), moves(&last));
}

#[test]
fn a_log_in_finishing_order_with_a_torn_last_line_is_listed_in_id_order() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("shuffled");
    std::fs::create_dir(&dir).unwrap();
    let text = std::fs::read_to_string(fixture().join("games.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.reverse();
    // Half a line, as a run killed while writing leaves.
    let torn = &lines[0][..lines[0].len() / 2];
    std::fs::write(
        dir.join("games.jsonl"),
        format!("{}\n{torn}", lines.join("\n")),
    )
    .unwrap();
    std::fs::copy(
        fixture().join("annotations.jsonl"),
        dir.join("annotations.jsonl"),
    )
    .unwrap();
    let server = serving(root);
    let mut ids: Vec<u64> = lines
        .iter()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_u64()
                .unwrap()
        })
        .collect();
    ids.sort_unstable();
    let page = ok(get(
        &server,
        "/api/results/games?path=shuffled&offset=3&limit=4",
    ));
    assert_eq!(page["total"], 12);
    let got: Vec<u64> = page["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_u64().unwrap())
        .collect();
    assert_eq!(got, ids[3..7]);
    // Each listed game has its blunders from the annotations.
    assert!(page["games"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["blunders"].is_array()));
    let last = ids[ids.len() - 1];
    let game = ok(get(
        &server,
        &format!("/api/results/game?path=shuffled&id={last}"),
    ));
    assert_eq!(game["record"]["id"], last);
    assert_eq!(game["annotated"], true);
    // A damaged line that is not the last is an error naming the line.
    let damaged = server
        ._root
        .as_ref()
        .unwrap()
        .path()
        .join("shuffled/games.jsonl");
    std::fs::write(&damaged, format!("{}\n{torn}\n{}\n", lines[0], lines[1])).unwrap();
    refused(
        get(&server, "/api/results/games?path=shuffled"),
        422,
        "games.jsonl line 2",
    );
}

/// A server over `root`, with one search thread.
fn serving(root: tempfile::TempDir) -> Server {
    let options = ServeOptions {
        results: Some(root.path().to_path_buf()),
        threads: 1,
        ..ServeOptions::default()
    };
    start_with(options, Some(root))
}

#[test]
fn a_line_past_the_cap_is_refused_and_the_listing_counts_without_holding_lines() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("huge");
    std::fs::create_dir(&dir).unwrap();
    let text = std::fs::read_to_string(fixture().join("games.jsonl")).unwrap();
    let first = text.lines().next().unwrap();
    // A record padded past 8 MiB (JSON allows the spaces), then a game.
    let padded = format!("{} {}", " ".repeat(9 << 20), first);
    std::fs::write(dir.join("games.jsonl"), format!("{padded}\n{first}\n")).unwrap();
    let server = serving(root);
    let list = ok(get(&server, "/api/results"));
    assert_eq!(list["truncated"], false, "{list}");
    assert_eq!(list["folders"][0]["games"], 2, "{list}");
    refused(
        get(&server, "/api/results/games?path=huge"),
        422,
        "games.jsonl line 1 is longer than 8 MiB",
    );
    // As the last line, unfinished, it is a torn line: left out.
    let log = server
        ._root
        .as_ref()
        .unwrap()
        .path()
        .join("huge/games.jsonl");
    std::fs::write(&log, format!("{first}\n{padded}")).unwrap();
    let page = ok(get(&server, "/api/results/games?path=huge"));
    assert_eq!(page["total"], 1, "{page}");
}

#[cfg(unix)]
#[test]
fn a_link_out_anywhere_under_a_folder_refuses_it() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("state.json"), "{\"secret\": 1}").unwrap();
    let root = tempfile::tempdir().unwrap();
    let training = |name: &str| {
        let dir = root.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("log.csv"), "generation\n").unwrap();
        dir
    };
    // The checkpoint folder itself is a link out.
    let linked_folder = training("linked-folder");
    std::os::unix::fs::symlink(outside.path(), linked_folder.join("checkpoint")).unwrap();
    // The checkpoint folder is real; its state is a link out.
    let linked_file = training("linked-file");
    std::fs::create_dir(linked_file.join("checkpoint")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("state.json"),
        linked_file.join("checkpoint/state.json"),
    )
    .unwrap();
    // Deeper still, and through a link to a folder inside the root.
    let deep = training("deep");
    std::fs::create_dir_all(deep.join("a/b")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", deep.join("a/b/zero")).unwrap();
    let via = training("via");
    std::os::unix::fs::symlink(deep.join("a"), via.join("checkpoint")).unwrap();
    // A link to a file inside the root is read through.
    let fine = training("fine");
    std::fs::create_dir(fine.join("checkpoint")).unwrap();
    std::fs::write(root.path().join("state.json"), "{}").unwrap();
    std::os::unix::fs::symlink(
        root.path().join("state.json"),
        fine.join("checkpoint/state.json"),
    )
    .unwrap();
    let server = serving(root);
    for (path, entry) in [
        ("linked-folder", "checkpoint"),
        ("linked-file", "checkpoint/state.json"),
        ("deep", "a/b/zero"),
        ("via", "checkpoint/b/zero"),
    ] {
        for endpoint in ["report", "games"] {
            let r = get(&server, &format!("/api/results/{endpoint}?path={path}"));
            refused(
                r,
                403,
                &format!("holds `{entry}`, which is not a plain file"),
            );
        }
    }
    let r = get(&server, "/api/results/report?path=fine");
    assert_ne!(r.status, 403, "{}", r.body);
    assert!(!r.body.contains("secret"));
}

#[test]
fn a_listing_is_breadth_first_and_says_when_it_stops() {
    let root = tempfile::tempdir().unwrap();
    let results_folder = |dir: &Path| {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("games.jsonl"), "").unwrap();
    };
    // One folder with more results subfolders than a listing holds, and
    // 13 more beside it: every top-level one must be listed.
    for k in 0..1100 {
        results_folder(&root.path().join(format!("a-many/{k:04}")));
    }
    for k in 0..13 {
        results_folder(&root.path().join(format!("top-{k:02}")));
    }
    results_folder(&root.path().join("a-many"));
    let server = serving(root);
    let list = ok(get(&server, "/api/results"));
    assert_eq!(list["truncated"], true);
    let paths: Vec<&str> = list["folders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 1000);
    for k in 0..13 {
        let top = format!("top-{k:02}");
        assert!(paths.contains(&top.as_str()), "{top} missing");
    }
    assert!(paths.contains(&"a-many"));
    // A root whose folders all fit is not cut.
    let small = start(1, true);
    assert_eq!(ok(get(&small, "/api/results"))["truncated"], false);
}

#[test]
fn a_report_that_cannot_be_made_says_why_in_its_frame_and_names_no_server_path() {
    let root = results_root();
    // A tournament still running: its games so far, no summary yet.
    let running = root.path().join("running");
    std::fs::create_dir(&running).unwrap();
    for entry in std::fs::read_dir(fixture()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() != "summary.json" {
            std::fs::copy(entry.path(), running.join(entry.file_name())).unwrap();
        }
    }
    let full = root.path().display().to_string();
    let server = serving(root);
    let r = get(&server, "/api/results/report?path=running");
    assert_eq!(r.status, 422, "{}", r.body);
    // Framed as a report is (the app's page refuses to be framed itself).
    let policy = r.header("content-security-policy").unwrap_or_default();
    assert!(policy.contains("frame-ancestors 'self'"), "{policy}");
    assert!(r
        .header("content-type")
        .unwrap_or_default()
        .starts_with("text/html"));
    let why = r.error();
    assert!(why.contains("running"), "{why}");
    assert!(
        !r.body.contains(&full),
        "the server's path shown: {}",
        r.body
    );
    // Other refusals of the report come framed too.
    let r = get(&server, "/api/results/report?path=missing");
    assert_eq!(r.status, 404);
    assert!(r.body.starts_with("<!doctype html>") && r.error().contains("missing"));
}

#[test]
fn a_folder_annotated_in_part_says_how_many_games_were_judged() {
    let root = results_root();
    // An annotate stopped after 5 of the 12 games.
    let notes = root.path().join("small/annotations.jsonl");
    let text = std::fs::read_to_string(&notes).unwrap();
    let first: Vec<&str> = text.lines().take(5).collect();
    std::fs::write(&notes, first.join("\n") + "\n").unwrap();
    let server = serving(root);
    let list = ok(get(&server, "/api/results"));
    let small = list["folders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "small")
        .unwrap()
        .clone();
    assert_eq!(small["games"], 12);
    assert_eq!(small["annotated"], true);
    assert_eq!(small["annotated_games"], 5);
}

/// A run's games in progress (the arena's live files) are listed and
/// replayed; one no longer in progress is 404, and a stale file is left
/// out.
#[test]
fn games_in_progress_are_listed_and_replayed() {
    let root = results_root();
    let first: Value = serde_json::from_str(
        std::fs::read_to_string(root.path().join("small/games.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let moves: Vec<&str> = first["moves"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .take(5)
        .collect();
    let live = mancala_arena::live::LiveRecord {
        id: 4242,
        game: first["game"].as_str().unwrap().to_string(),
        players: ["a".into(), "b".into()],
        agents: ["random".into(), "greedy".into()],
        start: None,
        moves: moves.join(" "),
        plies: moves.len() as u32,
    };
    let dir = root
        .path()
        .join("small")
        .join(mancala_arena::live::LIVE_DIR);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("0.json"), serde_json::to_vec(&live).unwrap()).unwrap();
    let stale = mancala_arena::live::LiveRecord {
        id: 7,
        ..live.clone()
    };
    let old = dir.join("1.json");
    std::fs::write(&old, serde_json::to_vec(&stale).unwrap()).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - 2 * mancala_arena::live::LIVE_STALE)
        .unwrap();
    let options = ServeOptions {
        results: Some(root.path().to_path_buf()),
        ..ServeOptions::default()
    };
    let server = start_with(options, Some(root));

    let list = ok(get(&server, "/api/results/live?path=small"));
    assert_eq!(
        list["games"],
        json!([{"id": 4242, "players": ["a", "b"], "agents": ["random", "greedy"], "plies": 5}])
    );
    let game = ok(get(&server, "/api/results/live-game?path=small&id=4242"));
    assert_eq!(game["live"], true);
    assert_eq!(game["plies"].as_array().unwrap().len(), 5);
    let played: Vec<&str> = game["plies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["move"].as_str().unwrap())
        .collect();
    assert_eq!(played, moves);
    refused(
        get(&server, "/api/results/live-game?path=small&id=7"),
        404,
        "not in progress",
    );
    // A folder with no game in progress lists none; a path out is refused.
    assert_eq!(
        ok(get(&server, "/api/results/live?path=runs/nested"))["games"],
        json!([])
    );
    assert_eq!(get(&server, "/api/results/live?path=../x").status, 403);
}
