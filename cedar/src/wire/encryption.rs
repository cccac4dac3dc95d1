//! Switching a connection to AES-256-GCM: the crate's
//! [`AesGcmStream`] behind the wire layer's
//! [`PacketSealer`]/[`PacketOpener`] seam.
//!
//! C++ turns encryption on for both directions at once
//! (`ReliSock::set_crypto_key`, called by `daemon_command.cpp` 1321–1340 on
//! the server and `condor_secman.cpp` 2340–2355 on the client), between
//! messages. [`switch_on`] does the same for an [`Inbound`]/[`Outbound`]
//! pair: it joins what the reader received and what the writer sent into
//! one [`Transcript`] (the digests of the first encrypted packet each way)
//! and gives each half its own AES-GCM state under the session key.
//!
//! ```
//! use cedar::crypto::SessionKey;
//! use cedar::wire::{encryption, Inbound, Outbound};
//!
//! // Two ends of one connection: a's writer feeds b's reader and back.
//! let (mut a_in, mut a_out, mut b_in, mut b_out) = (Inbound::new(), Outbound::new(), Inbound::new(), Outbound::new());
//! let mut wire = Vec::new();
//! a_out.frame(b"hello in the clear", &mut wire)?;
//! b_in.feed(&wire);
//! assert!(!b_in.next_message()?.unwrap().encrypted);
//!
//! let key = SessionKey::from_bytes([7; 32]);
//! encryption::switch_on(&mut a_in, &mut a_out, &key)?;
//! encryption::switch_on(&mut b_in, &mut b_out, &key)?;
//! let mut wire = Vec::new();
//! a_out.frame(b"secret", &mut wire)?;
//! assert!(!wire.windows(6).any(|w| w == b"secret"));
//! b_in.feed(&wire);
//! let m = b_in.next_message()?.unwrap();
//! assert_eq!((m.payload.as_slice(), m.encrypted), (&b"secret"[..], true));
//! # Ok::<(), cedar::Error>(())
//! ```

use super::packet::{Inbound, Outbound, PacketOpener, PacketSealer, HEADER_LEN};
use crate::crypto::{AesGcmStream, SessionKey, Transcript, IV_LEN, TAG_LEN};
use crate::error::{Error, ErrorKind, Result};

/// The writing half's AES-GCM state.
struct Sealer(AesGcmStream);

/// The reading half's AES-GCM state.
struct Opener(AesGcmStream);

impl PacketSealer for Sealer {
    fn overhead(&self, plaintext_len: usize) -> usize {
        self.0.sealed_len(plaintext_len) - plaintext_len
    }

    fn max_overhead(&self) -> usize {
        IV_LEN + TAG_LEN
    }

    fn seal(&mut self, header: &[u8; HEADER_LEN], plaintext: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let packet = self.0.seal(header[0], plaintext)?;
        if packet.len() < HEADER_LEN || packet[..HEADER_LEN] != header[..] {
            return Err(Error::new(ErrorKind::Crypto, "the sealed packet's header differs from the writer's"));
        }
        out.extend_from_slice(&packet[HEADER_LEN..]);
        Ok(())
    }
}

impl PacketOpener for Opener {
    fn open(&mut self, header: &[u8; HEADER_LEN], sealed: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let plain = self.0.open(header, sealed)?;
        out.extend_from_slice(&plain);
        Ok(())
    }
}

/// Encrypts both halves of a connection from their next message on, under
/// `key`, with the digests of everything each half carried in plaintext.
/// A half that is already encrypted is left as it is (C++ keeps the stream
/// it has); both must be between messages.
pub fn switch_on(inbound: &mut Inbound, outbound: &mut Outbound, key: &SessionKey) -> Result<()> {
    if inbound.is_encrypted() && outbound.is_encrypted() {
        return Ok(());
    }
    let transcript = Transcript::join(outbound.transcript(), inbound.transcript());
    if !inbound.is_encrypted() {
        inbound.set_opener(Box::new(Opener(AesGcmStream::new(key, transcript.clone()))))?;
    }
    if !outbound.is_encrypted() {
        outbound.set_sealer(Box::new(Sealer(AesGcmStream::new(key, transcript))));
    }
    Ok(())
}
