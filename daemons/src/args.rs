//! The command-line flags every DaemonCore daemon takes, parsed as
//! `dc_main` parses them (daemon_core_main.cpp, 23.9).
//!
//! DaemonCore reads flags from the front of the command line and stops at
//! the first word that is not one of its own: that word and everything
//! after it are left for the daemon ([`Args::rest`]). As in C++, a flag is
//! recognised by its first letter, so `-foreground` is `-f` and `-port` is
//! `-p`; the exceptions are `-local-name`, `-ld`, `-pidfile` (`-pi…`),
//! `-sock`, `-d`/`-dynamic` and `-http` (`-ht…`), which are matched as C++
//! matches them.
//!
//! ```
//! use daemons::args::Args;
//! let args = Args::parse(["-f", "-local-name", "VIEW", "-p", "9618", "-extra"])?;
//! assert!(args.foreground);
//! assert_eq!(args.local_name.as_deref(), Some("VIEW"));
//! assert_eq!(args.port, Some(9618));
//! assert_eq!(args.rest, ["-extra"]); // not DaemonCore's: left for the daemon
//! # Ok::<(), daemons::args::ArgsError>(())
//! ```
//!
//! Where C++ prints an error and exits, [`Args::parse`] returns an
//! [`ArgsError`] with the same message; where C++ takes a number with
//! `atoi` (so `-p x` is port 0), this refuses what is not a number.

use std::path::PathBuf;

/// What is wrong with a command line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgsError {
    /// A flag that takes a value came last.
    #[error("DaemonCore: ERROR: {flag} needs another argument. {hint}")]
    MissingValue {
        /// The flag as DaemonCore names it (`-port`, `-pidfile`, ...).
        flag: &'static str,
        /// What the value is.
        hint: &'static str,
    },
    /// A flag's value is not the number it must be.
    #[error("DaemonCore: ERROR: {flag} takes a number from 0 to {max}, not '{value}'")]
    BadNumber {
        /// The flag.
        flag: &'static str,
        /// The value given.
        value: String,
        /// The largest value accepted.
        max: u64,
    },
    /// `-http`, which HTCondor no longer accepts.
    #[error("DaemonCore: ERROR: -http no longer accepted.")]
    HttpRemoved,
}

/// DaemonCore's flags, parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Args {
    /// `-f`: stay in the foreground. Every daemon but the master does
    /// anyway (the master starts its daemons without `-f`).
    pub foreground: bool,
    /// `-b`: go to the background (not done here: the daemon stays in the
    /// foreground and says so in its log).
    pub background: bool,
    /// `-t`: log to stderr instead of the log file (implies `-f`).
    pub log_to_terminal: bool,
    /// `-c FILE`: the configuration file (C++ sets `CONDOR_CONFIG`).
    pub config: Option<PathBuf>,
    /// `-local-name NAME`: look up `NAME.X` before `SUBSYS.X` and `X`.
    pub local_name: Option<String>,
    /// `-l DIR` (`-log`): the log directory, instead of `LOG`.
    pub log_dir: Option<PathBuf>,
    /// `-ld`: no log file at all.
    pub no_default_log: bool,
    /// `-p PORT`: the command port. C++ reads `-p 0` as "no command
    /// socket"; a daemon here always has one, and 0 gives an ephemeral port.
    pub port: Option<u16>,
    /// `-pidfile FILE`: write our pid there.
    pub pid_file: Option<PathBuf>,
    /// `-k FILE`: kill the daemon whose pid FILE holds, and exit.
    pub kill_pid_file: Option<PathBuf>,
    /// `-sock NAME`: the shared-port id to use.
    pub sock: Option<String>,
    /// `-r MINUTES`: stop gracefully after that long.
    pub run_for_minutes: Option<u32>,
    /// `-q`: quiet.
    pub quiet: bool,
    /// `-a SUFFIX` (`-append`): append `.SUFFIX` to the log file's name.
    pub log_append: Option<String>,
    /// `-a2 ARG`: the second log argument (kept, unused here).
    pub log2: Option<String>,
    /// `-d` / `-dynamic`: dynamic local directories (kept, unused here).
    pub dynamic_dirs: bool,
    /// `-v`: print the version and exit.
    pub version: bool,
    /// The words after DaemonCore's flags: the daemon's own arguments.
    pub rest: Vec<String>,
}

fn number(flag: &'static str, value: &str, max: u64) -> Result<u64, ArgsError> {
    let bad = || ArgsError::BadNumber { flag, value: value.to_owned(), max };
    let trimmed = value.trim();
    if trimmed.is_empty() || trimmed.len() > 20 || !trimmed.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n: u64 = trimmed.parse().map_err(|_| bad())?;
    if n > max {
        return Err(bad());
    }
    Ok(n)
}

impl Args {
    /// Parses the words after the program name (`std::env::args().skip(1)`).
    pub fn parse<I, S>(words: I) -> Result<Args, ArgsError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let words: Vec<String> = words.into_iter().map(Into::into).collect();
        let mut args = Args::default();
        let mut i = 0;
        // The value after words[i], for flags that take one.
        let value = |i: usize, flag: &'static str, hint: &'static str| -> Result<String, ArgsError> {
            words.get(i + 1).cloned().ok_or(ArgsError::MissingValue { flag, hint })
        };
        while let Some(word) = words.get(i) {
            let b = word.as_bytes();
            if b.first() != Some(&b'-') {
                break;
            }
            let consumed = match b.get(1) {
                Some(b'a') => {
                    let v = value(i, "-append", "Please specify a string to append to our log's filename.")?;
                    if b.get(2) == Some(&b'2') {
                        args.log2 = Some(v);
                    } else {
                        args.log_append = Some(v);
                    }
                    2
                }
                Some(b'b') => {
                    args.background = true;
                    args.foreground = false;
                    1
                }
                Some(b'c') => {
                    let v = value(i, "-config", "Please specify the filename of the config file.")?;
                    args.config = Some(PathBuf::from(v));
                    2
                }
                Some(b'd') if word == "-d" || word == "-dynamic" => {
                    args.dynamic_dirs = true;
                    1
                }
                Some(b'f') => {
                    args.foreground = true;
                    args.background = false;
                    1
                }
                Some(b'k') => {
                    let v = value(i, "-kill", "Please specify a file that holds the pid you want to kill.")?;
                    args.kill_pid_file = Some(PathBuf::from(v));
                    2
                }
                Some(b'l') if word == "-local-name" => {
                    let v = value(i, "-local-name", "Please specify the local config to use.")?;
                    args.local_name = Some(v);
                    2
                }
                Some(b'l') if word == "-ld" => {
                    args.no_default_log = true;
                    1
                }
                Some(b'l') => {
                    let v = value(i, "-log", "Please specify the log directory.")?;
                    args.log_dir = Some(PathBuf::from(v));
                    2
                }
                Some(b'h') if b.get(2) == Some(&b't') => return Err(ArgsError::HttpRemoved),
                Some(b'p') if b.get(2) == Some(&b'i') => {
                    let v = value(i, "-pidfile", "Please specify a filename to store the pid.")?;
                    args.pid_file = Some(PathBuf::from(v));
                    2
                }
                Some(b'p') => {
                    let v = value(i, "-port", "Please specify the port to use for the command socket.")?;
                    args.port = Some(u16::try_from(number("-port", &v, 65535)?).unwrap_or(u16::MAX));
                    2
                }
                Some(b'q') => {
                    args.quiet = true;
                    1
                }
                Some(b'r') => {
                    let v = value(i, "-runfor", "Please specify the number of minutes to run for.")?;
                    args.run_for_minutes = Some(u32::try_from(number("-runfor", &v, 35_791_394)?).unwrap_or(0));
                    2
                }
                Some(b's') if word == "-sock" => {
                    let v = value(i, "-sock", "Please specify a socket name.")?;
                    args.sock = Some(v);
                    2
                }
                Some(b't') => {
                    args.log_to_terminal = true;
                    1
                }
                Some(b'v') => {
                    args.version = true;
                    1
                }
                // Not DaemonCore's: the daemon's own arguments start here.
                _ => break,
            };
            i += consumed;
        }
        if args.log_to_terminal {
            args.foreground = true;
            args.background = false;
        }
        args.rest = words[i..].to_vec();
        Ok(args)
    }

    /// Parses the process's own command line.
    pub fn from_env() -> Result<Args, ArgsError> {
        Args::parse(std::env::args().skip(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_masters_command_line() {
        // What condor_master runs for a DC daemon outside the default list.
        let a = Args::parse(["-local-name", "MY_COLLECTOR"]).unwrap();
        assert_eq!(a.local_name.as_deref(), Some("MY_COLLECTOR"));
        assert!(a.rest.is_empty());
        assert!(!a.foreground);
    }

    #[test]
    fn flags_are_known_by_their_first_letter() {
        let a = Args::parse(["-foreground", "-term", "-port", "0", "-pidfile", "/x.pid", "-log", "/l"]).unwrap();
        assert!(a.foreground && a.log_to_terminal);
        assert_eq!(a.port, Some(0));
        assert_eq!(a.pid_file, Some(PathBuf::from("/x.pid")));
        assert_eq!(a.log_dir, Some(PathBuf::from("/l")));
    }

    #[test]
    fn dash_t_implies_foreground_even_after_b() {
        let a = Args::parse(["-b", "-t"]).unwrap();
        assert!(a.foreground && !a.background);
        let b = Args::parse(["-b"]).unwrap();
        assert!(b.background && !b.foreground);
    }

    #[test]
    fn the_first_foreign_word_ends_daemoncores_flags() {
        let a = Args::parse(["-f", "-s", "-p", "1"]).unwrap();
        // -s is not -sock (the c-gahp uses -s): it and what follows are the daemon's.
        assert_eq!(a.rest, ["-s", "-p", "1"]);
        assert_eq!(a.port, None);
        let b = Args::parse(["-dx", "-f"]).unwrap();
        assert_eq!(b.rest, ["-dx", "-f"]);
        let c = Args::parse(["-f", "plain", "-t"]).unwrap();
        assert_eq!(c.rest, ["plain", "-t"]);
        assert!(!c.log_to_terminal);
        let d = Args::parse(["-h"]).unwrap();
        assert_eq!(d.rest, ["-h"]);
        let e = Args::parse(["-", "x"]).unwrap();
        assert_eq!(e.rest, ["-", "x"]);
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        assert_eq!(
            Args::parse(["-p"]).unwrap_err().to_string(),
            "DaemonCore: ERROR: -port needs another argument. Please specify the port to use for the command socket."
        );
        assert!(matches!(Args::parse(["-p", "http"]), Err(ArgsError::BadNumber { flag: "-port", .. })));
        assert!(matches!(Args::parse(["-p", "65536"]), Err(ArgsError::BadNumber { .. })));
        assert!(matches!(Args::parse(["-p", "-1"]), Err(ArgsError::BadNumber { .. })));
        assert!(matches!(Args::parse(["-local-name"]), Err(ArgsError::MissingValue { flag: "-local-name", .. })));
        assert_eq!(Args::parse(["-http", "80"]), Err(ArgsError::HttpRemoved));
        assert!(matches!(Args::parse(["-r", "ten"]), Err(ArgsError::BadNumber { flag: "-runfor", .. })));
    }

    #[test]
    fn the_other_flags() {
        let a = Args::parse([
            "-a", "x", "-a2", "y", "-c", "/etc/c", "-k", "/k.pid", "-sock", "coll", "-r", "5", "-q", "-d", "-ld", "-v",
        ])
        .unwrap();
        assert_eq!(a.log_append.as_deref(), Some("x"));
        assert_eq!(a.log2.as_deref(), Some("y"));
        assert_eq!(a.config, Some(PathBuf::from("/etc/c")));
        assert_eq!(a.kill_pid_file, Some(PathBuf::from("/k.pid")));
        assert_eq!(a.sock.as_deref(), Some("coll"));
        assert_eq!(a.run_for_minutes, Some(5));
        assert!(a.quiet && a.dynamic_dirs && a.no_default_log && a.version);
        assert!(a.rest.is_empty());
    }
}
