//! What the web server adds to an agent's move: the same move chosen in
//! process and through `POST /api/agent` on a kept-alive loopback
//! connection (as a browser sends it), in the same run. The difference is
//! the server's cost: JSON both ways, parsing the position, building the
//! agent, the blocking thread and the socket.
#![allow(missing_docs, clippy::print_stdout)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

use criterion::{criterion_group, criterion_main, Criterion};
use mancala_core::{Game, KalahRules, Move};
use mancala_registry::AnyAgentSpec;
use mancala_web::{App, ServeOptions};

/// A position twelve plies into a standard game.
fn position(rules: &KalahRules) -> String {
    let mut state = rules.start();
    for k in 0..12 {
        let legal: Vec<Move> = rules.legal_moves(&state).into_iter().collect();
        rules.play_unchecked(&mut state, legal[k % legal.len()]);
    }
    rules.setup(&state).to_string()
}

/// One request on a kept-alive connection; returns the body.
fn request(stream: &mut BufReader<TcpStream>, body: &str) -> String {
    let head = format!(
        "POST /api/agent HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let s = stream.get_mut();
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body.as_bytes()).unwrap();
    let mut length = 0;
    let mut line = String::new();
    loop {
        line.clear();
        stream.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap();
        }
    }
    let mut out = vec![0; length];
    stream.read_exact(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let app = App::new(ServeOptions::default()).unwrap();
    runtime.spawn(mancala_web::serve(listener, app, std::future::pending()));
    let mut stream = BufReader::new(TcpStream::connect(addr).unwrap());
    stream.get_ref().set_nodelay(true).unwrap();

    let rules = KalahRules::new(6, 4).unwrap();
    let text = position(&rules);
    let state = rules.parse_position(&text).unwrap();
    let mut group = c.benchmark_group("agent_move");
    for spec in ["greedy", "minimax:depth=6"] {
        let agent = AnyAgentSpec::parse(spec).unwrap();
        group.bench_function(format!("in_process/{spec}"), |b| {
            b.iter(|| {
                let mut a = agent.build(&rules);
                a.new_game(0);
                a.choose(&rules, &state).unwrap()
            })
        });
        let body =
            serde_json::json!({"game": "kalah", "position": text, "agent": spec}).to_string();
        let answer = request(&mut stream, &body);
        assert!(answer.contains("\"move\""), "{answer}");
        group.bench_function(format!("server/{spec}"), |b| {
            b.iter(|| request(&mut stream, &body))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
