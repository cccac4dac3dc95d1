//! Token signing keys: the key files HTCondor keeps under
//! `SEC_PASSWORD_DIRECTORY`, and the HS256 key derived from them.
//!
//! What HTCondor 23.9.6 does (`getTokenSigningKey`, store_cred.cpp
//! 2606–2684; `simple_scramble`, secure_file.cpp 30–37):
//!
//! * the whole file is read, byte for byte: no newline or NUL is trimmed;
//! * every byte is XORed with `DE AD BE EF`, cycling by position
//!   ([`scramble`]; the same call scrambles and unscrambles);
//! * for the POOL key (key id `POOL`, or empty) the unscrambled bytes are
//!   then repeated twice;
//! * the HS256 key is `HKDF-SHA256(secret, salt "htcondor", info "master
//!   jwt")`, 32 bytes ([`SigningKey::jwt_key`]).
//!
//! HTCondor's `read_secure_file` also insists that the file belongs to the
//! reading uid and has no group or other permission bits; [`FileCheck`]
//! does the same when asked to.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::Result;
use crate::{Error, ErrorKind};

/// The key id of the pool signing key.
pub const POOL_KEY_ID: &str = "POOL";
/// Largest key file read, in bytes (HTCondor makes 64-byte keys).
pub const MAX_KEY_FILE_LEN: u64 = 64 * 1024;
/// Longest key id accepted.
pub const MAX_KEY_ID_LEN: usize = 255;
/// How many random bytes a newly created key holds, as the collector makes it.
pub const GENERATED_KEY_LEN: usize = 64;

const SCRAMBLE: [u8; 4] = [0xDE, 0xAD, 0xBE, 0xEF];

/// HTCondor's "simple scramble": each byte XORed with `DE AD BE EF`
/// repeated. Applying it twice gives the input back.
///
/// ```
/// use cedar::token::key::scramble;
/// assert_eq!(scramble(b"\0\0\0\0\0"), [0xde, 0xad, 0xbe, 0xef, 0xde]);
/// assert_eq!(scramble(&scramble(b"secret\n")), b"secret\n");
/// ```
pub fn scramble(data: &[u8]) -> Vec<u8> {
    data.iter().zip(SCRAMBLE.iter().cycle()).map(|(b, k)| b ^ k).collect()
}

/// Whether `kid` names the pool key (`POOL`, or empty as HTCondor treats it
/// when reading keys).
pub fn is_pool_key_id(kid: &str) -> bool {
    kid.is_empty() || kid == POOL_KEY_ID
}

/// A signing key: its id and its secret (unscrambled, doubled for POOL).
/// The secret never appears in `Debug` output.
#[derive(Clone)]
pub struct SigningKey {
    id: String,
    secret: Vec<u8>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("id", &self.id)
            .field("secret", &format_args!("<{} bytes>", self.secret.len()))
            .finish()
    }
}

impl SigningKey {
    /// The key with id `kid` held in a key file whose raw (scrambled)
    /// contents are `file`. An empty `kid` means POOL.
    ///
    /// ```
    /// use cedar::token::key::{scramble, SigningKey};
    /// let file = scramble(b"abc");
    /// assert_eq!(SigningKey::from_file_bytes("POOL", &file).unwrap().secret(), b"abcabc");
    /// assert_eq!(SigningKey::from_file_bytes("other", &file).unwrap().secret(), b"abc");
    /// ```
    pub fn from_file_bytes(kid: &str, file: &[u8]) -> Result<SigningKey> {
        check_key_id(kid)?;
        if file.is_empty() {
            return Err(Error::new(ErrorKind::Policy, format!("signing key {kid:?} is empty")));
        }
        if file.len() as u64 > MAX_KEY_FILE_LEN {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("signing key file over {MAX_KEY_FILE_LEN} bytes"),
            ));
        }
        let mut secret = scramble(file);
        let id = if is_pool_key_id(kid) {
            secret.extend_from_within(..);
            POOL_KEY_ID.to_string()
        } else {
            kid.to_string()
        };
        Ok(SigningKey { id, secret })
    }

    /// A key from its secret as HTCondor uses it (already unscrambled and,
    /// for POOL, already doubled).
    pub fn from_secret(kid: &str, secret: Vec<u8>) -> Result<SigningKey> {
        check_key_id(kid)?;
        let id = if is_pool_key_id(kid) { POOL_KEY_ID.to_string() } else { kid.to_string() };
        Ok(SigningKey { id, secret })
    }

    /// The key id (`POOL` for the pool key).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The secret the HS256 key is derived from.
    pub fn secret(&self) -> &[u8] {
        &self.secret
    }

    /// The HS256 key: `HKDF-SHA256(secret, salt "htcondor", info "master
    /// jwt")`, 32 bytes (`generate_token`, condor_auth_passwd.cpp 1583–1591).
    pub fn jwt_key(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        let hk = hkdf::Hkdf::<Sha256>::new(Some(b"htcondor"), &self.secret);
        // 32 bytes is far below HKDF-SHA256's limit of 255 * 32.
        if hk.expand(b"master jwt", &mut out).is_err() {
            out = [0u8; 32];
        }
        out
    }

    /// The HS256 signature of `data` (a token's `header.payload`).
    pub fn sign(&self, data: &[u8]) -> [u8; 32] {
        self.mac(data).finalize().into_bytes().into()
    }

    /// Checks `signature` against `data` in constant time.
    pub fn verify(&self, data: &[u8], signature: &[u8]) -> Result<()> {
        self.mac(data)
            .verify_slice(signature)
            .map_err(|_| Error::new(ErrorKind::Crypto, format!("token signature does not match key {:?}", self.id)))
    }

    fn mac(&self, data: &[u8]) -> Hmac<Sha256> {
        let mut m = hmac_sha256(&self.jwt_key());
        m.update(data);
        m
    }
}

/// HMAC-SHA256 under a 32-byte key. A key shorter than the hash's block is
/// zero-padded by HMAC's definition, so filling the block here is the same
/// MAC, built without a fallible call.
fn hmac_sha256(key: &[u8; 32]) -> Hmac<Sha256> {
    let mut block = hmac::digest::Key::<Hmac<Sha256>>::default();
    block[..32].copy_from_slice(key);
    <Hmac<Sha256> as hmac::digest::KeyInit>::new(&block)
}

/// Refuses key ids that could leave the password directory or confuse a
/// path: HTCondor appends the id to `SEC_PASSWORD_DIRECTORY` unchecked.
fn check_key_id(kid: &str) -> Result<()> {
    if kid.len() > MAX_KEY_ID_LEN {
        return Err(Error::new(ErrorKind::LimitExceeded, format!("key id over {MAX_KEY_ID_LEN} bytes")));
    }
    if kid.contains('/') || kid.contains('\\') || kid.contains('\0') || kid == "." || kid == ".." {
        return Err(Error::new(ErrorKind::Policy, format!("key id {kid:?} is not a plain file name")));
    }
    Ok(())
}

/// What to insist on before trusting a secret file, as HTCondor's
/// `read_secure_file` does with `SECURE_FILE_VERIFY_ALL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct FileCheck {
    /// Refuse a file with any group or other permission bit (`mode & 077`).
    pub private: bool,
    /// Refuse a file not owned by this uid.
    pub owner: Option<u32>,
}

impl FileCheck {
    /// No checks (tests, or files the caller has already vetted).
    pub fn none() -> FileCheck {
        FileCheck::default()
    }

    /// HTCondor's checks: mode `0600` or stricter, owned by `uid`.
    pub fn strict(uid: u32) -> FileCheck {
        FileCheck { private: true, owner: Some(uid) }
    }

    fn apply(&self, path: &Path, meta: &std::fs::Metadata) -> Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if self.private && meta.mode() & 0o077 != 0 {
                return Err(Error::new(
                    ErrorKind::Policy,
                    format!("{} must not be readable by others (mode {:o})", path.display(), meta.mode() & 0o7777),
                ));
            }
            if let Some(uid) = self.owner {
                if meta.uid() != uid {
                    return Err(Error::new(
                        ErrorKind::Policy,
                        format!("{} must be owned by uid {uid}, is owned by {}", path.display(), meta.uid()),
                    ));
                }
            }
        }
        #[cfg(not(unix))]
        let _ = (path, meta);
        Ok(())
    }
}

/// Reads a secret file whole (at most `limit` bytes), after `check`.
pub(crate) fn read_secret_file(path: &Path, check: FileCheck, limit: u64) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path)
        .map_err(|e| Error::new(ErrorKind::Io, format!("cannot open {}: {e}", path.display())))?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::Policy, format!("{} is not a regular file", path.display())));
    }
    check.apply(path, &meta)?;
    if meta.len() > limit {
        return Err(Error::new(ErrorKind::LimitExceeded, format!("{} is over {limit} bytes", path.display())));
    }
    let mut buf = Vec::with_capacity(meta.len() as usize);
    // One more than the limit, to notice a file that grew while read.
    file.take(limit + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(Error::new(ErrorKind::LimitExceeded, format!("{} is over {limit} bytes", path.display())));
    }
    Ok(buf)
}

/// Reads the key file at `path` as the key `kid` (empty or `POOL`: the
/// pool key, doubled).
pub fn read_key_file(kid: &str, path: &Path, check: FileCheck) -> Result<SigningKey> {
    let bytes = read_secret_file(path, check, MAX_KEY_FILE_LEN)?;
    SigningKey::from_file_bytes(kid, &bytes)
}

/// Creates a key file the way the collector does when
/// `SEC_TOKEN_POOL_SIGNING_KEY_FILE` is missing (`create_signing_key`,
/// condor_auth_passwd.cpp 2956–2990): 64 random bytes, scrambled, mode
/// `0600`, only if no file exists (`O_EXCL`). Returns `Ok(false)` when the
/// file was already there (it is left alone).
pub fn create_key_file_if_missing(path: &Path) -> Result<bool> {
    let mut random = [0u8; GENERATED_KEY_LEN];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut random);
    let written = write_key_file_exclusive(path, &random);
    random.fill(0);
    written
}

/// Writes `secret` (the unscrambled bytes, before any POOL doubling) as a
/// new key file at `path`, scrambled, mode `0600`. Fails if the file exists
/// with `Ok(false)`.
pub fn write_key_file_exclusive(path: &Path, secret: &[u8]) -> Result<bool> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut file = match opts.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) => return Err(Error::new(ErrorKind::Io, format!("cannot create {}: {e}", path.display()))),
    };
    file.write_all(&scramble(secret))?;
    file.sync_all()?;
    Ok(true)
}

/// Where signing keys live: the pool key file
/// (`SEC_TOKEN_POOL_SIGNING_KEY_FILE`) and the directory of named keys
/// (`SEC_PASSWORD_DIRECTORY`), as `getTokenSigningKeyPath` (store_cred.cpp
/// 2555–2580) resolves them.
///
/// ```
/// use cedar::token::key::{FileCheck, KeyStore};
/// let keys = KeyStore::new(Some("/etc/condor/passwords.d/POOL".into()), Some("/etc/condor/passwords.d".into()), FileCheck::none());
/// assert_eq!(keys.path_for("POOL").unwrap(), std::path::Path::new("/etc/condor/passwords.d/POOL"));
/// assert_eq!(keys.path_for("other").unwrap(), std::path::Path::new("/etc/condor/passwords.d/other"));
/// assert!(keys.path_for("../x").is_err());
/// ```
#[derive(Debug, Clone)]
pub struct KeyStore {
    pool_key_file: Option<PathBuf>,
    password_directory: Option<PathBuf>,
    check: FileCheck,
}

/// Finds the signing key named by a token's `kid`.
pub trait KeySource {
    /// The key `kid`, or an error saying why there is none.
    fn signing_key(&self, kid: &str) -> Result<SigningKey>;
}

impl KeySource for SigningKey {
    fn signing_key(&self, kid: &str) -> Result<SigningKey> {
        let wanted = if is_pool_key_id(kid) { POOL_KEY_ID } else { kid };
        if wanted == self.id {
            Ok(self.clone())
        } else {
            Err(Error::new(ErrorKind::Authentication, format!("no signing key named {kid:?}")))
        }
    }
}

impl KeySource for [SigningKey] {
    fn signing_key(&self, kid: &str) -> Result<SigningKey> {
        let wanted = if is_pool_key_id(kid) { POOL_KEY_ID } else { kid };
        self.iter()
            .find(|k| k.id == wanted)
            .cloned()
            .ok_or_else(|| Error::new(ErrorKind::Authentication, format!("no signing key named {kid:?}")))
    }
}

impl KeySource for Vec<SigningKey> {
    fn signing_key(&self, kid: &str) -> Result<SigningKey> {
        self.as_slice().signing_key(kid)
    }
}

impl KeyStore {
    /// A store over the pool key file and the password directory (either may
    /// be unset), applying `check` to every key file read.
    pub fn new(pool_key_file: Option<PathBuf>, password_directory: Option<PathBuf>, check: FileCheck) -> KeyStore {
        KeyStore { pool_key_file, password_directory, check }
    }

    /// The file that holds key `kid`.
    pub fn path_for(&self, kid: &str) -> Result<PathBuf> {
        check_key_id(kid)?;
        if is_pool_key_id(kid) {
            self.pool_key_file.clone().ok_or_else(|| {
                Error::new(ErrorKind::Policy, "no pool signing key: SEC_TOKEN_POOL_SIGNING_KEY_FILE is not set")
            })
        } else {
            let dir = self
                .password_directory
                .as_ref()
                .ok_or_else(|| Error::new(ErrorKind::Policy, "SEC_PASSWORD_DIRECTORY is not set"))?;
            Ok(dir.join(kid))
        }
    }

    /// Creates the pool key file if it is missing, as the collector does at
    /// start-up. `Ok(false)`: it was there already.
    pub fn create_pool_key_if_missing(&self) -> Result<bool> {
        create_key_file_if_missing(&self.path_for(POOL_KEY_ID)?)
    }

    /// The names a server advertises in `IssuerKeys` (the
    /// `IssuerKeyNameCache`, store_cred.cpp 2459–2548): `POOL` if the pool
    /// key file exists, then every regular file of the password directory
    /// not excluded by HTCondor's default `LOCAL_CONFIG_DIR_EXCLUDE_REGEXP`;
    /// sorted, without repeats. [`issuer_keys_attr`] joins them.
    pub fn key_names(&self) -> Vec<String> {
        let mut names = std::collections::BTreeSet::new();
        if let Some(pool) = &self.pool_key_file {
            if pool.is_file() {
                names.insert(POOL_KEY_ID.to_string());
            }
        }
        if let Some(dir) = &self.password_directory {
            if let Ok(entries) = std::fs::read_dir(dir) {
                for entry in entries.flatten().take(crate::token::MAX_DIRECTORY_ENTRIES) {
                    let Ok(name) = entry.file_name().into_string() else { continue };
                    if excluded_by_default(&name) || check_key_id(&name).is_err() {
                        continue;
                    }
                    if entry.path().is_file() {
                        names.insert(name);
                    }
                }
            }
        }
        names.into_iter().collect()
    }
}

impl KeySource for KeyStore {
    fn signing_key(&self, kid: &str) -> Result<SigningKey> {
        let path = self.path_for(kid)?;
        read_key_file(kid, &path, self.check)
    }
}

/// The `IssuerKeys` attribute value: names joined by `", "`, as HTCondor
/// writes it.
///
/// ```
/// assert_eq!(cedar::token::key::issuer_keys_attr(&["POOL".into(), "other".into()]), "POOL, other");
/// ```
pub fn issuer_keys_attr(names: &[String]) -> String {
    names.join(", ")
}

/// Whether HTCondor's default `LOCAL_CONFIG_DIR_EXCLUDE_REGEXP`
/// (`^((\..*)|(.*\.pl)|(.*\.py)|(.*\.sh)|(.*~)|(#.*)|(.*\.rpmsave)|(.*\.rpmnew)|(.*\.dpkg-old)|(.*\.dpkg-dist)|(.*\.cfsaved))$`)
/// skips a file of this name, in token and key directories alike.
///
/// ```
/// use cedar::token::key::excluded_by_default;
/// assert!(excluded_by_default(".hidden") && excluded_by_default("x.rpmnew") && excluded_by_default("make.sh"));
/// assert!(!excluded_by_default("condor") && !excluded_by_default("POOL"));
/// ```
pub fn excluded_by_default(name: &str) -> bool {
    const SUFFIXES: [&str; 9] =
        [".pl", ".py", ".sh", "~", ".rpmsave", ".rpmnew", ".dpkg-old", ".dpkg-dist", ".cfsaved"];
    name.starts_with('.') || name.starts_with('#') || SUFFIXES.iter().any(|s| name.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_key_is_doubled_and_others_are_not() {
        let file = scramble(b"k\n\0");
        assert_eq!(SigningKey::from_file_bytes("", &file).unwrap().secret(), b"k\n\0k\n\0");
        assert_eq!(SigningKey::from_file_bytes("", &file).unwrap().id(), "POOL");
        assert_eq!(SigningKey::from_file_bytes("x", &file).unwrap().secret(), b"k\n\0");
    }

    #[test]
    fn bad_key_ids_and_sizes_are_refused() {
        assert_eq!(SigningKey::from_file_bytes("a/b", b"x").unwrap_err().kind(), ErrorKind::Policy);
        assert_eq!(SigningKey::from_file_bytes("..", b"x").unwrap_err().kind(), ErrorKind::Policy);
        assert_eq!(SigningKey::from_file_bytes("POOL", b"").unwrap_err().kind(), ErrorKind::Policy);
        let big = vec![0u8; MAX_KEY_FILE_LEN as usize + 1];
        assert_eq!(SigningKey::from_file_bytes("POOL", &big).unwrap_err().kind(), ErrorKind::LimitExceeded);
    }

    #[test]
    fn debug_hides_the_secret() {
        let k = SigningKey::from_secret("POOL", b"topsecret".to_vec()).unwrap();
        let d = format!("{k:?}");
        assert!(!d.contains("topsecret") && d.contains("9 bytes"), "{d}");
    }
}
