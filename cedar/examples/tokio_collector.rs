//! The test collector of `test_collector.rs` (a fixture, not the collector
//! daemon) served by the tokio adapter, `cedar::tokio`, instead of the
//! blocking one: the same queries, updates and handshake.
//!
//! Run it with `cargo run -p cedar --features tokio --example
//! tokio_collector -- [PORT] [--concurrent] [--secure] [--config KNOB=VALUE]...`; it prints
//! `listening on <ip:port>` and serves until killed. `--concurrent` serves
//! every connection in its own task on `cedar::tokio::Server`; by default
//! connections are served one at a time (see [`spawn_tokio_with`]).
//! `tests/tokio_wheel.rs` includes this file as a module.

#![allow(dead_code)]

#[path = "test_collector.rs"]
pub mod test_collector;

use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};

use cedar::handshake::{ServerConfig, SessionCache};
use cedar::tokio::{serve_connection, Command, Handler, Server, ServerOptions};
use test_collector::{respond, self_ad, FixtureOptions, Hook, Store};

/// The fixture's server configuration (as `test_collector::spawn` makes it).
fn server_config(options: &FixtureOptions) -> std::io::Result<Arc<ServerConfig>> {
    let config =
        options.server_config().map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    Ok(Arc::new(config))
}

/// The fixture's commands as a tokio [`Handler`].
struct TokioFixture {
    store: Store,
    sessions: Arc<Mutex<SessionCache>>,
    debug: bool,
}

impl Handler for TokioFixture {
    async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
        if self.debug {
            eprintln!("tokio_collector: command {} via {:?}", command.number(), command.via());
        }
        let message = command.read_payload().await?;
        let encrypted = command.encoder().is_encrypted();
        let (replies, hook) = respond(command.request(), &message, encrypted, &self.store)?;
        for reply in replies {
            command.send(&reply).await?;
        }
        if hook == Hook::ForgetSessions {
            // A test hook: as if the collector restarted.
            if let Ok(mut cache) = self.sessions.lock() {
                *cache = SessionCache::default();
            }
        }
        Ok(())
    }
}

/// As `test_collector::spawn`, on the tokio adapter, one connection at a
/// time: [`spawn_tokio_with`] without `concurrent`.
pub fn spawn_tokio(addr: &str, options: FixtureOptions) -> std::io::Result<(SocketAddr, Store)> {
    spawn_tokio_with(addr, options, false)
}

/// Starts the fixture on `addr` (port 0 picks one) on a tokio runtime of
/// its own in a background thread; returns the address and the store.
///
/// With `concurrent`, [`Server`] runs it: an accept loop and a task per
/// connection. Without, connections are accepted one at a time and each is
/// driven by [`serve_connection`] (the per-connection code `Server` runs),
/// as the blocking fixture and the C++ collector's single thread do:
/// `htcondor2.Collector.advertise` returns before the collector has read
/// the update, so a client that advertises and then queries on a new
/// connection sees its ads only if the server takes connections in order.
pub fn spawn_tokio_with(addr: &str, options: FixtureOptions, concurrent: bool) -> std::io::Result<(SocketAddr, Store)> {
    let std_listener = TcpListener::bind(addr)?;
    std_listener.set_nonblocking(true)?;
    let local = std_listener.local_addr()?;
    let store: Store = Arc::new(Mutex::new(vec![self_ad(local)]));
    let config = server_config(&options)?;
    let handler = TokioFixture {
        store: store.clone(),
        sessions: config.sessions.clone(),
        debug: std::env::var_os("CEDAR_FIXTURE_DEBUG").is_some(),
    };
    let packet = options.max_packet.or_else(|| std::env::var("CEDAR_FIXTURE_PACKET").ok().and_then(|n| n.parse().ok()));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let Ok(listener) = tokio::net::TcpListener::from_std(std_listener) else { return };
            let options = ServerOptions::default().max_packet(packet);
            if concurrent {
                let server = Server::new(config, handler).options(options);
                if let Err(e) = server.serve(listener, std::future::pending()).await {
                    eprintln!("tokio_collector: {e}");
                }
                return;
            }
            let (_stop, stopping) = tokio::sync::watch::channel(false);
            loop {
                let Ok((stream, _)) = listener.accept().await else { continue };
                let served = serve_connection(stream, config.clone(), &handler, options, stopping.clone());
                if let Err(e) = served.await {
                    eprintln!("tokio_collector: connection ended: {e}");
                }
            }
        });
    });
    Ok((local, store))
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut port = "0".to_owned();
    let mut options = FixtureOptions::default();
    let mut concurrent = false;
    while let Some(arg) = args.next() {
        if arg == "--concurrent" {
            concurrent = true;
        } else if arg == "--secure" {
            options.secure = true;
        } else if arg == "--config" {
            if let Some((k, v)) = args.next().as_deref().and_then(|kv| kv.split_once('=')) {
                options.config.push((k.trim().to_string(), v.trim().to_string()));
            }
        } else {
            port = arg;
        }
    }
    let (addr, _store) = spawn_tokio_with(&format!("127.0.0.1:{port}"), options, concurrent)?;
    println!("listening on {addr}");
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}
