//! The client side of a daemon: how it secures the commands it sends to
//! other daemons (the collector, the schedds), from the configuration as
//! a C++ daemon reads it: `SEC_CLIENT_*` (with the `<SUBSYS>.` prefix
//! first), the token directories, `TRUST_DOMAIN`, `SEC_CLAIMTOBE_USER`,
//! `SEC_FS_ENFORCE_CHANNEL_BINDING` (true: FS as HTCondor 24.0.22 and later
//! do it, with the server's address in the directory name; a 23.x server
//! names no address, so against one FS fails and the next method is tried
//! unless this is false).

use std::path::PathBuf;
use std::time::Duration;

use cedar::authz::Permission;
use cedar::client::ClientConfig;
use cedar::policy::{AuthMethod, PolicyConfig, SecurityPolicy};

use crate::config::DaemonConfig;

/// The methods this project's client can authenticate with.
const METHODS: &[AuthMethod] = &[AuthMethod::Fs, AuthMethod::Claimtobe, AuthMethod::Token];

/// The daemon's client configuration; `timeout` bounds the connect and
/// every read and write (a negotiator uses NEGOTIATOR_TIMEOUT).
///
/// ```
/// let config = daemons::config::DaemonConfig::parse_str(
///     "SEC_CLIENT_AUTHENTICATION = REQUIRED\nSEC_CLIENT_AUTHENTICATION_METHODS = CLAIMTOBE\nTRUST_DOMAIN = pool.example",
///     "NEGOTIATOR", None)?;
/// let client = daemons::client::client_config(&config, std::time::Duration::from_secs(30))?;
/// assert_eq!(client.subsystem, "NEGOTIATOR");
/// assert_eq!(client.trust_domain.as_deref(), Some("pool.example"));
/// assert!(client.fs_channel_binding);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn client_config(config: &DaemonConfig, timeout: Duration) -> Result<ClientConfig, cedar::Error> {
    let policy_config =
        PolicyConfig::daemon(Permission::Client, config.subsystem()).with_supported_auth_methods(METHODS);
    let policy = SecurityPolicy::from_config(&policy_config, |k: &str| config.get(k))?;
    let mut client = ClientConfig::from_policy(policy).subsystem(config.subsystem()).timeout(timeout);
    client.trust_domain = config.get("TRUST_DOMAIN").filter(|t| !t.is_empty());
    client.token_dirs = ["SEC_TOKEN_DIRECTORY", "SEC_TOKEN_SYSTEM_DIRECTORY"]
        .iter()
        .filter_map(|k| config.get(k))
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .collect();
    client.fs_channel_binding = config.get_bool("SEC_FS_ENFORCE_CHANNEL_BINDING", true);
    if let Some(user) = config.get("SEC_CLAIMTOBE_USER").filter(|u| !u.is_empty()).or_else(our_user_name) {
        client.claim_to_be_user = Some(user);
    }
    Ok(client)
}

/// The name of the user we run as, from the password file.
fn our_user_name() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let uid = std::fs::metadata("/proc/self").ok()?.uid().to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let mut f = line.split(':');
        let name = f.next()?;
        (f.nth(1)? == uid).then(|| name.to_owned())
    })
}
