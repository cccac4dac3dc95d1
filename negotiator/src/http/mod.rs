//! The negotiator's HTTP/JSON API and Prometheus metrics (the `http`
//! feature), on the HTTP layer the project's daemons share
//! (`daemon_http`: the bounds, JSON errors, bearer-token callers).
//!
//! | route | what | CEDAR counterpart |
//! |---|---|---|
//! | `GET /v1/cycle` | the last cycle: phases, counts, failed submitters, and the matchmaker's outcome (matches, rejections, per submitter, groups) | `condor_status -negotiator -l` (its figures) |
//! | `GET /v1/priorities` | the accounting ads last published, in HTCondor's JSON form | `condor_status -accounting -json`, `condor_userprio -l` |
//! | `GET /metrics` | Prometheus text format 0.0.4 ([`render_metrics`]) | |
//! | `GET /healthz`, `GET /readyz` | alive; serving CEDAR | |
//!
//! Everything but `/healthz` and `/readyz` needs READ authorization, as
//! `condor_userprio`'s queries do: a caller is a bearer IDTOKEN checked
//! with the negotiator's token keys, or unauthenticated at its address
//! (`daemon_http::Caller`), and the negotiator's `ALLOW_READ` /
//! `DENY_READ` decide.
//!
//! The handlers read a [`CycleStatus`] the cycle thread updates after each
//! cycle and publication, so a request never waits for a running cycle.
//!
//! ```no_run
//! # async fn demo(server: std::sync::Arc<cedar::handshake::ServerConfig>) -> std::io::Result<()> {
//! use std::sync::Arc;
//! use negotiator::http::Http;
//! use negotiator::status::CycleStatus;
//! let status = Arc::new(CycleStatus::default());
//! let http = Http::new(server, status.clone(), "negotiator@example.org");
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8081").await?;
//! negotiator::http::serve(http, listener, std::future::pending()).await
//! # }
//! ```

mod metrics;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use cedar::authz::Permission;
use cedar::handshake::ServerConfig;
use cedar::tokio::ServerStats;
use classad::format::{self, Format};
use daemon_http::{json_response, ApiError, Bounds, Caller, HttpRequests};
use serde_json::json;
use tokio::net::TcpListener;

use crate::cycle::CycleReport;
use crate::status::{CycleStatus, Snapshot};

pub use metrics::render as render_metrics;

/// What the HTTP server serves: the negotiator's status, its name, its
/// authorization, and (for `/metrics`) the CEDAR server's counters.
#[derive(Debug, Clone)]
pub struct Http {
    server: Arc<ServerConfig>,
    status: Arc<CycleStatus>,
    name: String,
    bounds: Bounds,
    ready: Arc<AtomicBool>,
    cedar: Option<Arc<ServerStats>>,
    requests: Arc<HttpRequests>,
}

impl Http {
    /// Serves `status` of the negotiator named `name`, authorizing callers
    /// with `server`'s authorizer and token keys; ready at once, the
    /// default bounds.
    pub fn new(server: Arc<ServerConfig>, status: Arc<CycleStatus>, name: impl Into<String>) -> Http {
        Http {
            server,
            status,
            name: name.into(),
            bounds: Bounds::default(),
            ready: Arc::new(AtomicBool::new(true)),
            cedar: None,
            requests: Arc::new(HttpRequests::new("htcondor_negotiator_http_requests_total")),
        }
    }

    /// Other bounds.
    pub fn bounds(mut self, bounds: Bounds) -> Http {
        self.bounds = bounds;
        self
    }

    /// `/readyz` answers 200 while `ready` holds `true` and 503 otherwise.
    pub fn readiness(mut self, ready: Arc<AtomicBool>) -> Http {
        self.ready = ready;
        self
    }

    /// The CEDAR server's counters, for the `htcondor_cedar_*` metrics.
    pub fn cedar_stats(mut self, stats: Arc<ServerStats>) -> Http {
        self.cedar = Some(stats);
        self
    }
}

type Shared = Arc<Http>;

/// The router (the handlers read the peer's address from a
/// `ConnectInfo<SocketAddr>` extension, as [`serve`] adds it).
pub fn router(http: Http) -> Router {
    let bounds = http.bounds.clone();
    let requests = http.requests.clone();
    let router = Router::new()
        .route("/v1/cycle", get(cycle))
        .route("/v1/priorities", get(priorities))
        .route("/metrics", get(metrics_route))
        .route("/healthz", get(daemon_http::healthz))
        .route("/readyz", get(readyz))
        .with_state(Arc::new(http));
    daemon_http::bounded(router, &bounds, requests)
}

/// Serves the API on `listener` until `shutdown` resolves.
pub async fn serve(
    http: Http,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let bounds = http.bounds.clone();
    daemon_http::serve(router(http), listener, &bounds, shutdown).await
}

/// READ, or 401/403.
fn authorize(http: &Http, headers: &HeaderMap, peer: SocketAddr) -> Result<(), ApiError> {
    let caller = Caller::from_request(headers, peer.ip(), &http.server)?;
    if caller.holds(&http.server, Permission::Read) {
        return Ok(());
    }
    tracing::info!("HTTP: {} at {} is not authorized for READ", caller.user().unwrap_or("unauthenticated"), peer.ip());
    Err(ApiError::new(
        StatusCode::FORBIDDEN,
        "forbidden",
        format!("{} is not authorized for READ", caller.user().unwrap_or("unauthenticated@unmapped")),
    ))
}

async fn cycle(
    State(http): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    authorize(&http, &headers, peer)?;
    let body = cycle_json(&http.name, &http.status.snapshot());
    Ok(json_response(StatusCode::OK, body.to_string()))
}

/// `/v1/cycle`'s body.
fn cycle_json(name: &str, s: &Snapshot) -> serde_json::Value {
    json!({
        "negotiator": name,
        "cycles": s.cycles,
        "failed_cycles": s.failed_cycles,
        "last_failure": s.last_failure.as_ref().map(|(when, why)| json!({ "time": when, "error": why })),
        "last": s.last.as_deref().map(report_json),
    })
}

/// A cycle report as JSON; the outcome is the matchmaker's serde form.
fn report_json(r: &CycleReport) -> serde_json::Value {
    let p = &r.phases;
    json!({
        "started": r.started,
        "duration_seconds": r.duration().as_secs_f64(),
        "phase_seconds": {
            "fetch": p.fetch.as_secs_f64(),
            "prefetch": p.prefetch.as_secs_f64(),
            "matching": p.matching.as_secs_f64(),
            "deliver": p.deliver.as_secs_f64(),
        },
        "slots": r.slots,
        "private_ads": r.private_ads,
        "slots_without_claim": r.slots_without_claim,
        "submitter_ads": r.submitter_ads,
        "schedds": r.schedds,
        "requests": r.requests,
        "matches_sent": r.matches_sent,
        "rejections_sent": r.rejections_sent,
        "failures": r.failures.iter().map(|f| json!({
            "submitter": f.submitter, "schedd": f.schedd, "phase": f.phase, "error": f.error,
        })).collect::<Vec<_>>(),
        "outcome": serde_json::to_value(&r.outcome).unwrap_or(serde_json::Value::Null),
    })
}

async fn priorities(
    State(http): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    authorize(&http, &headers, peer)?;
    let ads = http.status.snapshot().accounting;
    Ok(json_response(StatusCode::OK, format::to_string(ads.iter(), Format::Json)))
}

async fn metrics_route(
    State(http): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    authorize(&http, &headers, peer)?;
    let sessions = http.server.sessions.lock().map(|s| s.len()).unwrap_or(0);
    let mut text = render_metrics(&http.status.snapshot());
    daemon_http::prometheus::cedar_server(&mut text, http.cedar.as_deref(), sessions);
    http.requests.render(&mut text);
    Ok(([(header::CONTENT_TYPE, daemon_http::prometheus::CONTENT_TYPE)], text).into_response())
}

async fn readyz(State(http): State<Shared>) -> Response {
    daemon_http::readyz(&http.ready)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn before_the_first_cycle_the_cycle_is_null() {
        let v = cycle_json("n", &Snapshot::default());
        assert_eq!(v["cycles"], 0);
        assert!(v["last"].is_null());
        assert!(v["last_failure"].is_null());
    }

    #[test]
    fn a_report_carries_its_phases_and_the_outcome() {
        let mut r = CycleReport::default();
        r.phases.fetch = std::time::Duration::from_millis(1500);
        r.matches_sent = 3;
        let v = report_json(&r);
        assert_eq!(v["phase_seconds"]["fetch"], 1.5);
        assert_eq!(v["duration_seconds"], 1.5);
        assert_eq!(v["matches_sent"], 3);
        assert!(v["outcome"]["matches"].is_array(), "{v}");
    }
}
