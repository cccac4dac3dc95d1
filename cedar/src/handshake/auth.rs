//! Authentication, server side: what follows the response ad when the
//! reconciled policy says `Authentication = "YES"` (`authentication.cpp`
//! 973–1106, then the methods, then `exchangeKey` 876–968).
//!
//! Each `→` is one CEDAR message:
//!
//! 1. C→S `int` bitmask of the methods the client will try (`CAUTH_*`);
//!    S→C `int` the method chosen: the first of our `AuthMethodsList` (the
//!    reconciled list, in our order) whose bit the client set and that this
//!    server implements ([`super::SUPPORTED_METHODS`]), or 0;
//! 2. the method:
//!    * CLAIMTOBE (`condor_auth_claim.cpp` 36–200): C→S `int 1` and the
//!      name (or `int 0`: the client has no name, and the method fails);
//!      S→C `int 1`. The identity is the name as sent
//!      ([`Identity::resolve`]); the session is limited to the command's
//!      level and the levels it implies (`daemon_command.cpp` 1220–1232);
//!    * FS (`condor_auth_fs.cpp` 40–360 of 23.9.6, with the channel
//!      binding of 24.0.22 and later; Unix only): S→C the string path of
//!      a directory for the client to make: a fresh name under
//!      `FS_LOCAL_DIR` (default `/tmp`), created exclusively as a file and
//!      removed again, as `condor_mkstemp` then `unlink` do (an empty
//!      string if no name could be made). Knowing our end of the
//!      connection ([`ServerConnection::with_local_addr`], which both
//!      adapters set) it is `FS_<ip>_<port>_<12 random letters and
//!      digits>_`, which newer clients check or, for the `_` at the end,
//!      extend with their view of our address; otherwise `FS_<random>`, as
//!      23.9 names it. C→S `int` the client's `mkdir(path, 0700)` result
//!      (`-1` is failure) and, from newer clients, the string they
//!      appended, which must be our own `ip:port` (no `/`, no `?sock=`
//!      shared-port id: we have none); S→C `int 0` when the path,
//!      `lstat`ed (never followed), is a directory of mode exactly `0700`
//!      with one or two links whose owner's uid has a login name
//!      (`getpwuid_r`), else `int -1`. Only the path this server named
//!      (plus a checked extension) is ever examined. The identity is the
//!      owner's login name, `@UID_DOMAIN`, then the map file
//!      ([`Identity::resolve`]); the session has no authorization limit,
//!      as in C++ (only CLAIMTOBE is limited). The client removes the
//!      directory once it has the answer;
//!    * TOKEN: the three AKEP2 messages ([`crate::token::wire`]); the
//!      identity is the token's `sub`, its `condor:/` scopes the session's
//!      `LimitAuthorization`;
//! 3. a failed method sends the server back to step 1, as C++'s loop does
//!    (the client retries without that method; an empty mask ends it);
//! 4. after a method succeeded, S→C `int 0`: `exchangeKey` says "no key",
//!    for with ECDH the key never travels. Both sides then derive the
//!    AES-GCM key from the two `ECDHPublicKey`s and turn encryption on in
//!    both directions (`daemon_command.cpp` 1321–1340): the server's
//!    post-auth ad is the first encrypted packet it sends, the command's
//!    payload the client's.

use std::path::PathBuf;

use super::{Authenticated, CloseReason, NewSession, Phase, ServerConnection, Step, UNAUTHENTICATED_USER};
use crate::authz::{AuthMethod as IdMethod, AuthorizationLimit, Identity};
use crate::error::{Error, ErrorKind, Result};
use crate::policy::{tokens, AuthMethod};
use crate::token::akep2::{self, ServerConfig as TokenServerConfig, SERVER_ID};
use crate::token::jwt::Validation;
use crate::token::wire as token_wire;
use crate::wire::{Decoder, Message};

/// How many times the client may go back to step 1 after failed methods
/// (each retry drops one method, and HTCondor knows 11).
pub const MAX_ROUNDS: u32 = 16;

/// The longest claimed name (CLAIMTOBE) taken.
pub const MAX_CLAIMED_NAME: usize = 1023;

/// The longest address an FS client may append to our directory's name
/// (`[v6 address]:port?sock=id`).
pub const MAX_FS_EXTENSION: usize = 255;

impl ServerConnection {
    pub(super) fn on_methods(&mut self, mut ns: Box<NewSession>, message: &Message) -> Result<Step> {
        let mut dec = Decoder::new(&message.payload, message.encrypted);
        let mask = dec.get_i32()?;
        dec.finish()?;
        ns.tried = true;
        let list = ns.reconciled.auth_methods_list.clone().unwrap_or_default();
        let chosen = tokens(&list).filter_map(AuthMethod::parse).find(|m| {
            (mask as u32) & m.bit() != 0
                && match m {
                    AuthMethod::Claimtobe => true,
                    AuthMethod::Fs => cfg!(unix),
                    AuthMethod::Token => self.config.tokens.is_some(),
                    _ => false,
                }
        });
        self.send_int(chosen.map(|m| i64::from(m.bit())).unwrap_or(0));
        match chosen {
            Some(AuthMethod::Claimtobe) => {
                self.phase = Phase::ClaimToBe(ns);
                Ok(Step::Continue)
            }
            Some(AuthMethod::Fs) => self.start_fs(ns),
            Some(_) => {
                self.phase = Phase::TokenHello(ns);
                Ok(Step::Continue)
            }
            None => self.failed(*ns, format!("no authentication method in common (client mask {mask}, ours {list:?})")),
        }
    }

    /// A method failed: back to the bitmask, as C++'s loop goes.
    fn retry(&mut self, mut ns: Box<NewSession>, why: &str) -> Result<Step> {
        ns.rounds += 1;
        if ns.rounds > MAX_ROUNDS {
            return self.failed(*ns, format!("too many authentication attempts; the last: {why}"));
        }
        self.phase = Phase::Methods(ns);
        Ok(Step::Continue)
    }

    /// Authentication is over without an identity.
    fn failed(&mut self, ns: NewSession, why: String) -> Result<Step> {
        if ns.reconciled.auth_required {
            return self.close(CloseReason::AuthenticationFailed(why));
        }
        // "authentication failed but was not required, so continuing":
        // without a key, which encryption would need.
        if ns.reconciled.encryption || ns.reconciled.integrity {
            return self.close(CloseReason::AuthenticationFailed(format!(
                "{why}; and without authentication there is no key for encryption"
            )));
        }
        self.finish_new_session(ns, None)
    }

    pub(super) fn on_claim(&mut self, ns: Box<NewSession>, message: &Message) -> Result<Step> {
        let mut dec = Decoder::new(&message.payload, message.encrypted).with_max_string(MAX_CLAIMED_NAME);
        let flag = dec.get_i32()?;
        if flag != 1 {
            dec.finish()?;
            return self.retry(ns, "the CLAIMTOBE client has no name");
        }
        let name = dec.get_string()?;
        dec.finish()?;
        self.send_int(1);
        let identity =
            Identity::resolve(IdMethod::ClaimToBe, &name, self.config.map_file.as_ref(), &self.config.identity);
        let limit = AuthorizationLimit::for_claimtobe(ns.reg.perm);
        self.authenticated(ns, "CLAIMTOBE", identity, Some(limit))
    }

    /// FS, step 1: name a directory for the client to make.
    fn start_fs(&mut self, ns: Box<NewSession>) -> Result<Step> {
        let dir = match fs::rendezvous(&self.config.fs_local_dir, self.local) {
            Ok(path) if path.to_str().is_some() => Some(path),
            Ok(path) => {
                tracing::warn!(dir = %path.display(), "FS: the directory's name is not UTF-8");
                None
            }
            Err(e) => {
                tracing::warn!(dir = %self.config.fs_local_dir.display(), error = %e, "FS: cannot make a name");
                None
            }
        };
        // C++ sends an empty string when its mkstemp failed; the client
        // then reports failure.
        let name = dir.as_deref().and_then(|p| p.to_str()).unwrap_or("").to_owned();
        self.send_encoded(|enc| enc.put_str(&name))?;
        self.phase = Phase::Fs(ns, dir);
        Ok(Step::Continue)
    }

    /// FS, steps 2 and 3: the client's result (and the address it
    /// appended, if any), our check and answer.
    pub(super) fn on_fs_result(
        &mut self,
        ns: Box<NewSession>,
        dir: Option<PathBuf>,
        message: &Message,
    ) -> Result<Step> {
        let mut dec = Decoder::new(&message.payload, message.encrypted).with_max_string(MAX_FS_EXTENSION);
        let client_result = dec.get_i32()?;
        // 24.0.22 and later clients append their view of our address to a
        // name ending in `_`, and send what they appended.
        // An empty one is none, as in C++.
        let extension = if dec.remaining().is_empty() { None } else { Some(dec.get_string()?) };
        let extension = extension.filter(|e| !e.is_empty());
        dec.finish()?;
        let outcome = match (&dir, &extension) {
            (None, _) => Err("FS: no directory could be named under FS_LOCAL_DIR".to_owned()),
            (Some(d), Some(ext)) => fs::check_extension(ext, self.local).map(|()| {
                let mut path = d.clone().into_os_string();
                path.push(ext);
                PathBuf::from(path)
            }),
            (Some(d), None) => Ok(d.clone()),
        }
        .and_then(|path| {
            // Any value but -1 claims success (the client may lie: the
            // directory's attributes decide).
            if client_result == -1 {
                Err(format!("FS: the client was unable to create the directory {}", path.display()))
            } else {
                fs::verify(&path)
            }
        });
        tracing::debug!(
            dir = %dir.as_deref().map(|d| d.display().to_string()).unwrap_or_default(),
            extension = extension.as_deref().unwrap_or(""),
            outcome = ?outcome,
            "AUTHENTICATE_FS"
        );
        match outcome {
            Ok(owner) => {
                self.send_int(0);
                let identity =
                    Identity::resolve(IdMethod::Fs, &owner, self.config.map_file.as_ref(), &self.config.identity);
                self.authenticated(ns, "FS", identity, None)
            }
            Err(why) => {
                self.send_int(-1);
                self.retry(ns, &why)
            }
        }
    }

    pub(super) fn on_token_hello(&mut self, ns: Box<NewSession>, message: &Message) -> Result<Step> {
        let mut dec = Decoder::new(&message.payload, message.encrypted);
        let hello = token_wire::get_client_hello(&mut dec)?;
        let Some(tokens) = self.config.tokens.as_ref() else {
            return Err(Error::new(ErrorKind::Protocol, "TOKEN chosen without a token configuration"));
        };
        let revoked = |c: &crate::token::Claims| tokens.revocation.as_ref().is_some_and(|r| r.is_revoked(c));
        let mut validation = Validation::now().with_max_age(tokens.max_age);
        if tokens.revocation.is_some() {
            validation = validation.with_revocation(&revoked);
        }
        let cfg = TokenServerConfig::new(SERVER_ID, &tokens.keys, validation);
        let (server, reply) = akep2::Server::start(&hello, &cfg);
        self.send_encoded(|enc| token_wire::put_server_reply(enc, &reply))?;
        self.phase = Phase::TokenConfirm(ns, Box::new(server));
        Ok(Step::Continue)
    }

    pub(super) fn on_token_confirm(
        &mut self,
        ns: Box<NewSession>,
        server: akep2::Server,
        message: &Message,
    ) -> Result<Step> {
        let mut dec = Decoder::new(&message.payload, message.encrypted);
        let confirm = token_wire::get_client_confirm(&mut dec)?;
        match server.receive_confirm(&confirm) {
            Ok(session) => {
                let identity =
                    Identity::resolve(IdMethod::IdTokens, &session.token.subject, None, &self.config.identity);
                let limit = session.token.limit_authorization().map(|l| AuthorizationLimit::parse(&l)).transpose()?;
                self.authenticated(ns, "IDTOKENS", identity, limit)
            }
            Err(e) => self.retry(ns, e.message()),
        }
    }

    /// A method succeeded: the key exchange, encryption, then the rest of
    /// the new session.
    fn authenticated(
        &mut self,
        ns: Box<NewSession>,
        method: &str,
        identity: Identity,
        limit: Option<AuthorizationLimit>,
    ) -> Result<Step> {
        // exchangeKey: the server has no key to send (ECDH).
        self.send_int(0);
        let key = match (&ns.exchange, &ns.peer_pubkey) {
            (Some(kx), Some(theirs)) => match kx.finish(theirs) {
                Ok(k) => k,
                Err(e) => {
                    return self.close(CloseReason::AuthenticationFailed(format!(
                        "failed to generate a symmetric key: {}",
                        e.message()
                    )))
                }
            },
            _ => return Err(Error::new(ErrorKind::Protocol, "authentication without a key exchange")),
        };
        let user = identity.fqu();
        self.auth = Some(Authenticated {
            user: if user.is_empty() { UNAUTHENTICATED_USER.to_owned() } else { user },
            method: method.to_owned(),
            limit,
        });
        if ns.reconciled.encryption {
            self.start_crypto(key.clone());
        }
        self.finish_new_session(*ns, Some(key))
    }
}

/// The FS method's filesystem side.
#[cfg(unix)]
mod fs {
    use std::fs::OpenOptions;
    use std::io;
    use std::net::SocketAddr;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    use std::path::{Path, PathBuf};

    use rand::distributions::Alphanumeric;
    use rand::Rng as _;

    /// Random letters and digits in a name (62^12: about 71 bits).
    const RANDOM_CHARS: usize = 12;

    /// Names tried before giving up (`mkstemp` tries 100 too).
    const ATTEMPTS: usize = 100;

    /// A fresh name under `dir`, free when we return it: created as a file
    /// that did not exist (`O_CREAT | O_EXCL`, mode 0600), then removed.
    /// With our end's address `local` it is `FS_<ip>_<port>_<random>_`, as
    /// 24.0.22 and later servers make it: a client from those versions
    /// checks the address, or (for the `_` at the end) appends its own
    /// view of it and tells us; without, `FS_<random>`, as 23.9 makes it.
    pub(super) fn rendezvous(dir: &Path, local: Option<SocketAddr>) -> io::Result<PathBuf> {
        let mut last = io::Error::new(io::ErrorKind::AlreadyExists, "every name tried exists");
        for _ in 0..ATTEMPTS {
            let suffix: String =
                rand::thread_rng().sample_iter(&Alphanumeric).take(RANDOM_CHARS).map(char::from).collect();
            let file = match local {
                Some(a) => format!("FS_{}_{}_{suffix}", a.ip().to_canonical(), a.port()),
                None => format!("FS_{suffix}"),
            };
            let path = dir.join(file);
            match OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path) {
                Ok(file) => {
                    drop(file);
                    std::fs::remove_file(&path)?;
                    let mut name = path.into_os_string();
                    if local.is_some() {
                        name.push("_");
                    }
                    return Ok(PathBuf::from(name));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(last)
    }

    /// Whether the address a client appended to our name is our end of
    /// the connection (`[ip]:port`, as `to_ip_and_port_string` writes
    /// it). A `?sock=` shared-port id is refused: this server has none.
    pub(super) fn check_extension(ext: &str, local: Option<SocketAddr>) -> Result<(), String> {
        if ext.contains('/') {
            return Err(format!("FS: the client's extension contains a directory separator ({ext})"));
        }
        let (addr, shared_port) = match ext.split_once("?sock=") {
            Some((a, id)) => (a, Some(id)),
            None => (ext, None),
        };
        let theirs: SocketAddr =
            addr.parse().map_err(|_| format!("FS: the client's extension is not a valid ip:port ({ext})"))?;
        let matches =
            local.is_some_and(|l| l.ip().to_canonical() == theirs.ip().to_canonical() && l.port() == theirs.port());
        if !matches || shared_port.is_some() {
            return Err(format!("FS: the client's extension ({ext}) does not match our endpoint ({local:?})"));
        }
        Ok(())
    }

    /// The login name of the owner of `path`, if it is what an FS client
    /// makes: a directory (not a symlink, never followed) of mode exactly
    /// 0700 with one or two links (btrfs directories have one).
    pub(super) fn verify(path: &Path) -> Result<String, String> {
        let meta =
            std::fs::symlink_metadata(path).map_err(|e| format!("FS: unable to lstat {}: {e}", path.display()))?;
        let kind = meta.file_type();
        if kind.is_symlink() || !kind.is_dir() || !matches!(meta.nlink(), 1 | 2) || meta.mode() & 0o7777 != 0o700 {
            return Err(format!(
                "FS: bad attributes on {} (a {}, mode {:o}, {} links; a directory of mode 700 was expected)",
                path.display(),
                if kind.is_symlink() {
                    "symlink"
                } else if kind.is_dir() {
                    "directory"
                } else if kind.is_file() {
                    "regular file"
                } else {
                    "special file"
                },
                meta.mode() & 0o7777,
                meta.nlink()
            ));
        }
        user_name(meta.uid())
    }

    /// `getpwuid_r(uid)`'s login name.
    pub(super) fn user_name(uid: u32) -> Result<String, String> {
        match nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)) {
            Ok(Some(user)) => Ok(user.name),
            Ok(None) => Err(format!("FS: unable to look up uid {uid}: no such user")),
            Err(e) => Err(format!("FS: unable to look up uid {uid}: {e}")),
        }
    }
}

/// Without Unix there is no FS: it is never offered (see
/// [`super::SUPPORTED_METHODS`]) and these refuse.
#[cfg(not(unix))]
mod fs {
    use std::io;
    use std::net::SocketAddr;
    use std::path::{Path, PathBuf};

    pub(super) fn rendezvous(_dir: &Path, _local: Option<SocketAddr>) -> io::Result<PathBuf> {
        Err(io::Error::new(io::ErrorKind::Unsupported, "FS needs Unix"))
    }

    pub(super) fn check_extension(_ext: &str, _local: Option<SocketAddr>) -> Result<(), String> {
        Err("FS needs Unix".to_owned())
    }

    pub(super) fn verify(_path: &Path) -> Result<String, String> {
        Err("FS needs Unix".to_owned())
    }
}
