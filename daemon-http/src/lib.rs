//! The HTTP layer the project's daemons share (`classad-collector`,
//! `classad-negotiator`): each daemon brings its routes as an axum
//! [`Router`](axum::Router); this crate serves them with the same bounds,
//! errors, callers and metrics.
//!
//! * [`serve`]: HTTP/1.1 on a listener, every connection's headers within
//!   [`Bounds::header_timeout`], at most [`Bounds::max_connections`] at
//!   once, every request within [`Bounds::request_timeout`] and
//!   [`Bounds::max_body`] ([`bounded`] adds these layers to a router).
//! * [`ApiError`]: errors as JSON, `{"error": {"kind", "message"}}`; axum's
//!   own plain-text refusals (413, 405, ...) are turned into the same form.
//! * [`Caller`]: who is asking, from an `Authorization: Bearer <IDTOKEN>`
//!   checked with the daemon's token keys as the CEDAR handshake checks
//!   one, or nobody (`unauthenticated@unmapped`), at the peer's address;
//!   authorized by the daemon's [`cedar::authz::Authorizer`] at a CEDAR
//!   command's level.
//! * [`prometheus`]: the text format 0.0.4 (`# HELP`, `# TYPE`, escaped
//!   label values) and [`HttpRequests`], the requests answered by method,
//!   route pattern and status.
//! * [`healthz`] and [`readyz`]: the liveness and readiness answers.
//! * `test_support` (the `test-support` feature, for the daemons' tests):
//!   `promtool_check`, promtool's check of a `/metrics` answer.
//!
//! A daemon's API on top of it:
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use std::sync::Arc;
//! use axum::routing::get;
//! use daemon_http::{bounded, serve, Bounds, HttpRequests};
//! let requests = Arc::new(HttpRequests::new("htcondor_example_http_requests_total"));
//! let app = axum::Router::new().route("/healthz", get(daemon_http::healthz));
//! let bounds = Bounds::default();
//! let app = bounded(app, &bounds, requests.clone());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! serve(app, listener, &bounds, std::future::pending()).await
//! # }
//! ```

mod caller;
mod error;
pub mod prometheus;
mod serve;
#[cfg(feature = "test-support")]
pub mod test_support;

pub use caller::Caller;
pub use error::{json_response, no_route, ApiError};
pub use prometheus::HttpRequests;
pub use serve::{bounded, serve, Bounds};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;

/// `GET /healthz`: 200, `{"status":"ok"}`, while the process answers.
pub async fn healthz() -> Response {
    json_response(StatusCode::OK, r#"{"status":"ok"}"#.to_owned())
}

/// `GET /readyz`: 200 `{"status":"ready"}` while `ready` holds `true`,
/// 503 `{"status":"not ready"}` otherwise.
///
/// ```
/// use std::sync::{atomic::AtomicBool, Arc};
/// let ready = Arc::new(AtomicBool::new(false));
/// let response = daemon_http::readyz(&ready);
/// assert_eq!(response.status(), 503);
/// ```
pub fn readyz(ready: &Arc<AtomicBool>) -> Response {
    if ready.load(Ordering::Relaxed) {
        json_response(StatusCode::OK, r#"{"status":"ready"}"#.to_owned())
    } else {
        json_response(StatusCode::SERVICE_UNAVAILABLE, r#"{"status":"not ready"}"#.to_owned())
    }
}
