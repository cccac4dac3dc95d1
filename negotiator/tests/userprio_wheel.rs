//! The userprio module against HTCondor's real C++ client: the `htcondor`
//! wheel's `htcondor2.Negotiator` (`tests/wheel/userprio.py`) drives a
//! tokio CEDAR server that serves [`negotiator::userprio`] as the daemon
//! does, on an accountant behind a mutex; each test then checks what the
//! client got back and what the accountant holds.
//!
//! The wheel is found as cedar's wheel scenarios find it
//! (`cedar/tests/wheel/scenarios.rs`): the interpreter named by
//! `CEDAR_WHEEL_PYTHON`, else `<workspace>/.venv/bin/python`. Without one
//! the tests say so and pass, unless `CEDAR_REQUIRE_WHEEL=1`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cedar::handshake::{CommandTable, ServerConfig, ServerPolicies};
use cedar::token::key::FileCheck;
use cedar::tokio::{Command, Handler, Server};
use classad::ClassAd;
use matchmaker::accountant::{Accountant, AccountantConfig};
use negotiator::userprio::{self, FactorMap, Reply, Request};
use serde_json::Value as Json;

/// The server's clock.
const NOW: i64 = 1_700_000_000;

fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CEDAR_WHEEL_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
    if venv.exists() {
        return Some(venv);
    }
    if std::env::var_os("CEDAR_REQUIRE_WHEEL").is_some_and(|v| v == "1") {
        panic!("CEDAR_REQUIRE_WHEEL=1 but no Python with the htcondor wheel (set CEDAR_WHEEL_PYTHON or make .venv)");
    }
    None
}

/// One command served: its number, the authenticated user, the reply.
#[derive(Debug, Clone)]
struct Served {
    command: i32,
    user: Option<String>,
    reply: Reply,
    sent: bool,
}

/// The negotiator's userprio commands, served as the daemon serves them.
struct Userprio {
    accountant: Arc<Mutex<Accountant>>,
    config: Arc<ServerConfig>,
    map: Option<cedar::authz::MapFile>,
    served: Arc<Mutex<Vec<Served>>>,
}

impl Handler for Userprio {
    async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
        let number = command.number();
        if cedar::command::is_nop(number) {
            let _ = command.read_payload_or_empty().await?;
            return Ok(());
        }
        let payload = if userprio::carries_payload(number) {
            command.read_payload().await?
        } else {
            userprio::inline_payload(command.request())
        };
        let request = Request::decode(number, &payload)
            .map_err(|e| cedar::Error::new(cedar::ErrorKind::Protocol, e.to_string()))?;
        command.wait_for_earlier_connections().await;
        let admin = command
            .peer()
            .is_some_and(|p| userprio::is_administrator(&self.config.authorizer, command.request(), p.ip()));
        let map = match &self.map {
            Some(m) => FactorMap::Map(m),
            None => FactorMap::Unset,
        };
        let reply = match request.authorize(admin, command.user(), &map) {
            Err(refused) => request.refusal(&refused),
            Ok(()) => request.apply(&mut self.accountant.lock().unwrap(), NOW),
        };
        let mut out = command.encoder();
        let sent = reply.encode(&mut out, command.peer_version())?;
        self.served.lock().unwrap().push(Served {
            command: number,
            user: command.user().map(str::to_owned),
            reply: reply.clone(),
            sent,
        });
        if sent {
            // The wheel's setFactor does not read its status: a reset is no failure.
            let _ = command.send(out.as_bytes()).await;
        }
        Ok(())
    }
}

/// The seeded pool: alice with a factor of 10, bob with a claimed slot,
/// carol with a priority.
fn seeded() -> Accountant {
    let mut acct = Accountant::new(AccountantConfig::default());
    let slot: ClassAd = r#"[ Name = "slot1@node"; StartdIpAddr = "<10.0.0.1:9618>"; State = "Claimed";
        RemoteUser = "bob@site" ]"#
        .parse()
        .unwrap();
    acct.update_priorities(NOW - 600).unwrap();
    acct.check_matches(NOW - 600, &[slot]).unwrap();
    acct.update_priorities(NOW - 300).unwrap();
    acct.set_priority_factor("alice@site", 10.0).unwrap();
    acct.set_priority("alice@site", 1.0).unwrap();
    acct.set_priority("carol@site", 3.0).unwrap();
    acct
}

struct Fixture {
    addr: SocketAddr,
    accountant: Arc<Mutex<Accountant>>,
    served: Arc<Mutex<Vec<Served>>>,
}

/// Serves the userprio commands on a free loopback port with the knobs
/// `knobs` (`ALLOW_<LEVEL>` defaulting to `*`); `secure` takes the
/// security policy from them, else plaintext.
fn spawn(knobs: &[(&str, &str)], secure: bool, map: Option<&str>) -> Fixture {
    let knobs: Vec<(String, String)> = knobs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let lookup = move |name: &str| {
        if let Some((_, v)) = knobs.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)) {
            return Some(v.clone());
        }
        let level = name.strip_prefix("ALLOW_")?;
        cedar::authz::Permission::from_name(level).map(|_| "*".to_string())
    };
    let table =
        userprio::register(CommandTable::new()).register(cedar::command::DC_NOP, cedar::authz::Permission::Allow);
    let mut config =
        ServerConfig::from_config("NEGOTIATOR", table, &lookup, FileCheck::none()).unwrap().hostname("127.0.0.1");
    if !secure {
        config = config.policies(ServerPolicies::plaintext());
    }
    let config = Arc::new(config);
    let accountant = Arc::new(Mutex::new(seeded()));
    let served = Arc::new(Mutex::new(Vec::new()));
    let handler = Userprio {
        accountant: accountant.clone(),
        config: config.clone(),
        map: map.map(|text| cedar::authz::MapFile::parse(text, &Default::default()).unwrap()),
        served: served.clone(),
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            if let Err(e) = Server::new(config, handler).serve(listener, std::future::pending()).await {
                eprintln!("server: {e}");
            }
        });
    });
    Fixture { addr, accountant, served }
}

/// What the client printed: one JSON object per line.
struct Run {
    lines: Vec<Json>,
    stderr: String,
}

impl Run {
    fn wheel_major(&self) -> u32 {
        let v = self.lines.iter().find_map(|l| l["wheel"].as_str()).expect("the wheel's version");
        v.split('.').next().and_then(|m| m.parse().ok()).expect("a major version")
    }

    /// The ads the client got at `step` (it succeeded).
    fn ads(&self, step: &str) -> Vec<Json> {
        let line = self
            .lines
            .iter()
            .find(|l| l["step"] == step)
            .unwrap_or_else(|| panic!("step {step} did not succeed: {:?}\n{}", self.lines, self.tail()));
        line["got"].as_array().cloned().unwrap_or_default()
    }

    /// The ad named `name` the client got at `step`.
    fn ad(&self, step: &str, name: &str) -> Json {
        self.ads(step)
            .into_iter()
            .find(|a| a["Name"] == name)
            .unwrap_or_else(|| panic!("no {name} at {step}: {:?}", self.ads(step)))
    }

    fn succeeded(&self, step: &str) -> bool {
        self.lines.iter().any(|l| l["step"] == step)
    }

    fn refused(&self, step: &str) -> Option<String> {
        self.lines.iter().find(|l| l["refused"] == step).map(|l| l["error"].to_string())
    }

    fn tail(&self) -> &str {
        &self.stderr[self.stderr.len().saturating_sub(4000)..]
    }
}

fn run(fixture: &Fixture, scenario: &str) -> Option<Run> {
    let python = python()?;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/wheel/userprio.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(scenario)
        .arg(fixture.addr.to_string())
        .env_remove("CONDOR_CONFIG")
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "scenario {scenario} failed\n{stdout}\n{}",
        &stderr[stderr.len().saturating_sub(6000)..]
    );
    let lines = stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    Some(Run { lines, stderr })
}

fn skip() -> bool {
    if python().is_none() {
        eprintln!("skipped: no Python with the htcondor wheel (see cedar/tests/wheel/scenarios.rs)");
        return true;
    }
    false
}

fn num(v: &Json) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6 * b.abs().max(1.0)
}

/// Every command, negotiated (`negotiated`) or raw: edits, then reports.
fn every_command(scenario: &str) {
    if skip() {
        return;
    }
    let fixture = spawn(&[], false, None);
    let run = run(&fixture, scenario).unwrap();
    let major = run.wheel_major();

    // Before: the seeded figures.
    let alice = run.ad("priorities-before", "alice@site");
    assert!(close(num(&alice["PriorityFactor"]), 10.0), "{alice}");
    assert!(close(num(&alice["Priority"]), 10.0), "{alice}");
    let bob = run.ad("priorities-before", "bob@site");
    assert_eq!(bob["ResourcesUsed"], 1, "{bob}");
    run.ad("priorities-before", "carol@site");

    // The edits, reported back.
    let alice = run.ad("priorities", "alice@site");
    assert!(close(num(&alice["PriorityFactor"]), 20.0), "{alice}");
    assert!(close(num(&alice["Priority"]), 100.0), "{alice}");
    assert!(close(num(&alice["WeightedAccumulatedUsage"]), 3600.0), "{alice}");
    assert_eq!((&alice["BeginUsageTime"], &alice["LastUsageTime"]), (&1_600_000_000.into(), &1_600_000_100.into()));
    assert_eq!(alice["IsAccountingGroup"], false);
    assert_eq!(alice["AccountingGroup"], "<none>");
    if major >= 25 || alice.get("Ceiling").is_some() {
        // 23.10's wheel takes the attribute names of entry 1 (a group,
        // which has no Ceiling) for every entry.
        assert_eq!((&alice["Ceiling"], &alice["Floor"]), (&7.into(), &2.into()), "{alice}");
    }
    // The rollup: <none> reports priority 0 and bob's slot.
    let root = run.ad("rollup", "<none>");
    assert_eq!(root["Priority"], 0.0, "{root}");
    assert_eq!(root["IsAccountingGroup"], true);
    assert_eq!(root["ResourcesUsed"], 1, "{root}");
    // bob's slot.
    let slots = run.ads("resources");
    assert_eq!(slots.len(), 1, "{slots:?}");
    assert_eq!(slots[0]["Name"], "slot1@node@<10.0.0.1:9618>");
    assert_eq!(slots[0]["StartTime"], NOW - 600);
    // RESET_USAGE and DELETE_USER.
    let alice = run.ad("after-reset", "alice@site");
    assert_eq!(alice["WeightedAccumulatedUsage"], 0.0, "{alice}");
    assert_eq!(alice["BeginUsageTime"], NOW, "{alice}");
    assert!(run.ads("after-reset").iter().all(|a| a["Name"] != "carol@site"));
    let bob = run.ad("after-reset", "bob@site");
    assert_ne!(bob["BeginUsageTime"], NOW, "{bob}");
    // RESET_ALL_USAGE.
    let bob = run.ad("after-reset-all", "bob@site");
    assert_eq!((&bob["WeightedAccumulatedUsage"], &bob["BeginUsageTime"]), (&0.0.into(), &NOW.into()), "{bob}");

    // The accountant holds what the client set.
    let acct = fixture.accountant.lock().unwrap();
    assert!(close(acct.priority_factor("alice@site"), 20.0));
    assert!(close(acct.real_priority("alice@site"), 5.0));
    assert_eq!((acct.ceiling("alice@site"), acct.floor("alice@site")), (Some(7), 2));
    assert_eq!(acct.customer("alice@site").unwrap().last_usage_time, Some(1_600_000_100));
    assert!(acct.customer("carol@site").is_none());

    let served = fixture.served.lock().unwrap();
    let factor = served.iter().find(|s| s.command == cedar::command::SET_PRIORITYFACTOR).expect("served");
    assert_eq!(factor.reply, Reply::Status { code: 0, message: None });
    if scenario == "raw" {
        // No handshake, no peer version: no status, as from HTCondor.
        assert!(!factor.sent);
        assert!(!run.stderr.contains("sending DC_AUTHENTICATE"), "the raw client negotiated");
    } else {
        assert!(factor.sent, "a 23.x peer reads the status");
    }
    let commands: Vec<i32> = served.iter().map(|s| s.command).collect();
    for spec in userprio::COMMANDS.iter().filter(|s| s.name != "GET_PRIORITY_ROLLUP_OLD") {
        assert!(commands.contains(&spec.number), "{} never came: {commands:?}", spec.name);
    }
}

#[test]
fn every_command_from_the_cpp_client_over_a_negotiated_session() {
    every_command("negotiated");
}

#[test]
fn every_command_from_the_cpp_client_as_raw_commands() {
    every_command("raw");
}

#[test]
fn edits_from_a_peer_not_allowed_administrator_are_refused() {
    if skip() {
        return;
    }
    // WRITE and READ for everyone; ADMINISTRATOR only for another host.
    let fixture = spawn(&[("ALLOW_ADMINISTRATOR", "10.9.9.9")], false, None);
    let run = run(&fixture, "denied").unwrap();
    // SET_PRIORITYFACTOR passes the handshake (WRITE), and its handler
    // refuses: the status says why (the wheel does not read it).
    assert!(run.succeeded("setFactor"), "{:?}", run.lines);
    // SET_PRIORITY and RESET_ALL_USAGE are ADMINISTRATOR: the handshake
    // refuses them, and the client says so.
    assert!(run.refused("setPriority").is_some(), "{:?}", run.lines);
    assert!(run.refused("resetAllUsage").is_some(), "{:?}", run.lines);
    assert!(run.stderr.contains("DENIED"), "{}", run.tail());
    // Nothing changed.
    let alice = run.ad("priorities", "alice@site");
    assert!(close(num(&alice["PriorityFactor"]), 10.0), "{alice}");
    assert!(close(num(&alice["Priority"]), 10.0), "{alice}");
    let acct = fixture.accountant.lock().unwrap();
    assert!(close(acct.priority_factor("alice@site"), 10.0));
    assert!(close(acct.real_priority("alice@site"), 1.0));
    let served = fixture.served.lock().unwrap();
    let commands: Vec<i32> = served.iter().map(|s| s.command).collect();
    assert_eq!(commands, [cedar::command::SET_PRIORITYFACTOR, cedar::command::GET_PRIORITY]);
    let Reply::Status { code, message } = &served[0].reply else { panic!("{:?}", served[0]) };
    assert_eq!(*code, 1);
    assert!(message.as_deref().unwrap().contains("NEGOTIATOR_CLASSAD_USER_MAP_NAMES"));
    assert!(served[0].sent);
}

#[test]
fn a_mapped_user_sets_the_factors_of_its_prefix_only() {
    if skip() {
        return;
    }
    let knobs = [("ALLOW_ADMINISTRATOR", "10.9.9.9"), ("SEC_DEFAULT_AUTHENTICATION_METHODS", "CLAIMTOBE")];
    let fixture = spawn(&knobs, true, Some("* .* alice@\n"));
    let run = run(&fixture, "mapped").unwrap();
    assert!(run.succeeded("setFactor-alice") && run.succeeded("setFactor-bob"), "{:?}", run.lines);
    assert!(run.refused("setPriority").is_some(), "{:?}", run.lines);
    let acct = fixture.accountant.lock().unwrap();
    assert!(close(acct.priority_factor("alice@site"), 30.0));
    // bob's stays the default.
    assert!(close(acct.priority_factor("bob@site"), AccountantConfig::default().default_prio_factor));
    let served = fixture.served.lock().unwrap();
    let factors: Vec<&Served> = served.iter().filter(|s| s.command == cedar::command::SET_PRIORITYFACTOR).collect();
    assert_eq!(factors.len(), 2);
    assert!(factors[0].user.as_deref().is_some_and(|u| u != "unauthenticated@unmapped"), "{:?}", factors[0]);
    assert_eq!(factors[0].reply, Reply::Status { code: 0, message: None });
    let Reply::Status { code, message } = &factors[1].reply else { panic!("{:?}", factors[1]) };
    assert_eq!(*code, 4);
    assert!(message.as_deref().unwrap().contains("bob@site but is not authorized"));
    let alice = run.ad("priorities", "alice@site");
    assert!(close(num(&alice["PriorityFactor"]), 30.0), "{alice}");
}
