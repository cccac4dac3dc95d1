//! `classad-collector`: the collector daemon, a drop-in for HTCondor's
//! `condor_collector` (subsystem `COLLECTOR`).
//!
//! Under `condor_master`: `COLLECTOR = /path/to/classad-collector` with
//! `USE_SHARED_PORT = False` (or `COLLECTOR_USE_SHARED_PORT = False`); the
//! master binds the port of `COLLECTOR_HOST`, starts, watches and stops it.
//! Alone: `classad-collector -f -t [-p PORT]` with `CONDOR_CONFIG` set.
//!
//! It reads `COLLECTOR_NAME`, `CLASSAD_LIFETIME`,
//! `COLLECTOR_UPDATE_INTERVAL`, `CONDOR_ADMIN`, `COLLECTOR_REQUIREMENTS`
//! (one that does not parse stops it, at start or at a reconfig, as it
//! stops `condor_collector`), `COLLECTOR_ALLOW_ONLY_ONE_NEGOTIATOR`,
//! `EXPIRE_INVALIDATED_ADS`, the `SEC_*`, `ALLOW_*` and
//! `DENY_*` knobs, the token keys (`SEC_TOKEN_POOL_SIGNING_KEY_FILE`,
//! `SEC_PASSWORD_DIRECTORY`, `TRUST_DOMAIN`) and `COLLECTOR_LOG`; with
//! `COLLECTOR_HTTP_ADDRESS = host:port` it also serves the HTTP/JSON API
//! and `/metrics` there. A reconfig (`condor_reconfig`, `SIGHUP`) applies
//! the collector's own knobs; security knobs take effect on restart.

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use cedar::handshake::ServerConfig;
use cedar::token::key::FileCheck;
use cedar::tokio::{Command, Handler, Server, ServerOptions};
use collector::config::{CollectorConfig, ConfigError};
use collector::http::{Http, HttpOptions};
use collector::server::Collector;
use daemons::commands::{register, DcCommands};
use daemons::config::DaemonConfig;
use daemons::{Context, Control, Daemon};

/// Daemon core's commands first, then the collector's.
struct CollectorDaemon {
    dc: DcCommands,
    collector: Arc<Collector>,
}

impl Handler for CollectorDaemon {
    async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
        if self.dc.handle(command).await? || self.collector.handle(command).await? {
            return Ok(());
        }
        tracing::warn!("command {} is registered but not served; closing", command.number());
        Err(cedar::Error::new(cedar::ErrorKind::Protocol, "a command the collector does not serve"))
    }
}

/// Our host name, as HTCondor's `FULL_HOSTNAME` gives it.
fn hostname(config: &DaemonConfig) -> String {
    config
        .get("FULL_HOSTNAME")
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok().map(|h| h.trim().to_owned()))
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

fn collector_config(config: &DaemonConfig) -> Result<CollectorConfig, ConfigError> {
    let mut c = CollectorConfig::from_config(&hostname(config), &|k: &str| config.get(k))?;
    c.local_name = config.local_name().map(str::to_owned);
    Ok(c)
}

/// Key files must be private and ours, as HTCondor insists.
fn key_check() -> FileCheck {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata("/proc/self") {
        Ok(m) => FileCheck::strict(m.uid()),
        Err(_) => FileCheck::strict(0),
    }
}

async fn app(mut ctx: Context) -> Result<(), daemons::AppError> {
    let listener = ctx.take_listener().ok_or("no command socket")?;
    let config = ctx.config.borrow().clone();
    let lookup = |k: &str| config.get(k);
    let server = ServerConfig::from_config("COLLECTOR", register(Collector::commands()), &lookup, key_check())?
        .hostname(hostname(&config));
    if let Ok(mut cache) = server.sessions.lock() {
        for session in std::mem::take(&mut ctx.inherited_sessions) {
            cache.insert(session, std::time::Instant::now());
        }
    }
    let server = Arc::new(server);
    let collector = Arc::new(Collector::new(collector_config(&config)?, server.clone(), ctx.sinful.to_string()));
    let cedar = Server::new(server, CollectorDaemon { dc: ctx.dc_commands(), collector: collector.clone() }).options(
        ServerOptions::default().max_connections(config.get_int("COLLECTOR_MAX_CONNECTIONS", 4096).max(1) as usize),
    );
    let ready = Arc::new(AtomicBool::new(true));
    if let Some(address) = config.get("COLLECTOR_HTTP_ADDRESS").filter(|a| !a.trim().is_empty()) {
        let http_listener = tokio::net::TcpListener::bind(address.trim()).await?;
        tracing::info!("HTTP API on {}", http_listener.local_addr()?);
        let http =
            Http::new(collector.clone()).options(HttpOptions::default()).readiness(ready).cedar_stats(cedar.stats());
        let stopping = ctx.stopping();
        tokio::spawn(async move {
            if let Err(e) = collector::http::serve(http, http_listener, async move {
                let _ = stopping.await;
            })
            .await
            {
                tracing::error!("HTTP API: {e}");
            }
        });
    }
    let stopping = ctx.stopping();
    let serving = tokio::spawn(collector.clone().serve_with(cedar, listener, async move {
        let _ = stopping.await;
    }));
    tracing::info!("collector ready at {}", ctx.sinful);
    while let Some(event) = ctx.controls.recv().await {
        match event {
            Control::Reconfig => {
                let config = ctx.config.borrow().clone();
                match collector_config(&config) {
                    Ok(c) => collector.reconfigure(c),
                    // As the C++ collector, which EXCEPTs in its Config().
                    Err(e) => {
                        tracing::error!("{e}");
                        return Err(e.into());
                    }
                }
                tracing::info!("reconfigured");
            }
            Control::Stop(how) => {
                tracing::info!("stopping ({how:?})");
                break;
            }
            _ => {}
        }
    }
    serving.await??;
    Ok(())
}

fn main() -> ExitCode {
    Daemon::main("COLLECTOR", app)
}
