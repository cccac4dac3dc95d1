//! `cedar::client` against a REAL HTCondor 23.9.6 `condor_collector`, run
//! in the project's chroot on 127.0.0.1:29619 by
//! `tests/data/client/collector.sh` (one collector, no pool, no shared
//! port, no CCB). Opt-in, since it needs root and the chroot:
//! `CEDAR_CHROOT=/work/chroot cargo nextest run -p cedar --test client_chroot`;
//! without `CEDAR_CHROOT` the tests say so and pass.
//!
//! Our client advertises a slot ad (with its private ad) and a schedd ad,
//! queries them back (public and private tables), and invalidates them;
//! `condor_status` from the chroot confirms what the collector holds. The
//! same in modes M1 (CLAIMTOBE) and M2 (IDTOKENS), after a collector restart
//! (`SID_NOT_FOUND`), and behind a real `condor_shared_port`.

#![allow(clippy::unwrap_used)] // test helpers; the rules allow unwrap in tests

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cedar::client::collector::Update;
use cedar::client::{Client, ClientConfig, CollectorClient, Query};
use cedar::command::*;
use cedar::handshake::Via;
use cedar::policy::AuthMethod;
use classad::ClassAd;

const PORT: u16 = 29619;
const WORK: &str = "/tmp/cedar-client-live";

fn chroot() -> Option<PathBuf> {
    let Some(root) = std::env::var_os("CEDAR_CHROOT") else {
        eprintln!("skipped: set CEDAR_CHROOT to the HTCondor 23.9.6 chroot to run these tests");
        return None;
    };
    Some(PathBuf::from(root))
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/client/collector.sh")
}

/// The collector of one test; stopped on drop.
struct Collector {
    root: PathBuf,
}

impl Collector {
    fn start(root: &Path, mode: &str) -> Collector {
        let probe = if mode == "m0" || mode == "sp" { ClientConfig::default().raw() } else { config(mode) };
        let target = if mode == "sp" { shared_addr() } else { addr() };
        Collector::start_with(root, mode, probe, target)
    }

    /// Starts the collector of `mode`; it is up once a client with `probe`
    /// (and a cache of its own) reads the collector's own ad at `target`.
    fn start_with(root: &Path, mode: &str, probe: ClientConfig, target: cedar::sinful::Sinful) -> Collector {
        assert!(TcpStream::connect(("127.0.0.1", PORT)).is_err(), "something already listens on {PORT}");
        let ok = Command::new("sh").arg(script()).args(["start", mode]).arg(root).status().unwrap().success();
        assert!(ok, "collector.sh start {mode} failed");
        let collector = Collector { root: root.to_owned() };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", PORT)).is_err() {
            assert!(Instant::now() < deadline, "the collector did not listen on {PORT}:\n{}", collector.log());
            std::thread::sleep(Duration::from_millis(200));
        }
        // It listens before it has made its own ad: wait for the ad.
        let probe = CollectorClient::new(Client::new(probe), target);
        while probe.query(&Query::collector()).map(|a| a.is_empty()).unwrap_or(true) {
            assert!(Instant::now() < deadline, "the collector has no ad of its own:\n{}", collector.log());
            std::thread::sleep(Duration::from_millis(200));
        }
        collector
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.root.join(&WORK[1..]).join("log/CollectorLog")).unwrap_or_default()
    }

    /// Runs an HTCondor tool in the chroot with the collector's config.
    fn tool(&self, args: &[&str]) -> String {
        let out = Command::new("chroot")
            .arg(&self.root)
            .args(["env", "-i", "PATH=/usr/bin:/bin:/usr/sbin", &format!("CONDOR_CONFIG={WORK}/collector.config")])
            .args(args)
            .output()
            .unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{args:?}: {text}");
        text
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        let _ = Command::new("sh").arg(script()).arg("stop").arg(&self.root).status();
        // The next test's collector needs the port.
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", PORT)).is_ok() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Our client's configuration for `mode`.
fn config(mode: &str) -> ClientConfig {
    match mode {
        "m1" => {
            let mut c = ClientConfig::authenticated(&[AuthMethod::Claimtobe]);
            c.claim_to_be_user = Some("cedar".into());
            c
        }
        "m2" => {
            let mut c = ClientConfig::authenticated(&[AuthMethod::Token]);
            let token = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/token/condor.jwt");
            c.tokens = vec![std::fs::read_to_string(token).unwrap()];
            c
        }
        _ => ClientConfig::default(),
    }
}

/// The collector behind the shared port daemon (mode sp).
fn shared_addr() -> cedar::sinful::Sinful {
    format!("<127.0.0.1:{PORT}?sock=collector>").parse().unwrap()
}

fn addr() -> cedar::sinful::Sinful {
    format!("<127.0.0.1:{PORT}>").parse().unwrap()
}

fn slot(name: &str, cpus: i64) -> Update {
    let mut ad = ClassAd::new();
    ad.insert("MyType", "Machine");
    ad.insert("Name", name);
    ad.insert("Machine", "cedar-client");
    ad.insert("MyAddress", "<127.0.0.1:40001?noUDP>");
    ad.insert("StartdIpAddr", "<127.0.0.1:40001?noUDP>");
    ad.insert("State", "Unclaimed");
    ad.insert("Activity", "Idle");
    ad.insert("Cpus", cpus);
    ad.insert("Memory", 2048);
    ad.insert("OpSys", "LINUX");
    ad.insert("Arch", "X86_64");
    ad.insert("Requirements", true);
    let mut private = ClassAd::new();
    private.insert("MyType", "Machine");
    private.insert("Name", name);
    private.insert("MyAddress", "<127.0.0.1:40001?noUDP>");
    private.insert("ClaimId", format!("<127.0.0.1:40001>#1#1#secret-{name}"));
    private.insert("Capability", format!("<127.0.0.1:40001>#1#1#secret-{name}"));
    Update::with_private(ad, private)
}

fn schedd() -> Update {
    let mut ad = ClassAd::new();
    ad.insert("MyType", "Scheduler");
    ad.insert("Name", "schedd@cedar-client");
    ad.insert("Machine", "cedar-client");
    ad.insert("MyAddress", "<127.0.0.1:40002?noUDP>");
    ad.insert("ScheddIpAddr", "<127.0.0.1:40002?noUDP>");
    ad.insert("TotalRunningJobs", 0);
    ad.insert("TotalIdleJobs", 3);
    Update::new(ad)
}

/// `query`'s ads once `check` holds of them. The collector reads an
/// update's or invalidation's payload when it is ready, so a query on
/// another connection right after may be answered first: poll a while.
fn eventually(c: &CollectorClient, query: &Query, check: impl Fn(&[ClassAd]) -> bool) -> Vec<ClassAd> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let ads = c.query(query).unwrap();
        if check(&ads) || Instant::now() > deadline {
            return ads;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn string(ad: &ClassAd, name: &str) -> Option<String> {
    ad.eval_attr(name).as_str().map(str::to_owned)
}

fn names(ads: &[ClassAd]) -> Vec<String> {
    let mut n: Vec<String> = ads.iter().filter_map(|a| string(a, "Name")).collect();
    n.sort();
    n
}

/// The scenarios share one port and one directory, so they run one after
/// the other in one test (nextest runs tests in parallel processes).
#[test]
fn the_client_against_a_real_collector() {
    let Some(root) = chroot() else { return };
    advertise_query_and_invalidate(&root);
    a_restarted_collector_rejects_the_old_session(&root);
    authenticated(&root, "m1", "cedar");
    authenticated(&root, "m2", "condor@anchor.local");
    shared_port(&root);
}

/// A collector behind a real `condor_shared_port`: `SHARED_PORT_CONNECT`,
/// then a fresh CEDAR stream to the collector, sessions resumed through it.
fn shared_port(root: &Path) {
    let collector = Collector::start(root, "sp");
    let client = Client::new(ClientConfig::default());
    let c = CollectorClient::new(client.clone(), shared_addr());
    let own = c.query(&Query::collector()).unwrap();
    assert_eq!(own.len(), 1);
    let my_address = string(&own[0], "MyAddress").unwrap();
    assert!(my_address.contains("sock=collector"), "{my_address}");
    c.advertise(UPDATE_SCHEDD_AD, &[schedd()]).unwrap();
    assert_eq!(names(&eventually(&c, &Query::schedd(), |a| a.len() == 1)), ["schedd@cedar-client"]);
    let conn = client.start(&shared_addr(), QUERY_SCHEDD_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::ResumedSession));
    drop(conn);
    // condor_status reaches it through COLLECTOR_HOST (with sock=).
    let out = collector.tool(&["condor_status", "-schedd", "-af", "Name"]);
    assert_eq!(out, "schedd@cedar-client\n");
    let log = std::fs::read_to_string(root.join(&WORK[1..]).join("log/SharedPortLog")).unwrap_or_default();
    // The shared port daemon logged our connect message: our name, the id.
    assert!(log.contains("SharedPortServer: request from TOOL on <127.0.0.1:"), "{log}");
    assert!(log.contains("to connect to collector."), "{log}");
}

/// Modes M1 (CLAIMTOBE) and M2 (IDTOKENS), both with AES: we authenticate
/// as `user`, the rest of each connection is encrypted, updates and
/// queries work, a resumed session is encrypted, and `condor_status`
/// agrees.
fn authenticated(root: &Path, mode: &str, user: &str) {
    let collector = Collector::start(root, mode);
    let client = Client::new(config(mode));
    let mut conn = client.start(&addr(), QUERY_COLLECTOR_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::NewSession));
    assert_eq!(conn.my_remote_user(), Some(user), "{}", collector.log());
    assert!(conn.connection().is_encrypted());
    conn.send_ads(&[&Query::collector().to_ad()], &Default::default()).unwrap();
    assert!(conn.read_message().unwrap().encrypted);
    drop(conn);

    let c = CollectorClient::new(client.clone(), addr());
    c.advertise(UPDATE_STARTD_AD, &[slot("slot1@cedar-client", 4), slot("slot2@cedar-client", 1)]).unwrap();
    c.advertise(UPDATE_SCHEDD_AD, &[schedd()]).unwrap();
    let mine = Query::startd().constraint(r#"Machine == "cedar-client""#).unwrap();
    let slots = eventually(&c, &mine, |a| a.len() == 2);
    assert_eq!(names(&slots), ["slot1@cedar-client", "slot2@cedar-client"], "{}", collector.log());
    let private = c.query(&Query::startd_private()).unwrap();
    let claim = private.iter().find(|a| string(a, "Name").as_deref() == Some("slot2@cedar-client")).unwrap();
    assert_eq!(string(claim, "ClaimId").as_deref(), Some("<127.0.0.1:40001>#1#1#secret-slot2@cedar-client"));
    assert_eq!(names(&eventually(&c, &Query::schedd(), |a| a.len() == 1)), ["schedd@cedar-client"]);

    let mut conn = client.start(&addr(), QUERY_STARTD_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::ResumedSession));
    assert!(conn.connection().is_encrypted());
    conn.send_ads(&[&Query::startd().to_ad()], &Default::default()).unwrap();
    let reply = conn.read_message().unwrap();
    assert!(reply.encrypted && reply.payload.len() > 100);
    drop(conn);

    let pool = format!("127.0.0.1:{PORT}");
    let out = collector.tool(&["condor_status", "-pool", &pool, "-af", "Name", "Cpus"]);
    assert_eq!(out, "slot1@cedar-client 4\nslot2@cedar-client 1\n");
    c.invalidate(INVALIDATE_STARTD_ADS, &Query::startd().constraint("true").unwrap()).unwrap();
    assert!(eventually(&c, &Query::startd(), |a| a.is_empty()).is_empty(), "{}", collector.log());
    let log = collector.log();
    // The collector chose the method from our bitmask: CLAIMTOBE is 2,
    // TOKEN 2048 (condor_auth.h).
    let method = if mode == "m1" { 2 } else { 2048 };
    assert!(log.contains(&format!("HANDSHAKE: client sent (methods == {method})")), "{log}");
    assert!(log.contains(&format!("HANDSHAKE: i picked (method == {method})")), "{log}");
    assert!(log.contains("DC_AUTHENTICATE: authentication of 127.0.0.1 complete."), "{log}");
    assert!(log.contains(&format!("PERMISSION GRANTED to {user} from host 127.0.0.1")), "{log}");
}

/// Mode M0 (plaintext): negotiated and raw clients.
fn advertise_query_and_invalidate(root: &Path) {
    let collector = Collector::start(root, "m0");
    let client = Client::new(ClientConfig::default());

    // A new session: the collector's own ad, and what the handshake told us.
    let mut conn = client.start(&addr(), QUERY_COLLECTOR_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::NewSession));
    let version = conn.server_version().cloned().unwrap();
    assert_eq!((version.major, version.minor, version.subminor), (23, 9, 6));
    assert_eq!(conn.my_remote_user(), Some("unauthenticated@unmapped"));
    conn.send_ads(&[&Query::collector().to_ad()], &Default::default()).unwrap();
    let reply = conn.read_message().unwrap();
    assert!(!reply.payload.is_empty());
    drop(conn);

    let c = CollectorClient::new(client.clone(), addr());
    let own = c.query(&Query::collector()).unwrap();
    assert_eq!(own.len(), 1, "{:?}", names(&own));
    assert_eq!(string(&own[0], "MyType").as_deref(), Some("Collector"));

    // Two slot ads with their private ads (one connection: follow-on
    // commands), one schedd ad.
    c.advertise(UPDATE_STARTD_AD, &[slot("slot1@cedar-client", 4), slot("slot2@cedar-client", 1)]).unwrap();
    c.advertise(UPDATE_SCHEDD_AD, &[schedd()]).unwrap();

    let mine = Query::startd().constraint(r#"Machine == "cedar-client""#).unwrap();
    let slots = eventually(&c, &mine, |a| a.len() == 2);
    assert_eq!(names(&slots), ["slot1@cedar-client", "slot2@cedar-client"], "{}", collector.log());
    for ad in &slots {
        // The public table holds no secret.
        assert!(ad.lookup("ClaimId").is_none() && ad.lookup("Capability").is_none());
        assert!(ad.lookup("LastHeardFrom").is_some());
    }
    let big = c.query(&Query::startd().constraint("Cpus > 2").unwrap().projection(["Name", "Cpus"])).unwrap();
    assert_eq!(names(&big), ["slot1@cedar-client"]);
    assert_eq!(big[0].eval_attr("Cpus"), classad::Value::Int(4));
    assert_eq!(c.query(&Query::startd().limit(1)).unwrap().len(), 1);

    // The private table: QUERY_STARTD_PVT_ADS (NEGOTIATOR level).
    let private = c.query(&Query::startd_private()).unwrap();
    assert_eq!(names(&private), ["slot1@cedar-client", "slot2@cedar-client"]);
    let claim = private.iter().find(|a| string(a, "Name").as_deref() == Some("slot1@cedar-client")).unwrap();
    assert_eq!(string(claim, "ClaimId").as_deref(), Some("<127.0.0.1:40001>#1#1#secret-slot1@cedar-client"));

    let schedds = eventually(&c, &Query::schedd(), |a| a.len() == 1);
    assert_eq!(names(&schedds), ["schedd@cedar-client"]);
    assert_eq!(schedds[0].eval_attr("TotalIdleJobs"), classad::Value::Int(3));

    // Later READ commands resumed the first session.
    let conn = client.start(&addr(), QUERY_STARTD_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::ResumedSession));
    drop(conn);

    // A raw client (no handshake) reads the same.
    let raw = CollectorClient::new(Client::new(ClientConfig::default().raw()), addr());
    assert_eq!(names(&raw.query(&Query::schedd()).unwrap()), ["schedd@cedar-client"]);

    // condor_status (the C++ client) sees what we advertised.
    let pool = format!("127.0.0.1:{PORT}");
    let out = collector.tool(&["condor_status", "-pool", &pool, "-af", "Name", "Cpus", "State"]);
    assert_eq!(out, "slot1@cedar-client 4 Unclaimed\nslot2@cedar-client 1 Unclaimed\n");
    let out = collector.tool(&["condor_status", "-pool", &pool, "-schedd", "-af", "Name", "TotalIdleJobs"]);
    assert_eq!(out, "schedd@cedar-client 3\n");
    let out = collector.tool(&["condor_status", "-pool", &pool]);
    assert!(out.contains("slot1@cedar-client") && out.contains("X86_64/LINUX"), "{out}");

    // Invalidations.
    c.invalidate(INVALIDATE_STARTD_ADS, &Query::startd().constraint(r#"Name == "slot2@cedar-client""#).unwrap())
        .unwrap();
    c.invalidate(INVALIDATE_SCHEDD_ADS, &Query::schedd().constraint(r#"Name == "schedd@cedar-client""#).unwrap())
        .unwrap();
    let left = eventually(&c, &Query::startd(), |a| a.len() == 1);
    assert_eq!(names(&left), ["slot1@cedar-client"], "{}", collector.log());
    assert!(eventually(&c, &Query::schedd(), |a| a.is_empty()).is_empty());
    let out = collector.tool(&["condor_status", "-pool", &pool, "-af", "Name"]);
    assert_eq!(out, "slot1@cedar-client\n");
    let out = collector.tool(&["condor_status", "-pool", &pool, "-schedd", "-af", "Name"]);
    assert_eq!(out, "");

    // The collector logged our commands.
    let log = collector.log();
    assert!(log.contains("Got INVALIDATE_STARTD_ADS"), "{log}");
}

/// A restarted collector has forgotten our session: the real server
/// answers `SID_NOT_FOUND`, the command fails as in C++, and the next one
/// makes a new session (at once with `retry_rejected_session`).
fn a_restarted_collector_rejects_the_old_session(root: &Path) {
    let client = Client::new(ClientConfig::default());
    let retrying = Client::new(ClientConfig::default().retry_rejected_session(true));
    {
        let _collector = Collector::start(root, "m0");
        CollectorClient::new(client.clone(), addr()).query(&Query::collector()).unwrap();
        CollectorClient::new(retrying.clone(), addr()).query(&Query::collector()).unwrap();
    }
    let collector = Collector::start(root, "m0");
    let mut conn = client.connect(&addr()).unwrap();
    let e = conn.start_command(QUERY_COLLECTOR_ADS).unwrap_err();
    assert_eq!(e.message(), "Server rejected our session id");
    assert!(conn.session_rejected());
    drop(conn);
    let conn = client.start(&addr(), QUERY_COLLECTOR_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::NewSession));
    drop(conn);
    let conn = retrying.start(&addr(), QUERY_COLLECTOR_ADS).unwrap();
    assert_eq!(conn.via(), Some(Via::NewSession));
    drop(conn);
    assert_eq!(collector.log().matches("attempt to open invalid session").count(), 2, "{}", collector.log());
}
