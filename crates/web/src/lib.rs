//! `mancala serve`: a local web app to play any game of the toolkit
//! against any built-in agent, analyse positions with the solver, and
//! replay the games of results folders, over the JSON API of `docs/web.md`.
//!
//! The server keeps no games: every request carries its position (or line
//! of moves), so a request is a pure function of its body, and the only
//! state is the search threads' permits and the solvers' tables. The page
//! itself (`assets/`) is compiled in.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let app = mancala_web::App::new(mancala_web::ServeOptions::default())?;
//! mancala_web::serve(listener, app, std::future::pending()).await
//! # }
//! ```

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use mancala_agents::AgentSpec;
use mancala_core::{with_game, GameSpec};
use mancala_registry::AnyAgentSpec;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::json;
use thiserror::Error;

pub mod host;
pub mod results;
pub mod search;
pub mod server;
pub mod sowing;
pub mod views;

use host::HostCheck;
use results::Root;
use search::{AnalysisRequest, CancelOnDrop, Searches};
use views::MAX_PLIES;

pub use server::serve;

/// Largest request body.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Reads of results folders that may run at once. Each streams a file
/// that can be hundreds of MB; more would compete for the disk and the
/// CPU with the searches, so further requests wait (then get 503).
pub const MAX_RESULT_READS: usize = 2;
/// Longest a client may take to send a request's body once its headers
/// have come (the headers have [`server::HEADER_TIMEOUT`]).
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// One of the page's files: its name in `assets/`, its compiled-in text
/// and its content type.
struct Asset {
    name: &'static str,
    body: &'static str,
    kind: &'static str,
}

/// The page, its style and its script, compiled in.
const INDEX_HTML: Asset = Asset {
    name: "index.html",
    body: include_str!("../assets/index.html"),
    kind: "text/html; charset=utf-8",
};
const APP_CSS: Asset = Asset {
    name: "app.css",
    body: include_str!("../assets/app.css"),
    kind: "text/css; charset=utf-8",
};
const APP_JS: Asset = Asset {
    name: "app.js",
    body: include_str!("../assets/app.js"),
    kind: "text/javascript; charset=utf-8",
};

/// What the page may load: its own script and style, nothing else (no
/// network, no inline script); frames only from the server (the reports).
const PAGE_POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
     script-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; \
     form-action 'none'";
/// A report is a page of its own, with inline style and SVG and no script,
/// shown in the app's frame.
const REPORT_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; \
     frame-ancestors 'self'; sandbox";

/// A request refused, with its status and a message for the user.
#[derive(Debug, Error)]
pub enum ApiError {
    /// Malformed or out-of-range input (400).
    #[error("{0}")]
    BadRequest(String),
    /// Something no request may make the server do (403).
    #[error("{0}")]
    Forbidden(String),
    /// No such folder, game or endpoint (404).
    #[error("{0}")]
    NotFound(String),
    /// A method the endpoint does not take (405).
    #[error("{0}")]
    MethodNotAllowed(String),
    /// A body over [`MAX_BODY_BYTES`] (413).
    #[error("{0}")]
    TooLarge(String),
    /// A body that is not JSON (415).
    #[error("{0}")]
    UnsupportedMedia(String),
    /// Well-formed but impossible: an illegal move or position (422).
    #[error("{0}")]
    Unprocessable(String),
    /// Every search thread busy (503).
    #[error("{0}")]
    Busy(String),
    /// The client went away, or the server is stopping; nobody reads
    /// the answer.
    #[error("the client went away")]
    Gone,
    /// A body that did not arrive in time (408).
    #[error("{0}")]
    Timeout(String),
    /// A fault of the server (500).
    #[error("{0}")]
    Internal(String),
}

impl ApiError {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMedia(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Gone | ApiError::Timeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status(), Json(json!({ "error": self.to_string() }))).into_response()
    }
}

/// How the server is set up.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The results root the Results view lists (`None`: no Results view).
    pub results: Option<PathBuf>,
    /// Searches (agent moves, analyses) that may run at once.
    pub threads: usize,
    /// Names, besides loopback ones and the server's addresses, that
    /// requests may give as their `Host` (see [`host`]): `--allow-host`.
    pub allowed_hosts: Vec<String>,
    /// Connections open at once; more wait in the listener's backlog.
    pub max_connections: usize,
    /// Longest a client may take to send a request's headers, on a new
    /// connection or a kept-alive one between requests; past it the
    /// connection is closed.
    pub header_timeout: Duration,
    /// Engines the operator offers by name (`--engine NAME=COMMAND`): a
    /// request may name one as its agent, and can start no other program.
    /// Each is a command line (split at spaces) or a whole `engine:` spec.
    pub engines: Vec<(String, String)>,
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            results: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            allowed_hosts: Vec::new(),
            max_connections: server::MAX_CONNECTIONS,
            header_timeout: server::HEADER_TIMEOUT,
            engines: Vec::new(),
        }
    }
}

/// The server's state, shared by every request.
pub struct App {
    root: Option<Root>,
    searches: Searches,
    /// Permits for reads of results folders.
    reads: Arc<tokio::sync::Semaphore>,
    allowed_hosts: Vec<String>,
    max_connections: usize,
    header_timeout: Duration,
    /// The operator's engines by name.
    engines: search::OfferedEngines,
}

impl App {
    /// The app for `options`.
    ///
    /// # Errors
    /// A results root that is not a folder; an offered engine whose name
    /// or spec is bad, or whose program is not there.
    pub fn new(options: ServeOptions) -> std::io::Result<Arc<App>> {
        let engines = search::OfferedEngines::new(&options.engines)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        let root = match &options.results {
            Some(path) => Some(Root::new(path).map_err(|e| {
                std::io::Error::new(e.kind(), format!("--results {}: {e}", path.display()))
            })?),
            None => None,
        };
        Ok(Arc::new(App {
            root,
            searches: Searches::new(options.threads),
            reads: Arc::new(tokio::sync::Semaphore::new(MAX_RESULT_READS)),
            allowed_hosts: options.allowed_hosts,
            max_connections: options.max_connections.max(1),
            header_timeout: options.header_timeout,
            engines,
        }))
    }

    /// The results root, if one is served.
    pub fn results_root(&self) -> Option<&std::path::Path> {
        self.root.as_ref().map(Root::path)
    }

    /// Stops every search in progress and refuses new ones: the server is
    /// stopping. [`serve`] calls it when its shutdown comes.
    pub fn stop(&self) {
        self.searches.stop();
    }

    fn root(&self) -> Result<&Root, ApiError> {
        self.root.as_ref().ok_or_else(|| {
            ApiError::NotFound("this server serves no results (start it with --results DIR)".into())
        })
    }
}

/// The app's routes, answering requests whose `Host` passes `hosts`.
pub fn router(app: Arc<App>, hosts: HostCheck) -> Router {
    Router::new()
        .route("/", get(|| async { page(&INDEX_HTML) }))
        .route("/app.css", get(|| async { page(&APP_CSS) }))
        .route("/app.js", get(|| async { page(&APP_JS) }))
        .route("/api/info", get(info))
        .route("/api/new", post(new_game))
        .route("/api/play", post(play))
        .route("/api/line", post(line))
        .route("/api/agent", post(agent))
        .route("/api/analyse", post(analyse))
        .route("/api/results", get(results_list))
        .route("/api/results/report", get(results_report))
        .route("/api/results/games", get(results_games))
        .route("/api/results/game", get(results_game))
        .route("/api/results/live", get(results_live))
        .route("/api/results/live-game", get(results_live_game))
        .fallback(|uri: Uri| async move {
            ApiError::NotFound(format!("no such page or endpoint: {}", uri.path()))
        })
        .method_not_allowed_fallback(|uri: Uri| async move {
            ApiError::MethodNotAllowed(format!("{} does not take this method", uri.path()))
        })
        // Bodies are refused past the limit by the body extractor (413, as JSON).
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(Arc::new(hosts), guard))
        .with_state(app)
}

/// Headers every answer carries, and the host check.
async fn guard(State(hosts): State<Arc<HostCheck>>, request: Request, next: Next) -> Response {
    if !named_host_is_ours(&hosts, request.headers()) {
        return ApiError::Forbidden(format!(
            "this server answers only requests that name it as one of: {} (start it with \
             --allow-host NAME to add a name)",
            hosts.describe()
        ))
        .into_response();
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers
        .entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(PAGE_POLICY));
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

/// Whether the request's one Host header passes `hosts` (a request with
/// none, as in HTTP/1.0, comes from no browser and passes).
fn named_host_is_ours(hosts: &HostCheck, headers: &HeaderMap) -> bool {
    let mut all = headers.get_all(header::HOST).iter();
    match (all.next(), all.next()) {
        (None, _) => true,
        // Two Host headers make the request ambiguous: refused.
        (Some(_), Some(_)) => false,
        (Some(host), None) => host.to_str().is_ok_and(|h| hosts.accepts(h)),
    }
}

/// The environment variable that, for work on the page, serves its three
/// files from a folder (read at each request) instead of the compiled-in
/// copies: `MANCALA_WEB_ASSETS=crates/web/assets mancala serve`. Only
/// these three names are read, whatever a request asks.
pub const ASSETS_VARIABLE: &str = "MANCALA_WEB_ASSETS";

/// One of the page's files: compiled in, or from [`ASSETS_VARIABLE`]'s folder.
fn page(asset: &Asset) -> Response {
    let body = std::env::var_os(ASSETS_VARIABLE)
        .and_then(|dir| std::fs::read_to_string(PathBuf::from(dir).join(asset.name)).ok())
        .map_or(
            std::borrow::Cow::Borrowed(asset.body),
            std::borrow::Cow::Owned,
        );
    (
        [
            (header::CONTENT_TYPE, asset.kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// A JSON body, with every refusal as an [`ApiError`]: not JSON (415), too
/// big (413), malformed or with unknown fields (400).
struct Body<T>(T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Body<T>, ApiError> {
        let json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(';')
                    .next()
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
            });
        if !json {
            return Err(ApiError::UnsupportedMedia(
                "send the request as JSON, with Content-Type: application/json".into(),
            ));
        }
        let read = tokio::time::timeout(BODY_TIMEOUT, Bytes::from_request(request, state));
        let bytes = read.await.map_err(|_| {
            ApiError::Timeout(format!(
                "the request body did not arrive within {} s",
                BODY_TIMEOUT.as_secs()
            ))
        })?;
        let bytes = bytes.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::TooLarge(format!(
                    "the request body is over the limit of {MAX_BODY_BYTES} bytes"
                ))
            } else {
                ApiError::BadRequest(format!("the request body could not be read: {e}"))
            }
        })?;
        serde_json::from_slice(&bytes)
            .map(Body)
            .map_err(|e| ApiError::BadRequest(format!("bad request body: {e}")))
    }
}

/// The query of `uri` as `T`.
fn query<T: DeserializeOwned>(uri: &Uri) -> Result<T, ApiError> {
    axum::extract::Query::<T>::try_from_uri(uri)
        .map(|q| q.0)
        .map_err(|e| ApiError::BadRequest(e.body_text()))
}

fn game_spec(text: &str) -> Result<GameSpec, ApiError> {
    text.parse()
        .map_err(|e| ApiError::BadRequest(format!("game `{text}`: {e}")))
}

/// Runs `work` on a blocking thread, holding one of the search permits;
/// its cancel flag is raised if the request is dropped first.
async fn search<T: Send + 'static>(
    app: &Arc<App>,
    work: impl FnOnce(&App, &AtomicBool) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = app.searches.permit().await?;
    let cancel = CancelOnDrop(Arc::default());
    let flag = Arc::clone(&cancel.0);
    app.searches.watch(&flag);
    let app = Arc::clone(app);
    tokio::task::spawn_blocking(move || {
        let _held = permit;
        work(&app, &flag)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("the search failed: {e}")))?
}

/// Runs `work`, a read of results folders, on a blocking thread, holding
/// one of the [`MAX_RESULT_READS`] permits.
async fn read_results<T: Send + 'static>(
    app: &App,
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = tokio::time::timeout(search::QUEUE_WAIT, Arc::clone(&app.reads).acquire_owned())
        .await
        .ok()
        .and_then(Result::ok)
        .ok_or_else(|| {
            ApiError::Busy(format!(
                "{MAX_RESULT_READS} reads of results are in progress; try again"
            ))
        })?;
    tokio::task::spawn_blocking(move || {
        let _held = permit;
        work()
    })
    .await
    .map_err(|e| ApiError::Internal(format!("the read failed: {e}")))?
}

async fn info(State(app): State<Arc<App>>) -> Json<serde_json::Value> {
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "games": mancala_core::spec::GAME_NAMES,
        "agents": [
            {"name": "random", "example": "random", "about": "a uniformly random legal move"},
            {"name": "greedy", "example": "greedy", "about": "the move that gains most seeds now"},
            {"name": "minimax", "example": "minimax:depth=6", "about": "alpha-beta search to a depth (depth=N) or for a time (time=500ms)"},
            {"name": "mcts", "example": "mcts:sims=1000", "about": "Monte Carlo tree search with random playouts"},
            {"name": "perfect", "example": "perfect:time=2s,fallback=minimax:depth=8", "about": "the solver's best move (Kalah, single-round Congkak), with a fallback when it runs out of time"},
        ],
        "limits": {
            "max_body_bytes": MAX_BODY_BYTES,
            "max_plies": MAX_PLIES,
            "max_agent_ms": search::MAX_AGENT_TIME.as_millis() as u64,
            "max_analysis_ms": search::MAX_ANALYSIS_TIME.as_millis() as u64,
            "searches": app.searches.threads(),
        },
        "results": app.root.is_some(),
        "engines": app.engines.names(),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewRequest {
    game: String,
    position: Option<String>,
}

async fn new_game(Body(r): Body<NewRequest>) -> Result<Json<serde_json::Value>, ApiError> {
    let spec = game_spec(&r.game)?;
    with_game!(&spec, game => {
        let state = views::position(game, r.position.as_deref())?;
        Ok(Json(json!({ "state": views::state_view(game, &state) })))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayRequest {
    game: String,
    position: Option<String>,
    /// The line played since `position`, which keeps its history.
    #[serde(default)]
    moves: Vec<String>,
    #[serde(rename = "move")]
    mv: String,
}

async fn play(Body(r): Body<PlayRequest>) -> Result<Json<serde_json::Value>, ApiError> {
    let spec = game_spec(&r.game)?;
    with_game!(&spec, game => {
        let mut state = views::reach(game, r.position.as_deref(), &r.moves)?;
        let ply = views::play(&spec, game, &mut state, &r.mv)?;
        Ok(Json(json!({ "ply": ply })))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineRequest {
    game: String,
    start: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
}

async fn line(Body(r): Body<LineRequest>) -> Result<Json<serde_json::Value>, ApiError> {
    let spec = game_spec(&r.game)?;
    with_game!(&spec, game => {
        let (start, plies) = views::line(&spec, game, r.start.as_deref(), &r.moves)?;
        Ok(Json(json!({ "start": start, "plies": plies })))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AgentRequest {
    game: String,
    position: Option<String>,
    /// The line played since `position`, which keeps its history.
    #[serde(default)]
    moves: Vec<String>,
    agent: String,
    seed: Option<u64>,
}

async fn agent(
    State(app): State<Arc<App>>,
    Body(r): Body<AgentRequest>,
) -> Result<Json<search::AgentMove>, ApiError> {
    let spec = game_spec(&r.game)?;
    let (agent, offered) = app.engines.parse_agent(&r.agent)?;
    with_game!(&spec, game => {
        let state = views::reach(game, r.position.as_deref(), &r.moves)?;
        if offered {
            agent.check(game).map_err(|e| ApiError::Unprocessable(e.to_string()))?;
        } else {
            app.searches.admit_agent(game, &agent)?;
        }
        let game = *game;
        let seed = r.seed.unwrap_or(0);
        search(&app, move |app, cancel| {
            search::agent_move(&app.searches, &game, &state, &agent, seed, cancel)
        })
            .await
            .map(Json)
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseRequest {
    game: String,
    position: Option<String>,
    ms: Option<u64>,
    nodes: Option<u64>,
    agent: Option<String>,
}

async fn analyse(
    State(app): State<Arc<App>>,
    Body(r): Body<AnalyseRequest>,
) -> Result<Json<search::Analysis>, ApiError> {
    let spec = game_spec(&r.game)?;
    let most = search::MAX_ANALYSIS_TIME.as_millis() as u64;
    let ms =
        r.ms.unwrap_or(search::DEFAULT_ANALYSIS_TIME.as_millis() as u64);
    if ms > most {
        return Err(ApiError::BadRequest(format!(
            "ms {ms}: an analysis searches for at most {most} ms"
        )));
    }
    let nodes = r.nodes.unwrap_or(search::DEFAULT_SETTLE_NODES);
    if nodes > search::MAX_SETTLE_NODES {
        return Err(ApiError::BadRequest(format!(
            "nodes {nodes}: at most {} a move",
            search::MAX_SETTLE_NODES
        )));
    }
    let estimator_text = r.agent.as_deref().unwrap_or(search::DEFAULT_ESTIMATOR);
    let estimator = match search::parse_agent(estimator_text)? {
        AnyAgentSpec::Classical(a @ AgentSpec::Minimax(_)) => a,
        _ => {
            return Err(ApiError::BadRequest(format!(
                "agent `{estimator_text}`: the estimator is a minimax spec (minimax:depth=10, \
                 minimax:time=200ms), whose score is a margin in seeds"
            )))
        }
    };
    let request = AnalysisRequest {
        time: Duration::from_millis(ms),
        nodes,
        estimator,
    };
    with_game!(&spec, game => {
        let state = views::position(game, r.position.as_deref())?;
        // The estimator is an agent built from the request: it passes the
        // same admission as `/api/agent`'s (its table is capped).
        app.searches
            .admit_agent(game, &AnyAgentSpec::Classical(request.estimator.clone()))?;
        let game = *game;
        search(&app, move |app, cancel| {
            search::analyse(&app.searches, &game, &state, &request, cancel)
        })
        .await
        .map(Json)
    })
}

async fn results_list(State(app): State<Arc<App>>) -> Result<Json<serde_json::Value>, ApiError> {
    let root = app.root()?.clone();
    let listing = read_results(&app, move || Ok(root.folders())).await?;
    Ok(Json(json!({
        "folders": listing.folders,
        "truncated": listing.truncated,
        "max_folders": results::MAX_FOLDERS,
    })))
}

/// A folder's report, a page for the app's frame. A refusal is a page for
/// the frame too, with the refusal's status: sent as the API's JSON it was
/// blocked by the page policy's `frame-ancestors 'none'`, and the user saw
/// a broken frame instead of why (a tournament still running has no
/// report yet).
async fn results_report(State(app): State<Arc<App>>, uri: Uri) -> Response {
    let (status, html) = match report_page(&app, &uri).await {
        Ok(html) => (StatusCode::OK, html),
        Err(e) => (e.status(), refusal_page(&e.to_string())),
    };
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, REPORT_POLICY),
        ],
        html,
    )
        .into_response()
}

/// A report's folder and, when the page chose one, its theme.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReportQuery {
    path: String,
    /// `light` or `dark`: the page's theme button, which a frame cannot
    /// otherwise follow. Without it the report follows the system.
    theme: Option<String>,
}

async fn report_page(app: &Arc<App>, uri: &Uri) -> Result<String, ApiError> {
    let q: ReportQuery = query(uri)?;
    let theme = match q.theme.as_deref() {
        None => None,
        Some("light") => Some(mancala_report::Theme::Light),
        Some("dark") => Some(mancala_report::Theme::Dark),
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "theme: '{}' is neither light nor dark",
                mancala_core::spec::truncate_input(other)
            )))
        }
    };
    let dir = app.root()?.folder(&q.path)?;
    // The report names the files it reads by their full path: shown to the
    // client, the folder is the path it asked for, nothing of the server's
    // own disk.
    let full = dir.display().to_string();
    let page = read_results(app, move || {
        mancala_report::html_page(&dir)
            .map_err(|e| ApiError::Unprocessable(e.to_string().replace(&full, &q.path)))
    })
    .await?;
    Ok(match theme {
        Some(theme) => mancala_report::with_theme(&page, theme),
        None => page,
    })
}

/// A page that says why there is no report, in the report's frame.
fn refusal_page(why: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>No report</title>\
         <style>body{{font:15px system-ui,sans-serif;margin:2em;color:#555}}\
         @media (prefers-color-scheme:dark){{body{{color:#bbb;background:#0d1117}}}}</style></head>\
         <body><h1>No report</h1><p id=\"error\">{}</p></body></html>\n",
        mancala_report::svg::escape(why)
    )
}

async fn results_games(
    State(app): State<Arc<App>>,
    uri: Uri,
) -> Result<Json<results::GamePage>, ApiError> {
    let filter: results::GameFilter = query(&uri)?;
    let dir = app.root()?.folder(&filter.path)?;
    read_results(&app, move || results::game_page(&dir, &filter))
        .await
        .map(Json)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GameQuery {
    path: String,
    id: u64,
}

async fn results_game(
    State(app): State<Arc<App>>,
    uri: Uri,
) -> Result<Json<serde_json::Value>, ApiError> {
    let q: GameQuery = query(&uri)?;
    let dir = app.root()?.folder(&q.path)?;
    read_results(&app, move || game_detail(&dir, q.id))
        .await
        .map(Json)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FolderQuery {
    path: String,
}

/// The games a run is playing in a folder now: id, players, agents and
/// plies of each (`live-game` replays one).
async fn results_live(
    State(app): State<Arc<App>>,
    uri: Uri,
) -> Result<Json<serde_json::Value>, ApiError> {
    let q: FolderQuery = query(&uri)?;
    let dir = app.root()?.folder(&q.path)?;
    let games = read_results(&app, move || results::live_games(&dir)).await?;
    let games: Vec<serde_json::Value> = games
        .iter()
        .map(|g| json!({"id": g.id, "players": g.players, "agents": g.agents, "plies": g.plies}))
        .collect();
    Ok(Json(json!({ "games": games })))
}

/// A game in progress, replayed as `/api/results/game` replays a finished
/// one (no times, searches or notes yet); 404 once it is no longer in
/// progress (then it is in the games log).
async fn results_live_game(
    State(app): State<Arc<App>>,
    uri: Uri,
) -> Result<Json<serde_json::Value>, ApiError> {
    let q: GameQuery = query(&uri)?;
    let dir = app.root()?.folder(&q.path)?;
    let id = q.id;
    read_results(&app, move || {
        let live = results::live_games(&dir)?
            .into_iter()
            .find(|g| g.id == id)
            .ok_or_else(|| ApiError::NotFound(format!("game {id} is not in progress")))?;
        let (start, plies) = replay(id, &live.game, live.start.as_deref(), &live.moves)?;
        Ok(json!({
            "record": live,
            "live": true,
            "annotated": false,
            "start": start,
            "plies": plies,
            "moves": [],
        }))
    })
    .await
    .map(Json)
}

/// Game `id` (a record's or one in progress) replayed from `start` (the
/// rules' start when `None`) through `moves`, as records write them.
fn replay(
    id: u64,
    game: &str,
    start: Option<&str>,
    moves: &str,
) -> Result<(views::StateView, Vec<views::PlyView>), ApiError> {
    let spec = game_spec(game)?;
    let moves: Vec<String> = moves.split_whitespace().map(str::to_string).collect();
    with_game!(&spec, game => views::line(&spec, game, start, &moves))
        .map_err(|e| ApiError::Unprocessable(format!("game {id} does not replay: {e}")))
}

/// One game of a folder, replayed, with each ply's time, search and note.
fn game_detail(dir: &std::path::Path, id: u64) -> Result<serde_json::Value, ApiError> {
    let record = results::game(dir, id)?
        .ok_or_else(|| ApiError::NotFound(format!("no game {id} in this folder")))?;
    let (start, plies) = replay(id, &record.game, record.start.as_deref(), &record.moves)?;
    let moves = plies.len();
    let notes = results::game_notes(dir, id)?;
    let per_ply: Vec<serde_json::Value> = (1..=moves)
        .map(|ply| {
            let timed = record.timed_index(ply);
            let search = record.search.iter().find(|s| s.ply as usize == ply);
            let note = notes
                .as_ref()
                .and_then(|n| n.moves.iter().find(|m| m.ply as usize == ply));
            json!({
                "ms": timed.and_then(|k| record.move_us.get(k)).map(|&us| us as f64 / 1e3),
                "clock_ms": timed.and_then(|k| record.clock_ms.get(k)),
                "search": search,
                "note": note,
            })
        })
        .collect();
    Ok(json!({
        "record": record,
        "annotated": notes.is_some(),
        "start": start,
        "plies": plies,
        "moves": per_ply,
    }))
}
