//! The 32-byte AES-256-GCM session key and the two ways HTCondor derives it.

use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroize;

/// HKDF salt of every HTCondor key derivation (`Condor_Crypt_Base::hkdf`,
/// condor_crypt.cpp 204–218).
pub const HKDF_SALT: &[u8] = b"htcondor";
/// HKDF info of every HTCondor key derivation (condor_crypt.cpp 204–218).
pub const HKDF_INFO: &[u8] = b"keygen";
/// Length of an AES-256-GCM session key (`SEC_SESSION_KEY_LENGTH_V9`,
/// condor_secman.h 31).
pub const SESSION_KEY_LEN: usize = 32;

/// An AES-256-GCM session key.
///
/// The bytes are wiped when the key is dropped, and `Debug` never shows
/// them.
///
/// ```
/// use cedar::crypto::SessionKey;
/// // A non-negotiated session (a match password, a Capability) derives its
/// // key from the string the two sides share.
/// let key = SessionKey::from_shared_string("abc");
/// assert_eq!(format!("{key:?}"), "SessionKey(<redacted>)");
/// assert_eq!(key.as_bytes()[..4], [0xca, 0x47, 0xd4, 0xa1]);
/// ```
#[derive(Clone)]
pub struct SessionKey([u8; SESSION_KEY_LEN]);

impl Drop for SessionKey {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl SessionKey {
    /// A key from its raw 32 bytes (a key restored from a session cache,
    /// or a test vector).
    pub fn from_bytes(bytes: [u8; SESSION_KEY_LEN]) -> Self {
        SessionKey(bytes)
    }

    /// HKDF-SHA256(`input`, salt "htcondor", info "keygen") to 32 bytes:
    /// the derivation of `Condor_Crypt_Base::hkdf` (condor_crypt.cpp 204).
    pub fn derive(input: &[u8]) -> Self {
        let mut out = [0u8; SESSION_KEY_LEN];
        // 32 bytes is far below HKDF-SHA256's 255 * 32 limit, so expand
        // cannot fail; on the impossible error the key stays all zeros
        // rather than panicking.
        let _ = Hkdf::<Sha256>::new(Some(HKDF_SALT), input).expand(HKDF_INFO, &mut out);
        SessionKey(out)
    }

    /// The AES key of a non-negotiated session (match password,
    /// `Capability`, family session) made from a shared string.
    ///
    /// HTCondor passes the string through `strlen` before HKDF
    /// (`CreateNonNegotiatedSecuritySession`, condor_secman.cpp 3840), so
    /// only the bytes before a first NUL count; this does the same.
    pub fn from_shared_string(key: &str) -> Self {
        let bytes = key.as_bytes();
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        Self::derive(&bytes[..end])
    }

    /// The raw key bytes. Keep them out of logs.
    pub fn as_bytes(&self) -> &[u8; SESSION_KEY_LEN] {
        &self.0
    }
}

impl std::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionKey(<redacted>)")
    }
}

impl PartialEq for SessionKey {
    /// Constant-time enough for tests; keys are not compared on any input
    /// path.
    fn eq(&self, other: &Self) -> bool {
        self.0.iter().zip(other.0.iter()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

impl Eq for SessionKey {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_string_stops_at_nul_like_strlen() {
        assert_eq!(SessionKey::from_shared_string("abc\0def"), SessionKey::from_shared_string("abc"));
        assert_ne!(SessionKey::from_shared_string("abd"), SessionKey::from_shared_string("abc"));
    }

    #[test]
    fn debug_redacts() {
        let key = SessionKey::from_bytes([0x41; 32]);
        let shown = format!("{key:?}");
        assert!(!shown.contains("41") && !shown.contains("65"), "{shown}");
    }
}
