//! The collector's HTTP/JSON API and Prometheus metrics (the `http`
//! feature).
//!
//! [`serve`] answers HTTP/1.1 on a listener of its own, beside the CEDAR
//! port, from the same [`Collector`]: the same tables, the same query
//! machinery ([`crate::query::Query`]), the same update and invalidation
//! functions ([`crate::update`]) and the same authorization
//! ([`cedar::authz::Authorizer`], at the level the CEDAR command needs).
//!
//! | route | what | CEDAR counterpart |
//! |---|---|---|
//! | `GET /v1/ads?type=&constraint=&projection=&limit=&page_token=` | a query | `QUERY_*_ADS` |
//! | `GET /v1/ads/{type}/{name}` | one ad by `Name` | a query on `Name` |
//! | `POST /v1/ads/{type}` | advertise one ad or a list | `UPDATE_*_AD` |
//! | `DELETE /v1/ads/{type}/{name}` | remove one ad by `Name` | `INVALIDATE_*_ADS` |
//! | `POST /v1/invalidate/{type}?constraint=` | remove what a constraint selects | `INVALIDATE_*_ADS` |
//! | `GET /healthz`, `GET /readyz` | alive; serving CEDAR | |
//! | `GET /metrics` | Prometheus text format 0.0.4 | |
//! | `GET /openapi.json` | an OpenAPI 3 description of these routes | |
//!
//! Ads go out in HTCondor's JSON form (`condor_status -json`): literals
//! as JSON values, expressions as `"\/Expr(…)\/"` strings; see
//! [`classad::format`].
//!
//! **Authentication.** A request may carry `Authorization: Bearer <IDTOKEN>`.
//! The token is checked as the CEDAR handshake checks one: signed by one
//! of the collector's token keys (`SEC_TOKEN_POOL_SIGNING_KEY_FILE`,
//! `SEC_PASSWORD_DIRECTORY`), not expired, not older than
//! `SEC_TOKEN_MAX_AGE`, not revoked, and here also issued by the
//! collector's `TRUST_DOMAIN`. Its subject is the identity; its `scope`
//! claims limit the levels it may use, as `LimitAuthorization` does. A
//! request without a token is `unauthenticated@unmapped` at its address,
//! as an unauthenticated CEDAR peer is. Reads need the query command's
//! level (READ; NEGOTIATOR for the startd private ads); writes need a
//! token and the update or invalidation command's level
//! (`ADVERTISE_STARTD`, `ADVERTISE_SCHEDD`, `ADVERTISE_MASTER`, `DAEMON`).
//! A missing or bad token where one is needed is 401, a refusal 403.
//! Private attributes (`ClaimId`, …) are sent only when asked for
//! (`private=true`) to an identity with NEGOTIATOR or ADMINISTRATOR
//! authorization, as the CEDAR query sends them to a 23.x client.
//!
//! **Errors** are JSON: `{"error": {"kind": "bad_constraint", "message": "…"}}`.
//!
//! **Bounds.** Request bodies are limited ([`HttpOptions::max_body`], 16
//! MiB), each request has a deadline ([`HttpOptions::request_timeout`]),
//! pages hold at most [`HttpOptions::max_limit`] ads.
//!
//! **Why axum**: it is hyper and tower with a router on top, small, and
//! the usual choice on tokio; the crate pulls it only with the `http`
//! feature, so embedding the collector without HTTP brings no HTTP stack.
//!
//! CEDAR and HTTP from one collector, with the CEDAR server's counters
//! in `/metrics` and `/readyz` answering once the CEDAR port is bound:
//!
//! ```no_run
//! # async fn demo(collector: std::sync::Arc<collector::server::Collector>) -> std::io::Result<()> {
//! use std::sync::{atomic::AtomicBool, Arc};
//! use collector::http::{Http, HttpOptions};
//! use collector::server::CollectorHandler;
//! let cedar_listener = tokio::net::TcpListener::bind("0.0.0.0:9618").await?;
//! let http_listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! let cedar = cedar::tokio::Server::new(collector.server_config().clone(), CollectorHandler(collector.clone()));
//! let http = Http::new(collector.clone())
//!     .options(HttpOptions::default())
//!     .readiness(Arc::new(AtomicBool::new(true)))
//!     .cedar_stats(cedar.stats());
//! tokio::spawn(collector::http::serve(http, http_listener, std::future::pending()));
//! collector.serve_with(cedar, cedar_listener, std::future::pending()).await.map_err(std::io::Error::other)
//! # }
//! ```

mod ads;
mod auth;
mod json;
mod metrics;
mod openapi;
mod paging;

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use cedar::tokio::ServerStats;
use tokio::net::TcpListener;

use crate::server::Collector;

pub use metrics::render as render_metrics;
pub use openapi::document as openapi_document;

/// The bounds of the HTTP server.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The largest request body read, in bytes (16 MiB); a larger one is
    /// refused with 413.
    pub max_body: usize,
    /// How long one request may take, its body read included (30 s);
    /// then it is answered with 408.
    pub request_timeout: Duration,
    /// The page size when a query names no `limit` (1000).
    pub default_limit: usize,
    /// The largest `limit` honoured (10 000); a larger one is lowered.
    pub max_limit: usize,
    /// How long a connection may take to send a request's headers, and
    /// may stay idle between requests (10 s).
    pub header_timeout: Duration,
    /// How many connections are served at once (1024).
    pub max_connections: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            max_body: 16 << 20,
            request_timeout: Duration::from_secs(30),
            default_limit: 1000,
            max_limit: 10_000,
            header_timeout: Duration::from_secs(10),
            max_connections: 1024,
        }
    }
}

impl HttpOptions {
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

    /// Sets [`default_limit`](Self::default_limit) and
    /// [`max_limit`](Self::max_limit).
    pub fn limits(mut self, default_limit: usize, max_limit: usize) -> Self {
        self.max_limit = max_limit.max(1);
        self.default_limit = default_limit.clamp(1, self.max_limit);
        self
    }
}

/// What the HTTP server serves: a collector, its options, a readiness
/// flag and (for `/metrics`) the CEDAR server's counters.
#[derive(Debug, Clone)]
pub struct Http {
    collector: Arc<Collector>,
    options: HttpOptions,
    ready: Arc<AtomicBool>,
    cedar: Option<Arc<ServerStats>>,
    requests: Arc<metrics::HttpRequests>,
}

impl Http {
    /// Serves `collector` with the default options, ready at once.
    pub fn new(collector: Arc<Collector>) -> Http {
        Http {
            collector,
            options: HttpOptions::default(),
            ready: Arc::new(AtomicBool::new(true)),
            cedar: None,
            requests: Arc::default(),
        }
    }

    /// Other bounds.
    pub fn options(mut self, options: HttpOptions) -> Http {
        self.options = options;
        self
    }

    /// `/readyz` answers 200 while `ready` holds `true` (set it once the
    /// CEDAR listener is up) and 503 otherwise.
    pub fn readiness(mut self, ready: Arc<AtomicBool>) -> Http {
        self.ready = ready;
        self
    }

    /// The CEDAR server's counters, for the `htcondor_cedar_*` metrics
    /// ([`cedar::tokio::Server::stats`]).
    pub fn cedar_stats(mut self, stats: Arc<ServerStats>) -> Http {
        self.cedar = Some(stats);
        self
    }

    /// The collector served.
    pub fn collector(&self) -> &Arc<Collector> {
        &self.collector
    }
}

/// The shared state of the handlers.
type Shared = Arc<Http>;

/// An error answered as `{"error": {"kind", "message"}}`.
#[derive(Debug, Clone)]
pub(crate) struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, kind, message: message.into() }
    }

    pub(crate) fn bad_request(kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, kind, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": { "kind": self.kind, "message": self.message } }).to_string();
        let mut response = (self.status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// A JSON body with status 200.
pub(crate) fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Every route: its path (axum's and OpenAPI's `{param}` syntax), its
/// methods, and its handlers. The router is built from this list, and a
/// test checks the OpenAPI document against it.
pub(crate) fn routes() -> Vec<(&'static str, &'static [&'static str], MethodRouter<Shared>)> {
    vec![
        ("/v1/ads", &["get"], get(ads::list)),
        ("/v1/ads/{type}", &["post"], post(ads::advertise)),
        ("/v1/ads/{type}/{name}", &["get", "delete"], get(ads::one).delete(ads::remove)),
        ("/v1/invalidate/{type}", &["post"], post(ads::invalidate)),
        ("/healthz", &["get"], get(healthz)),
        ("/readyz", &["get"], get(readyz)),
        ("/metrics", &["get"], get(metrics_route)),
        ("/openapi.json", &["get"], get(openapi_route)),
    ]
}

/// The router, for a caller that serves it itself (with
/// `into_make_service_with_connect_info::<SocketAddr>()`: the handlers
/// read the peer's address). [`serve`] adds the connection bounds.
pub fn router(http: Http) -> Router {
    let timeout = http.options.request_timeout;
    let max_body = http.options.max_body;
    let requests = http.requests.clone();
    let mut router = Router::new();
    for (path, _, handler) in routes() {
        router = router.route(path, handler);
    }
    router
        .fallback(no_route)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn(move |req: Request, next: Next| deadline(timeout, req, next)))
        .layer(middleware::from_fn(move |req: Request, next: Next| count(requests.clone(), req, next)))
        .with_state(Arc::new(http))
}

/// Serves the API on `listener` until `shutdown` resolves; then the
/// connections finish the request under way and close.
///
/// Each connection's request headers must arrive within
/// [`HttpOptions::header_timeout`] (an idle keep-alive connection is closed
/// after it too), at most [`HttpOptions::max_connections`] are served at
/// once (more are closed at once), and each request is bounded by
/// [`HttpOptions::request_timeout`] and [`HttpOptions::max_body`].
pub async fn serve(
    http: Http,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let header_timeout = http.options.header_timeout;
    let slots = Arc::new(tokio::sync::Semaphore::new(http.options.max_connections.max(1)));
    let app = router(http);
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

async fn deadline(timeout: Duration, req: Request, next: Next) -> Response {
    match tokio::time::timeout(timeout, next.run(req)).await {
        Ok(response) => response,
        Err(_) => ApiError::new(StatusCode::REQUEST_TIMEOUT, "timeout", "the request took too long").into_response(),
    }
}

async fn count(requests: Arc<metrics::HttpRequests>, req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let route = req.extensions().get::<MatchedPath>().map(|p| p.as_str().to_owned());
    let response = as_json_error(next.run(req).await).await;
    requests.add(&method, route.as_deref(), response.status().as_u16());
    response
}

/// The longest plain-text error body carried over into a JSON error.
const MAX_REJECTION: usize = 4096;

/// axum's own refusals (a body over the limit, a path that does not
/// decode, a wrong method) come as plain text: they are made JSON errors
/// like the handlers' own.
async fn as_json_error(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, MAX_REJECTION).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => String::new(),
    };
    let kind = match status {
        StatusCode::PAYLOAD_TOO_LARGE => "body_too_large",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        s if s.is_server_error() => "internal",
        _ => "bad_request",
    };
    let message = if text.trim().is_empty() { status.to_string() } else { text };
    let mut out = ApiError::new(status, kind, message).into_response();
    if let Some(allow) = parts.headers.get(header::ALLOW) {
        out.headers_mut().insert(header::ALLOW, allow.clone());
    }
    out
}

async fn no_route() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no_route", "no such route")
}

async fn healthz() -> Response {
    json_response(StatusCode::OK, r#"{"status":"ok"}"#.to_owned())
}

async fn readyz(State(http): State<Shared>) -> Response {
    if http.ready.load(Ordering::Relaxed) {
        json_response(StatusCode::OK, r#"{"status":"ready"}"#.to_owned())
    } else {
        json_response(StatusCode::SERVICE_UNAVAILABLE, r#"{"status":"not ready"}"#.to_owned())
    }
}

async fn metrics_route(State(http): State<Shared>) -> Response {
    let text = metrics::render_with(&http.collector, http.cedar.as_deref(), Some(&http.requests));
    ([(header::CONTENT_TYPE, metrics::CONTENT_TYPE)], text).into_response()
}

async fn openapi_route() -> Response {
    json_response(StatusCode::OK, openapi::document().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_is_in_the_openapi_document() {
        let doc = openapi::document();
        let paths = doc.get("paths").and_then(|p| p.as_object()).cloned().unwrap_or_default();
        for (path, methods, _) in routes() {
            let Some(item) = paths.get(path) else { panic!("{path} is not in openapi.json") };
            for m in methods {
                assert!(item.get(*m).is_some(), "{m} {path} is not in openapi.json");
            }
        }
        assert_eq!(paths.len(), routes().len(), "openapi.json describes a route the router lacks");
    }
}
