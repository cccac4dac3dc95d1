//! The collector's update knobs over CEDAR, against an in-process
//! collector with this workspace's client: `COLLECTOR_REQUIREMENTS`,
//! `UPDATE_OWN_SUBMITTOR_AD`, `COLLECTOR_ALLOW_ONLY_ONE_NEGOTIATOR` and
//! `EXPIRE_INVALIDATED_ADS`. What each test expects is what HTCondor
//! 23.9.6's `condor_collector` did with the same ads (sent with
//! `condor_advertise`), noted in each test.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::Arc;

use cedar::client::collector::Update;
use cedar::client::{Client, ClientConfig, CollectorClient, Query};
use cedar::command as c;
use cedar::handshake::ServerConfig;
use cedar::policy::AuthMethod;
use cedar::sinful::Sinful;
use cedar::token::FileCheck;
use classad::ClassAd;
use collector::config::CollectorConfig;
use collector::server::Collector;
use collector::Table;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

struct Fixture {
    _runtime: tokio::runtime::Runtime,
    collector: Arc<Collector>,
    addr: Sinful,
}

impl Fixture {
    /// A collector with `knobs` (every `ALLOW_*` is `*` unless set; CLAIMTOBE
    /// authentication is optional), on a free loopback port.
    fn new(knobs: &[(&str, &str)]) -> Result<Fixture> {
        let mut all: HashMap<String, String> = [
            ("SEC_DEFAULT_AUTHENTICATION", "OPTIONAL"),
            ("SEC_DEFAULT_AUTHENTICATION_METHODS", "CLAIMTOBE"),
            ("SEC_DEFAULT_ENCRYPTION", "OPTIONAL"),
            ("SEC_DEFAULT_INTEGRITY", "OPTIONAL"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        all.extend(knobs.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let lookup = move |k: &str| {
            all.get(k).cloned().or_else(|| {
                k.strip_prefix("ALLOW_").and_then(cedar::authz::Permission::from_name).map(|_| "*".to_owned())
            })
        };
        let server = ServerConfig::from_config("COLLECTOR", Collector::commands(), &lookup, FileCheck::none())?
            .hostname("127.0.0.1");
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
        let addr = Sinful::from_addr(listener.local_addr()?).with_param("noUDP", None);
        let config = CollectorConfig::from_config("127.0.0.1", &lookup)?;
        let collector = Arc::new(Collector::new(config, Arc::new(server), addr.to_string()));
        runtime.spawn(collector.clone().serve(listener, Default::default(), std::future::pending()));
        Ok(Fixture { _runtime: runtime, collector, addr })
    }

    /// A client without authentication.
    fn anonymous(&self) -> CollectorClient {
        let mut config = ClientConfig::default();
        config.claim_to_be_user = None;
        CollectorClient::new(Client::new(config), self.addr.clone())
    }

    /// A client that authenticates with CLAIMTOBE as `user`.
    fn as_user(&self, user: &str) -> CollectorClient {
        let mut config = ClientConfig::authenticated(&[AuthMethod::Claimtobe]);
        config.claim_to_be_user = Some(user.to_owned());
        CollectorClient::new(Client::new(config), self.addr.clone())
    }

    /// Waits until the collector has run what earlier connections sent (a
    /// query waits for them).
    fn sync(&self) {
        self.anonymous().query(&Query::collector()).expect("a query");
    }

    /// The `Name`s stored in `table`, sorted.
    fn names(&self, table: &Table) -> Vec<String> {
        self.sync();
        let mut names: Vec<String> = self
            .collector
            .store()
            .snapshot(table)
            .iter()
            .filter_map(|r| r.public().eval_attr("Name").as_str().map(str::to_owned))
            .collect();
        names.sort();
        names
    }
}

fn ad(text: &str) -> ClassAd {
    text.parse().expect("an ad")
}

fn master(name: &str, extra: &str) -> Update {
    Update::new(ad(&format!(
        r#"[ MyType = "DaemonMaster"; Name = "{name}"; MyAddress = "<127.0.0.1:1234>"; {extra} ]"#
    )))
}

fn slot(name: &str, extra: &str) -> Update {
    Update::new(ad(&format!(r#"[ MyType = "Machine"; Name = "{name}"; MyAddress = "<127.0.0.1:1234>"; {extra} ]"#)))
}

fn submitter(name: &str) -> Update {
    Update::new(ad(&format!(
        r#"[ MyType = "Submitter"; Name = "{name}"; ScheddName = "s@h"; MyAddress = "<127.0.0.1:1234>";
             ScheddIpAddr = "<127.0.0.1:1234>"; RunningJobs = 0; IdleJobs = 1 ]"#
    )))
}

const REQUIREMENTS: &str = r#"TARGET.Name =!= "refused" && Name =!= "refused2" && MY.Foo =!= 1"#;

#[test]
fn collector_requirements_sees_the_ad_as_target() -> Result<()> {
    // condor_collector stored `ok` and `myfoo` and logged two
    // "COLLECTOR_REQUIREMENTS VIOLATION: requirements do not match ad".
    // The expression lives in an ad of its own: unscoped names fall
    // through to the update, MY.Foo is the expression's ad's.
    let f = Fixture::new(&[("COLLECTOR_REQUIREMENTS", REQUIREMENTS)])?;
    let client = f.anonymous();
    for u in [master("ok", ""), master("refused", ""), master("refused2", ""), master("myfoo", "Foo = 1")] {
        let _ = client.advertise(c::UPDATE_MASTER_AD, &[u]);
    }
    assert_eq!(f.names(&Table::Master), ["myfoo", "ok"]);
    let found = client.query(&Query::master())?;
    assert_eq!(found.len(), 2);
    Ok(())
}

#[test]
fn a_refused_update_closes_its_connection() -> Result<()> {
    // condor_advertise -multiple of refused, second, third: "Sent 3 of 3
    // ads" and none of them stored, as the C++ handler fails and daemon
    // core closes the connection after the first.
    let f = Fixture::new(&[("COLLECTOR_REQUIREMENTS", REQUIREMENTS)])?;
    let _ = f
        .anonymous()
        .advertise(c::UPDATE_MASTER_AD, &[master("refused", ""), master("second", ""), master("third", "")]);
    assert!(f.names(&Table::Master).is_empty());
    // The same for an ad without a key ("Received malformed ad").
    let f = Fixture::new(&[])?;
    let nameless = Update::new(ad(r#"[ MyType = "DaemonMaster"; MyAddress = "<127.0.0.1:1234>" ]"#));
    let _ = f.anonymous().advertise(c::UPDATE_MASTER_AD, &[nameless, master("second", "")]);
    assert!(f.names(&Table::Master).is_empty());
    // Accepted updates share a connection as before.
    f.anonymous().advertise(c::UPDATE_MASTER_AD, &[master("a", ""), master("b", "")])?;
    assert_eq!(f.names(&Table::Master), ["a", "b"]);
    Ok(())
}

#[test]
fn a_refused_update_with_ack_gets_no_ack() -> Result<()> {
    // condor_advertise UPDATE_STARTD_AD_WITH_ACK of a refused ad: "failed
    // to get ack", "Sent 0 of 1 ad", exit status 1.
    let f = Fixture::new(&[("COLLECTOR_REQUIREMENTS", REQUIREMENTS)])?;
    let client = f.anonymous();
    client.advertise(c::UPDATE_STARTD_AD_WITH_ACK, &[slot("slotok", "")])?;
    assert!(client.advertise(c::UPDATE_STARTD_AD_WITH_ACK, &[slot("refused", "")]).is_err());
    assert_eq!(f.names(&Table::Slot), ["slotok"]);
    Ok(())
}

#[test]
fn an_inconsistent_daemon_address_is_refused_only_with_requirements() -> Result<()> {
    // "COLLECTOR_REQUIREMENTS VIOLATION: ClassAd from … advertises
    // inconsistent IP addresses: StartdIpAddr=<127.0.0.1:9999>,
    // MyAddress=<127.0.0.1:1234>".
    let badip = || slot("badip", r#"StartdIpAddr = "<127.0.0.1:9999>""#);
    let goodip = || slot("goodip", r#"StartdIpAddr = "<127.0.0.1:1234>""#);
    let f = Fixture::new(&[("COLLECTOR_REQUIREMENTS", "true")])?;
    for u in [badip(), goodip()] {
        let _ = f.anonymous().advertise(c::UPDATE_STARTD_AD, &[u]);
    }
    assert_eq!(f.names(&Table::Slot), ["goodip"]);
    let f = Fixture::new(&[])?;
    f.anonymous().advertise(c::UPDATE_STARTD_AD, &[badip()])?;
    assert_eq!(f.names(&Table::Slot), ["badip"]);
    Ok(())
}

#[test]
fn numbers_count_as_booleans_and_other_values_refuse() -> Result<()> {
    // COLLECTOR_REQUIREMENTS = Cpus: Cpus = 2 stored; Cpus = 0 refused;
    // Cpus = "str" refused with "WARNING: COLLECTOR_REQUIREMENTS did not
    // evaluate to a boolean result."
    let f = Fixture::new(&[("COLLECTOR_REQUIREMENTS", "Cpus")])?;
    for (name, cpus) in [("cpus0", "0"), ("cpus2", "2"), ("cpusx", r#""str""#), ("cpus_half", "0.5")] {
        let _ = f.anonymous().advertise(c::UPDATE_MASTER_AD, &[master(name, &format!("Cpus = {cpus}"))]);
    }
    assert_eq!(f.names(&Table::Master), ["cpus2", "cpus_half"]);
    Ok(())
}

#[test]
fn the_collectors_own_ad_must_pass_too() -> Result<()> {
    // "Failed to add my own ad to myself (-4)" after a reconfig to a
    // COLLECTOR_REQUIREMENTS its own ad fails; the last one stays.
    let f = Fixture::new(&[("COLLECTOR_REQUIREMENTS", r#"MyType =!= "Collector""#)])?;
    assert!(f.names(&Table::Collector).is_empty());
    let f = Fixture::new(&[])?;
    assert_eq!(f.names(&Table::Collector).len(), 1);
    let before = f.collector.store().snapshot(&Table::Collector)[0].clone();
    let lookup = |k: &str| (k == "COLLECTOR_REQUIREMENTS").then(|| r#"MyType =!= "Collector""#.to_owned());
    f.collector.reconfigure(CollectorConfig::from_config("127.0.0.1", &lookup)?);
    let after = f.collector.store().snapshot(&Table::Collector)[0].clone();
    assert!(Arc::ptr_eq(&before, &after), "the refused own ad replaced the stored one");
    Ok(())
}

#[test]
fn a_reconfig_takes_the_new_requirements() -> Result<()> {
    let f = Fixture::new(&[("COLLECTOR_REQUIREMENTS", REQUIREMENTS)])?;
    let _ = f.anonymous().advertise(c::UPDATE_MASTER_AD, &[master("refused", "")]);
    assert!(f.names(&Table::Master).is_empty());
    let strict = |k: &str| (k == "COLLECTOR_REQUIREMENTS").then(|| "false".to_owned());
    f.collector.reconfigure(CollectorConfig::from_config("127.0.0.1", &strict)?);
    let _ = f.anonymous().advertise(c::UPDATE_MASTER_AD, &[master("ok", "")]);
    assert!(f.names(&Table::Master).is_empty());
    f.collector.reconfigure(CollectorConfig::new("127.0.0.1"));
    f.anonymous().advertise(c::UPDATE_MASTER_AD, &[master("refused", "")])?;
    assert_eq!(f.names(&Table::Master), ["refused"]);
    // One that does not parse is an error (the daemon stops, as
    // condor_collector EXCEPTs).
    let broken = |k: &str| (k == "COLLECTOR_REQUIREMENTS").then(|| "Name ==".to_owned());
    let e = CollectorConfig::from_config("127.0.0.1", &broken).unwrap_err();
    assert_eq!(e.to_string(), "Handling of 'COLLECTOR_REQUIREMENTS=Name ==' failed: failed to parse expression");
    Ok(())
}

#[test]
fn a_user_advertises_only_their_own_submitter_ad() -> Result<()> {
    // Against condor_collector with ALLOW_DAEMON and ALLOW_ADVERTISE_SCHEDD
    // leaving everyone out, CLAIMTOBE as alice: UPDATE_OWN_SUBMITTOR_AD of
    // alice@x, group.alice@x and alice stored (AuthenticatedIdentity
    // "alice"), of bob@x and unauthenticated@x dropped without a word;
    // UPDATE_SUBMITTOR_AD denied.
    let nobody = "nobody@nowhere/127.0.0.2";
    let f = Fixture::new(&[("ALLOW_DAEMON", nobody), ("ALLOW_ADVERTISE_SCHEDD", nobody)])?;
    let alice = f.as_user("alice");
    for name in ["alice@x", "group.alice@x", "alice", "bob@x", "unauthenticated@x"] {
        let _ = alice.advertise(c::UPDATE_OWN_SUBMITTOR_AD, &[submitter(name)]);
    }
    assert!(alice.advertise(c::UPDATE_SUBMITTOR_AD, &[submitter("carol@x")]).is_err());
    assert_eq!(f.names(&Table::Submitter), ["alice", "alice@x", "group.alice@x"]);
    let stored = f.collector.store().snapshot(&Table::Submitter);
    for r in stored.iter() {
        assert_eq!(r.public().eval_attr("AuthenticatedIdentity").as_str(), Some("alice"));
    }
    Ok(())
}

#[test]
fn an_unauthenticated_connection_owns_the_unauthenticated_submitter() -> Result<()> {
    // condor_collector, no authentication: UPDATE_OWN_SUBMITTOR_AD of
    // unauthenticated@x stored, of alice@x dropped. (`getOwner` of an
    // unauthenticated socket is "unauthenticated", and the check refuses
    // only an empty owner or "unmapped".)
    let f = Fixture::new(&[])?;
    let anonymous = f.anonymous();
    for name in ["alice@x", "unauthenticated@x"] {
        let _ = anonymous.advertise(c::UPDATE_OWN_SUBMITTOR_AD, &[submitter(name)]);
    }
    assert_eq!(f.names(&Table::Submitter), ["unauthenticated@x"]);
    Ok(())
}

#[test]
fn own_submitter_ads_pass_collector_requirements_too() -> Result<()> {
    let f = Fixture::new(&[("COLLECTOR_REQUIREMENTS", "IdleJobs < 100")])?;
    let alice = f.as_user("alice");
    let mut busy = submitter("alice@y");
    busy.ad.insert("IdleJobs", 500);
    let _ = alice.advertise(c::UPDATE_OWN_SUBMITTOR_AD, &[busy]);
    alice.advertise(c::UPDATE_OWN_SUBMITTOR_AD, &[submitter("alice@x")])?;
    assert_eq!(f.names(&Table::Submitter), ["alice@x"]);
    Ok(())
}

fn negotiator(name: &str) -> Update {
    Update::new(ad(&format!(r#"[ MyType = "Negotiator"; Name = "{name}"; MyAddress = "<127.0.0.1:1234>" ]"#)))
}

#[test]
fn only_one_negotiator_keeps_the_last_one_heard_from() -> Result<()> {
    // condor_collector with COLLECTOR_ALLOW_ONLY_ONE_NEGOTIATOR = True,
    // after neg1, neg2, neg2: neg2 alone, UpdatesTotal 2 (the counters are
    // the daemon's, not the ad's).
    let f = Fixture::new(&[("COLLECTOR_ALLOW_ONLY_ONE_NEGOTIATOR", "True")])?;
    for name in ["neg1", "neg2", "neg2"] {
        f.anonymous().advertise(c::UPDATE_NEGOTIATOR_AD, &[negotiator(name)])?;
    }
    assert_eq!(f.names(&Table::Negotiator), ["neg2"]);
    let neg2 = f.collector.store().snapshot(&Table::Negotiator)[0].clone();
    assert_eq!(neg2.public().eval_attr("UpdatesTotal").as_f64(), Some(2.0));
    // A negotiator ad without a key purges nothing.
    let nameless = Update::new(ad(r#"[ MyType = "Negotiator"; MyAddress = "<127.0.0.1:1234>" ]"#));
    let _ = f.anonymous().advertise(c::UPDATE_NEGOTIATOR_AD, &[nameless]);
    assert_eq!(f.names(&Table::Negotiator), ["neg2"]);
    let f = Fixture::new(&[])?;
    for name in ["neg1", "neg2"] {
        f.anonymous().advertise(c::UPDATE_NEGOTIATOR_AD, &[negotiator(name)])?;
    }
    assert_eq!(f.names(&Table::Negotiator), ["neg1", "neg2"]);
    Ok(())
}

#[test]
fn expire_invalidated_ads_leaves_an_old_startds_daemon_ad() -> Result<()> {
    // condor_collector: an old startd's slot 1 ad (so a StartD ad made from
    // it) invalidated by name. By default both go; with
    // EXPIRE_INVALIDATED_ADS = True the slot ad goes ("Removed(1) stale
    // ad(s)") and the StartD ad stays.
    let old = || slot("slot1@old", r#"Machine = "old"; SlotID = 1; StartdIpAddr = "<127.0.0.1:1234>""#);
    let by_name = Query::startd().attr("Name", "slot1@old").attr("MyAddress", "<127.0.0.1:1234>");
    for (knob, daemon_ads_left) in [("False", 0), ("True", 1)] {
        let f = Fixture::new(&[("EXPIRE_INVALIDATED_ADS", knob)])?;
        f.anonymous().advertise(c::UPDATE_STARTD_AD, &[old()])?;
        f.sync();
        assert_eq!(f.collector.store().count(&Table::StartdDaemon), 1);
        f.anonymous().invalidate(c::INVALIDATE_STARTD_ADS, &by_name)?;
        f.sync();
        assert_eq!(f.collector.store().count(&Table::Slot), 0, "EXPIRE_INVALIDATED_ADS = {knob}");
        assert_eq!(f.collector.store().count(&Table::StartdDaemon), daemon_ads_left, "EXPIRE_INVALIDATED_ADS = {knob}");
    }
    Ok(())
}
