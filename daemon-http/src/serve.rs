//! Serving a router with bounds on every connection and request.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use tokio::net::TcpListener;

use crate::error::{as_json_error, deadline, no_route};
use crate::prometheus::HttpRequests;

/// The bounds of an HTTP server.
///
/// ```
/// use std::time::Duration;
/// let b = daemon_http::Bounds::default().request_timeout(Duration::from_secs(5));
/// assert_eq!(b.request_timeout, Duration::from_secs(5));
/// assert_eq!(b.max_body, 16 << 20);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Bounds {
    /// The largest request body read, in bytes (16 MiB); a larger one is
    /// refused with 413.
    pub max_body: usize,
    /// How long one request may take, its body read included (30 s);
    /// then it is answered with 408.
    pub request_timeout: Duration,
    /// How long a connection may take to send a request's headers, and
    /// may stay idle between requests (10 s).
    pub header_timeout: Duration,
    /// How many connections are served at once (1024); more are closed
    /// at once.
    pub max_connections: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_body: 16 << 20,
            request_timeout: Duration::from_secs(30),
            header_timeout: Duration::from_secs(10),
            max_connections: 1024,
        }
    }
}

impl Bounds {
    /// Sets [`max_body`](Self::max_body).
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// Sets [`request_timeout`](Self::request_timeout).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Sets [`header_timeout`](Self::header_timeout).
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Sets [`max_connections`](Self::max_connections).
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n;
        self
    }
}

/// `router` with the request bounds (body limit, deadline), a 404
/// `no_route` fallback, axum's refusals made JSON errors, and every
/// request counted in `requests`.
pub fn bounded(router: Router, bounds: &Bounds, requests: Arc<HttpRequests>) -> Router {
    let timeout = bounds.request_timeout;
    router
        .fallback(no_route)
        .layer(DefaultBodyLimit::max(bounds.max_body))
        .layer(middleware::from_fn(move |req: Request, next: Next| deadline(timeout, req, next)))
        .layer(middleware::from_fn(move |req: Request, next: Next| count(requests.clone(), req, next)))
}

async fn count(requests: Arc<HttpRequests>, req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let route = req.extensions().get::<MatchedPath>().map(|p| p.as_str().to_owned());
    let response = as_json_error(next.run(req).await).await;
    requests.add(&method, route.as_deref(), response.status().as_u16());
    response
}

/// Serves `app` on `listener` until `shutdown` resolves; then the
/// connections finish the request under way and close.
///
/// Each connection's request headers must arrive within
/// [`Bounds::header_timeout`] (an idle keep-alive connection is closed
/// after it too) and at most [`Bounds::max_connections`] are served at
/// once; the handlers see the peer's address as
/// `axum::extract::ConnectInfo<SocketAddr>` (an extension). Request bounds
/// are [`bounded`]'s.
pub async fn serve(
    app: Router,
    listener: TcpListener,
    bounds: &Bounds,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let header_timeout = bounds.header_timeout;
    let slots = Arc::new(tokio::sync::Semaphore::new(bounds.max_connections.max(1)));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of descriptors, say: wait a little, go on.
                    tracing::warn!("HTTP: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            tracing::warn!("HTTP: too many connections; closing the one from {peer}");
            continue;
        };
        let service = hyper_util::service::TowerToHyperService::new(
            app.clone().layer(axum::Extension(axum::extract::ConnectInfo(peer))),
        );
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            let done = tokio::select! {
                done = connection.as_mut() => done,
                () = async { drop(stop.wait_for(|s| *s).await) } => {
                    connection.as_mut().graceful_shutdown();
                    connection.as_mut().await
                }
            };
            if let Err(e) = done {
                tracing::debug!("HTTP: connection from {peer}: {e}");
            }
        });
    }
    let _ = stop_tx.send(true);
    Ok(())
}
