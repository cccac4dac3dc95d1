//! The HTTP API over loopback: real HTTP/1.1 requests (written by hand on
//! a `TcpStream`) against a collector whose ads came through the CEDAR
//! path's functions.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cedar::handshake::ServerConfig;
use cedar::token::jwt::{unix_now, MintClaims};
use cedar::token::{FileCheck, SigningKey};
use cedar::wire::ad::put_classad;
use cedar::wire::Encoder;
use classad::ClassAd;
use collector::config::CollectorConfig;
use collector::http::{Http, HttpOptions};
use collector::server::Collector;
use collector::update::{apply_update, read_update};
use serde_json::Value;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const TRUST_DOMAIN: &str = "test.pool";

fn pool_key_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cedar/tests/data/token/keys/POOL")
}

fn pool_key() -> Result<SigningKey> {
    Ok(SigningKey::from_file_bytes("POOL", &std::fs::read(pool_key_path())?)?)
}

fn token(subject: &str, authz: &[&str]) -> Result<String> {
    let claims =
        MintClaims::new(TRUST_DOMAIN, subject, unix_now(), Some(3600), authz.iter().map(|s| (*s).to_owned()).collect());
    Ok(claims.mint(&pool_key()?)?)
}

/// Stores `ads` (an ad, and a startd's private ad) as an `UPDATE_*`
/// command's payload would.
fn store_over_cedar_path(collector: &Collector, command: i32, ads: &[&str]) -> Result<()> {
    let mut enc = Encoder::new(false);
    for ad in ads {
        let ad: ClassAd = ad.parse()?;
        put_classad(&mut enc, &ad, &Default::default())?;
    }
    let payload = read_update(command, enc.as_bytes(), false, &Default::default())?;
    apply_update(collector.store(), command, payload, None, None, unix_now())?;
    Ok(())
}

struct Fixture {
    addr: SocketAddr,
    collector: Arc<Collector>,
    ready: Arc<AtomicBool>,
}

fn spawn(options: HttpOptions) -> Result<Fixture> {
    let key = pool_key_path();
    let knobs: HashMap<&str, String> = [
        ("TRUST_DOMAIN", TRUST_DOMAIN.to_owned()),
        ("SEC_TOKEN_POOL_SIGNING_KEY_FILE", key.to_string_lossy().into_owned()),
        ("ALLOW_READ", "*".to_owned()),
        ("ALLOW_WRITE", "*".to_owned()),
        ("ALLOW_ADVERTISE_STARTD", "*".to_owned()),
        ("ALLOW_ADVERTISE_MASTER", "*".to_owned()),
        ("ALLOW_ADVERTISE_SCHEDD", "*".to_owned()),
        ("ALLOW_DAEMON", "*".to_owned()),
        ("ALLOW_NEGOTIATOR", format!("negotiator@{TRUST_DOMAIN}/*")),
        ("ALLOW_ADMINISTRATOR", format!("admin@{TRUST_DOMAIN}/*")),
    ]
    .into_iter()
    .collect();
    let lookup = |k: &str| knobs.get(k).cloned();
    let server = ServerConfig::from_config("COLLECTOR", Collector::commands(), &lookup, FileCheck::none())?;
    let collector = Arc::new(Collector::new(CollectorConfig::new("127.0.0.1"), Arc::new(server), "<127.0.0.1:9618>"));
    for i in 1..=5 {
        store_over_cedar_path(
            &collector,
            cedar::command::UPDATE_STARTD_AD,
            &[
                &format!(
                    r#"[ MyType = "Machine"; Name = "slot{i}@host"; Machine = "host"; MyAddress = "<127.0.0.1:1>"; Cpus = {i};
                       Memory = 1024 * {i}; Big = Cpus > 2; ClaimId = "secret{i}" ]"#
                ),
                &format!(r#"[ Capability = "cap{i}" ]"#),
            ],
        )?;
    }
    store_over_cedar_path(
        &collector,
        cedar::command::UPDATE_MASTER_AD,
        &[r#"[ MyType = "DaemonMaster"; Name = "host"; Machine = "host"; MyAddress = "<127.0.0.1:2>" ]"#],
    )?;
    let ready = Arc::new(AtomicBool::new(false));
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let http = Http::new(collector.clone())
        .options(options)
        .readiness(ready.clone())
        .cedar_stats(Arc::new(cedar::tokio::ServerStats::default()));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
            if let Err(e) = collector::http::serve(http, listener, std::future::pending()).await {
                eprintln!("http: {e}");
            }
        });
    });
    Ok(Fixture { addr, collector, ready })
}

struct Reply {
    status: u16,
    headers: String,
    body: String,
}

impl Reply {
    fn json(&self) -> Result<Value> {
        Ok(serde_json::from_str(&self.body)?)
    }

    fn error_kind(&self) -> String {
        self.json().ok().and_then(|v| v["error"]["kind"].as_str().map(str::to_owned)).unwrap_or_default()
    }
}

fn request(addr: SocketAddr, method: &str, target: &str, bearer: Option<&str>, body: Option<&str>) -> Result<Reply> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(token) = bearer {
        head.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    let body = body.unwrap_or("");
    if !body.is_empty() || method == "POST" {
        head.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let text = String::from_utf8(raw)?;
    let (headers, body) = text.split_once("\r\n\r\n").ok_or("no end of headers")?;
    let status = headers.split(' ').nth(1).ok_or("no status")?.parse()?;
    assert!(!headers.to_ascii_lowercase().contains("transfer-encoding: chunked"), "a chunked reply: {headers}");
    Ok(Reply { status, headers: headers.to_owned(), body: body.to_owned() })
}

fn get(addr: SocketAddr, target: &str) -> Result<Reply> {
    request(addr, "GET", target, None, None)
}

fn names(reply: &Reply) -> Result<Vec<String>> {
    let v = reply.json()?;
    let ads = v["ads"].as_array().ok_or("no ads array")?;
    Ok(ads.iter().map(|a| a["Name"].as_str().unwrap_or("").to_owned()).collect())
}

#[test]
fn queries_filter_project_and_page() -> Result<()> {
    let f = spawn(HttpOptions::default())?;
    let all = get(f.addr, "/v1/ads?type=startd")?;
    assert_eq!(all.status, 200, "{}", all.body);
    assert_eq!(names(&all)?.len(), 5);
    let v = all.json()?;
    assert_eq!(v["next_page_token"], Value::Null);
    assert_eq!(
        (v["total_returned"].as_i64(), v["matched"].as_i64(), v["has_more"].as_bool()),
        (Some(5), Some(5), Some(false))
    );
    // HTCondor's JSON: literals as values, expressions as \/Expr()\/.
    assert_eq!(v["ads"][0]["Big"], "/Expr(Cpus > 2)/");
    assert!(all.body.contains(r#""\/Expr(Cpus > 2)\/""#));
    assert!(v["ads"][0]["Memory"].is_string(), "1024 * i is an expression");
    // Private attributes are withheld from an unauthenticated caller.
    assert!(v["ads"][0].get("ClaimId").is_none());

    let big = get(f.addr, "/v1/ads?type=startd&constraint=Cpus%20%3E%3D%204&projection=Name,Cpus")?;
    assert_eq!(big.status, 200, "{}", big.body);
    let mut got = names(&big)?;
    got.sort();
    assert_eq!(got, ["slot4@host", "slot5@host"]);
    let first = &big.json()?["ads"][0];
    assert_eq!(first.as_object().map(|o| o.len()), Some(2), "projected to Name and Cpus: {first}");

    // Pages of two: 2 + 2 + 1, every ad once.
    let mut seen = Vec::new();
    let mut target = "/v1/ads?type=startd&limit=2".to_owned();
    for page in 0.. {
        let r = get(f.addr, &target)?;
        assert_eq!(r.status, 200, "{}", r.body);
        let v = r.json()?;
        seen.extend(names(&r)?);
        assert_eq!(v["has_more"].as_bool(), Some(v["next_page_token"].is_string()));
        assert_eq!(v["matched"], 5);
        match v["next_page_token"].as_str() {
            Some(token) => target = format!("/v1/ads?type=startd&limit=2&page_token={token}"),
            None => {
                assert_eq!(page, 2);
                break;
            }
        }
    }
    seen.sort();
    assert_eq!(seen, (1..=5).map(|i| format!("slot{i}@host")).collect::<Vec<_>>());
    // A token belongs to its query.
    let r = get(f.addr, "/v1/ads?type=startd&limit=2")?;
    let token = r.json()?["next_page_token"].as_str().ok_or("no token")?.to_owned();
    let other = get(f.addr, &format!("/v1/ads?type=master&limit=2&page_token={token}"))?;
    assert_eq!((other.status, other.error_kind().as_str()), (400, "bad_page_token"));

    // `any` walks every table: the slots, the master, the collector's own ad.
    assert_eq!(names(&get(f.addr, "/v1/ads?type=any")?)?.len(), 7);
    Ok(())
}

#[test]
fn results_equal_the_cedar_query() -> Result<()> {
    let f = spawn(HttpOptions::default())?;
    let q: ClassAd = r#"[ Requirements = Cpus > 1 && Cpus < 5 ]"#.parse()?;
    let q = collector::query::Query::parse(cedar::command::QUERY_STARTD_ADS, q, &Default::default())?;
    let cedar_names: Vec<String> = q
        .select(f.collector.store())
        .hits()
        .iter()
        .map(|h| collector::key::string_attr(h.ad().public(), "Name").unwrap_or_default())
        .collect();
    let http = get(f.addr, "/v1/ads?type=startd&constraint=Cpus%20%3E%201%20%26%26%20Cpus%20%3C%205")?;
    assert_eq!(names(&http)?, cedar_names);
    assert_eq!(cedar_names.len(), 3);
    Ok(())
}

#[test]
fn one_ad_by_name_and_errors() -> Result<()> {
    let f = spawn(HttpOptions::default())?;
    let one = get(f.addr, "/v1/ads/startd/slot3@host")?;
    assert_eq!(one.status, 200, "{}", one.body);
    assert_eq!(one.json()?["Cpus"], 3);
    let master = get(f.addr, "/v1/ads/master/host")?;
    assert_eq!(master.json()?["MyType"], "DaemonMaster");

    let missing = get(f.addr, "/v1/ads/startd/nope@host")?;
    assert_eq!((missing.status, missing.error_kind().as_str()), (404, "not_found"));
    let bad = get(f.addr, "/v1/ads?type=startd&constraint=Cpus%20%3E%3E%3E%20(")?;
    assert_eq!((bad.status, bad.error_kind().as_str()), (400, "bad_constraint"), "{}", bad.body);
    assert!(bad.headers.to_ascii_lowercase().contains("content-type: application/json"));
    let limit = get(f.addr, "/v1/ads?type=startd&limit=0")?;
    assert_eq!(limit.status, 400);
    let route = get(f.addr, "/v2/nothing")?;
    assert_eq!((route.status, route.error_kind().as_str()), (404, "no_route"));
    // axum's own refusals are JSON errors too.
    let method = request(f.addr, "PUT", "/v1/ads", None, None)?;
    assert_eq!((method.status, method.error_kind().as_str()), (405, "method_not_allowed"), "{}", method.body);
    let path = get(f.addr, "/v1/ads/startd/%FF%FE")?;
    assert_eq!((path.status, path.error_kind().as_str()), (400, "bad_request"), "{}", path.body);
    // Garbage does not bring the server down.
    for junk in [
        "\x00\x01\x02\r\n\r\n",
        "GET / HTTP/9.9\r\n\r\n",
        "GET /v1/ads?type=%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ] {
        let mut s = TcpStream::connect(f.addr)?;
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        s.write_all(junk.as_bytes())?;
        let mut sink = Vec::new();
        let _ = s.read_to_end(&mut sink);
    }
    assert_eq!(get(f.addr, "/healthz")?.status, 200);
    Ok(())
}

#[test]
fn private_attributes_need_negotiator_authorization() -> Result<()> {
    let f = spawn(HttpOptions::default())?;
    let anonymous = get(f.addr, "/v1/ads/startd/slot1@host?private=true")?;
    assert!(anonymous.json()?.get("ClaimId").is_none());
    let alice = token(&format!("alice@{TRUST_DOMAIN}"), &[])?;
    let r = request(f.addr, "GET", "/v1/ads/startd/slot1@host?private=true", Some(&alice), None)?;
    assert!(r.json()?.get("ClaimId").is_none());
    let negotiator = token(&format!("negotiator@{TRUST_DOMAIN}"), &[])?;
    let r = request(f.addr, "GET", "/v1/ads/startd/slot1@host?private=true", Some(&negotiator), None)?;
    assert_eq!(r.json()?["ClaimId"], "secret1", "{}", r.body);
    // The private table itself is the negotiator's (QUERY_STARTD_PVT_ADS).
    let r = get(f.addr, "/v1/ads?type=startd_private")?;
    assert_eq!((r.status, r.error_kind().as_str()), (403, "forbidden"), "{}", r.body);
    let r = request(f.addr, "GET", "/v1/ads?type=startd_private", Some(&negotiator), None)?;
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json()?;
    assert_eq!(v["ads"].as_array().map(Vec::len), Some(5));
    assert!(v["ads"][0]["Capability"].as_str().is_some_and(|c| c.starts_with("cap")), "{v}");
    // Not asked for: not sent, as to a 23.x negotiator.
    let r = request(f.addr, "GET", "/v1/ads/startd/slot1@host", Some(&negotiator), None)?;
    assert!(r.json()?.get("ClaimId").is_none());
    Ok(())
}

#[test]
fn advertise_needs_a_token_with_the_right_scope() -> Result<()> {
    let f = spawn(HttpOptions::default())?;
    let ad =
        r#"{ "MyType": "Machine", "Name": "slot9@new", "Machine": "new", "MyAddress": "<127.0.0.1:3>", "Cpus": 9 }"#;
    let none = request(f.addr, "POST", "/v1/ads/startd", None, Some(ad))?;
    assert_eq!(none.status, 401, "{}", none.body);
    assert!(none.headers.to_ascii_lowercase().contains("www-authenticate: bearer"));

    let read_only = token(&format!("startd@{TRUST_DOMAIN}"), &["READ"])?;
    let denied = request(f.addr, "POST", "/v1/ads/startd", Some(&read_only), Some(ad))?;
    assert_eq!((denied.status, denied.error_kind().as_str()), (403, "forbidden"), "{}", denied.body);

    let good = token(&format!("startd@{TRUST_DOMAIN}"), &["ADVERTISE_STARTD"])?;
    let mut tampered = good.clone();
    let at = tampered.len() - 3;
    let flipped = if &tampered[at..at + 1] == "A" { "B" } else { "A" };
    tampered.replace_range(at..at + 1, flipped);
    let bad = request(f.addr, "POST", "/v1/ads/startd", Some(&tampered), Some(ad))?;
    assert_eq!((bad.status, bad.error_kind().as_str()), (401, "unauthenticated"), "{}", bad.body);
    assert_eq!(get(f.addr, "/v1/ads/startd/slot9@new")?.status, 404, "nothing stored yet");

    let ok = request(f.addr, "POST", "/v1/ads/startd", Some(&good), Some(ad))?;
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(ok.json()?["stored"], 1);
    let stored = get(f.addr, "/v1/ads/startd/slot9@new")?;
    assert_eq!(stored.status, 200);
    let v = stored.json()?;
    assert_eq!(v["Cpus"], 9);
    // Stamped as the CEDAR path stamps an authenticated update.
    assert_eq!(v["AuthenticatedIdentity"], format!("startd@{TRUST_DOMAIN}"));
    assert!(v["LastHeardFrom"].is_i64());

    // A list, and a bad body.
    let two = r#"[ { "Name": "slot10@new", "MyAddress": "<127.0.0.1:3>" }, { "Name": "slot11@new", "MyAddress": "<127.0.0.1:3>" } ]"#;
    let r = request(f.addr, "POST", "/v1/ads/startd", Some(&good), Some(two))?;
    assert_eq!(r.json()?["stored"], 2, "{}", r.body);
    let r = request(f.addr, "POST", "/v1/ads/startd", Some(&good), Some("{ nope"))?;
    assert_eq!((r.status, r.error_kind().as_str()), (400, "bad_ad"));
    // A token from another trust domain.
    let foreign =
        MintClaims::new("elsewhere", "startd@elsewhere", unix_now(), Some(60), Vec::new()).mint(&pool_key()?)?;
    let r = request(f.addr, "POST", "/v1/ads/startd", Some(&foreign), Some(ad))?;
    assert_eq!(r.status, 401, "{}", r.body);
    Ok(())
}

#[test]
fn delete_and_invalidate() -> Result<()> {
    let f = spawn(HttpOptions::default())?;
    let daemon = token(&format!("condor@{TRUST_DOMAIN}"), &[])?;
    assert_eq!(request(f.addr, "DELETE", "/v1/ads/startd/slot1@host", None, None)?.status, 401);
    let r = request(f.addr, "DELETE", "/v1/ads/startd/slot1@host", Some(&daemon), None)?;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()?["invalidated"], 1);
    assert_eq!(get(f.addr, "/v1/ads/startd/slot1@host")?.status, 404);
    assert_eq!(request(f.addr, "DELETE", "/v1/ads/startd/slot1@host", Some(&daemon), None)?.status, 404);

    let r = request(f.addr, "POST", "/v1/invalidate/startd?constraint=Cpus%20%3E%203", Some(&daemon), None)?;
    assert_eq!(r.json()?["invalidated"], 2, "{}", r.body);
    let r = request(f.addr, "POST", "/v1/invalidate/startd", Some(&daemon), Some(r#"{"constraint": "Cpus == 2"}"#))?;
    assert_eq!(r.json()?["invalidated"], 1, "{}", r.body);
    let r = request(f.addr, "POST", "/v1/invalidate/startd", Some(&daemon), None)?;
    assert_eq!((r.status, r.error_kind().as_str()), (400, "bad_constraint"));
    assert_eq!(names(&get(f.addr, "/v1/ads?type=startd")?)?, ["slot3@host"]);
    Ok(())
}

#[test]
fn health_readiness_and_openapi() -> Result<()> {
    let f = spawn(HttpOptions::default())?;
    assert_eq!(get(f.addr, "/healthz")?.status, 200);
    assert_eq!(get(f.addr, "/readyz")?.status, 503);
    f.ready.store(true, Ordering::Relaxed);
    assert_eq!(get(f.addr, "/readyz")?.status, 200);
    let doc = get(f.addr, "/openapi.json")?.json()?;
    assert_eq!(doc["openapi"], "3.0.3");
    // Every path the document names is routed (not the fallback's 404).
    let paths = doc["paths"].as_object().ok_or("no paths")?;
    for (path, item) in paths {
        let target = path.replace("{type}", "startd").replace("{name}", "x");
        for method in item.as_object().ok_or("no methods")?.keys() {
            let r = request(f.addr, &method.to_ascii_uppercase(), &target, None, None)?;
            assert_ne!(r.error_kind(), "no_route", "{method} {path}");
            assert_ne!(r.status, 405, "{method} {path}");
        }
    }
    Ok(())
}

#[test]
fn request_bodies_are_bounded() -> Result<()> {
    let f = spawn(HttpOptions::default().max_body(1024))?;
    let good = token(&format!("startd@{TRUST_DOMAIN}"), &[])?;
    let big = format!(r#"{{ "Name": "x", "Pad": "{}" }}"#, "a".repeat(4096));
    let r = request(f.addr, "POST", "/v1/ads/startd", Some(&good), Some(&big))?;
    assert_eq!((r.status, r.error_kind().as_str()), (413, "body_too_large"), "{}", r.body);
    Ok(())
}

fn metric(text: &str, line_start: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(line_start).and_then(|rest| rest.trim().parse().ok()))
}

#[test]
fn metrics_count_the_traffic() -> Result<()> {
    let f = spawn(HttpOptions::default())?;
    for _ in 0..3 {
        assert_eq!(get(f.addr, "/v1/ads?type=startd")?.status, 200);
    }
    assert_eq!(get(f.addr, "/v1/ads?type=startd&constraint=(((")?.status, 400);
    let good = token(&format!("startd@{TRUST_DOMAIN}"), &[])?;
    let ad = r#"{ "Name": "slot9@new", "MyAddress": "<127.0.0.1:3>" }"#;
    assert_eq!(request(f.addr, "POST", "/v1/ads/startd", Some(&good), Some(ad))?.status, 200);
    assert_eq!(request(f.addr, "DELETE", "/v1/ads/startd/slot1@host", Some(&good), None)?.status, 200);

    assert_eq!(get(f.addr, "/no/such/route")?.status, 404);
    let r = get(f.addr, "/metrics")?;
    assert_eq!(r.status, 200);
    assert!(r.headers.contains("text/plain; version=0.0.4"), "{}", r.headers);
    let text = &r.body;
    let h = r#"htcondor_collector_http_requests_total{method="GET",route="other",status="404"}"#;
    assert_eq!(metric(text, h), Some(1.0), "{text}");
    assert_eq!(metric(text, r#"htcondor_collector_ads{ad_type="slot"}"#), Some(5.0), "{text}");
    assert_eq!(metric(text, r#"htcondor_collector_ads{ad_type="master"}"#), Some(1.0));
    let q = r#"htcondor_collector_queries_total{command="QUERY_STARTD_ADS",result="answered"}"#;
    assert_eq!(metric(text, q), Some(3.0), "{text}");
    let q = r#"htcondor_collector_queries_total{command="QUERY_STARTD_ADS",result="refused"}"#;
    assert_eq!(metric(text, q), Some(1.0), "{text}");
    // Six through the CEDAR path's functions are not counted there (they
    // bypassed the server); the one over HTTP is.
    let u = r#"htcondor_collector_updates_total{command="UPDATE_STARTD_AD",result="stored"}"#;
    assert_eq!(metric(text, u), Some(1.0), "{text}");
    assert_eq!(metric(text, r#"htcondor_collector_invalidations_total{command="INVALIDATE_STARTD_ADS"}"#), Some(1.0));
    assert_eq!(metric(text, "htcondor_collector_ads_invalidated_total"), Some(1.0));
    assert_eq!(metric(text, "htcondor_collector_query_duration_seconds_count"), Some(3.0));
    assert_eq!(metric(text, r#"htcondor_collector_query_duration_seconds_bucket{le="+Inf"}"#), Some(3.0));
    assert_eq!(metric(text, r#"htcondor_cedar_connections_total{result="accepted"}"#), Some(0.0));
    assert!(text.contains("htcondor_cedar_sessions 0\n"));
    let h = r#"htcondor_collector_http_requests_total{method="GET",route="/v1/ads",status="200"}"#;
    assert_eq!(metric(text, h), Some(3.0), "{text}");
    let h = r#"htcondor_collector_http_requests_total{method="DELETE",route="/v1/ads/{type}/{name}",status="200"}"#;
    assert_eq!(metric(text, h), Some(1.0), "{text}");

    // promtool's own check, where it is installed.
    daemon_http::test_support::promtool_check(text)?;
    Ok(())
}

#[test]
fn slow_headers_and_too_many_connections_are_cut_off() -> Result<()> {
    let options = HttpOptions::default().header_timeout(Duration::from_millis(300)).max_connections(1);
    let f = spawn(options)?;
    let mut slow = TcpStream::connect(f.addr)?;
    slow.set_read_timeout(Some(Duration::from_secs(10)))?;
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")?;
    // While the slow one holds the only slot, another is closed unanswered.
    std::thread::sleep(Duration::from_millis(50));
    let mut other = TcpStream::connect(f.addr)?;
    other.set_read_timeout(Some(Duration::from_secs(10)))?;
    let _ = other.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    let mut got = Vec::new();
    let _ = other.read_to_end(&mut got);
    assert!(!String::from_utf8_lossy(&got).contains("200 OK"), "served past max_connections");
    // The slow one is closed once its headers are late, well before the
    // client's 10 s read timeout.
    let started = std::time::Instant::now();
    let mut rest = Vec::new();
    slow.read_to_end(&mut rest)?;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(!String::from_utf8_lossy(&rest).contains("200 OK"));
    // A connection that sends nothing is closed too.
    std::thread::sleep(Duration::from_millis(50));
    let mut idle = TcpStream::connect(f.addr)?;
    idle.set_read_timeout(Some(Duration::from_secs(10)))?;
    let started = std::time::Instant::now();
    idle.read_to_end(&mut rest)?;
    assert!(started.elapsed() < Duration::from_secs(5));
    // Then the slot is free again.
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(get(f.addr, "/healthz")?.status, 200);
    Ok(())
}

#[test]
fn serve_returns_on_shutdown() -> Result<()> {
    let server = ServerConfig::new(Collector::commands());
    let collector = Arc::new(Collector::new(CollectorConfig::new("127.0.0.1"), Arc::new(server), "<127.0.0.1:9618>"));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let served = tokio::spawn(collector::http::serve(Http::new(collector), listener, async move {
            let _ = rx.await;
        }));
        let reply =
            tokio::task::spawn_blocking(move || get(addr, "/healthz").map(|r| r.status).map_err(|e| e.to_string()))
                .await??;
        assert_eq!(reply, 200);
        let _ = tx.send(());
        tokio::time::timeout(Duration::from_secs(5), served).await???;
        Ok(())
    })
}

/// CEDAR and HTTP from one collector: what one writes the other reads.
#[test]
fn cedar_and_http_share_the_tables() -> Result<()> {
    use cedar::client::collector::Update;
    use cedar::client::{Client, ClientConfig, CollectorClient, Query};
    use cedar::handshake::TokenConfig;
    use cedar::token::KeyStore;

    let tokens = TokenConfig::new(KeyStore::new(Some(pool_key_path()), None, FileCheck::none()));
    let server = Arc::new(ServerConfig::new(Collector::commands()).tokens(tokens, TRUST_DOMAIN));
    let cedar_listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    cedar_listener.set_nonblocking(true)?;
    let cedar_addr = cedar_listener.local_addr()?;
    let http_listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    http_listener.set_nonblocking(true)?;
    let http_addr = http_listener.local_addr()?;
    let sinful = cedar::sinful::Sinful::from_addr(cedar_addr).with_param("noUDP", None);
    let collector = Arc::new(Collector::new(CollectorConfig::new("127.0.0.1"), server.clone(), sinful.to_string()));
    let ready = Arc::new(AtomicBool::new(false));
    let cedar_server = cedar::tokio::Server::new(server, collector::server::CollectorHandler(collector.clone()));
    let http = Http::new(collector.clone()).readiness(ready.clone()).cedar_stats(cedar_server.stats());
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let flag = ready.clone();
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let (Ok(cedar_listener), Ok(http_listener)) =
                (tokio::net::TcpListener::from_std(cedar_listener), tokio::net::TcpListener::from_std(http_listener))
            else {
                return;
            };
            tokio::spawn(collector::http::serve(http, http_listener, std::future::pending()));
            flag.store(true, Ordering::Relaxed);
            let _ = collector.serve_with(cedar_server, cedar_listener, std::future::pending()).await;
        });
    });
    for _ in 0..100 {
        if ready.load(Ordering::Relaxed) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(get(http_addr, "/readyz")?.status, 200);

    let client = CollectorClient::new(Client::new(ClientConfig::default()), sinful);
    let over_cedar: ClassAd =
        r#"[ MyType = "Scheduler"; Name = "cedar@h"; MyAddress = "<127.0.0.1:5>"; TotalIdleJobs = 3 ]"#.parse()?;
    client.advertise(cedar::command::UPDATE_SCHEDD_AD, &[Update::new(over_cedar)])?;
    // The advertise returns once the update is written; the HTTP side
    // (outside CEDAR's arrival order) sees it once the collector read it.
    let mut r = get(http_addr, "/v1/ads/schedd/cedar@h")?;
    for _ in 0..100 {
        if r.status == 200 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        r = get(http_addr, "/v1/ads/schedd/cedar@h")?;
    }
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()?["TotalIdleJobs"], 3);

    let good = token(&format!("schedd@{TRUST_DOMAIN}"), &["ADVERTISE_SCHEDD"])?;
    let ad = r#"{ "Name": "http@h", "MyAddress": "<127.0.0.1:6>", "TotalIdleJobs": 7 }"#;
    let r = request(http_addr, "POST", "/v1/ads/schedd", Some(&good), Some(ad))?;
    assert_eq!(r.status, 200, "{}", r.body);
    let back = client.query(&Query::schedd().constraint("TotalIdleJobs >= 3")?)?;
    let mut cedar_names: Vec<String> = back.iter().filter_map(|a| collector::key::string_attr(a, "Name")).collect();
    cedar_names.sort();
    assert_eq!(cedar_names, ["cedar@h", "http@h"]);
    let mut http_names = names(&get(http_addr, "/v1/ads?type=schedd&constraint=TotalIdleJobs%20%3E%3D%203")?)?;
    http_names.sort();
    assert_eq!(http_names, cedar_names);

    let text = get(http_addr, "/metrics")?.body;
    let accepted = metric(&text, r#"htcondor_cedar_connections_total{result="accepted"}"#).unwrap_or(0.0);
    assert!(accepted >= 2.0, "{text}");
    let u = r#"htcondor_collector_updates_total{command="UPDATE_SCHEDD_AD",result="stored"}"#;
    assert_eq!(metric(&text, u), Some(2.0), "one over CEDAR, one over HTTP: {text}");
    Ok(())
}

#[test]
fn collector_requirements_apply_to_http_updates() -> Result<()> {
    let f = spawn(HttpOptions::default())?;
    let lookup = |k: &str| (k == "COLLECTOR_REQUIREMENTS").then(|| "Cpus < 100".to_owned());
    f.collector.reconfigure(CollectorConfig::from_config("127.0.0.1", &lookup)?);
    let good = token(&format!("startd@{TRUST_DOMAIN}"), &["ADVERTISE_STARTD"])?;
    let big = r#"{ "MyType": "Machine", "Name": "slot9@big", "MyAddress": "<127.0.0.1:3>", "Cpus": 500 }"#;
    let r = request(f.addr, "POST", "/v1/ads/startd", Some(&good), Some(big))?;
    assert_eq!((r.status, r.error_kind().as_str()), (400, "update_refused"), "{}", r.body);
    assert!(r.body.contains("COLLECTOR_REQUIREMENTS"), "{}", r.body);
    assert_eq!(get(f.addr, "/v1/ads/startd/slot9@big")?.status, 404);
    let small = r#"{ "MyType": "Machine", "Name": "slot9@small", "MyAddress": "<127.0.0.1:3>", "Cpus": 9 }"#;
    assert_eq!(request(f.addr, "POST", "/v1/ads/startd", Some(&good), Some(small))?.status, 200);
    Ok(())
}
