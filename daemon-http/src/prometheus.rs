//! Prometheus' text format 0.0.4: the pieces every daemon's `/metrics`
//! writes with.
//!
//! ```
//! use daemon_http::prometheus::{gauge, head, escape};
//! let mut out = String::new();
//! gauge(&mut out, "htcondor_example_up", "Whether it is up.", 1.0);
//! head(&mut out, "htcondor_example_users", "gauge", "Users, by name.");
//! out.push_str(&format!("htcondor_example_users{{user=\"{}\"}} 1\n", escape("a\"b")));
//! assert!(out.starts_with("# HELP htcondor_example_up Whether it is up.\n# TYPE htcondor_example_up gauge\nhtcondor_example_up 1\n"));
//! assert!(out.ends_with("{user=\"a\\\"b\"} 1\n"));
//! ```

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::Ordering;

use cedar::tokio::ServerStats;
use parking_lot::Mutex;

/// The `Content-Type` of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A label value escaped (`\`, `"`, newline).
pub fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// The `# HELP` and `# TYPE` lines of metric `name` (`kind`: `counter`,
/// `gauge`, `histogram`).
pub fn head(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// A counter without labels, with its head.
pub fn counter(out: &mut String, name: &str, help: &str, value: u64) {
    head(out, name, "counter", help);
    let _ = writeln!(out, "{name} {value}");
}

/// A gauge without labels, with its head.
pub fn gauge(out: &mut String, name: &str, help: &str, value: f64) {
    head(out, name, "gauge", help);
    let _ = writeln!(out, "{name} {value}");
}

/// HTTP requests answered, by method, route pattern and status (a small
/// set: the routes are fixed, other methods and paths count together),
/// rendered as the counter named at [`new`](Self::new).
#[derive(Debug)]
pub struct HttpRequests {
    name: &'static str,
    counts: Mutex<BTreeMap<(&'static str, String, u16), u64>>,
}

impl HttpRequests {
    /// No requests yet, to be rendered as counter `name`
    /// (`htcondor_<daemon>_http_requests_total`).
    pub fn new(name: &'static str) -> HttpRequests {
        HttpRequests { name, counts: Mutex::default() }
    }

    /// Counts one request (`route`: the matched route's pattern, `None`
    /// for no route).
    ///
    /// ```
    /// let r = daemon_http::HttpRequests::new("htcondor_example_http_requests_total");
    /// r.add(&axum::http::Method::GET, Some("/healthz"), 200);
    /// let mut out = String::new();
    /// r.render(&mut out);
    /// assert!(out.ends_with("htcondor_example_http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"} 1\n"));
    /// ```
    pub fn add(&self, method: &axum::http::Method, route: Option<&str>, status: u16) {
        use axum::http::Method;
        let method = match *method {
            Method::GET => "GET",
            Method::POST => "POST",
            Method::DELETE => "DELETE",
            Method::PUT => "PUT",
            Method::HEAD => "HEAD",
            _ => "other",
        };
        let route = route.unwrap_or("other").to_owned();
        *self.counts.lock().entry((method, route, status)).or_default() += 1;
    }

    /// The counter, head and one line per (method, route, status).
    pub fn render(&self, out: &mut String) {
        let name = self.name;
        head(out, name, "counter", "HTTP requests answered, by method, route and status.");
        for ((method, route, status), n) in self.counts.lock().iter() {
            let route = escape(route);
            let _ = writeln!(out, "{name}{{method=\"{method}\",route=\"{route}\",status=\"{status}\"}} {n}");
        }
    }
}

/// The CEDAR server's counters (`htcondor_cedar_*`: they are the
/// protocol's, the same in every daemon) and its cached sessions.
///
/// | name | type | labels |
/// |---|---|---|
/// | `htcondor_cedar_connections_total` | counter | `result` (`accepted`, `refused`) |
/// | `htcondor_cedar_connections_active` | gauge | |
/// | `htcondor_cedar_connections_ended_total` | counter | `reason` (`timed_out`, `failed`) |
/// | `htcondor_cedar_commands_total` | counter | |
/// | `htcondor_cedar_sessions` | gauge | |
pub fn cedar_server(out: &mut String, cedar: Option<&ServerStats>, sessions: usize) {
    let load = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
    if let Some(cedar) = cedar {
        let name = "htcondor_cedar_connections_total";
        head(out, name, "counter", "CEDAR connections, by whether they were served.");
        let _ = writeln!(out, "{name}{{result=\"accepted\"}} {}", load(&cedar.accepted));
        let _ = writeln!(out, "{name}{{result=\"refused\"}} {}", load(&cedar.refused));
        head(out, "htcondor_cedar_connections_active", "gauge", "CEDAR connections being served.");
        let _ = writeln!(out, "htcondor_cedar_connections_active {}", cedar.active.load(Ordering::Relaxed));
        let name = "htcondor_cedar_connections_ended_total";
        head(out, name, "counter", "CEDAR connections ended by a deadline or an error.");
        let _ = writeln!(out, "{name}{{reason=\"timed_out\"}} {}", load(&cedar.timed_out));
        let _ = writeln!(out, "{name}{{reason=\"failed\"}} {}", load(&cedar.failed));
        counter(out, "htcondor_cedar_commands_total", "CEDAR commands handed to the handler.", load(&cedar.commands));
    }
    head(out, "htcondor_cedar_sessions", "gauge", "CEDAR security sessions cached.");
    let _ = writeln!(out, "htcondor_cedar_sessions {sessions}");
}
