//! Logs as HTCondor's `dprintf` writes them: one line per event,
//! `MM/DD/YY HH:MM:SS message` (the default `DEBUG_TIME_FORMAT`, local
//! time), to `<SUBSYS>_LOG`, rotated to `<file>.old` past
//! `MAX_<SUBSYS>_LOG` bytes; or to stderr (`-t`).
//!
//! What is written follows `<SUBSYS>_DEBUG`, mapped onto `tracing` levels
//! and targets:
//!
//! | `tracing` | written when |
//! |---|---|
//! | `error!`, `warn!`, `info!` | always (`D_ALWAYS`, `D_ERROR`, `D_STATUS`) |
//! | `debug!` | `D_FULLDEBUG`, or the event's category is listed |
//! | `trace!` | `D_ALL`, `D_FULLDEBUG:2`, or its category with `:2` |
//!
//! An event's category comes from its target: `D_SECURITY` for cedar's
//! handshake, policy, token, authz and crypto modules; `D_NETWORK` for its
//! wire, tokio and client modules; `D_COMMAND` for this crate's DC command
//! handling (target `daemons::commands`); `D_DAEMONCORE` for the rest of
//! this crate; and any category for an event whose target is its name
//! (`tracing::debug!(target: "D_MATCH", …)`).
//!
//! ```
//! use daemons::log::DebugFlags;
//! use tracing::Level;
//! let flags = DebugFlags::parse("D_COMMAND D_SECURITY:2");
//! assert!(flags.enabled(Level::INFO, "anything"));
//! assert!(flags.enabled(Level::DEBUG, "daemons::commands"));
//! assert!(flags.enabled(Level::TRACE, "cedar::handshake"));
//! assert!(!flags.enabled(Level::DEBUG, "cedar::wire::packet"));
//! assert!(DebugFlags::parse("D_FULLDEBUG").enabled(Level::DEBUG, "cedar::wire::packet"));
//! ```
//!
//! Secrets (session keys, tokens, claim ids) are never given to the log by
//! this crate; cedar's `Debug` output redacts them.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::Layer;

/// HTCondor's default `DEBUG_TIME_FORMAT`.
pub const TIME_FORMAT: &str = "%m/%d/%y %H:%M:%S";
/// The same with milliseconds (`D_SUB_SECOND`).
pub const TIME_FORMAT_SUB_SECOND: &str = "%m/%d/%y %H:%M:%S%.3f";

/// The categories with target prefixes of their own.
const CATEGORY_TARGETS: &[(&str, &[&str])] = &[
    (
        "D_SECURITY",
        &["cedar::handshake", "cedar::policy", "cedar::token", "cedar::authz", "cedar::crypto", "cedar::client::start"],
    ),
    ("D_NETWORK", &["cedar::wire", "cedar::tokio", "cedar::blocking", "cedar::client"]),
    ("D_COMMAND", &["daemons::commands"]),
    ("D_DAEMONCORE", &["daemons"]),
];

/// `<SUBSYS>_DEBUG`, parsed: which debug output is written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DebugFlags {
    full_debug: bool,
    /// `D_SUB_SECOND`: milliseconds in the time stamps.
    sub_second: bool,
    everything: bool,
    /// Categories listed, upper case, with their verbosity (`:2`).
    categories: Vec<(String, bool)>,
}

impl DebugFlags {
    /// Parses a flag list (`D_FULLDEBUG D_COMMAND`, `D_SECURITY:2`,
    /// separated by spaces or commas; `-D_X` removes one). Unknown names
    /// are kept as categories matching targets of that name.
    pub fn parse(text: &str) -> DebugFlags {
        let mut flags = DebugFlags::default();
        for word in text.split([' ', ',', '\t', '|']).filter(|w| !w.is_empty()).take(64) {
            let (remove, word) = match word.strip_prefix('-') {
                Some(w) => (true, w),
                None => (false, word),
            };
            let (name, verbose) = match word.split_once(':') {
                Some((n, v)) => (n, v.trim().parse::<u32>().is_ok_and(|v| v >= 2)),
                None => (word, false),
            };
            let name = name.to_ascii_uppercase();
            let name = if name.starts_with("D_") { name } else { format!("D_{name}") };
            flags.categories.retain(|(c, _)| *c != name);
            match (name.as_str(), remove) {
                ("D_FULLDEBUG", r) => {
                    flags.full_debug = !r;
                    flags.everything |= !r && verbose;
                }
                ("D_ALL" | "D_ANY", r) => {
                    flags.full_debug = !r;
                    flags.everything = !r;
                }
                ("D_ALWAYS", _) => {}
                ("D_SUB_SECOND", r) => flags.sub_second = !r,
                (_, false) => flags.categories.push((name, verbose)),
                (_, true) => {}
            }
        }
        flags
    }

    fn category(&self, target: &str) -> Option<bool> {
        for (name, verbose) in &self.categories {
            if target.eq_ignore_ascii_case(name) {
                return Some(*verbose);
            }
            let prefixes = CATEGORY_TARGETS.iter().find(|(c, _)| c == name).map_or(&[][..], |(_, p)| p);
            if prefixes.iter().any(|p| target == *p || target.strip_prefix(p).is_some_and(|r| r.starts_with("::"))) {
                return Some(*verbose);
            }
        }
        None
    }

    /// Whether the time stamps carry milliseconds (`D_SUB_SECOND`).
    ///
    /// ```
    /// use daemons::log::DebugFlags;
    /// assert!(DebugFlags::parse("D_MATCH D_SUB_SECOND").sub_second());
    /// assert!(!DebugFlags::parse("D_FULLDEBUG").sub_second());
    /// ```
    pub fn sub_second(&self) -> bool {
        self.sub_second
    }

    /// Whether an event at `level` from `target` is written.
    pub fn enabled(&self, level: Level, target: &str) -> bool {
        if level <= Level::INFO {
            return true;
        }
        if self.everything {
            return true;
        }
        let category = self.category(target);
        if level == Level::DEBUG {
            return self.full_debug || category.is_some();
        }
        category == Some(true)
    }
}

/// Where the log goes.
#[derive(Debug)]
enum Sink {
    Stderr,
    File(FileSink),
    Discard,
}

#[derive(Debug)]
struct FileSink {
    path: PathBuf,
    file: Option<File>,
    written: u64,
    max: u64,
}

impl FileSink {
    fn open(path: &Path, max: u64) -> std::io::Result<FileSink> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        let written = file.metadata().map(|m| m.len()).unwrap_or(0);
        Ok(FileSink { path: path.to_path_buf(), file: Some(file), written, max })
    }

    /// The file's name with `.old` appended: where a full log goes.
    fn old_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(".old");
        PathBuf::from(name)
    }

    fn write_line(&mut self, line: &str) {
        if self.max > 0 && self.written > 0 && self.written + line.len() as u64 > self.max {
            // dprintf rotates before the write that would pass the limit.
            self.file = None;
            let _ = std::fs::rename(&self.path, self.old_path());
            self.file = OpenOptions::new().create(true).append(true).open(&self.path).ok();
            self.written = 0;
        }
        if let Some(f) = &mut self.file {
            if f.write_all(line.as_bytes()).is_ok() {
                self.written += line.len() as u64;
            }
        }
    }
}

/// A handle on the installed log, to change it on reconfig.
#[derive(Debug, Clone)]
pub struct LogHandle {
    flags: Arc<RwLock<DebugFlags>>,
    sink: Arc<Mutex<Sink>>,
}

impl LogHandle {
    /// Writes to the file at `path`, rotating past `max_bytes` (0: never).
    pub fn to_file(path: &Path, max_bytes: u64, flags: DebugFlags) -> std::io::Result<LogHandle> {
        Ok(LogHandle::new(Sink::File(FileSink::open(path, max_bytes)?), flags))
    }

    /// Writes to stderr (`-t`).
    pub fn to_stderr(flags: DebugFlags) -> LogHandle {
        LogHandle::new(Sink::Stderr, flags)
    }

    /// Writes nothing (`-ld` without `-t`).
    pub fn discard() -> LogHandle {
        LogHandle::new(Sink::Discard, DebugFlags::default())
    }

    fn new(sink: Sink, flags: DebugFlags) -> LogHandle {
        LogHandle { flags: Arc::new(RwLock::new(flags)), sink: Arc::new(Mutex::new(sink)) }
    }

    /// Other debug flags from now on.
    pub fn set_flags(&self, flags: DebugFlags) {
        if let Ok(mut f) = self.flags.write() {
            *f = flags;
        }
    }

    /// Another size limit from now on (for a file log).
    pub fn set_max_bytes(&self, max: u64) {
        if let Ok(mut s) = self.sink.lock() {
            if let Sink::File(f) = &mut *s {
                f.max = max;
            }
        }
    }

    /// The `tracing` layer writing to this log.
    pub fn layer(&self) -> DprintfLayer {
        DprintfLayer { handle: self.clone() }
    }

    /// Installs the log as the process's global `tracing` subscriber.
    /// Fails when one is installed already.
    pub fn install(&self) -> Result<(), tracing::subscriber::SetGlobalDefaultError> {
        let subscriber = tracing_subscriber::registry().with(self.layer());
        tracing::subscriber::set_global_default(subscriber)
    }

    /// Writes one line as the layer does (`message` without its newline).
    pub fn write(&self, message: &str) {
        let sub_second = self.flags.read().is_ok_and(|f| f.sub_second);
        let line = format_line(&now(sub_second), message);
        if let Ok(mut sink) = self.sink.lock() {
            match &mut *sink {
                Sink::Stderr => {
                    let _ = std::io::stderr().write_all(line.as_bytes());
                }
                Sink::File(f) => f.write_line(&line),
                Sink::Discard => {}
            }
        }
    }
}

/// The local time in [`TIME_FORMAT`].
fn now(sub_second: bool) -> String {
    jiff::Zoned::now().strftime(if sub_second { TIME_FORMAT_SUB_SECOND } else { TIME_FORMAT }).to_string()
}

/// One log line: the time, a space, the message, a newline. A message of
/// several lines is written as such, as dprintf writes it.
pub fn format_line(time: &str, message: &str) -> String {
    let mut line = String::with_capacity(time.len() + message.len() + 2);
    line.push_str(time);
    line.push(' ');
    line.push_str(message.trim_end_matches('\n'));
    line.push('\n');
    line
}

/// The `tracing` layer of a [`LogHandle`].
#[derive(Debug)]
pub struct DprintfLayer {
    handle: LogHandle,
}

/// Collects an event's message and fields into one line.
#[derive(Default)]
struct Line {
    message: String,
    fields: String,
}

impl Visit for Line {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, " {}={value}", field.name());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, " {}={value:?}", field.name());
        }
    }
}

impl<S: Subscriber> Layer<S> for DprintfLayer {
    fn enabled(&self, metadata: &tracing::Metadata<'_>, _ctx: Context<'_, S>) -> bool {
        self.handle.flags.read().map(|f| f.enabled(*metadata.level(), metadata.target())).unwrap_or(true)
    }

    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut line = Line::default();
        event.record(&mut line);
        let mut text = line.message;
        if *event.metadata().level() == Level::ERROR {
            text.insert_str(0, "ERROR: ");
        }
        text.push_str(&line.fields);
        self.handle.write(&text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("daemons-log-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn flags() {
        let none = DebugFlags::parse("");
        assert!(none.enabled(Level::WARN, "x") && !none.enabled(Level::DEBUG, "x"));
        let full = DebugFlags::parse("D_FULLDEBUG");
        assert!(full.enabled(Level::DEBUG, "x") && !full.enabled(Level::TRACE, "x"));
        let verbose = DebugFlags::parse("D_FULLDEBUG:2");
        assert!(verbose.enabled(Level::TRACE, "x"));
        let all = DebugFlags::parse("D_ALL");
        assert!(all.enabled(Level::TRACE, "cedar::wire"));
        let cats = DebugFlags::parse("D_COMMAND,D_NETWORK:2 d_match");
        assert!(cats.enabled(Level::DEBUG, "daemons::commands"));
        assert!(!cats.enabled(Level::TRACE, "daemons::commands"));
        assert!(cats.enabled(Level::TRACE, "cedar::tokio::server"));
        assert!(cats.enabled(Level::DEBUG, "D_MATCH"));
        // A prefix is a module path, not a string prefix.
        assert!(!cats.enabled(Level::DEBUG, "daemons::commandsx"));
        assert!(!cats.enabled(Level::DEBUG, "daemons::shell"));
        let removed = DebugFlags::parse("D_FULLDEBUG D_COMMAND -D_FULLDEBUG -D_COMMAND");
        assert!(!removed.enabled(Level::DEBUG, "daemons::commands"));
        // D_DAEMONCORE covers the crate but not other crates.
        let dc = DebugFlags::parse("D_DAEMONCORE");
        assert!(dc.enabled(Level::DEBUG, "daemons::keepalive") && !dc.enabled(Level::DEBUG, "daemonsx"));
    }

    #[test]
    fn lines_look_like_dprintf() {
        let line = format_line("12/02/26 16:05:28", "Got SIGHUP.  Re-reading config files.\n");
        assert_eq!(line, "12/02/26 16:05:28 Got SIGHUP.  Re-reading config files.\n");
        let t = now(false);
        let b = t.as_bytes();
        assert_eq!(t.len(), 17, "{t}");
        assert!(b[2] == b'/' && b[5] == b'/' && b[8] == b' ' && b[11] == b':' && b[14] == b':', "{t}");
        let t = now(true);
        assert_eq!(t.len(), 21, "{t}");
        assert!(t.as_bytes()[17] == b'.' && t[18..].bytes().all(|c| c.is_ascii_digit()), "{t}");
    }

    #[test]
    fn events_go_to_the_file_filtered_and_rotated() {
        let dir = temp("rotate");
        let path = dir.join("CollectorLog");
        let handle = LogHandle::to_file(&path, 200, DebugFlags::parse("D_COMMAND")).unwrap();
        let subscriber = tracing_subscriber::registry().with(handle.layer());
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!("first {}", 1);
            tracing::debug!(target: "daemons::commands", pid = 42, "a command");
            tracing::debug!(target: "cedar::wire", "not written");
            tracing::error!("broken");
        });
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().map(|l| &l[18..]).collect();
        assert_eq!(lines, ["first 1", "a command pid=42", "ERROR: broken"]);
        // Past 200 bytes the file moves to .old and starts again.
        for i in 0..5 {
            handle.write(&format!("line {i} {}", "x".repeat(40)));
        }
        let old = std::fs::read_to_string(dir.join("CollectorLog.old")).unwrap();
        let new = std::fs::read_to_string(&path).unwrap();
        assert!(old.len() <= 200 && new.len() <= 200, "{} {}", old.len(), new.len());
        assert!(new.contains("line 4"));
        // Flags change on reconfig.
        handle.set_flags(DebugFlags::parse("D_FULLDEBUG"));
        let subscriber = tracing_subscriber::registry().with(handle.layer());
        tracing::subscriber::with_default(subscriber, || tracing::debug!(target: "cedar::wire", "now written"));
        assert!(std::fs::read_to_string(&path).unwrap().contains("now written"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
