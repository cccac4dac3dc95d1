//! A small server for the tokio adapter's tests: command 1 echoes its
//! payload, command 2 answers with as many bytes as its payload's integer
//! asks for, command 3 panics, DC_NOP hangs up.

#![allow(dead_code, clippy::unwrap_used)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use cedar::authz::Permission;
use cedar::command::DC_NOP;
use cedar::handshake::{CommandTable, ServerConfig};
use cedar::tokio::{AsyncConnection, Command, Handler, Server, ServerOptions, ServerStats, Timeouts};
use cedar::wire::Decoder;
use tokio::runtime::Runtime;
use tokio::sync::watch;

pub const ECHO: i32 = 1;
pub const BIG: i32 = 2;
pub const PANIC: i32 = 3;

pub struct TestHandler;

impl Handler for TestHandler {
    async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
        let payload = command.read_payload().await?;
        match command.number() {
            ECHO => command.send(&payload.payload).await,
            BIG => {
                let n = Decoder::new(&payload.payload, payload.encrypted).get_int()?;
                let reply = vec![7u8; usize::try_from(n).unwrap_or(0)];
                command.send(&reply).await
            }
            PANIC => panic!("a handler's bug"),
            _ => Ok(()),
        }
    }
}

pub fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

pub struct Running {
    pub addr: SocketAddr,
    pub stats: Arc<ServerStats>,
    pub stop: watch::Sender<bool>,
    pub task: tokio::task::JoinHandle<cedar::error::Result<()>>,
}

/// Starts the test server on the current runtime.
pub async fn start(options: ServerOptions) -> Running {
    let table = CommandTable::new()
        .register(ECHO, Permission::Read)
        .register(BIG, Permission::Read)
        .register(PANIC, Permission::Read)
        .register(DC_NOP, Permission::Allow);
    let config = Arc::new(ServerConfig::new(table));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = Server::new(config, TestHandler).options(options);
    let stats = server.stats();
    let (stop, mut stopping) = watch::channel(false);
    let task = tokio::spawn(server.serve(listener, async move {
        let _ = stopping.wait_for(|s| *s).await;
    }));
    Running { addr, stats, stop, task }
}

pub fn client_timeouts() -> Timeouts {
    Timeouts::default().read(Duration::from_secs(10))
}

/// One raw ECHO command on a new connection; returns the echoed payload.
pub async fn echo(addr: SocketAddr, text: &str) -> cedar::error::Result<String> {
    let mut c = AsyncConnection::connect(addr, client_timeouts(), 1 << 20).await?;
    let mut enc = c.encoder();
    enc.put_int(i64::from(ECHO));
    enc.put_str(text)?;
    c.send(enc.as_bytes()).await?;
    let reply = c.expect_message().await?;
    let mut dec = Decoder::new(&reply.payload, false);
    dec.get_string()
}

/// Waits until `f` holds, up to `limit`.
pub async fn eventually(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let until = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < until {
        if f() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    f()
}
