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
mod json;
mod metrics;
mod openapi;
mod paging;

use std::future::Future;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use cedar::tokio::ServerStats;
use daemon_http::{Bounds, HttpRequests};
use tokio::net::TcpListener;

use crate::server::Collector;

pub(crate) use daemon_http::{json_response, ApiError};
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

    /// The connection and request bounds, for `daemon_http`.
    fn bounds(&self) -> Bounds {
        Bounds::default()
            .max_body(self.max_body)
            .request_timeout(self.request_timeout)
            .header_timeout(self.header_timeout)
            .max_connections(self.max_connections)
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
    requests: Arc<HttpRequests>,
}

impl Http {
    /// Serves `collector` with the default options, ready at once.
    pub fn new(collector: Arc<Collector>) -> Http {
        Http {
            collector,
            options: HttpOptions::default(),
            ready: Arc::new(AtomicBool::new(true)),
            cedar: None,
            requests: Arc::new(HttpRequests::new("htcondor_collector_http_requests_total")),
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
    let bounds = http.options.bounds();
    let requests = http.requests.clone();
    let mut router = Router::new();
    for (path, _, handler) in routes() {
        router = router.route(path, handler);
    }
    daemon_http::bounded(router.with_state(Arc::new(http)), &bounds, requests)
}

/// Serves the API on `listener` until `shutdown` resolves; then the
/// connections finish the request under way and close.
///
/// Each connection's request headers must arrive within
/// [`HttpOptions::header_timeout`] (an idle keep-alive connection is closed
/// after it too), at most [`HttpOptions::max_connections`] are served at
/// once (more are closed at once), and each request is bounded by
/// [`HttpOptions::request_timeout`] and [`HttpOptions::max_body`]
/// (`daemon_http::serve`, the layer the project's daemons share).
pub async fn serve(
    http: Http,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let bounds = http.options.bounds();
    daemon_http::serve(router(http), listener, &bounds, shutdown).await
}

async fn healthz() -> Response {
    daemon_http::healthz().await
}

async fn readyz(State(http): State<Shared>) -> Response {
    daemon_http::readyz(&http.ready)
}

async fn metrics_route(State(http): State<Shared>) -> Response {
    let text = metrics::render_with(&http.collector, http.cedar.as_deref(), Some(&http.requests));
    ([(header::CONTENT_TYPE, daemon_http::prometheus::CONTENT_TYPE)], text).into_response()
}

async fn openapi_route() -> Response {
    json_response(axum::http::StatusCode::OK, openapi::document().to_string())
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
