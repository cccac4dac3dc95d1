//! A whole live cycle: our collector (the `collector` crate's server) holds
//! slot ads with their private ads and submitter ads; schedds written here
//! after HTCondor's `schedd_negotiate.cpp` (the request list rounds, the
//! negotiation ending itself when a round gives nothing, matches found by
//! `_condor_RESOURCE_CLUSTER`/`_PROC`) answer the NEGOTIATE protocol; and
//! misbehaving ones stall, hang up or answer garbage. (The real schedd is
//! driven by `daemons/tests/chroot/negotiator-pool.sh`.)

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cedar::authz::Permission;
use cedar::client::collector::Update;
use cedar::client::{Client, ClientConfig, CollectorClient};
use cedar::command as c;
use cedar::handshake::{CommandTable, ServerConfig};
use cedar::sinful::Sinful;
use cedar::tokio::{Command, Handler, Server};
use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::codec::Decoder;
use classad::ClassAd;
use collector::config::CollectorConfig;
use collector::server::Collector;
use matchmaker::accountant::{Accountant, AccountantConfig};
use matchmaker::config::Config;
use matchmaker::negotiator::Negotiator;
use negotiator::cycle::{CycleSettings, LiveNegotiator};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// How a schedd behaves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Behaviour {
    Normal,
    /// Never answers a request list.
    Stalls,
    /// Hangs up after the first request.
    HangsUp,
    /// Answers a request list with an unknown command.
    Garbage,
}

#[derive(Default, Debug)]
struct Log {
    headers: Vec<ClassAd>,
    peers: Vec<SocketAddr>,
    /// (owner, claim ids, offer)
    matches: Vec<(String, String, ClassAd)>,
    /// (owner, reason)
    rejections: Vec<(String, String)>,
    ends: usize,
    finished_by_schedd: usize,
}

/// A schedd's queue: per owner, its requests.
struct Schedd {
    queues: Vec<(String, Vec<ClassAd>)>,
    behaviour: Behaviour,
    log: Arc<Mutex<Log>>,
}

fn decode_op(msg: &cedar::wire::Message) -> cedar::error::Result<(i32, Decoder<'_>)> {
    let mut dec = Decoder::new(&msg.payload, msg.encrypted);
    Ok((dec.get_i32()?, dec))
}

impl Handler for Schedd {
    async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
        if command.number() != c::NEGOTIATE {
            let _ = command.read_payload_or_empty().await?;
            return Ok(());
        }
        let peer = command.peer();
        let msg = command.read_payload().await?;
        let header = get_classad(&mut Decoder::new(&msg.payload, msg.encrypted), &AdLimits::default())?;
        let owner = header.lookup_string("Owner").unwrap_or_default();
        {
            let mut log = self.log.lock().map_err(|_| cedar::Error::new(cedar::ErrorKind::Protocol, "poisoned"))?;
            log.headers.push(header);
            if let Some(p) = peer {
                log.peers.push(p);
            }
        }
        let requests = self.queues.iter().find(|(o, _)| *o == owner).map(|(_, r)| r.clone()).unwrap_or_default();
        let mut next = 0;
        loop {
            let msg = command.read_message().await?;
            let (op, mut dec) = decode_op(&msg)?;
            let log = || self.log.lock().map_err(|_| cedar::Error::new(cedar::ErrorKind::Protocol, "poisoned"));
            match op {
                c::SEND_RESOURCE_REQUEST_LIST => {
                    let n = dec.get_int()?;
                    match self.behaviour {
                        Behaviour::Stalls => {
                            tokio::time::sleep(Duration::from_secs(30)).await;
                            return Ok(());
                        }
                        Behaviour::Garbage => {
                            let mut enc = command.encoder();
                            enc.put_int(999);
                            command.send(enc.as_bytes()).await?;
                            continue;
                        }
                        _ => {}
                    }
                    let mut sent = 0;
                    while sent < n {
                        let mut enc = command.encoder();
                        if next >= requests.len() {
                            enc.put_int(i64::from(c::NO_MORE_JOBS));
                            command.send(enc.as_bytes()).await?;
                            if sent == 0 {
                                // The negotiation is over on our side.
                                log()?.finished_by_schedd += 1;
                                return Ok(());
                            }
                            break;
                        }
                        enc.put_int(i64::from(c::JOB_INFO));
                        put_classad(&mut enc, &requests[next], &PutOptions::new())?;
                        command.send(enc.as_bytes()).await?;
                        next += 1;
                        sent += 1;
                        if self.behaviour == Behaviour::HangsUp {
                            return Err(cedar::Error::new(cedar::ErrorKind::Closed, "hanging up"));
                        }
                    }
                }
                c::PERMISSION_AND_AD => {
                    let claims = dec.get_string()?;
                    let offer = get_classad(&mut dec, &AdLimits::default())?;
                    log()?.matches.push((owner.clone(), claims, offer));
                }
                c::REJECTED_WITH_REASON => {
                    let reason = dec.get_string()?;
                    log()?.rejections.push((owner.clone(), reason));
                }
                c::END_NEGOTIATE => {
                    log()?.ends += 1;
                    return Ok(());
                }
                other => return Err(cedar::Error::new(cedar::ErrorKind::Protocol, format!("operation {other}"))),
            }
        }
    }
}

fn ad(text: &str) -> ClassAd {
    match text.parse() {
        Ok(ad) => ad,
        Err(e) => panic!("test ad {text}: {e}"),
    }
}

fn request(cluster: i64, autocluster: i64, count: i64, user: &str) -> ClassAd {
    ad(&format!(
        r#"[ ClusterId = {cluster}; ProcId = 0; AutoClusterId = {autocluster}; _condor_RESOURCE_COUNT = {count};
            Owner = "{user}"; User = "{user}@pool"; RequestCpus = 1; RequestMemory = 100;
            Requirements = TARGET.Cpus >= RequestCpus && TARGET.Memory >= RequestMemory;
            WantMatchDiagnostics = 2 ]"#
    ))
}

fn slot(i: usize, startd: &str) -> (ClassAd, ClassAd) {
    let public = ad(&format!(
        r#"[ MyType = "Machine"; Name = "slot{i}@node"; Machine = "node"; StartdIpAddr = "{startd}";
            MyAddress = "{startd}"; Cpus = 1; Memory = 1000; State = "Unclaimed"; Activity = "Idle";
            Requirements = START; START = true; Rank = 0; SlotWeight = Cpus; CurrentRank = 0 ]"#
    ));
    let private = ad(&format!(
        r#"[ MyType = "Machine"; Name = "slot{i}@node"; MyAddress = "{startd}"; StartdIpAddr = "{startd}";
            ClaimId = "{startd}#1#{i}#[CryptoMethods=\"AES\";]secret{i}" ]"#
    ));
    (public, private)
}

fn submitter(name: &str, schedd: &str, idle: i64) -> ClassAd {
    ad(&format!(
        r#"[ MyType = "Submitter"; Name = "{name}"; ScheddName = "schedd@node"; ScheddIpAddr = "{schedd}";
            SubmitterTag = ""; IdleJobs = {idle}; RunningJobs = 0; MyAddress = "{schedd}" ]"#
    ))
}

/// A running server on the runtime, and its address.
async fn serve<H: Handler>(config: ServerConfig, handler: H) -> Result<Sinful> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(Server::new(Arc::new(config), handler).serve(listener, std::future::pending()));
    Ok(Sinful::from_addr(addr).with_param("noUDP", None))
}

async fn collector() -> Result<Sinful> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let sinful = Sinful::from_addr(addr).with_param("noUDP", None);
    let server = ServerConfig::new(Collector::commands());
    let coll = Arc::new(Collector::new(CollectorConfig::new("127.0.0.1"), Arc::new(server), sinful.to_string()));
    tokio::spawn(coll.serve(listener, cedar::tokio::ServerOptions::default(), std::future::pending()));
    Ok(sinful)
}

fn schedd_table() -> CommandTable {
    CommandTable::new().register(c::NEGOTIATE, Permission::Negotiator).register(c::DC_NOP, Permission::Allow)
}

struct Fixture {
    runtime: tokio::runtime::Runtime,
    collector: CollectorClient,
    client: Client,
}

impl Fixture {
    fn new(timeout: Duration) -> Result<Fixture> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
        let addr = runtime.block_on(collector())?;
        let client = Client::new(ClientConfig::default().subsystem("NEGOTIATOR").timeout(timeout));
        let collector = CollectorClient::new(client.clone(), addr);
        Ok(Fixture { runtime, collector, client })
    }

    fn schedd(&self, queues: Vec<(String, Vec<ClassAd>)>, behaviour: Behaviour) -> Result<(Sinful, Arc<Mutex<Log>>)> {
        let log = Arc::new(Mutex::new(Log::default()));
        let schedd = Schedd { queues, behaviour, log: log.clone() };
        let addr = self.runtime.block_on(serve(ServerConfig::new(schedd_table()), schedd))?;
        Ok((addr, log))
    }

    fn advertise_slots(&self, n: usize) -> Result<()> {
        let startd = "<127.0.0.1:1?noUDP>";
        let updates: Vec<Update> = (1..=n)
            .map(|i| {
                let (public, private) = slot(i, startd);
                Update::with_private(public, private)
            })
            .collect();
        self.collector.advertise(c::UPDATE_STARTD_AD, &updates)?;
        Ok(())
    }

    fn advertise_submitters(&self, ads: Vec<ClassAd>) -> Result<()> {
        let updates: Vec<Update> = ads.into_iter().map(Update::new).collect();
        self.collector.advertise(c::UPDATE_SUBMITTOR_AD, &updates)?;
        Ok(())
    }

    fn cycle(&self, settings: CycleSettings) -> Result<(negotiator::CycleReport, Accountant)> {
        let config = Config::default();
        let negotiator = Negotiator::from_config(&config)?;
        let mut accountant = Accountant::new(AccountantConfig::from_config(&config)?);
        let mut live = LiveNegotiator::new(self.client.clone(), settings);
        let report = live.cycle(&self.collector, &negotiator, &mut accountant, 1_800_000_000)?;
        Ok((report, accountant))
    }
}

/// The schedd's log once `ready` holds of it (the schedd reads our last
/// messages after the cycle returns), or after two seconds.
fn settled(log: &Arc<Mutex<Log>>, ready: impl Fn(&Log) -> bool) -> std::sync::MutexGuard<'_, Log> {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let guard = log_of(log);
        if ready(&guard) || Instant::now() > deadline {
            return guard;
        }
        drop(guard);
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn log_of(log: &Arc<Mutex<Log>>) -> std::sync::MutexGuard<'_, Log> {
    match log.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

#[test]
fn a_cycle_matches_two_submitters_over_one_connection() -> Result<()> {
    let f = Fixture::new(Duration::from_secs(10))?;
    // Carol's second request wants more than any slot has.
    let mut big = request(4, 2, 1, "carol");
    big.insert("RequestCpus", 8);
    let queues = vec![
        ("alice@pool".to_owned(), vec![request(1, 1, 2, "alice")]),
        ("bob@pool".to_owned(), vec![request(2, 1, 1, "bob")]),
        ("carol@pool".to_owned(), vec![request(3, 1, 1, "carol"), big]),
    ];
    let (schedd, log) = f.schedd(queues, Behaviour::Normal)?;
    f.advertise_slots(4)?;
    f.advertise_submitters(vec![
        submitter("alice@pool", &schedd.to_string(), 2),
        submitter("bob@pool", &schedd.to_string(), 1),
        submitter("carol@pool", &schedd.to_string(), 2),
    ])?;
    let (report, accountant) = f.cycle(CycleSettings::default())?;
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!((report.slots, report.private_ads, report.requests), (4, 4, 4));
    assert_eq!(report.matches_sent, 4, "{:?}", report.outcome.matches);
    // The CPU time of each phase is measured apart from its wall time, and
    // the published figures are the CPU ones (the fixture's collector and
    // schedd run in this process, so its CPU time is not 0).
    let cpu = report.cpu;
    let cpu_total = cpu.fetch + cpu.prefetch + cpu.matching + cpu.deliver;
    assert!(cpu_total > Duration::ZERO, "{cpu:?}");
    let figures = negotiator::publish::CycleFigures::from_report(&report);
    assert_eq!(figures.cpu[0], cpu.fetch.as_secs_f64());
    assert_eq!(figures.prefetch_cpu, cpu.prefetch.as_secs_f64());
    let phase4 = figures.cpu[3] + figures.cpu[1];
    assert!((phase4 - (cpu.matching + cpu.deliver).as_secs_f64()).abs() < 1e-9, "{figures:?}");

    let log = settled(&log, |l| l.ends == 6);
    // Prefetch and delivery for each submitter, on one kept connection.
    assert_eq!(log.headers.len(), 6);
    assert!(log.peers.windows(2).all(|w| w[0] == w[1]), "one connection: {:?}", log.peers);
    for h in &log.headers {
        assert_eq!(h.lookup_string("SubmitterTag").as_deref(), Some(""));
        assert_eq!(h.lookup_bool("MatchClaimedPslots"), Some(true));
        let attrs = h.lookup_string("AutoClusterAttrs").unwrap_or_default();
        assert!(attrs.split(',').any(|a| a == "RequestCpus"), "{attrs}");
    }
    // Four matches, each slot's claim once, each offer naming its request.
    assert_eq!(log.matches.len(), 4);
    let mut claims: Vec<&str> = log.matches.iter().map(|(_, c, _)| c.as_str()).collect();
    claims.sort();
    claims.dedup();
    assert_eq!(claims.len(), 4);
    for (owner, claim, offer) in &log.matches {
        let cluster = offer.lookup_integer("_condor_RESOURCE_CLUSTER");
        let want = match owner.as_str() {
            "alice@pool" => 1,
            "bob@pool" => 2,
            _ => 3,
        };
        assert_eq!(cluster, Some(want));
        assert_eq!(offer.lookup_integer("_condor_RESOURCE_PROC"), Some(0));
        let name = offer.lookup_string("Name").unwrap_or_default();
        assert!(claim.ends_with(&format!("secret{}", &name[4..5])), "{claim} for {name}");
        assert!(offer.lookup("ClaimId").is_none(), "the offer leaves the private attributes out");
        assert_eq!(offer.lookup_string("RemoteNegotiatingGroup").as_deref(), Some("<none>"));
    }
    // Carol's big job found nothing, and her schedd heard why, with the
    // autocluster and job the schedd decorates rejections with.
    // (Alice's second job waited for the second spin of the pie: its first
    // try was over her share, and her schedd heard that too.)
    assert!(
        log.rejections.contains(&("carol@pool".to_owned(), "no match found |2|4.0|".to_owned())),
        "{:?}",
        log.rejections
    );
    assert!(
        log.rejections.iter().all(|(_, r)| r.ends_with('|') && r.matches('|').count() == 3),
        "{:?}",
        log.rejections
    );
    // Both negotiations of each submitter were ended by us.
    assert_eq!(log.ends, 6);
    assert_eq!(accountant.resources_used("alice@pool"), 2);
    assert_eq!(accountant.resources_used("carol@pool"), 1);
    Ok(())
}

#[test]
fn a_round_that_gives_nothing_ends_the_negotiation_without_end_negotiate() -> Result<()> {
    let f = Fixture::new(Duration::from_secs(10))?;
    // Exactly one round's worth: the second round gives NO_MORE_JOBS alone.
    let queues = vec![("carol@pool".to_owned(), vec![request(5, 1, 1, "carol"), request(6, 2, 1, "carol")])];
    let (schedd, log) = f.schedd(queues, Behaviour::Normal)?;
    f.advertise_slots(2)?;
    f.advertise_submitters(vec![submitter("carol@pool", &schedd.to_string(), 2)])?;
    let mut settings = CycleSettings::default();
    settings.request_list_size = 2;
    let (report, _) = f.cycle(settings)?;
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    assert_eq!(report.matches_sent, 2);
    let log = settled(&log, |l| l.ends == 1);
    assert_eq!(log.finished_by_schedd, 1);
    // Only the delivery negotiation needed an END_NEGOTIATE.
    assert_eq!(log.ends, 1);
    assert_eq!(log.matches.len(), 2);
    Ok(())
}

#[test]
fn misbehaving_schedds_lose_their_turn_and_the_others_are_served() -> Result<()> {
    let f = Fixture::new(Duration::from_secs(2))?;
    let mut ads = Vec::new();
    let mut logs = Vec::new();
    for (i, behaviour) in
        [Behaviour::Stalls, Behaviour::HangsUp, Behaviour::Garbage, Behaviour::Normal].into_iter().enumerate()
    {
        let name = format!("user{i}@pool");
        let queues = vec![(name.clone(), vec![request(10 + i as i64, 1, 1, &format!("user{i}"))])];
        let (schedd, log) = f.schedd(queues, behaviour)?;
        ads.push(submitter(&name, &schedd.to_string(), 1));
        logs.push((behaviour, log));
    }
    f.advertise_slots(4)?;
    f.advertise_submitters(ads)?;
    let started = Instant::now();
    let (report, _) = f.cycle(CycleSettings::default())?;
    // The stalled schedd costs one timeout, no more.
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    let mut failed: Vec<&str> = report.failures.iter().map(|f| f.submitter.as_str()).collect();
    failed.sort();
    assert_eq!(failed, ["user0@pool", "user1@pool", "user2@pool"], "{:?}", report.failures);
    assert!(report.failures.iter().all(|f| f.phase == "prefetch"));
    let garbage = report.failures.iter().find(|f| f.submitter == "user2@pool").map(|f| f.error.clone());
    assert!(garbage.is_some_and(|e| e.contains("999")));
    assert_eq!(report.matches_sent, 1);
    let normal = &logs[3].1;
    assert_eq!(settled(normal, |l| l.ends == 2).matches.len(), 1);
    assert_eq!(log_of(normal).matches[0].0, "user3@pool");
    Ok(())
}

/// The HTTP API on a real cycle's report: the cycle, the priorities and
/// `/metrics` as a client sees them over loopback (hand-written HTTP/1.1),
/// and READ authorization.
#[cfg(feature = "http")]
mod http_api {
    use std::collections::HashMap;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use cedar::token::FileCheck;
    use negotiator::http::Http;
    use negotiator::publish::accounting_ads;
    use negotiator::status::CycleStatus;

    use super::*;

    /// Serves `status` with `ALLOW_READ = allow_read`; the address.
    fn serve_http(f: &Fixture, status: Arc<CycleStatus>, allow_read: &str) -> Result<SocketAddr> {
        let knobs: HashMap<&str, String> = [("ALLOW_READ", allow_read.to_owned())].into_iter().collect();
        let lookup = |k: &str| knobs.get(k).cloned();
        let server = ServerConfig::from_config("NEGOTIATOR", CommandTable::new(), &lookup, FileCheck::none())?;
        let http = Http::new(Arc::new(server), status, "negotiator@node");
        let listener = f.runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
        let addr = listener.local_addr()?;
        f.runtime.spawn(negotiator::http::serve(http, listener, std::future::pending()));
        Ok(addr)
    }

    /// (status, headers, body) of `GET target`.
    fn get(addr: SocketAddr, target: &str) -> Result<(u16, String, String)> {
        let mut stream = TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        stream.write_all(format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes())?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw)?;
        let text = String::from_utf8(raw)?;
        let (headers, body) = text.split_once("\r\n\r\n").ok_or("no end of headers")?;
        let status = headers.split(' ').nth(1).ok_or("no status")?.parse()?;
        Ok((status, headers.to_owned(), body.to_owned()))
    }

    fn metric(text: &str, line_start: &str) -> Option<f64> {
        text.lines().find_map(|l| l.strip_prefix(line_start).and_then(|rest| rest.trim().parse().ok()))
    }

    #[test]
    fn the_last_cycle_priorities_and_metrics_over_http() -> Result<()> {
        let f = Fixture::new(Duration::from_secs(2))?;
        let mut ads = Vec::new();
        for (i, behaviour) in [Behaviour::HangsUp, Behaviour::Normal].into_iter().enumerate() {
            let name = format!("user{i}@pool");
            let queues = vec![(name.clone(), vec![request(10 + i as i64, 1, 2, &format!("user{i}"))])];
            let (schedd, _log) = f.schedd(queues, behaviour)?;
            ads.push(submitter(&name, &schedd.to_string(), 2));
        }
        f.advertise_slots(4)?;
        f.advertise_submitters(ads)?;
        let (report, accountant) = f.cycle(CycleSettings::default())?;
        assert_eq!(report.matches_sent, 2);
        let status = Arc::new(CycleStatus::default());
        let addr = serve_http(&f, status.clone(), "127.0.0.1")?;

        // Before any cycle: no report, no ads.
        let (code, _, body) = get(addr, "/v1/cycle")?;
        assert_eq!(code, 200, "{body}");
        let v: serde_json::Value = serde_json::from_str(&body)?;
        assert!(v["last"].is_null() && v["cycles"] == 0, "{v}");
        // As `condor_status -json` prints no ads.
        assert_eq!(get(addr, "/v1/priorities")?.2, "[\n]\n");

        status.record(report);
        let accounting = accounting_ads(&accountant, "negotiator@node");
        status.set_accounting(accounting.clone());
        let (code, _, body) = get(addr, "/v1/cycle")?;
        assert_eq!(code, 200);
        let v: serde_json::Value = serde_json::from_str(&body)?;
        assert_eq!(v["negotiator"], "negotiator@node");
        assert_eq!(v["cycles"], 1);
        let last = &v["last"];
        assert_eq!((last["slots"].as_u64(), last["matches_sent"].as_u64()), (Some(4), Some(2)), "{last}");
        assert_eq!(last["failures"][0]["submitter"], "user0@pool", "{last}");
        assert_eq!(last["failures"][0]["phase"], "prefetch");
        assert!(last["phase_seconds"]["fetch"].as_f64().is_some_and(|s| s > 0.0), "{last}");
        let matches = last["outcome"]["matches"].as_array().ok_or("no outcome.matches")?;
        assert_eq!(matches.len(), 2, "{last}");
        assert!(matches.iter().all(|m| m["submitter"] == "user1@pool"), "{matches:?}");

        let (code, _, body) = get(addr, "/v1/priorities")?;
        assert_eq!(code, 200);
        // `condor_status -json`'s layout (`[`, the ads apart by `,` lines,
        // `]`), and the ads read back as they were published.
        assert!(body.starts_with("[\n{\n") && body.ends_with("\n}\n]\n"), "{body}");
        assert_eq!(body.matches("\n}\n,\n{\n").count(), accounting.len() - 1, "{body}");
        let read = classad::format::parse_ads(&body, Some(classad::format::Format::Json))?;
        assert_eq!(read, accounting);
        let ads: serde_json::Value = serde_json::from_str(&body)?;
        let user1 = ads.as_array().and_then(|a| a.iter().find(|ad| ad["Name"] == "user1@pool")).ok_or(body.clone())?;
        assert_eq!(user1["MyType"], "Accounting");
        assert_eq!(user1["ResourcesUsed"], 2, "{user1}");

        let (code, headers, text) = get(addr, "/metrics")?;
        assert_eq!(code, 200);
        assert!(headers.contains("text/plain; version=0.0.4"), "{headers}");
        assert_eq!(metric(&text, "htcondor_negotiator_cycles_total "), Some(1.0), "{text}");
        assert_eq!(metric(&text, "htcondor_negotiator_last_cycle_matches "), Some(2.0), "{text}");
        assert_eq!(metric(&text, "htcondor_negotiator_last_cycle_slots "), Some(4.0));
        assert_eq!(metric(&text, "htcondor_negotiator_last_cycle_failed_submitters "), Some(1.0));
        assert_eq!(
            metric(&text, r#"htcondor_negotiator_last_cycle_submitter_matches{submitter="user1@pool"}"#),
            Some(2.0),
            "{text}"
        );
        assert_eq!(metric(&text, r#"htcondor_negotiator_submitter_resources_used{submitter="user1@pool"}"#), Some(2.0));
        let prio = metric(&text, r#"htcondor_negotiator_submitter_priority{submitter="user1@pool"}"#);
        assert!(prio.is_some_and(|p| p > 0.0), "{text}");
        assert!(text.contains(
            "htcondor_negotiator_http_requests_total{method=\"GET\",route=\"/v1/cycle\",status=\"200\"} 2\n"
        ));
        daemon_http::test_support::promtool_check(&text)?;

        assert_eq!(get(addr, "/healthz")?.0, 200);
        assert_eq!(get(addr, "/readyz")?.0, 200);
        let (code, _, body) = get(addr, "/no/such/route")?;
        assert_eq!((code, body.contains("no_route")), (404, true), "{body}");

        // A caller outside ALLOW_READ gets 403 on everything but health.
        let closed = serve_http(&f, status, "10.1.2.3")?;
        for route in ["/v1/cycle", "/v1/priorities", "/metrics"] {
            let (code, _, body) = get(closed, route)?;
            assert_eq!(code, 403, "{route}: {body}");
            assert!(body.contains("\"forbidden\""), "{body}");
        }
        assert_eq!(get(closed, "/healthz")?.0, 200);
        Ok(())
    }
}
