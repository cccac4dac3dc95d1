//! Errors answered as JSON.

use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// An error answered as `{"error": {"kind", "message"}}` with its status
/// (401 also carries `WWW-Authenticate: Bearer`).
///
/// ```
/// use axum::response::IntoResponse;
/// let e = daemon_http::ApiError::bad_request("bad_limit", "limit is a positive integer");
/// assert_eq!(e.kind(), "bad_limit");
/// assert_eq!(e.into_response().status(), 400);
/// ```
#[derive(Debug, Clone)]
pub struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
}

impl ApiError {
    /// An error of `kind` (a short snake_case word clients may match on).
    pub fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, kind, message: message.into() }
    }

    /// A 400.
    pub fn bad_request(kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, kind, message)
    }

    /// A 401 (`unauthenticated`).
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthenticated", message)
    }

    /// The status answered.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The kind.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
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

/// A JSON body with `status`.
pub fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The fallback route: 404 `no_route`.
pub async fn no_route() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no_route", "no such route")
}

/// The longest plain-text error body carried over into a JSON error.
const MAX_REJECTION: usize = 4096;

/// axum's own refusals (a body over the limit, a path that does not
/// decode, a wrong method) come as plain text: they are made JSON errors
/// like the handlers' own.
pub(crate) async fn as_json_error(response: Response) -> Response {
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

/// The middleware that ends a request after `timeout` with 408.
pub(crate) async fn deadline(timeout: std::time::Duration, req: Request, next: Next) -> Response {
    match tokio::time::timeout(timeout, next.run(req)).await {
        Ok(response) => response,
        Err(_) => ApiError::new(StatusCode::REQUEST_TIMEOUT, "timeout", "the request took too long").into_response(),
    }
}
