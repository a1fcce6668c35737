//! The accept loop: HTTP/1.1 connections, each with a deadline for its
//! request headers, a bounded number open at once, and a
//! shutdown that stops the searches first so that it never waits for them.
//!
//! `axum::serve` sets no header deadline and no bound on connections, so a
//! client that opens connections and sends nothing would hold them (and a
//! file descriptor each) until the process ran out; this loop is the same
//! hyper connection with those two bounds added.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinSet;

use crate::host::HostCheck;
use crate::App;

/// Most connections open at once by default; more wait in the listener's
/// backlog.
pub const MAX_CONNECTIONS: usize = 256;
/// Longest a client may take to send a request's headers by default,
/// counted from the
/// moment the connection waits for them (a new connection, or a kept-alive
/// one between requests): past it the connection is closed.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest a connection's request in progress may take to finish once the
/// server is stopping.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// Pause after an accept that failed for want of resources (file
/// descriptors, memory), rather than retrying at once in a busy loop.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves `app` on `listener` until `shutdown` completes, then stops every
/// search in progress, lets each connection finish its request (for at
/// most [`SHUTDOWN_GRACE`]) and returns.
///
/// # Errors
/// A listener whose address cannot be read. A failed accept is retried,
/// as it is a client's or a passing shortage.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let local = listener.local_addr()?;
    let hosts = HostCheck::new(local.ip(), local.port(), &app.allowed_hosts);
    let router = crate::router(Arc::clone(&app), hosts);
    let slots = Arc::new(Semaphore::new(app.max_connections));
    let (closing, closed) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        // Finished connections are reaped here, so the set stays as large
        // as the connections open.
        while connections.try_join_next().is_some() {}
        let slot = tokio::select! {
            biased;
            () = &mut shutdown => break,
            slot = Arc::clone(&slots).acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
        };
        let stream = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
        };
        let service = TowerToHyperService::new(router.clone());
        let mut closed = closed.clone();
        let header_timeout = app.header_timeout;
        connections.spawn(async move {
            let _slot = slot;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = closed.wait_for(|&c| c) => {}
            }
            connection.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(SHUTDOWN_GRACE, connection).await;
        });
    }
    drop(listener);
    // Searches see their cancel flags and end within milliseconds; their
    // requests answer, and the connections close.
    app.stop();
    let _ = closing.send(true);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE + Duration::from_millis(500), async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    // Dropping the set aborts any connection that is still open.
    Ok(())
}
