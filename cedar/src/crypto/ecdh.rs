//! The ECDH P-256 key exchange of a new security session.

use base64::Engine as _;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::pkcs8::DecodePublicKey;
use p256::{PublicKey, SecretKey};

use super::key::SessionKey;
use crate::error::Result;
use crate::{Error, ErrorKind};

/// Longest `ECDHPublicKey` value accepted, in base64 characters. A raw
/// point is 88 characters, an SPKI DER key 124; anything much longer is
/// not a P-256 key.
const MAX_ENCODED_LEN: usize = 1024;

/// One side's ephemeral P-256 key pair for `ECDHPublicKey`.
///
/// Both sides send the base64 of their public point in the security ads
/// (`SecMan::EncodePubkey`, condor_secman.cpp 3056: OpenSSL's
/// `i2d_PublicKey`, the uncompressed 65-byte point `04 ‖ X ‖ Y`). The
/// shared secret (the X coordinate, 32 bytes) goes through HKDF-SHA256
/// with salt "htcondor" and info "keygen" to the AES-256-GCM key
/// (`SecMan::FinishKeyExchange`, condor_secman.cpp 2955–3052).
///
/// The private scalar is wiped on drop and never shown by `Debug`.
///
/// ```
/// use cedar::crypto::KeyExchange;
/// let server = KeyExchange::generate();
/// let client = KeyExchange::generate();
/// let server_pub = server.public_key_base64();
/// assert_eq!(server_pub.len(), 88); // base64 of 65 bytes
/// let k1 = client.finish(&server_pub)?;
/// let k2 = server.finish(&client.public_key_base64())?;
/// assert_eq!(k1, k2);
/// # Ok::<(), cedar::Error>(())
/// ```
pub struct KeyExchange {
    secret: SecretKey,
}

impl KeyExchange {
    /// A fresh random key pair (from the operating system's RNG).
    pub fn generate() -> Self {
        KeyExchange { secret: SecretKey::random(&mut rand::rngs::OsRng) }
    }

    /// A key pair from a known private scalar (32 bytes, big-endian), for
    /// test vectors. Fails if the scalar is zero or not below the group
    /// order.
    pub fn from_private_bytes(scalar: &[u8; 32]) -> Result<Self> {
        let secret =
            SecretKey::from_slice(scalar).map_err(|_| Error::new(ErrorKind::Crypto, "invalid P-256 private scalar"))?;
        Ok(KeyExchange { secret })
    }

    /// Our public key as HTCondor sends it in `ECDHPublicKey`: standard
    /// base64 (with padding, no line breaks) of the 65-byte uncompressed
    /// point.
    pub fn public_key_base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(self.public_key_point())
    }

    /// Our public key as the raw uncompressed point (65 bytes, `0x04`
    /// first).
    pub fn public_key_point(&self) -> Vec<u8> {
        self.secret.public_key().to_encoded_point(false).as_bytes().to_vec()
    }

    /// Derive the session key from the peer's `ECDHPublicKey` value.
    ///
    /// Accepts what HTCondor's `d2i_PublicKey` accepts (an uncompressed
    /// or compressed SEC1 point; 23.9.6 was checked to take both) and, as
    /// bbockelm/cedar does, an SPKI DER key. Errors with
    /// [`ErrorKind::Crypto`] on anything else.
    pub fn finish(&self, peer_base64: &str) -> Result<SessionKey> {
        let peer = parse_peer_public_key(peer_base64)?;
        let shared = p256::ecdh::diffie_hellman(self.secret.to_nonzero_scalar(), peer.as_affine());
        Ok(SessionKey::derive(&shared.raw_secret_bytes()[..]))
    }
}

impl std::fmt::Debug for KeyExchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyExchange").field("public", &self.public_key_base64()).finish_non_exhaustive()
    }
}

/// Parse a peer's base64 `ECDHPublicKey`: a SEC1 point, or SPKI DER.
pub fn parse_peer_public_key(peer_base64: &str) -> Result<PublicKey> {
    let text = peer_base64.trim();
    if text.len() > MAX_ENCODED_LEN {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!("ECDH public key of {} characters (limit {MAX_ENCODED_LEN})", text.len()),
        ));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| Error::new(ErrorKind::Crypto, format!("ECDH public key is not base64: {e}")))?;
    if let Ok(point) = PublicKey::from_sec1_bytes(&bytes) {
        return Ok(point);
    }
    PublicKey::from_public_key_der(&bytes)
        .map_err(|_| Error::new(ErrorKind::Crypto, "failed to deserialize peer's encoded key"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spki_and_raw_give_the_same_key() {
        use p256::pkcs8::EncodePublicKey;
        let a = KeyExchange::generate();
        let b = KeyExchange::generate();
        let spki = b.secret.public_key().to_public_key_der().unwrap();
        let spki_b64 = base64::engine::general_purpose::STANDARD.encode(spki.as_bytes());
        assert_eq!(a.finish(&spki_b64).unwrap(), a.finish(&b.public_key_base64()).unwrap());
    }

    #[test]
    fn rejects_garbage() {
        let a = KeyExchange::generate();
        for bad in ["", "!!!!", "AAAA", &"A".repeat(2000)] {
            assert!(a.finish(bad).is_err(), "{bad:?}");
        }
        // A point not on the curve: 04 followed by 64 zero bytes... is
        // (0, 0), which is not on P-256.
        let mut raw = vec![4u8];
        raw.extend([0u8; 64]);
        let b64 = base64::engine::general_purpose::STANDARD.encode(raw);
        assert_eq!(a.finish(&b64).unwrap_err().kind(), ErrorKind::Crypto);
    }

    #[test]
    fn debug_shows_no_private_scalar() {
        let scalar = [0x11u8; 32];
        let k = KeyExchange::from_private_bytes(&scalar).unwrap();
        let shown = format!("{k:?}");
        assert!(!shown.contains("1111"), "{shown}");
        assert!(shown.contains(&k.public_key_base64()));
    }
}
