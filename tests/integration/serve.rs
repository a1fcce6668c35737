//! `mancala serve`: starts, answers, refuses bad flags, warns off loopback
//! and stops on Ctrl-C. The API itself is tested in crates/web/tests.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};

use crate::util::{command, mancala, path, refused};

/// A running server and the address it printed.
struct Serving {
    child: Child,
    addr: String,
    stderr: std::process::ChildStderr,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(args: &[&str]) -> Serving {
    let mut child = command()
        .arg("serve")
        .args(["--port", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mancala serve");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|a| a.strip_suffix('/'))
        .unwrap_or_else(|| panic!("first line: {line:?}"))
        .to_string();
    // The rest of standard output is drained, so that the server never
    // blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = String::new();
        let _ = out.read_to_string(&mut sink);
    });
    let stderr = child.stderr.take().unwrap();
    Serving {
        child,
        addr,
        stderr,
    }
}

fn get(addr: &str, target: &str, host: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    reply
}

#[test]
fn serve_prints_its_address_answers_and_stops_on_ctrl_c() {
    let root = tempfile::tempdir().unwrap();
    let mut server = serve(&["--results", path(root.path()), "--threads", "1"]);
    let page = get(&server.addr, "/", "127.0.0.1");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("text/html"));
    let info = get(&server.addr, "/api/info", "127.0.0.1");
    assert!(
        info.contains("\"searches\":1") && info.contains("\"results\":true"),
        "{info}"
    );
    // Ctrl-C with a search of 10 s in progress, and a connection whose
    // request never ends: neither holds the server up.
    let addr = server.addr.clone();
    let search = std::thread::spawn(move || {
        let body = r#"{"game":"kalah:pits=6,seeds=6","ms":10000,"agent":"minimax:depth=30"}"#;
        let mut s = TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "POST /api/analyse HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reply = String::new();
        let _ = s.read_to_string(&mut reply);
    });
    let mut stalled = TcpStream::connect(&server.addr).unwrap();
    stalled.write_all(b"GET / HTTP/1.1\r\n").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let t0 = std::time::Instant::now();
    let status = std::process::Command::new("kill")
        .args(["-INT", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = server.child.wait().unwrap();
    let took = t0.elapsed();
    assert!(code.success(), "{code:?}");
    assert!(
        took < std::time::Duration::from_secs(5),
        "Ctrl-C took {took:?}"
    );
    search.join().unwrap();
    let mut err = String::new();
    server.stderr.read_to_string(&mut err).unwrap();
    assert!(!err.contains("warning"), "{err}");
    assert!(err.contains("stopping"), "{err}");
}

#[test]
fn serve_off_loopback_warns_and_answers_only_its_own_names() {
    let mut server = serve(&["--host", "0.0.0.0", "--allow-host", "board.lan"]);
    let port = server.addr.rsplit(':').next().unwrap().to_string();
    let at = format!("127.0.0.1:{port}");
    // A page that points a name of its own at this machine is refused,
    // whatever address the server listens on.
    let reply = get(&at, "/api/info", &format!("example.org:{port}"));
    assert!(reply.starts_with("HTTP/1.1 403"), "{reply}");
    assert!(reply.contains("--allow-host"), "{reply}");
    for host in [
        format!("127.0.0.1:{port}"),
        format!("board.lan:{port}"),
        format!("localhost:{port}"),
    ] {
        let reply = get(&at, "/api/info", &host);
        assert!(reply.starts_with("HTTP/1.1 200"), "{host}: {reply}");
    }
    // The port must be the server's.
    let reply = get(&at, "/api/info", "localhost:99999999999");
    assert!(reply.starts_with("HTTP/1.1 403"), "{reply}");
    let mut first = String::new();
    BufReader::new(&mut server.stderr)
        .read_line(&mut first)
        .unwrap();
    assert!(
        first.starts_with("warning: listening on 0.0.0.0"),
        "{first}"
    );
    assert!(first.contains("--allow-host"), "{first}");
}

#[test]
fn serve_refuses_bad_flags_with_a_clear_message() {
    let e = refused(&mancala(&[
        "serve",
        "--port",
        "0",
        "--results",
        "no/such/folder",
    ]));
    assert!(e.contains("--results no/such/folder"), "{e}");
    let e = refused(&mancala(&[
        "serve",
        "--port",
        "0",
        "--allow-host",
        "a.lan:80",
    ]));
    assert!(e.contains("--allow-host 'a.lan:80'"), "{e}");
    let e = refused(&mancala(&["serve", "--port", "0", "--threads", "0"]));
    assert!(e.contains("--threads"), "{e}");
    let e = refused(&mancala(&["serve", "--port", "0", "--engine", "mybot"]));
    assert!(e.contains("--engine 'mybot': give NAME=COMMAND"), "{e}");
    let e = refused(&mancala(&[
        "serve",
        "--port",
        "0",
        "--engine",
        "mybot=/no/such/bot",
    ]));
    assert!(
        e.contains("--engine mybot=/no/such/bot") && e.contains("/no/such/bot"),
        "{e}"
    );
    let taken = serve(&[]);
    let port = taken.addr.rsplit(':').next().unwrap().to_string();
    let e = refused(&mancala(&["serve", "--port", &port]));
    assert!(e.contains("cannot listen on 127.0.0.1:"), "{e}");
}
