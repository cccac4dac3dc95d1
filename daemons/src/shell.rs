//! The daemon shell: a [`Daemon`] does for one of our daemons what
//! DaemonCore's `dc_main` does for a C++ one, and hands the application a
//! [`Context`] holding the command listener and the control events.
//!
//! In order, as `dc_main` does them:
//!
//! 1. the command line ([`crate::args`]), `CONDOR_INHERIT` and
//!    `CONDOR_PRIVATE_INHERIT` (read and removed, [`crate::inherit`]), the
//!    configuration ([`crate::config`]) and the log ([`crate::log`]);
//! 2. the command socket: the TCP listener the master bound for us, when
//!    it passed one (the UDP one is closed: our daemons take no UDP); else
//!    one bound on `-p PORT`, or for the collector on `COLLECTOR_HOST`'s
//!    port, or on an ephemeral port;
//! 3. the address file and the pid file ([`crate::files`]);
//! 4. `SIGTERM`, `SIGQUIT` and `SIGHUP` (and `DC_RAISESIGNAL`, the
//!    `DC_OFF_*` and `DC_RECONFIG*` commands, through
//!    [`DcCommands`]) become [`Control`] events; on a reconfig the shell
//!    re-reads the configuration (log flags, keep-alive period, address
//!    file) before the application hears of it; a graceful stop becomes a
//!    fast one after `SHUTDOWN_GRACEFUL_TIMEOUT`;
//! 5. with a parent: the first `DC_CHILDALIVE` at once (its failure is
//!    fatal, as in C++), then one every period ([`crate::keepalive`]), and a
//!    fast stop if the parent process goes away (checked every two minutes,
//!    as `check_parent`);
//! 6. when the application returns, the address and pid files are removed.
//!
//! ```no_run
//! use daemons::{Context, Control, Daemon};
//!
//! fn main() -> std::process::ExitCode {
//!     Daemon::main("COLLECTOR", |mut ctx: Context| async move {
//!         let _listener = ctx.take_listener();
//!         // serve cedar commands on the listener, delegating to ctx.dc_commands() ...
//!         while let Some(event) = ctx.controls.recv().await {
//!             if let Control::Stop(_) = event {
//!                 break;
//!             }
//!         }
//!         Ok(())
//!     })
//! }
//! ```

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use cedar::client::ClientConfig;
use cedar::sinful::Sinful;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use crate::args::{Args, ArgsError};
use crate::commands::{Control, Controls, DcCommands, Shutdown};
use crate::config::{DaemonConfig, DaemonConfigError};
use crate::inherit::{Inherit, InheritError, PrivateInherit, SocketKind};
use crate::keepalive::{self, KeepAlive};
use crate::log::{DebugFlags, LogHandle};
use crate::socket::{self, SocketError};

/// What an application returns when it fails.
pub type AppError = Box<dyn std::error::Error + Send + Sync>;

/// Why a daemon could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DaemonError {
    /// A bad command line.
    #[error(transparent)]
    Args(#[from] ArgsError),
    /// A bad `CONDOR_INHERIT` or `CONDOR_PRIVATE_INHERIT`.
    #[error(transparent)]
    Inherit(#[from] InheritError),
    /// The configuration could not be read.
    #[error(transparent)]
    Config(#[from] DaemonConfigError),
    /// The log file could not be opened.
    #[error("cannot open the log file {path}: {source}")]
    Log {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No command socket.
    #[error(transparent)]
    Socket(#[from] SocketError),
    /// The first keep-alive to the parent failed (fatal, as in C++).
    #[error("FAILED TO SEND INITIAL KEEP ALIVE TO OUR PARENT {parent}: {source}")]
    KeepAlive {
        /// The parent's address.
        parent: String,
        /// Why.
        source: cedar::Error,
    },
    /// The runtime could not start, or `-k` could not signal.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The application failed.
    #[error("{0}")]
    App(AppError),
}

/// What the application gets to run with.
#[derive(Debug)]
#[non_exhaustive]
pub struct Context {
    listener: Option<TcpListener>,
    /// Our command address, as written to the address file.
    pub sinful: Sinful,
    /// The configuration, replaced on each reconfig before
    /// [`Control::Reconfig`] is sent.
    pub config: watch::Receiver<Arc<DaemonConfig>>,
    /// The control events: reconfigs and stops.
    pub controls: mpsc::Receiver<Control>,
    /// The daemon's own arguments (after DaemonCore's flags).
    pub args: Vec<String>,
    /// The parent's pid and address, under a master.
    pub parent: Option<(u32, Option<String>)>,
    /// The sessions the master gave us, as a server holds them: put them in
    /// the server's session cache so that the master and the daemons it
    /// started (which try the family session first) can resume them.
    /// Their users are `condor@family` and `condor@parent`; the server's
    /// `ALLOW_*` lists decide what they may do.
    pub inherited_sessions: Vec<cedar::handshake::Session>,
    dc: DcCommands,
}

impl Context {
    /// The command listener (once).
    pub fn take_listener(&mut self) -> Option<TcpListener> {
        self.listener.take()
    }

    /// The handler piece answering the DC commands; register them in the
    /// application's command table with [`crate::commands::register`].
    pub fn dc_commands(&self) -> DcCommands {
        self.dc.clone()
    }

    /// Resolves once a stop is asked (of any kind): a shutdown future for
    /// `cedar::tokio::Server::serve`.
    pub fn stopping(&self) -> impl Future<Output = Shutdown> + Send + 'static {
        let mut rx = self.dc.controls().stopping();
        async move {
            loop {
                if let Some(how) = *rx.borrow_and_update() {
                    return how;
                }
                if rx.changed().await.is_err() {
                    return Shutdown::Fast;
                }
            }
        }
    }

    /// Resolves once a *fast* stop is asked.
    pub fn stopping_fast(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut rx = self.dc.controls().stopping();
        async move {
            let _ = rx.wait_for(|s| *s == Some(Shutdown::Fast)).await;
        }
    }
}

/// Unblocks every signal in the calling thread, and so in the threads it
/// starts after this. `condor_master` starts its children with the signal
/// mask DaemonCore runs with, every signal blocked (its `dc_main` sets its
/// own); a child that keeps it never sees the master's `SIGHUP`, `SIGTERM`
/// or `SIGQUIT`. Call it before the runtime starts (as
/// [`Daemon::from_env`] and [`Daemon::run`] do).
pub fn unblock_signals() {
    use nix::sys::signal::{pthread_sigmask, SigSet, SigmaskHow};
    if let Err(e) = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None) {
        tracing::info!("DaemonCore: cannot unblock signals: {e}");
    }
}

/// A daemon being started: its subsystem, command line, inheritance,
/// configuration and log.
#[derive(Debug)]
pub struct Daemon {
    subsystem: String,
    args: Args,
    inherit: Inherit,
    private: PrivateInherit,
    config: DaemonConfig,
    log: Option<LogHandle>,
}

fn log_path(config: &DaemonConfig, args: &Args) -> Option<PathBuf> {
    let file = config.log_file();
    let mut path = match (&args.log_dir, file) {
        (Some(dir), Some(f)) => dir.join(f.file_name().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("Log"))),
        (Some(dir), None) => dir.join(format!("{}Log", config.subsystem())),
        (None, f) => f?,
    };
    if let Some(suffix) = &args.log_append {
        let mut name = path.into_os_string();
        name.push(".");
        name.push(suffix);
        path = PathBuf::from(name);
    }
    Some(path)
}

/// The log a daemon with `args` writes: stderr for `-t`, nothing for
/// `-ld`, else `<SUBSYS>_LOG` (in `-l DIR`, with `-a SUFFIX`).
pub fn open_log(config: &DaemonConfig, args: &Args) -> Result<LogHandle, DaemonError> {
    let flags = DebugFlags::parse(&config.debug_flags());
    if args.log_to_terminal {
        return Ok(LogHandle::to_stderr(flags));
    }
    if args.no_default_log {
        return Ok(LogHandle::discard());
    }
    match log_path(config, args) {
        Some(path) => {
            let log = LogHandle::to_file(&path, config.max_log_bytes(), flags)
                .map_err(|source| DaemonError::Log { path: path.clone(), source })?;
            crate::owner::hand_over(config, &path);
            Ok(log)
        }
        // No log file configured: stderr, as a tool's dprintf goes.
        None => Ok(LogHandle::to_stderr(flags)),
    }
}

impl Daemon {
    /// Starts the daemon of `subsystem` from the process's command line and
    /// environment: parses the flags, takes `CONDOR_INHERIT` and
    /// `CONDOR_PRIVATE_INHERIT` out of the environment, reads the
    /// configuration and installs the log as the global `tracing`
    /// subscriber. Call it first in `main`, before any thread starts.
    pub fn from_env(subsystem: &str) -> Result<Daemon, DaemonError> {
        unblock_signals();
        let args = Args::from_env()?;
        let (inherit, private) = crate::inherit::take_from_env()?;
        let config = DaemonConfig::load(subsystem, args.local_name.as_deref(), args.config.as_deref())?;
        let mut daemon = Daemon::new(subsystem, args, inherit, private, config);
        daemon.install_log()?;
        Ok(daemon)
    }

    /// A daemon from parts already read (tests, embedding). No log is
    /// installed; see [`install_log`](Self::install_log).
    pub fn new(subsystem: &str, args: Args, inherit: Inherit, private: PrivateInherit, config: DaemonConfig) -> Daemon {
        Daemon { subsystem: subsystem.to_ascii_uppercase(), args, inherit, private, config, log: None }
    }

    /// Opens the log ([`open_log`]) and installs it as the global
    /// `tracing` subscriber (if none is installed yet).
    pub fn install_log(&mut self) -> Result<(), DaemonError> {
        let log = open_log(&self.config, &self.args)?;
        let _ = log.install();
        self.log = Some(log);
        Ok(())
    }

    /// The parsed command line.
    pub fn args(&self) -> &Args {
        &self.args
    }

    /// What the parent passed.
    pub fn inherit(&self) -> &Inherit {
        &self.inherit
    }

    /// The configuration.
    pub fn config(&self) -> &DaemonConfig {
        &self.config
    }

    /// `from_env`, then [`run`](Self::run), for `main`: errors go to the
    /// log and stderr, and give exit status 1 (C++ `EXCEPT`s with 4; 1 is
    /// what the master reports as a plain failure). `-v` prints the version
    /// and platform and exits 0.
    pub fn main<F, Fut>(subsystem: &str, app: F) -> std::process::ExitCode
    where
        F: FnOnce(Context) -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), AppError>> + Send + 'static,
    {
        if Args::from_env().is_ok_and(|a| a.version) {
            println!("{}\n{}", cedar::version::OUR_VERSION, crate::files::platform());
            return std::process::ExitCode::SUCCESS;
        }
        let result = Daemon::from_env(subsystem).and_then(|d| d.run(app));
        match result {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                tracing::error!("{e}");
                eprintln!("{e}");
                std::process::ExitCode::FAILURE
            }
        }
    }

    /// Runs the daemon on a multi-threaded tokio runtime until `app`
    /// returns (see [`serve`](Self::serve)).
    pub fn run<F, Fut>(self, app: F) -> Result<(), DaemonError>
    where
        F: FnOnce(Context) -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), AppError>> + Send + 'static,
    {
        unblock_signals();
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
        rt.block_on(self.serve(app))
    }

    /// `-k FILE`: sends `SIGTERM` to the pid in FILE (`do_kill`).
    fn kill(file: &std::path::Path) -> Result<(), DaemonError> {
        let text = std::fs::read_to_string(file)?;
        let pid: u32 = text.trim().parse().map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, format!("no pid in {}", file.display()))
        })?;
        let status = std::process::Command::new("kill").arg("-TERM").arg(pid.to_string()).status()?;
        if !status.success() {
            return Err(std::io::Error::other(format!("kill -TERM {pid} failed")).into());
        }
        Ok(())
    }

    async fn command_socket(&self) -> Result<TcpListener, DaemonError> {
        for s in self.inherit.command_sockets.iter().filter(|s| s.kind == SocketKind::Udp) {
            tracing::debug!(target: "daemons::shell", "Removing inherited UDP command socket.");
            let _ = socket::close_inherited(s.fd);
        }
        if let Some(fd) = self.inherit.command_listener_fd() {
            tracing::debug!(target: "daemons::shell", "Inheriting command socket (fd {fd}) from the parent.");
            return Ok(socket::adopt_listener(fd)?);
        }
        if self.inherit.shared_port.is_some() {
            tracing::warn!("The parent passed a shared-port endpoint, which this daemon cannot use; binding a port instead (set USE_SHARED_PORT = False or <SUBSYS>_USE_SHARED_PORT = False)");
        }
        let port = match self.args.port {
            Some(p) => p,
            None if self.subsystem == "COLLECTOR" => self.config.collector_port(),
            None => 0,
        };
        let ip = if self.config.get_bool("BIND_ALL_INTERFACES", true) { None } else { self.config.network_interface() };
        Ok(socket::bind(ip, port).await?)
    }

    fn banner(&self) {
        let name = format!("condor_{}", self.subsystem.to_ascii_lowercase());
        tracing::info!("******************************************************");
        tracing::info!("** {name} ({}) STARTING UP", self.subsystem);
        if let Ok(exe) = std::env::current_exe() {
            tracing::info!("** {}", exe.display());
        }
        tracing::info!(
            "** Configuration: subsystem:{} local:{} class:DAEMON",
            self.subsystem,
            self.args.local_name.as_deref().unwrap_or("<NONE>")
        );
        tracing::info!("** {}", cedar::version::OUR_VERSION);
        tracing::info!("** {}", crate::files::platform());
        tracing::info!("** PID = {}", std::process::id());
        tracing::info!("******************************************************");
        if let Some(path) = self.config.path() {
            tracing::info!("Using config source: {}", path.display());
        }
        if self.args.background {
            tracing::info!("-b given: this daemon does not fork; it stays in the foreground");
        }
    }

    /// Runs the daemon on the current tokio runtime until `app` returns.
    /// The runtime's threads must not block `SIGTERM`, `SIGQUIT` and
    /// `SIGHUP` (see [`unblock_signals`]).
    pub async fn serve<F, Fut>(self, app: F) -> Result<(), DaemonError>
    where
        F: FnOnce(Context) -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), AppError>> + Send + 'static,
    {
        if let Some(file) = &self.args.kill_pid_file {
            return Daemon::kill(file);
        }
        self.banner();
        if self.inherit.raw.is_empty() {
            tracing::debug!(target: "daemons::shell", "CONDOR_INHERIT: is NULL");
        } else {
            tracing::debug!(target: "daemons::shell", "CONDOR_INHERIT: \"{}\"", self.inherit.raw);
        }
        let listener = self.command_socket().await?;
        let local = listener.local_addr().map_err(SocketError::from)?;
        let ip = socket::reachable_ip(local, self.config.network_interface());
        let alias = socket::hostname();
        let sinful = socket::sinful(ip, local.port(), alias.as_deref());
        tracing::info!("DaemonCore: command socket at {sinful}");

        let address_file = self.config.address_file();
        if let Some(path) = &address_file {
            if let Err(e) = crate::files::write_address_file(path, &sinful.to_string()) {
                tracing::info!("DaemonCore: ERROR: Can't open address file {}: {e}", path.display());
            }
        }
        if let Some(path) = &self.args.pid_file {
            if let Err(e) = crate::files::write_pid_file(path) {
                tracing::info!("DaemonCore: ERROR: Can't open pid file {}: {e}", path.display());
            }
        }

        let pid_file = self.args.pid_file.clone();
        let subsystem = self.subsystem.clone();
        let result = self.serve_with(listener, sinful, app).await;
        if let Some(path) = &address_file {
            crate::files::remove(path, "address");
        }
        if let Some(path) = &pid_file {
            crate::files::remove(path, "pid");
        }
        let status = i32::from(result.is_err());
        tracing::info!(
            "**** condor_{} ({subsystem}) pid {} EXITING WITH STATUS {status}",
            subsystem.to_ascii_lowercase(),
            std::process::id()
        );
        result
    }

    fn keepalive(&self, sinful: &Sinful) -> Option<KeepAlive> {
        if !self.inherit.has_parent() {
            return None;
        }
        let parent: Sinful = match self.inherit.parent_sinful.as_deref().map(str::parse) {
            Some(Ok(p)) => p,
            Some(Err(e)) => {
                tracing::info!("DaemonKeepAlive: the parent's address does not parse ({e}); no keep-alives");
                return None;
            }
            None => {
                tracing::debug!(target: "daemons::keepalive", "DaemonKeepAlive: No parent_sinful_string. No keep-alives.");
                return None;
            }
        };
        let mut config = ClientConfig::default().subsystem(self.subsystem.clone());
        config.command_sock = Some(sinful.to_string());
        let session = self.private.parent_session.as_ref().and_then(|s| match s.client_session(&parent.to_string()) {
            Ok(session) => Some(session),
            Err(e) => {
                tracing::info!("Cannot use the parent's session {} ({e}); keep-alives will make a new one", s.id);
                None
            }
        });
        Some(KeepAlive::new(parent, std::process::id(), config, session))
    }

    async fn serve_with<F, Fut>(self, listener: TcpListener, sinful: Sinful, app: F) -> Result<(), DaemonError>
    where
        F: FnOnce(Context) -> Fut + Send + 'static,
        Fut: Future<Output = Result<(), AppError>> + Send + 'static,
    {
        let (controls, mut shell_rx) = Controls::new();
        let (app_tx, app_rx) = mpsc::channel(16);
        let config = Arc::new(self.config.clone());
        let (config_tx, config_rx) = watch::channel(config.clone());
        let mut tasks = JoinSet::new();

        // Keep-alives: the first one now, and fatal; then every period.
        let timing = |c: &DaemonConfig| {
            let raw = c.not_responding_timeout();
            keepalive::timing(raw, keepalive::fuzz(raw))
        };
        let (timing_tx, mut timing_rx) = watch::channel(timing(&config));
        if let Some(ka) = self.keepalive(&sinful) {
            let first = *timing_rx.borrow();
            ka.send(first)
                .await
                .map_err(|source| DaemonError::KeepAlive { parent: ka.parent().to_string(), source })?;
            tasks.spawn(async move {
                loop {
                    let t = *timing_rx.borrow_and_update();
                    tokio::select! {
                        () = tokio::time::sleep(t.period) => {
                            if let Err(e) = ka.send(t).await {
                                tracing::info!("DaemonKeepAlive: Leaving SendAliveToParent() - FAILED sending to {}: {e}", ka.parent());
                            }
                        }
                        // A new period starts at once (the parent learns it from the next message).
                        changed = timing_rx.changed() => if changed.is_err() { return },
                    }
                }
            });
        }

        // Our parent going away means a fast stop (check_parent).
        if self.inherit.has_parent() {
            let ppid = self.inherit.parent_pid;
            let c = controls.clone();
            tasks.spawn(async move {
                tokio::time::sleep(Duration::from_secs(15)).await;
                loop {
                    if !std::path::Path::new(&format!("/proc/{ppid}")).exists() {
                        tracing::info!("Our parent process (pid {ppid}) went away; shutting down fast");
                        c.stop(Shutdown::Fast);
                        return;
                    }
                    tokio::time::sleep(Duration::from_secs(120)).await;
                }
            });
        }

        // Unix signals.
        {
            use tokio::signal::unix::{signal, SignalKind};
            let c = controls.clone();
            let mut term = signal(SignalKind::terminate())?;
            let mut quit = signal(SignalKind::quit())?;
            let mut hup = signal(SignalKind::hangup())?;
            tasks.spawn(async move {
                loop {
                    let n = tokio::select! {
                        Some(()) = term.recv() => crate::commands::SIGTERM,
                        Some(()) = quit.recv() => crate::commands::SIGQUIT,
                        Some(()) = hup.recv() => crate::commands::SIGHUP,
                        else => return,
                    };
                    c.signal(n);
                }
            });
        }

        // -r MINUTES.
        if let Some(minutes) = self.args.run_for_minutes.filter(|m| *m > 0) {
            tracing::info!("Registered Timer for graceful shutdown in {minutes} minutes");
            let c = controls.clone();
            tasks.spawn(async move {
                tokio::time::sleep(Duration::from_secs(u64::from(minutes) * 60)).await;
                c.stop(Shutdown::Graceful);
            });
        }

        // The shell's side of each event, then the application's.
        {
            let c = controls.clone();
            let log = self.log.clone();
            let subsystem = self.subsystem.clone();
            let local_name = self.args.local_name.clone();
            let explicit = self.args.config.clone();
            let from_text = self.config.path().is_none();
            let sinful_text = sinful.to_string();
            tasks.spawn(async move {
                while let Some(event) = shell_rx.recv().await {
                    match event {
                        Control::Reconfig if !from_text => {
                            let (s, l, e) = (subsystem.clone(), local_name.clone(), explicit.clone());
                            let loaded =
                                tokio::task::spawn_blocking(move || DaemonConfig::load(&s, l.as_deref(), e.as_deref())).await;
                            match loaded {
                                Ok(Ok(new)) => {
                                    if let Some(log) = &log {
                                        log.set_flags(DebugFlags::parse(&new.debug_flags()));
                                        log.set_max_bytes(new.max_log_bytes());
                                    }
                                    timing_tx.send_replace(timing(&new));
                                    if let Some(path) = new.address_file() {
                                        let _ = crate::files::write_address_file(&path, &sinful_text);
                                    }
                                    config_tx.send_replace(Arc::new(new));
                                }
                                Ok(Err(e)) => tracing::error!("reconfig failed, keeping the old configuration: {e}"),
                                Err(e) => tracing::error!("reconfig failed: {e}"),
                            }
                        }
                        Control::Stop(Shutdown::Graceful) => {
                            let seconds = config_tx.borrow().shutdown_graceful_timeout();
                            tracing::debug!(target: "daemons::shell", "Started timer to call main_shutdown_fast in {seconds} seconds");
                            let c = c.clone();
                            tokio::spawn(async move {
                                tokio::time::sleep(Duration::from_secs(seconds.unsigned_abs())).await;
                                c.stop(Shutdown::Fast);
                            });
                        }
                        _ => {}
                    }
                    if app_tx.send(event).await.is_err() {
                        return;
                    }
                }
            });
        }

        let ctx = Context {
            listener: Some(listener),
            sinful,
            config: config_rx,
            controls: app_rx,
            args: self.args.rest.clone(),
            parent: self.inherit.has_parent().then(|| (self.inherit.parent_pid, self.inherit.parent_sinful.clone())),
            inherited_sessions: self.private.server_sessions(),
            dc: DcCommands::new(controls),
        };
        let outcome = tokio::spawn(app(ctx)).await;
        tasks.abort_all();
        while tasks.join_next().await.is_some() {}
        match outcome {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(DaemonError::App(e)),
            Err(join) => Err(DaemonError::App(Box::new(join))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_unblocked() {
        use nix::sys::signal::{pthread_sigmask, SigSet, SigmaskHow, Signal};
        std::thread::spawn(|| {
            let mut blocked = SigSet::empty();
            blocked.add(Signal::SIGHUP);
            blocked.add(Signal::SIGTERM);
            pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&blocked), None).unwrap();
            unblock_signals();
            let now = SigSet::thread_get_mask().unwrap();
            assert!(!now.contains(Signal::SIGHUP) && !now.contains(Signal::SIGTERM));
        })
        .join()
        .unwrap();
    }

    #[test]
    fn log_paths() {
        let c = DaemonConfig::parse_str("LOG = /var/log/condor\n", "COLLECTOR", None).unwrap();
        let args = Args::parse(["-l", "/tmp/logs", "-a", "two"]).unwrap();
        assert_eq!(log_path(&c, &args), Some(PathBuf::from("/tmp/logs/CollectorLog.two")));
        assert_eq!(log_path(&c, &Args::default()), Some(PathBuf::from("/var/log/condor/CollectorLog")));
        let none = DaemonConfig::parse_str("", "NOSUCH", None).unwrap();
        assert_eq!(log_path(&none, &Args::default()), None);
        assert_eq!(log_path(&none, &Args::parse(["-l", "/d"]).unwrap()), Some(PathBuf::from("/d/NOSUCHLog")));
    }
}
