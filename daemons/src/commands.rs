//! The DaemonCore commands every daemon answers (`dc_main` and
//! `DaemonCore::InitDCCommandSocket`, 23.9), and the control events they
//! — and the Unix signals — become.
//!
//! | command | level | payload | what it does |
//! |---|---|---|---|
//! | `DC_RAISESIGNAL` 60000 | DAEMON | `int` signal | `SIGHUP` → reconfig, `SIGTERM` → graceful stop, `SIGQUIT` → fast stop |
//! | `DC_RECONFIG` 60004, `DC_RECONFIG_FULL` 60012 | ADMINISTRATOR | — | reconfig |
//! | `DC_OFF_GRACEFUL` 60005 | ADMINISTRATOR | — | graceful stop |
//! | `DC_OFF_FAST` 60006 | ADMINISTRATOR | — | fast stop |
//! | `DC_OFF_PEACEFUL` 60015 | ADMINISTRATOR | — | peaceful stop (graceful, no time limit) |
//! | `DC_OFF_FORCE` 60042 | ADMINISTRATOR | — | graceful stop, even after one began |
//! | `DC_SET_PEACEFUL_SHUTDOWN` 60016, `DC_SET_FORCE_SHUTDOWN` 60041 | ADMINISTRATOR | — | later graceful stops are (not) peaceful |
//! | `DC_QUERY_INSTANCE` 60045 | ALLOW | — | replies 16 hex digits, the same for the process's life |
//! | `DC_NOP` 60011, `DC_NOP_*` 60020–60029 | their levels | — | nothing (cedar hangs up) |
//!
//! None of them replies but `DC_QUERY_INSTANCE`, as in C++.
//!
//! ```
//! use daemons::commands::{register, Control, Controls, Shutdown};
//! let table = register(cedar::handshake::CommandTable::new());
//! assert_eq!(table.permission(60005), Some(cedar::authz::Permission::Administrator));
//! assert_eq!(table.permission(60000), Some(cedar::authz::Permission::Daemon));
//!
//! let (controls, mut events) = Controls::new();
//! controls.signal(15); // SIGTERM
//! controls.signal(15); // a second one is ignored, as DaemonCore ignores it
//! controls.signal(3);  // SIGQUIT: fast, after graceful
//! assert_eq!(events.try_recv().ok(), Some(Control::Stop(Shutdown::Graceful)));
//! assert_eq!(events.try_recv().ok(), Some(Control::Stop(Shutdown::Fast)));
//! assert!(events.try_recv().is_err());
//! ```

use std::sync::{Arc, Mutex, OnceLock};

use cedar::authz::Permission;
use cedar::command;
use cedar::handshake::CommandTable;
use cedar::tokio::Command;
use cedar::wire::Decoder;
use tokio::sync::{mpsc, watch};

/// `DC_RAISESIGNAL`: raise a signal in the daemon.
pub const DC_RAISESIGNAL: i32 = 60000;
/// `DC_CHILDALIVE`: a child's keep-alive to its parent.
pub const DC_CHILDALIVE: i32 = 60008;
/// `DC_SET_PEACEFUL_SHUTDOWN`: later graceful stops wait without limit.
pub const DC_SET_PEACEFUL_SHUTDOWN: i32 = 60016;
/// `DC_SET_FORCE_SHUTDOWN`: later graceful stops are not peaceful.
pub const DC_SET_FORCE_SHUTDOWN: i32 = 60041;
/// `DC_SET_READY`: a child tells its parent it is ready.
pub const DC_SET_READY: i32 = 60043;

/// `SIGHUP`'s number.
pub const SIGHUP: i64 = 1;
/// `SIGQUIT`'s number.
pub const SIGQUIT: i64 = 3;
/// `SIGTERM`'s number.
pub const SIGTERM: i64 = 15;

/// How to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shutdown {
    /// `SIGTERM`, `DC_OFF_GRACEFUL`: finish what is under way, then exit;
    /// the shell turns it into a fast stop after
    /// `SHUTDOWN_GRACEFUL_TIMEOUT`.
    Graceful,
    /// `DC_OFF_PEACEFUL` (or graceful after `DC_SET_PEACEFUL_SHUTDOWN`):
    /// graceful with no time limit.
    Peaceful,
    /// `SIGQUIT`, `DC_OFF_FAST`: exit now.
    Fast,
}

/// What the daemon's application is told to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Control {
    /// Re-read the configuration (`SIGHUP`, `DC_RECONFIG_FULL`). The
    /// shell has re-read it already when this arrives.
    Reconfig,
    /// Stop.
    Stop(Shutdown),
}

#[derive(Debug, Default)]
struct State {
    graceful_started: bool,
    fast_started: bool,
    peaceful: bool,
}

/// The sending side of the control events: deduplicates stops as
/// DaemonCore does (a second `SIGTERM`, or any `SIGQUIT` after the first,
/// is ignored), coalesces reconfigs the application has not taken yet, and
/// tells [`stopping`](Controls::stopping) watchers.
#[derive(Debug, Clone)]
pub struct Controls {
    tx: mpsc::Sender<Control>,
    state: Arc<Mutex<State>>,
    stop: Arc<watch::Sender<Option<Shutdown>>>,
}

/// How many control events wait for the application (stops are at most
/// three; reconfigs beyond this are coalesced).
const QUEUE: usize = 16;

impl Controls {
    /// A sender and the application's receiver.
    pub fn new() -> (Controls, mpsc::Receiver<Control>) {
        let (tx, rx) = mpsc::channel(QUEUE);
        let (stop, _) = watch::channel(None);
        (Controls { tx, state: Arc::default(), stop: Arc::new(stop) }, rx)
    }

    /// Watches for a stop: `None` until one is asked, then its kind (the
    /// last one asked).
    pub fn stopping(&self) -> watch::Receiver<Option<Shutdown>> {
        self.stop.subscribe()
    }

    /// Asks for a reconfig.
    pub fn reconfig(&self) {
        tracing::debug!(target: "daemons::commands", "Reconfig requested.");
        // Full: an earlier reconfig not yet taken covers this one.
        let _ = self.tx.try_send(Control::Reconfig);
    }

    /// Asks for a stop; returns whether it is news (not ignored).
    pub fn stop(&self, how: Shutdown) -> bool {
        let how = {
            let Ok(mut s) = self.state.lock() else { return false };
            match how {
                Shutdown::Fast if s.fast_started => {
                    tracing::debug!(target: "daemons::commands", "Got SIGQUIT, but we've already done fast shutdown.  Ignoring.");
                    return false;
                }
                Shutdown::Fast => {
                    s.fast_started = true;
                    tracing::info!(target: "daemons::commands", "Got SIGQUIT.  Performing fast shutdown.");
                    Shutdown::Fast
                }
                _ if s.graceful_started || s.fast_started => {
                    tracing::info!(target: "daemons::commands", "Got SIGTERM, but we've already started graceful shutdown.  Ignoring.");
                    return false;
                }
                other => {
                    s.graceful_started = true;
                    let how =
                        if s.peaceful || other == Shutdown::Peaceful { Shutdown::Peaceful } else { Shutdown::Graceful };
                    let name = if how == Shutdown::Peaceful { "peaceful" } else { "graceful" };
                    tracing::info!(target: "daemons::commands", "Got SIGTERM. Performing {name} shutdown.");
                    how
                }
            }
        };
        self.stop.send_replace(Some(how));
        // A stop is never dropped: at most three are ever sent, and the
        // queue holds sixteen; if the application is gone, nobody waits.
        if self.tx.try_send(Control::Stop(how)).is_err() {
            let tx = self.tx.clone();
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move {
                    let _ = tx.send(Control::Stop(how)).await;
                });
            }
        }
        true
    }

    /// `DC_SET_PEACEFUL_SHUTDOWN` (true) or `DC_SET_FORCE_SHUTDOWN` (false).
    pub fn set_peaceful(&self, peaceful: bool) {
        if let Ok(mut s) = self.state.lock() {
            s.peaceful = peaceful;
            if !peaceful {
                // DC_SET_FORCE_SHUTDOWN and DC_OFF_FORCE let a new SIGTERM through.
                s.graceful_started = false;
            }
        }
    }

    /// A signal, as `DaemonCore::HandleSig` dispatches the three every
    /// daemon registers; returns whether the number is one of them.
    pub fn signal(&self, signal: i64) -> bool {
        match signal {
            SIGHUP => {
                tracing::info!(target: "daemons::commands", "Got SIGHUP.  Re-reading config files.");
                self.reconfig();
            }
            SIGTERM => {
                self.stop(Shutdown::Graceful);
            }
            SIGQUIT => {
                self.stop(Shutdown::Fast);
            }
            other => {
                tracing::info!(target: "daemons::commands", "DaemonCore: received request for unregistered Signal {other} !");
                return false;
            }
        }
        true
    }
}

/// Adds the DC commands of the [module](self) table to `table`, at their
/// levels.
pub fn register(table: CommandTable) -> CommandTable {
    use Permission::*;
    let mut t = table
        .register(DC_RAISESIGNAL, Daemon)
        .register(command::DC_RECONFIG, Administrator)
        .register(command::DC_RECONFIG_FULL, Administrator)
        .register(command::DC_OFF_GRACEFUL, Administrator)
        .register(command::DC_OFF_FAST, Administrator)
        .register(command::DC_OFF_PEACEFUL, Administrator)
        .register(command::DC_OFF_FORCE, Administrator)
        .register(DC_SET_PEACEFUL_SHUTDOWN, Administrator)
        .register(DC_SET_FORCE_SHUTDOWN, Administrator)
        .register(command::DC_QUERY_INSTANCE, Allow)
        .register(command::DC_NOP, Allow);
    for (cmd, perm) in [
        (command::DC_NOP_READ, Read),
        (command::DC_NOP_WRITE, Write),
        (command::DC_NOP_NEGOTIATOR, Negotiator),
        (command::DC_NOP_ADMINISTRATOR, Administrator),
        // OWNER was merged into ADMINISTRATOR in 9.9.0.
        (command::DC_NOP_OWNER, Administrator),
        (command::DC_NOP_CONFIG, Config),
        (command::DC_NOP_DAEMON, Daemon),
        (command::DC_NOP_ADVERTISE_STARTD, AdvertiseStartd),
        (command::DC_NOP_ADVERTISE_SCHEDD, AdvertiseSchedd),
        (command::DC_NOP_ADVERTISE_MASTER, AdvertiseMaster),
    ] {
        t = t.register(cmd, perm);
    }
    t
}

/// Whether `command` is one [`DcCommands::handle`] answers.
pub fn is_dc_command(cmd: i32) -> bool {
    matches!(
        cmd,
        DC_RAISESIGNAL
            | command::DC_RECONFIG
            | command::DC_RECONFIG_FULL
            | command::DC_OFF_GRACEFUL
            | command::DC_OFF_FAST
            | command::DC_OFF_PEACEFUL
            | command::DC_OFF_FORCE
            | DC_SET_PEACEFUL_SHUTDOWN
            | DC_SET_FORCE_SHUTDOWN
            | command::DC_QUERY_INSTANCE
    ) || command::is_nop(cmd)
}

/// A command that takes no payload: the rest of a raw command's message is
/// dropped; after a handshake nothing is read, since a C++ client sends
/// nothing more (its `end_of_message` on an empty buffer sends no packet)
/// and may be waiting for our reply.
async fn no_payload(cmd: &mut Command<'_>) -> cedar::error::Result<()> {
    if matches!(cmd.request().payload, cedar::handshake::Payload::Inline(..)) {
        let _ = cmd.read_payload().await?;
    }
    Ok(())
}

/// This process's instance id for `DC_QUERY_INSTANCE`: 16 hex digits,
/// made on first use.
pub fn instance_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(std::process::id());
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        format!("{:016x}", h.finish())
    })
}

/// The piece of a daemon's `cedar::tokio::Handler` that answers the DC
/// commands: call [`handle`](DcCommands::handle) first and go on with the
/// daemon's own commands when it returns `Ok(false)`.
///
/// ```
/// use cedar::tokio::{Command, Handler};
/// use daemons::commands::DcCommands;
///
/// struct App {
///     dc: DcCommands,
/// }
/// impl Handler for App {
///     async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
///         if self.dc.handle(command).await? {
///             return Ok(());
///         }
///         // ... the daemon's own commands ...
///         let _ = command.read_payload_or_empty().await?;
///         Ok(())
///     }
/// }
/// ```
#[derive(Debug, Clone)]
pub struct DcCommands {
    controls: Controls,
}

impl DcCommands {
    /// Answers the DC commands by sending their events to `controls`.
    pub fn new(controls: Controls) -> DcCommands {
        DcCommands { controls }
    }

    /// The control events' sender.
    pub fn controls(&self) -> &Controls {
        &self.controls
    }

    /// Runs `command` if it is a DC command (`Ok(true)`); `Ok(false)` for
    /// the daemon's own. As C++, a command whose payload cannot be read is
    /// an error (the connection ends) and changes nothing.
    pub async fn handle(&self, cmd: &mut Command<'_>) -> cedar::error::Result<bool> {
        let number = cmd.number();
        if !is_dc_command(number) {
            return Ok(false);
        }
        let peer = cmd.peer().map(|p| p.to_string()).unwrap_or_default();
        tracing::debug!(
            target: "daemons::commands",
            "Command {} ({number}) from {peer}, user {}",
            command::name(number).unwrap_or("DC_RAISESIGNAL"),
            cmd.user().unwrap_or("unauthenticated")
        );
        match number {
            DC_RAISESIGNAL => {
                let payload = cmd.read_payload().await?;
                let signal = Decoder::new(&payload.payload, payload.encrypted).get_int()?;
                self.controls.signal(signal);
            }
            command::DC_QUERY_INSTANCE => {
                no_payload(cmd).await?;
                let mut reply = cmd.encoder();
                reply.put_bytes(instance_id().as_bytes());
                cmd.send(reply.as_bytes()).await?;
            }
            other => {
                no_payload(cmd).await?;
                match other {
                    command::DC_RECONFIG | command::DC_RECONFIG_FULL => self.controls.reconfig(),
                    command::DC_OFF_GRACEFUL => {
                        self.controls.stop(Shutdown::Graceful);
                    }
                    command::DC_OFF_FAST => {
                        self.controls.stop(Shutdown::Fast);
                    }
                    command::DC_OFF_PEACEFUL => {
                        self.controls.set_peaceful(true);
                        self.controls.stop(Shutdown::Peaceful);
                    }
                    command::DC_OFF_FORCE => {
                        self.controls.set_peaceful(false);
                        self.controls.stop(Shutdown::Graceful);
                    }
                    DC_SET_PEACEFUL_SHUTDOWN => self.controls.set_peaceful(true),
                    DC_SET_FORCE_SHUTDOWN => self.controls.set_peaceful(false),
                    _ => {}
                }
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_are_deduplicated_as_daemoncore_does() {
        let (c, mut rx) = Controls::new();
        let stopping = c.stopping();
        assert_eq!(*stopping.borrow(), None);
        assert!(c.stop(Shutdown::Graceful));
        assert!(!c.stop(Shutdown::Graceful));
        assert!(!c.stop(Shutdown::Peaceful));
        assert!(c.stop(Shutdown::Fast));
        assert!(!c.stop(Shutdown::Fast));
        assert!(!c.stop(Shutdown::Graceful));
        assert_eq!(*stopping.borrow(), Some(Shutdown::Fast));
        assert_eq!(rx.try_recv().ok(), Some(Control::Stop(Shutdown::Graceful)));
        assert_eq!(rx.try_recv().ok(), Some(Control::Stop(Shutdown::Fast)));
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn peaceful_and_force() {
        let (c, mut rx) = Controls::new();
        c.set_peaceful(true);
        assert!(c.stop(Shutdown::Graceful));
        assert_eq!(rx.try_recv().ok(), Some(Control::Stop(Shutdown::Peaceful)));
        // DC_OFF_FORCE: not peaceful, and a new graceful stop goes through.
        c.set_peaceful(false);
        assert!(c.stop(Shutdown::Graceful));
        assert_eq!(rx.try_recv().ok(), Some(Control::Stop(Shutdown::Graceful)));
    }

    #[test]
    fn reconfigs_coalesce_and_unknown_signals_are_refused() {
        let (c, mut rx) = Controls::new();
        for _ in 0..100 {
            c.signal(SIGHUP);
        }
        assert!(!c.signal(10));
        let mut n = 0;
        while rx.try_recv().is_ok() {
            n += 1;
        }
        assert_eq!(n, QUEUE);
        // A stop still gets through a full queue of reconfigs.
        for _ in 0..QUEUE {
            c.reconfig();
        }
        assert!(c.signal(SIGTERM));
        assert_eq!(*c.stopping().borrow(), Some(Shutdown::Graceful));
    }

    #[test]
    fn the_table_and_the_instance_id() {
        let t = register(CommandTable::new());
        for cmd in [60000, 60004, 60005, 60006, 60011, 60012, 60015, 60016, 60020, 60029, 60041, 60042, 60045] {
            assert!(t.permission(cmd).is_some(), "{cmd}");
            assert!(is_dc_command(cmd), "{cmd}");
        }
        assert_eq!(t.permission(command::DC_NOP_OWNER), Some(Permission::Administrator));
        assert_eq!(t.permission(command::DC_QUERY_INSTANCE), Some(Permission::Allow));
        assert!(!is_dc_command(DC_CHILDALIVE) && t.permission(DC_CHILDALIVE).is_none());
        assert!(!is_dc_command(5));
        let id = instance_id();
        assert_eq!(id.len(), 16);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(instance_id(), id);
    }
}
