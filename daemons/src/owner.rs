//! Who owns the files a daemon writes when it runs as root.
//!
//! A C++ daemon started by a root `condor_master` runs as root but writes
//! its files as the condor user (`CONDOR_IDS`, else the `condor` account):
//! its state in `SPOOL` belongs to that user, and another daemon running
//! as that user (condor_negotiator after ours) can open it. Our daemons do
//! not switch their effective ids; [`hand_over`] gives a file they wrote
//! to the condor user instead.

use std::path::Path;

use crate::config::DaemonConfig;

/// The condor user's uid and gid: `CONDOR_IDS` (`uid.gid`), else the
/// `condor` account. `None` when neither is known.
///
/// ```
/// let config = daemons::config::DaemonConfig::parse_str("CONDOR_IDS = 64.65", "NEGOTIATOR", None)?;
/// assert_eq!(daemons::owner::condor_ids(&config), Some((64, 65)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn condor_ids(config: &DaemonConfig) -> Option<(u32, u32)> {
    if let Some(ids) = config.get("CONDOR_IDS") {
        let (uid, gid) = ids.trim().split_once('.')?;
        return Some((uid.trim().parse().ok()?, gid.trim().parse().ok()?));
    }
    let user = nix::unistd::User::from_name("condor").ok()??;
    Some((user.uid.as_raw(), user.gid.as_raw()))
}

/// When we run as root, gives `path` to the condor user ([`condor_ids`]),
/// as the C++ daemons' files are; otherwise does nothing. A failure is
/// logged, never fatal.
pub fn hand_over(config: &DaemonConfig, path: &Path) {
    if !nix::unistd::geteuid().is_root() {
        return;
    }
    let Some((uid, gid)) = condor_ids(config) else { return };
    match std::fs::metadata(path) {
        Ok(meta) if std::os::unix::fs::MetadataExt::uid(&meta) == uid => {}
        Ok(_) => {
            if let Err(e) = std::os::unix::fs::chown(path, Some(uid), Some(gid)) {
                tracing::warn!(target: "daemons::owner", "giving {} to the condor user: {e}", path.display());
            }
        }
        Err(_) => {}
    }
}
