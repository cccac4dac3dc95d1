//! A daemon that does nothing but be one: the shell with a no-op
//! application, for tests and for trying the shell under a real
//! `condor_master` (subsystem `NOOP`; give it a `-local-name` to look up
//! `NAME.X` first).
//!
//! It answers the DC commands on its command socket and writes each control
//! event it receives to its log as `control event: …`.

use std::process::ExitCode;
use std::sync::Arc;

use cedar::handshake::{CommandTable, ServerConfig};
use cedar::tokio::{Command, Handler, Server};
use daemons::commands::{register, DcCommands};
use daemons::{Context, Control, Daemon};

/// Answers the DC commands; every other command is read and ignored.
struct Noop {
    dc: DcCommands,
}

impl Handler for Noop {
    async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
        if self.dc.handle(command).await? {
            return Ok(());
        }
        let _ = command.read_payload_or_empty().await?;
        Ok(())
    }
}

async fn app(mut ctx: Context) -> Result<(), daemons::AppError> {
    let listener = ctx.take_listener().ok_or("no command socket")?;
    let config = ServerConfig::new(register(CommandTable::new()));
    if let Ok(mut cache) = config.sessions.lock() {
        for session in std::mem::take(&mut ctx.inherited_sessions) {
            tracing::debug!("knowing the inherited session {} of {:?}", session.id, session.user);
            cache.insert(session, std::time::Instant::now());
        }
    }
    let config = Arc::new(config);
    let server = Server::new(config, Noop { dc: ctx.dc_commands() });
    let serving = tokio::spawn(server.serve(listener, {
        let stopping = ctx.stopping();
        async move {
            let _ = stopping.await;
        }
    }));
    tracing::info!("noop daemon ready at {}", ctx.sinful);
    while let Some(event) = ctx.controls.recv().await {
        tracing::info!("control event: {event:?}");
        if let Control::Stop(_) = event {
            break;
        }
    }
    serving.await??;
    Ok(())
}

fn main() -> ExitCode {
    Daemon::main("NOOP", app)
}
