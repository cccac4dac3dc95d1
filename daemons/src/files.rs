//! The files a daemon drops: the address file (`drop_addr_file`) and the
//! pid file (`drop_pid_file`), daemon_core_main.cpp, 23.9.
//!
//! The address file holds three lines: our command address (sinful
//! string), `$CondorVersion: … $` and `$CondorPlatform: … $`. It is written
//! to `<file>.new` and renamed over `<file>`, so a reader never sees half
//! of it. The pid file holds the pid and a newline. Both are removed when
//! the daemon exits (`clean_files`).
//!
//! ```
//! use daemons::files::{read_address_file, write_address_file};
//! let path = std::env::temp_dir().join(format!("doc-addr-{}", std::process::id()));
//! write_address_file(&path, "<127.0.0.1:9618?noUDP>")?;
//! let text = std::fs::read_to_string(&path)?;
//! let lines: Vec<&str> = text.lines().collect();
//! assert_eq!(lines[0], "<127.0.0.1:9618?noUDP>");
//! assert!(lines[1].starts_with("$CondorVersion: 23.9.6 "));
//! assert!(lines[2].starts_with("$CondorPlatform: "));
//! assert_eq!(read_address_file(&path)?.as_deref(), Some("<127.0.0.1:9618?noUDP>"));
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The platform line of the address file, in `CondorPlatform`'s form.
pub fn platform() -> String {
    format!("$CondorPlatform: {}-{} $", std::env::consts::ARCH.to_ascii_uppercase(), std::env::consts::OS)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Writes the address file at `path` for `sinful`.
pub fn write_address_file(path: &Path, sinful: &str) -> std::io::Result<()> {
    let new = with_suffix(path, ".new");
    {
        let mut f = std::fs::File::create(&new)?;
        writeln!(f, "{sinful}")?;
        writeln!(f, "{}", cedar::version::OUR_VERSION)?;
        writeln!(f, "{}", platform())?;
        f.flush()?;
    }
    std::fs::rename(&new, path)
}

/// The address in an address file (its first line), `None` when the file
/// is empty. Reads at most 64 KiB.
pub fn read_address_file(path: &Path) -> std::io::Result<Option<String>> {
    use std::io::Read as _;
    let mut text = String::new();
    std::fs::File::open(path)?.take(64 * 1024).read_to_string(&mut text)?;
    Ok(text.lines().next().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned))
}

/// Writes our pid to `path`.
pub fn write_pid_file(path: &Path) -> std::io::Result<()> {
    std::fs::write(path, format!("{}\n", std::process::id()))
}

/// Removes a file we dropped, saying so in the log if it cannot.
pub fn remove(path: &Path, what: &str) {
    if let Err(e) = std::fs::remove_file(path) {
        if e.kind() != std::io::ErrorKind::NotFound {
            tracing::info!(target: "daemons::files", "DaemonCore: ERROR: Can't delete {what} file {}: {e}", path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_and_rewrite() {
        let dir = std::env::temp_dir().join(format!("daemons-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pid = dir.join("d.pid");
        write_pid_file(&pid).unwrap();
        assert_eq!(std::fs::read_to_string(&pid).unwrap(), format!("{}\n", std::process::id()));
        let addr = dir.join(".collector_address");
        write_address_file(&addr, "<1.2.3.4:5>").unwrap();
        write_address_file(&addr, "<1.2.3.4:6>").unwrap();
        assert_eq!(read_address_file(&addr).unwrap().as_deref(), Some("<1.2.3.4:6>"));
        assert!(!with_suffix(&addr, ".new").exists());
        remove(&addr, "address");
        remove(&addr, "address"); // gone already: quiet
        assert!(!addr.exists());
        assert!(write_address_file(&dir.join("no/such/dir/a"), "<x:1>").is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
