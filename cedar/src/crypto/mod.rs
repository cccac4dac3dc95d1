//! Cryptography of a CEDAR connection, as HTCondor 23.9.6 does it:
//!
//! * [`KeyExchange`]: ECDH P-256 for a new session; the public key goes in
//!   the security ads' `ECDHPublicKey` as base64 of the raw 65-byte point;
//! * [`SessionKey`]: the 32-byte key, from the ECDH secret or, for
//!   non-negotiated sessions (match password, `Capability`), from a shared
//!   string, both by HKDF-SHA256 with salt "htcondor" and info "keygen";
//! * [`Transcript`]: the plaintext packets sent and received before
//!   encryption, whose SHA-256 digests the first encrypted packet of each
//!   direction authenticates;
//! * [`AesGcmStream`]: AES-256-GCM per packet with HTCondor's 16-byte IV,
//!   packet counter and AAD.
//!
//! Everything is sans-IO: byte slices in, byte vectors out. The wire layer
//! records packets into the transcript and calls
//! [`AesGcmStream::seal`] / [`AesGcmStream::open`] once encryption is on.
//!
//! A whole exchange, both sides in one process:
//!
//! ```
//! use cedar::crypto::{AesGcmStream, KeyExchange, Transcript};
//!
//! // The client's and the server's key pairs; each side sends its public key.
//! let client_kx = KeyExchange::generate();
//! let server_kx = KeyExchange::generate();
//! let client_key = client_kx.finish(&server_kx.public_key_base64())?;
//! let server_key = server_kx.finish(&client_kx.public_key_base64())?;
//!
//! // The plaintext handshake, as each side saw it.
//! let (mut ct, mut st) = (Transcript::new(), Transcript::new());
//! let hdr = [1, 0, 0, 0, 4];
//! ct.record_sent(&hdr, b"ping");
//! st.record_received(&hdr, b"ping");
//!
//! let mut client = AesGcmStream::new(&client_key, ct);
//! let mut server = AesGcmStream::new(&server_key, st);
//! let reply = server.seal(1, b"pong")?;
//! assert_eq!(client.open(&reply[..5], &reply[5..])?, b"pong");
//! # Ok::<(), cedar::Error>(())
//! ```
//!
//! # Why RustCrypto
//!
//! HTCondor's AES-GCM uses a **16-byte IV** (`IV_SIZE`,
//! condor_crypt_aesgcm.cpp 30; OpenSSL's `EVP_CTRL_GCM_SET_IVLEN`). GCM
//! hashes any IV that is not 12 bytes through GHASH to form the counter
//! block, so a 16-byte IV gives different ciphertext than any 12-byte
//! nonce. `ring` and `aws-lc-rs` only take 12-byte nonces through their
//! safe APIs. RustCrypto's `aes-gcm` takes the nonce size as a type
//! parameter (`AesGcm<Aes256, U16>`). The other pieces (`p256`, `hkdf`,
//! `sha2`) come from the same family.
//!
//! # Key material
//!
//! [`SessionKey`] and [`KeyExchange`] wipe their bytes on drop (the
//! `zeroize` crate, already a dependency of the RustCrypto crates; aes-gcm's
//! `zeroize` feature wipes the cipher's key schedule). Their `Debug` shows
//! no secret. Copies the caller makes with [`SessionKey::as_bytes`] are the
//! caller's to wipe.
//!
//! # Evidence
//!
//! * `tests/crypto_htcondor_vectors.rs` checks HKDF, AES-GCM packets (with
//!   the IV counter wrapping) and ECDH against values produced by HTCondor
//!   23.9.6's own `libcondor_utils` (`Condor_Crypt_Base::hkdf`,
//!   `Condor_Crypt_AESGCM::encrypt`, `SecMan::FinishKeyExchange`).
//! * `tests/crypto_htcondor_stream.rs` replays a recording of two real
//!   HTCondor `ReliSock`s that exchange plaintext, then turn on AES-GCM.
//!   Three connections: both directions, one silent direction, and the
//!   silent side sending first. Our [`Transcript`] and [`AesGcmStream`] must
//!   open every HTCondor packet, and, given HTCondor's base IV, re-seal it to
//!   the same bytes.
//! * The same file checks the 1 MiB rule of [`transcript`] by outcome.
//!   After more than 1 MiB of plaintext, two real ReliSocks cannot decrypt
//!   each other's first packet, and neither can our model of them.
//! * All of it was generated in the anchor chroot by
//!   `tests/data/crypto/regenerate.sh`.

mod ecdh;
mod key;
mod stream;
pub mod transcript;

pub use ecdh::{parse_peer_public_key, KeyExchange};
pub use key::{SessionKey, HKDF_INFO, HKDF_SALT, SESSION_KEY_LEN};
pub use stream::{AesGcmStream, HEADER_LEN, IV_LEN, MAX_PACKETS, MAX_PAYLOAD, TAG_LEN};
pub use transcript::{HandshakeDigests, Transcript, DIGEST_CAP};
