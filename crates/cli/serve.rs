//! `mancala serve`: the web app (docs/web.md) on a local port.

use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use mancala_web::{App, ServeOptions};

use crate::bad_input;

/// Arguments of `mancala serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on. Anything but loopback lets every machine
    /// that reaches it use this one's CPU: the server warns.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// A name, besides loopback ones and this machine's addresses, that
    /// browsers may use to reach the server (repeat it for several): a
    /// request naming any other host is refused, so that a web page cannot
    /// point a name of its own at this server and read it.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
    /// A folder of results (tournaments, training runs, first-move
    /// analyses) for the Results view; nothing outside it is read.
    #[arg(long, value_name = "DIR")]
    results: Option<PathBuf>,
    /// Searches (agent moves, analyses) that may run at once; default: one per core.
    #[arg(long)]
    threads: Option<usize>,
    /// Open the app in the default browser.
    #[arg(long)]
    open: bool,
    /// An engine the page may pick by NAME (repeat it for several):
    /// COMMAND is its command line (split at spaces; it thinks 1 s a move)
    /// or a whole `engine:` spec. The page can start no other program.
    #[arg(long = "engine", value_name = "NAME=COMMAND")]
    engines: Vec<String>,
}

/// The server's options from the arguments, each checked.
fn serve_options(args: &ServeArgs) -> Result<ServeOptions> {
    let mut options = ServeOptions {
        results: args.results.clone(),
        allowed_hosts: args.allow_hosts.clone(),
        ..ServeOptions::default()
    };
    if let Some(bad) = args
        .allow_hosts
        .iter()
        .find(|h| h.trim().is_empty() || h.contains([':', '/', ' ', '[', ']']))
    {
        return Err(bad_input(format!(
            "--allow-host '{bad}': give a host name alone, without port or scheme (board.lan)"
        )));
    }
    if let Some(threads) = args.threads {
        if threads == 0 {
            return Err(bad_input("--threads: at least 1"));
        }
        options.threads = threads;
    }
    for entry in &args.engines {
        let Some((name, command)) = entry.split_once('=') else {
            return Err(bad_input(format!(
                "--engine '{entry}': give NAME=COMMAND, e.g. mybot=python3 bot.py"
            )));
        };
        options
            .engines
            .push((name.trim().to_string(), command.to_string()));
    }
    Ok(options)
}

/// `mancala serve`.
pub fn run(args: &ServeArgs) -> Result<()> {
    let options = serve_options(args)?;
    let app = App::new(options).map_err(bad_input)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?;
    let served = runtime.block_on(async {
        let addr = SocketAddr::new(args.host, args.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| bad_input(format!("cannot listen on {addr}: {e}")))?;
        let local = listener.local_addr()?;
        if !args.host.is_loopback() {
            let results = match app.results_root() {
                Some(root) => format!(", and read every results folder under {}", root.display()),
                None => String::new(),
            };
            eprintln!(
                "warning: listening on {} — every machine that reaches this address can use the \
                 app (play and analyse, on this machine's CPU){results}. There is no login. \
                 Browsers must name the server by this machine's address or a name given with \
                 --allow-host.",
                args.host
            );
        }
        let shown = if local.ip().is_unspecified() {
            SocketAddr::new(IpAddr::from([127, 0, 0, 1]), local.port())
        } else {
            local
        };
        let url = format!("http://{shown}/");
        println!("listening on {url}");
        if let Some(root) = app.results_root() {
            println!("results from {}", root.display());
        }
        println!("press Ctrl-C to stop");
        std::io::stdout().flush().ok();
        if args.open {
            open_browser(&url);
        }
        mancala_web::serve(listener, app, async {
            let _ = tokio::signal::ctrl_c().await;
            eprintln!(
                "stopping: searches cancelled, finishing requests (Ctrl-C again to quit now)"
            );
            tokio::spawn(async {
                let _ = tokio::signal::ctrl_c().await;
                eprintln!("quitting now");
                std::process::exit(130);
            });
        })
        .await
        .context("the server stopped")
    });
    // A search thread that has not yet seen its cancel flag is not waited
    // for (the runtime's drop would wait for every blocking thread).
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    served
}

/// Asks the desktop to open `url`; a failure only means the user opens it.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        eprintln!("could not open a browser ({opener}: {e}); open {url}");
    }
}
