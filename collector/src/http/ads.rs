//! The ad routes: queries, one ad, advertise, remove, invalidate. Each
//! runs the CEDAR command it stands for through the crate's own
//! functions, so the tables change (and queries answer) exactly as over
//! CEDAR, and counts it in the same [`crate::Stats`].

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, Query as UrlQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use cedar::authz::{collector_command, Permission};
use cedar::command as c;
use cedar::handshake::ServerConfig;
use classad::{ClassAd, Expr};
use daemon_http::Caller;

use super::{json, json_response, paging, ApiError, Shared};
use crate::query::{Access, Query};
use crate::update::UpdatePayload;

/// What an ad type in a URL stands for: the CEDAR commands and the
/// `TargetType` or `MyType` they need.
#[derive(Debug, Clone)]
struct Kind {
    query: i32,
    update: Option<i32>,
    invalidate: Option<i32>,
    /// `TargetType` for the query and the invalidation.
    target: Option<String>,
    /// `MyType` given to an advertised ad that has none.
    my_type: String,
}

fn kind(name: &str) -> Kind {
    let k = |query, update, invalidate, target: Option<&str>, my_type: &str| Kind {
        query,
        update,
        invalidate,
        target: target.map(str::to_owned),
        my_type: my_type.to_owned(),
    };
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "startd" | "machine" | "slot" => {
            k(c::QUERY_STARTD_ADS, Some(c::UPDATE_STARTD_AD), Some(c::INVALIDATE_STARTD_ADS), None, "Machine")
        }
        "startd_daemon" => {
            k(c::QUERY_STARTD_ADS, Some(c::UPDATE_STARTD_AD), Some(c::INVALIDATE_STARTD_ADS), Some("StartD"), "StartD")
        }
        "startd_private" => k(c::QUERY_STARTD_PVT_ADS, None, None, None, "Machine"),
        "schedd" | "scheduler" => {
            k(c::QUERY_SCHEDD_ADS, Some(c::UPDATE_SCHEDD_AD), Some(c::INVALIDATE_SCHEDD_ADS), None, "Scheduler")
        }
        "master" | "daemonmaster" => {
            k(c::QUERY_MASTER_ADS, Some(c::UPDATE_MASTER_AD), Some(c::INVALIDATE_MASTER_ADS), None, "DaemonMaster")
        }
        "submitter" => k(
            c::QUERY_SUBMITTOR_ADS,
            Some(c::UPDATE_SUBMITTOR_AD),
            Some(c::INVALIDATE_SUBMITTOR_ADS),
            None,
            "Submitter",
        ),
        "negotiator" => k(
            c::QUERY_NEGOTIATOR_ADS,
            Some(c::UPDATE_NEGOTIATOR_AD),
            Some(c::INVALIDATE_NEGOTIATOR_ADS),
            None,
            "Negotiator",
        ),
        "collector" => k(
            c::QUERY_COLLECTOR_ADS,
            Some(c::UPDATE_COLLECTOR_AD),
            Some(c::INVALIDATE_COLLECTOR_ADS),
            None,
            "Collector",
        ),
        "accounting" => k(
            c::QUERY_ACCOUNTING_ADS,
            Some(c::UPDATE_ACCOUNTING_AD),
            Some(c::INVALIDATE_ACCOUNTING_ADS),
            None,
            "Accounting",
        ),
        "license" => {
            k(c::QUERY_LICENSE_ADS, Some(c::UPDATE_LICENSE_AD), Some(c::INVALIDATE_LICENSE_ADS), None, "License")
        }
        "storage" => {
            k(c::QUERY_STORAGE_ADS, Some(c::UPDATE_STORAGE_AD), Some(c::INVALIDATE_STORAGE_ADS), None, "Storage")
        }
        "grid" => k(c::QUERY_GRID_ADS, Some(c::UPDATE_GRID_AD), Some(c::INVALIDATE_GRID_ADS), None, "Grid"),
        "had" => k(c::QUERY_HAD_ADS, Some(c::UPDATE_HAD_AD), Some(c::INVALIDATE_HAD_ADS), None, "HAD"),
        "ckptserver" | "ckpt_srvr" => k(
            c::QUERY_CKPT_SRVR_ADS,
            Some(c::UPDATE_CKPT_SRVR_AD),
            Some(c::INVALIDATE_CKPT_SRVR_ADS),
            None,
            "CkptServer",
        ),
        "any" => k(c::QUERY_ANY_ADS, None, None, None, ""),
        _ => k(c::QUERY_GENERIC_ADS, Some(c::UPDATE_AD_GENERIC), Some(c::INVALIDATE_ADS_GENERIC), Some(name), name),
    }
}

fn caller(http: &Shared, headers: &HeaderMap, peer: SocketAddr) -> Result<Caller, ApiError> {
    Caller::from_request(headers, peer.ip(), http.collector.server_config())
}

/// Authorizes `caller` for collector command `command` at the level the
/// collector registers it with.
fn authorize(caller: &Caller, server: &ServerConfig, command: i32, write: bool) -> Result<(), ApiError> {
    match u32::try_from(command).ok().and_then(collector_command) {
        Some(reg) => caller.authorize(server, reg, write),
        None => Err(ApiError::new(StatusCode::FORBIDDEN, "forbidden", "not a collector command")),
    }
}

fn parse_constraint(text: &str) -> Result<Expr, ApiError> {
    text.parse::<Expr>().map_err(|e| ApiError::bad_request("bad_constraint", format!("the constraint: {e}")))
}

/// A string as a ClassAd literal (quoted and escaped).
fn quoted(s: &str) -> String {
    let mut ad = ClassAd::new();
    ad.insert("S", s);
    ad.lookup("S").map(|e| e.to_string()).unwrap_or_default()
}

/// What a query asks for.
struct Ask {
    kind: Kind,
    constraint: Option<String>,
    projection: Option<String>,
    private: bool,
}

/// Runs a query as the CEDAR query command of its type, counting it.
fn run_query(http: &Shared, caller: &Caller, ask: &Ask) -> Result<(Query, crate::query::Selection), ApiError> {
    let server = http.collector.server_config();
    let stats = http.collector.stats();
    let command = ask.kind.query;
    authorize(caller, server, command, false)?;
    let started = Instant::now();
    let mut ad = ClassAd::new();
    if let Some(target) = &ask.kind.target {
        ad.insert("TargetType", target.as_str());
    }
    if let Some(text) = ask.constraint.as_deref().filter(|t| !t.trim().is_empty()) {
        match parse_constraint(text) {
            Ok(expr) => {
                ad.insert("Requirements", expr);
            }
            Err(e) => {
                stats.queries_failed.add(command);
                return Err(e);
            }
        }
    }
    if let Some(p) = ask.projection.as_deref().filter(|p| !p.trim().is_empty()) {
        ad.insert("Projection", p);
    }
    if ask.private {
        ad.insert("SendPrivateAttributes", true);
    }
    let access = Access::new(
        Some(cedar::version::ours()),
        caller.holds(server, Permission::Negotiator),
        caller.holds(server, Permission::Administrator),
    );
    let query = Query::parse(command, ad, &access).map_err(|e| {
        stats.queries_failed.add(command);
        ApiError::bad_request("bad_query", e.to_string())
    })?;
    let selection = query.select(http.collector.store());
    stats.queries.add(command);
    stats.ads_sent.fetch_add(selection.len() as u64, Ordering::Relaxed);
    stats.query_seconds.observe(started.elapsed());
    Ok((query, selection))
}

fn flag(params: &HashMap<String, String>, name: &str) -> bool {
    params.get(name).is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes"))
}

/// `GET /v1/ads`: a query, one page of it.
pub(crate) async fn list(
    State(http): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    UrlQuery(params): UrlQuery<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let caller = caller(&http, &headers, peer)?;
    let type_name = params.get("type").map_or("any", String::as_str);
    let constraint = params.get("constraint").cloned();
    let projection = params.get("projection").cloned();
    let private = flag(&params, "private");
    let options = &http.options;
    let limit = match params.get("limit") {
        None => options.default_limit,
        Some(l) => match l.parse::<usize>() {
            Ok(0) | Err(_) => return Err(ApiError::bad_request("bad_limit", "limit is a positive integer")),
            Ok(n) => n.min(options.max_limit),
        },
    };
    let fp = paging::fingerprint(&[
        &type_name.to_ascii_lowercase(),
        constraint.as_deref().unwrap_or(""),
        projection.as_deref().unwrap_or(""),
        if private { "p" } else { "" },
    ]);
    let offset = match params.get("page_token").filter(|t| !t.is_empty()) {
        Some(token) => paging::decode(token, fp)?,
        None => 0,
    };
    let ask = Ask { kind: kind(type_name), constraint, projection, private };
    let work = http.clone();
    let body = tokio::task::spawn_blocking(move || -> Result<String, ApiError> {
        let (query, selection) = run_query(&work, &caller, &ask)?;
        let hits = selection.hits();
        let start = offset.min(hits.len());
        let end = start.saturating_add(limit).min(hits.len());
        let ads: Vec<ClassAd> = hits[start..end].iter().map(|h| query.hit_ad(h)).collect();
        let next = (end < hits.len()).then(|| paging::encode(end, fp));
        // golang-htcondor's shape (`ads`, `total_returned`, `has_more`,
        // `next_page_token`), with `matched` for the whole query.
        Ok(format!(
            "{{\"ads\":{},\"total_returned\":{},\"matched\":{},\"has_more\":{},\"next_page_token\":{}}}",
            json::ads_array(&ads),
            ads.len(),
            hits.len(),
            next.is_some(),
            serde_json::Value::from(next)
        ))
    })
    .await
    .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "the query failed"))??;
    Ok(json_response(StatusCode::OK, body))
}

/// `GET /v1/ads/{type}/{name}`: the ad of that `Name`.
pub(crate) async fn one(
    State(http): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path((type_name, name)): Path<(String, String)>,
    UrlQuery(params): UrlQuery<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let caller = caller(&http, &headers, peer)?;
    let ask = Ask {
        kind: kind(&type_name),
        constraint: Some(format!("Name =?= {}", quoted(&name))),
        projection: params.get("projection").cloned(),
        private: flag(&params, "private"),
    };
    let (query, selection) = run_query(&http, &caller, &ask)?;
    match selection.hits().first() {
        Some(hit) => Ok(json_response(
            StatusCode::OK,
            classad::format::ad_to_string(&query.hit_ad(hit), classad::format::Format::Json),
        )),
        None => Err(ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("no {type_name} ad named {name:?}"))),
    }
}

/// `POST /v1/ads/{type}`: stores one ad or a list, as `UPDATE_*_AD`.
pub(crate) async fn advertise(
    State(http): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path(type_name): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let caller = caller(&http, &headers, peer)?;
    let kind = kind(&type_name);
    let Some(command) = kind.update else {
        return Err(ApiError::bad_request("bad_type", format!("{type_name} ads cannot be advertised")));
    };
    authorize(&caller, http.collector.server_config(), command, true)?;
    let ads = json::read_ads(&body)?;
    let stats = http.collector.stats();
    let (mut stored, mut inserted) = (0usize, 0usize);
    let mut errors = Vec::new();
    for mut ad in ads {
        if ad.lookup("MyType").is_none() && !kind.my_type.is_empty() {
            ad.insert("MyType", kind.my_type.as_str());
        }
        let payload = UpdatePayload { ad, private: None };
        match http.collector.apply_update(command, payload, caller.user(), Some("IDTOKENS")) {
            Ok(updated) => {
                stats.updates.add(command);
                stored += 1;
                if updated.inserted {
                    inserted += 1;
                    stats.ads_inserted.fetch_add(1, Ordering::Relaxed);
                }
            }
            Err(e) => {
                stats.updates_failed.add(command);
                errors.push(e.to_string());
            }
        }
    }
    let mut body = serde_json::json!({ "stored": stored, "inserted": inserted });
    if let Some(first) = errors.first() {
        body["error"] = serde_json::json!({ "kind": "update_refused", "message": first });
        body["refused"] = serde_json::json!(errors.len());
        return Ok(json_response(StatusCode::BAD_REQUEST, body.to_string()));
    }
    Ok(json_response(StatusCode::OK, body.to_string()))
}

/// Runs invalidation `command` of `kind` with `query`, counting it.
fn invalidation(
    http: &Shared,
    caller: &Caller,
    kind: &Kind,
    type_name: &str,
    mut query: ClassAd,
) -> Result<usize, ApiError> {
    let Some(command) = kind.invalidate else {
        return Err(ApiError::bad_request("bad_type", format!("{type_name} ads cannot be invalidated")));
    };
    authorize(caller, http.collector.server_config(), command, true)?;
    if let Some(target) = &kind.target {
        query.insert("TargetType", target.as_str());
    }
    let n = http.collector.invalidate(command, &query);
    let stats = http.collector.stats();
    stats.invalidations.add(command);
    stats.ads_invalidated.fetch_add(n as u64, Ordering::Relaxed);
    Ok(n)
}

/// `DELETE /v1/ads/{type}/{name}`: removes the ad of that `Name`.
pub(crate) async fn remove(
    State(http): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path((type_name, name)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let caller = caller(&http, &headers, peer)?;
    let kind = kind(&type_name);
    let mut query = ClassAd::new();
    query.insert("Name", name.as_str());
    query.insert("Requirements", parse_constraint(&format!("Name =?= {}", quoted(&name)))?);
    let n = invalidation(&http, &caller, &kind, &type_name, query)?;
    if n == 0 {
        return Err(ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("no {type_name} ad named {name:?}")));
    }
    Ok(json_response(StatusCode::OK, serde_json::json!({ "invalidated": n }).to_string()))
}

/// `POST /v1/invalidate/{type}`: removes what a constraint selects (the
/// `constraint` parameter, or `{"constraint": "…"}` as the body).
pub(crate) async fn invalidate(
    State(http): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path(type_name): Path<String>,
    UrlQuery(params): UrlQuery<HashMap<String, String>>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let caller = caller(&http, &headers, peer)?;
    let kind = kind(&type_name);
    let from_body = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        let value: serde_json::Value = serde_json::from_slice(&body)
            .map_err(|e| ApiError::bad_request("bad_body", format!("the body is not JSON: {e}")))?;
        match value.get("constraint") {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            _ => return Err(ApiError::bad_request("bad_body", "the body is not {\"constraint\": \"…\"}")),
        }
    };
    let Some(text) = from_body.or_else(|| params.get("constraint").cloned()).filter(|t| !t.trim().is_empty()) else {
        return Err(ApiError::bad_request("bad_constraint", "an invalidation needs a constraint"));
    };
    let mut query = ClassAd::new();
    query.insert("Requirements", parse_constraint(&text)?);
    let n = invalidation(&http, &caller, &kind, &type_name, query)?;
    Ok(json_response(StatusCode::OK, serde_json::json!({ "invalidated": n }).to_string()))
}
