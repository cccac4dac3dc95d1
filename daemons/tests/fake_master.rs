//! The noop daemon under a fake `condor_master`: a cedar server that plays
//! the master's part (it knows the session it gave the child in
//! `CONDOR_PRIVATE_INHERIT` and takes `DC_CHILDALIVE`), while the test
//! sends the daemon what the master and the tools send.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::sync::mpsc as std_mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cedar::authz::Permission;
use cedar::client::{Client, ClientConfig};
use cedar::crypto::SessionKey;
use cedar::handshake::session::Session;
use cedar::handshake::{CommandTable, ServerConfig, Via};
use cedar::sinful::Sinful;
use cedar::tokio::{Command, Handler, Server};
use cedar::wire::Decoder;
use tokio::sync::mpsc;

const SESSION_ID: &str = "4f2a9c0e1b7d";
const SESSION_KEY: &str = "00112233445566778899aabbccddeeff";
const FAMILY_ID: &str = "family:9e8d7c6b5a49";
const FAMILY_KEY: &str = "ffeeddccbbaa99887766554433221100";
const INFO: &str = r#"[Encryption="NO";Integrity="YES";CryptoMethods="BLOWFISH";CryptoMethodsList="AES.BLOWFISH.3DES";ValidCommands="60008,60043";ShortVersion="23.9.6";]"#;

/// What the fake master saw of one DC_CHILDALIVE.
#[derive(Debug)]
struct Alive {
    pid: i64,
    seconds: i64,
    lock_delay: f64,
    via: Via,
}

struct FakeMaster {
    alive: mpsc::UnboundedSender<Alive>,
}

impl Handler for FakeMaster {
    async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
        let via = command.via();
        let payload = command.read_payload().await?;
        let mut d = Decoder::new(&payload.payload, payload.encrypted);
        let alive = Alive { pid: d.get_int()?, seconds: d.get_int()?, lock_delay: d.get_double()?, via };
        let _ = self.alive.send(alive);
        Ok(())
    }
}

struct Pool {
    dir: PathBuf,
    master: Sinful,
    alive: mpsc::UnboundedReceiver<Alive>,
    stop: tokio::sync::watch::Sender<bool>,
}

async fn fake_master(name: &str) -> Pool {
    let dir = std::env::temp_dir().join(format!("daemons-fake-master-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let table = CommandTable::new().register(daemons::commands::DC_CHILDALIVE, Permission::Daemon);
    let config = ServerConfig::new(table);
    // The session Create_Process made for the child, as the master holds it.
    let mut session = Session::new(SESSION_ID.into(), Instant::now(), Duration::from_secs(3600), None);
    session.user = Some("condor_child@family".into());
    session.encrypted = true;
    session.key = Some(SessionKey::from_shared_string(SESSION_KEY));
    session.valid_commands = vec![daemons::commands::DC_CHILDALIVE];
    config.sessions.lock().unwrap().insert(session, Instant::now());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let master = Sinful::from_addr(listener.local_addr().unwrap()).with_param("noUDP", None);
    let (tx, alive) = mpsc::unbounded_channel();
    let (stop, mut stopping) = tokio::sync::watch::channel(false);
    tokio::spawn(Server::new(Arc::new(config), FakeMaster { alive: tx }).serve(listener, async move {
        let _ = stopping.wait_for(|s| *s).await;
    }));
    Pool { dir, master, alive, stop }
}

/// The daemon's stderr, line by line.
fn lines(child: &mut Child) -> std_mpsc::Receiver<String> {
    let (tx, rx) = std_mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

fn wait_for_line(rx: &std_mpsc::Receiver<String>, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
            if line.contains(needle) {
                return line;
            }
            seen.push(line);
        }
    }
    panic!("no line with {needle:?} in:\n{}", seen.join("\n"));
}

fn wait_for_file(path: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Ok(Some(addr)) = daemons::files::read_address_file(path) {
            return addr;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no address file at {}", path.display());
}

fn start_daemon(pool: &Pool, with_session: bool) -> (Child, std_mpsc::Receiver<String>, PathBuf) {
    let config = pool.dir.join("condor_config");
    let address_file = pool.dir.join(".noop_address");
    std::fs::write(
        &config,
        format!(
            "LOG = {dir}\nNOOP_ADDRESS_FILE = $(LOG)/.noop_address\nNOOP_DEBUG = D_FULLDEBUG\n\
             NOT_RESPONDING_TIMEOUT = 100\nSHUTDOWN_GRACEFUL_TIMEOUT = 60\n",
            dir = pool.dir.display()
        ),
    )
    .unwrap();
    let inherit = format!("{} {} 0 0", std::process::id(), pool.master);
    let private = if with_session {
        format!("SessionKey:{SESSION_ID}#{INFO}{SESSION_KEY} FamilySessionKey:{FAMILY_ID}#{INFO}{FAMILY_KEY}")
    } else {
        String::new()
    };
    let mut child = Process::new(env!("CARGO_BIN_EXE_noop-daemon"))
        .args(["-f", "-t", "-p", "0", "-pidfile"])
        .arg(pool.dir.join("noop.pid"))
        .env("CONDOR_CONFIG", &config)
        .env("CONDOR_INHERIT", inherit)
        .env("CONDOR_PRIVATE_INHERIT", private)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let rx = lines(&mut child);
    (child, rx, address_file)
}

/// Sends a DC command with no payload, as condor_off / condor_reconfig do.
fn send_command(addr: &str, command: i32) -> Vec<u8> {
    let client = Client::new(ClientConfig::default().timeout(Duration::from_secs(10)));
    let mut conn = client.start(&addr.parse().unwrap(), command).unwrap();
    let enc = conn.encoder();
    conn.send(enc).unwrap();
    if command == cedar::command::DC_QUERY_INSTANCE {
        return conn.read_message().unwrap().payload;
    }
    Vec::new()
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    panic!("the daemon did not exit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keepalives_commands_and_a_graceful_stop() {
    let mut pool = fake_master("graceful").await;
    let (mut child, rx, address_file) = start_daemon(&pool, true);
    let addr = tokio::task::spawn_blocking(move || wait_for_file(&address_file)).await.unwrap();
    let sinful: Sinful = addr.parse().unwrap();
    assert!(sinful.no_udp(), "{addr}");
    assert_eq!(std::fs::read_to_string(pool.dir.join("noop.pid")).unwrap().trim(), child.id().to_string());

    // The first keep-alive comes at once, on the session the master gave.
    let first = tokio::time::timeout(Duration::from_secs(20), pool.alive.recv()).await.unwrap().unwrap();
    assert_eq!(first.pid, i64::from(child.id()));
    assert!((95..=105).contains(&first.seconds), "{first:?}");
    assert_eq!(first.lock_delay, 0.0);
    assert_eq!(first.via, Via::ResumedSession);
    // And another one within the period (100/3 - 30, about 3 s).
    let second = tokio::time::timeout(Duration::from_secs(15), pool.alive.recv()).await.unwrap().unwrap();
    assert_eq!(second.pid, first.pid);

    let rx = tokio::task::spawn_blocking(move || {
        // A tool's DC_RECONFIG_FULL, then the master's SIGHUP.
        send_command(&addr, cedar::command::DC_RECONFIG_FULL);
        wait_for_line(&rx, "control event: Reconfig");
        let status = Process::new("kill").args(["-HUP", &child.id().to_string()]).status().unwrap();
        assert!(status.success());
        wait_for_line(&rx, "Got SIGHUP");
        wait_for_line(&rx, "control event: Reconfig");
        // A sibling under the same master resumes the family session.
        let client = Client::new(ClientConfig::default().timeout(Duration::from_secs(10)));
        let mut family =
            cedar::client::ClientSession::non_negotiated(FAMILY_ID, &addr, FAMILY_KEY, INFO, Instant::now()).unwrap();
        family.valid_commands = vec![cedar::command::DC_QUERY_INSTANCE];
        client.sessions().lock().unwrap().insert(family, Instant::now());
        let mut conn = client.start(&addr.parse().unwrap(), cedar::command::DC_QUERY_INSTANCE).unwrap();
        assert_eq!(conn.via(), Some(Via::ResumedSession));
        let enc = conn.encoder();
        conn.send(enc).unwrap();
        assert_eq!(conn.read_message().unwrap().payload.len(), 16);
        // DC_QUERY_INSTANCE: 16 hex digits, the same each time.
        let a = send_command(&addr, cedar::command::DC_QUERY_INSTANCE);
        let b = send_command(&addr, cedar::command::DC_QUERY_INSTANCE);
        assert_eq!(a.len(), 16);
        assert!(a.iter().all(u8::is_ascii_hexdigit));
        assert_eq!(a, b);
        // condor_off -graceful.
        send_command(&addr, cedar::command::DC_OFF_GRACEFUL);
        wait_for_line(&rx, "Performing graceful shutdown");
        wait_for_line(&rx, "control event: Stop(Graceful)");
        let status = wait_exit(&mut child);
        assert!(status.success(), "{status}");
        rx
    })
    .await
    .unwrap();
    drop(rx);
    assert!(!pool.dir.join(".noop_address").exists(), "the address file is removed at exit");
    assert!(!pool.dir.join("noop.pid").exists(), "the pid file is removed at exit");
    let _ = pool.stop.send(true);
    std::fs::remove_dir_all(&pool.dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_unknown_signals_and_a_handshake_without_a_session() {
    let mut pool = fake_master("signals").await;
    let (mut child, rx, address_file) = start_daemon(&pool, false);
    let addr = tokio::task::spawn_blocking(move || wait_for_file(&address_file)).await.unwrap();
    // No inherited session: the keep-alive makes one.
    let first = tokio::time::timeout(Duration::from_secs(20), pool.alive.recv()).await.unwrap().unwrap();
    assert_eq!(first.via, Via::NewSession);
    tokio::task::spawn_blocking(move || {
        let pid = child.id().to_string();
        // DC_RAISESIGNAL with an unknown signal changes nothing.
        let client = Client::new(ClientConfig::default());
        let mut conn = client.start(&addr.parse().unwrap(), daemons::commands::DC_RAISESIGNAL).unwrap();
        let mut enc = conn.encoder();
        enc.put_int(10);
        conn.send(enc).unwrap();
        wait_for_line(&rx, "unregistered Signal 10");
        assert!(child.try_wait().unwrap().is_none());
        // SIGTERM: a graceful stop.
        assert!(Process::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        wait_for_line(&rx, "control event: Stop(Graceful)");
        let status = wait_exit(&mut child);
        assert!(status.success(), "{status}");
    })
    .await
    .unwrap();
    let _ = pool.stop.send(true);
    std::fs::remove_dir_all(&pool.dir).ok();
}

#[test]
fn the_first_keepalive_failing_is_fatal() {
    // A parent address where nobody listens: as C++, the daemon exits.
    let dir = std::env::temp_dir().join(format!("daemons-no-master-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("condor_config");
    std::fs::write(&config, format!("LOG = {}\nNOT_RESPONDING_TIMEOUT = 100\n", dir.display())).unwrap();
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = dead.local_addr().unwrap().port();
    drop(dead);
    let out = Process::new(env!("CARGO_BIN_EXE_noop-daemon"))
        .args(["-t", "-p", "0"])
        .env("CONDOR_CONFIG", &config)
        .env("CONDOR_INHERIT", format!("{} <127.0.0.1:{port}> 0 0", std::process::id()))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("FAILED TO SEND INITIAL KEEP ALIVE TO OUR PARENT"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn version_and_bad_flags() {
    let out = Process::new(env!("CARGO_BIN_EXE_noop-daemon")).arg("-v").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("$CondorVersion: 23.9.6"));
    let out = Process::new(env!("CARGO_BIN_EXE_noop-daemon"))
        .args(["-p", "nope"])
        .env("CONDOR_CONFIG", "ONLY_ENV")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("-port takes a number"));
}
