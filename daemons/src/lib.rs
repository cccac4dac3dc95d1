//! What every HTCondor-compatible daemon of this project needs to run
//! under a real HTCondor 23.9 `condor_master`, or alone: DaemonCore's part
//! of a C++ daemon, for a Rust one.
//!
//! * [`args`]: DaemonCore's command-line flags (`-f`, `-t`, `-p`,
//!   `-local-name`, `-pidfile`, `-sock`, ...);
//! * [`inherit`]: `CONDOR_INHERIT` (the parent's pid and address, the
//!   command socket it bound for us) and `CONDOR_PRIVATE_INHERIT` (the
//!   security sessions it made for us);
//! * [`config`]: the HTCondor configuration, with `LOCALNAME.` and
//!   `SUBSYS.` prefixes, and the standard knobs;
//! * [`log`]: `dprintf`-style logs through `tracing`, rotated, filtered by
//!   `<SUBSYS>_DEBUG`;
//! * [`commands`]: the DC commands (`DC_OFF_*`, `DC_RECONFIG*`,
//!   `DC_RAISESIGNAL`, ...) and the control events they become;
//! * [`keepalive`]: `DC_CHILDALIVE` to the master;
//! * [`client`]: how the daemon secures the commands it sends;
//! * [`files`], [`socket`]: the address and pid files; the command
//!   listener and our sinful string;
//! * [`shell`]: the [`Daemon`] that puts it together and runs the
//!   application with a [`Context`].
//!
//! The application (the collector, the negotiator) brings its own
//! `cedar::tokio::Handler`, registers [`commands::register`]'s commands
//! in its command table and delegates them to [`DcCommands`]; the shell
//! does the rest.

pub mod args;
pub mod client;
pub mod commands;
pub mod config;
pub mod files;
pub mod inherit;
pub mod keepalive;
pub mod log;
pub mod owner;
pub mod shell;
pub mod socket;

pub use commands::{Control, DcCommands, Shutdown};
pub use shell::{AppError, Context, Daemon, DaemonError};
