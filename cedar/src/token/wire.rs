//! The three AKEP2 messages of the TOKEN method as CEDAR messages
//! (`client_send_one`, `server_receive_one`, `server_send`,
//! `client_receive`, `client_send_two`, `server_receive_two` in
//! condor_auth_passwd.cpp 2273–2830): each message is its items, in the
//! order of the struct's fields, then end-of-message. Ids are sent as
//! `int length` then the string; nonces and MACs as `int length` then that
//! many raw bytes; the token (`header.payload`) as a bare string.
//!
//! Readers apply the bounds of [`super::akep2`] before taking anything
//! (a raw length over its bound is refused before the bytes are read) and
//! require the message to end after the last item.
//!
//! ```
//! use cedar::token::akep2::{ClientConfirm, STATUS_OK};
//! use cedar::token::wire;
//! use cedar::wire::{Decoder, Encoder};
//!
//! let confirm = ClientConfirm { status: STATUS_OK, client_id: "a@b".into(), rb: vec![1; 256], mac: vec![2; 20] };
//! let mut enc = Encoder::new(false);
//! wire::put_client_confirm(&mut enc, &confirm)?;
//! let got = wire::get_client_confirm(&mut Decoder::new(enc.as_bytes(), false))?;
//! assert!(got == confirm);
//! # Ok::<(), cedar::Error>(())
//! ```

use super::akep2::{ClientConfirm, ClientHello, ServerReply, MAX_ID_LEN, MAX_MAC_LEN, NONCE_LEN};
use super::jwt::MAX_TOKEN_LEN;
use crate::error::{Error, ErrorKind, Result};
use crate::wire::{Decoder, Encoder};

fn len_of(n: usize) -> Result<i64> {
    i64::try_from(n).map_err(|_| Error::new(ErrorKind::LimitExceeded, "TOKEN: an item too long to send"))
}

fn put_id(enc: &mut Encoder, id: &str) -> Result<()> {
    enc.put_int(len_of(id.len())?);
    enc.put_str(id)
}

fn put_raw(enc: &mut Encoder, bytes: &[u8]) -> Result<()> {
    enc.put_int(len_of(bytes.len())?);
    enc.put_bytes(bytes);
    Ok(())
}

/// Reads `int length` then a string of at most `max` bytes; returns the
/// string and whether the length announced was its length. C++ reads the
/// two without comparing them, except for the client id of message 3
/// (`server_receive_two` 2491–2494, where a mismatch fails the exchange).
fn get_id(dec: &mut Decoder<'_>, what: &str, max: usize) -> Result<(String, bool)> {
    let declared = dec.get_int()?;
    let s = dec.get_optional_string()?.unwrap_or_default();
    if s.len() > max {
        return Err(Error::new(ErrorKind::LimitExceeded, format!("TOKEN: {what} over {max} bytes")));
    }
    Ok((s.clone(), usize::try_from(declared).ok() == Some(s.len())))
}

/// Reads `int length` then that many raw bytes, at most `max`.
fn get_raw(dec: &mut Decoder<'_>, what: &str, max: usize) -> Result<Vec<u8>> {
    let n = dec.get_int()?;
    let n = usize::try_from(n)
        .ok()
        .filter(|n| *n <= max)
        .ok_or_else(|| Error::new(ErrorKind::LimitExceeded, format!("TOKEN: {what} of {n} bytes (at most {max})")))?;
    Ok(dec.get_bytes(n)?.to_vec())
}

fn get_status(dec: &mut Decoder<'_>) -> Result<i32> {
    dec.get_i32()
}

/// Writes message 1.
pub fn put_client_hello(enc: &mut Encoder, m: &ClientHello) -> Result<()> {
    enc.put_int(i64::from(m.status));
    put_id(enc, &m.client_id)?;
    enc.put_str(&m.token)?;
    put_raw(enc, &m.ra)
}

/// Reads message 1 (the whole message).
pub fn get_client_hello(dec: &mut Decoder<'_>) -> Result<ClientHello> {
    let status = get_status(dec)?;
    let (client_id, _) = get_id(dec, "client id", MAX_ID_LEN)?;
    let token = dec.get_optional_string()?.unwrap_or_default();
    if token.len() > MAX_TOKEN_LEN {
        return Err(Error::new(ErrorKind::LimitExceeded, format!("TOKEN: token over {MAX_TOKEN_LEN} bytes")));
    }
    let ra = get_raw(dec, "rA", NONCE_LEN)?;
    dec.finish()?;
    Ok(ClientHello { status, client_id, token, ra })
}

/// Writes message 2.
pub fn put_server_reply(enc: &mut Encoder, m: &ServerReply) -> Result<()> {
    enc.put_int(i64::from(m.status));
    put_id(enc, &m.client_id)?;
    put_id(enc, &m.server_id)?;
    put_raw(enc, &m.ra)?;
    put_raw(enc, &m.rb)?;
    put_raw(enc, &m.mac)
}

/// Reads message 2 (the whole message).
pub fn get_server_reply(dec: &mut Decoder<'_>) -> Result<ServerReply> {
    let status = get_status(dec)?;
    let (client_id, _) = get_id(dec, "client id", MAX_ID_LEN)?;
    let (server_id, _) = get_id(dec, "server id", MAX_ID_LEN)?;
    let ra = get_raw(dec, "rA", NONCE_LEN)?;
    let rb = get_raw(dec, "rB", NONCE_LEN)?;
    let mac = get_raw(dec, "MAC", MAX_MAC_LEN)?;
    dec.finish()?;
    Ok(ServerReply { status, client_id, server_id, ra, rb, mac })
}

/// Writes message 3.
pub fn put_client_confirm(enc: &mut Encoder, m: &ClientConfirm) -> Result<()> {
    enc.put_int(i64::from(m.status));
    put_id(enc, &m.client_id)?;
    put_raw(enc, &m.rb)?;
    put_raw(enc, &m.mac)
}

/// Reads message 3 (the whole message). A client id whose announced
/// length is not its own reads as a failed confirmation (status -1), as
/// the C++ server takes it.
pub fn get_client_confirm(dec: &mut Decoder<'_>) -> Result<ClientConfirm> {
    let mut status = get_status(dec)?;
    let (client_id, consistent) = get_id(dec, "client id", MAX_ID_LEN)?;
    let rb = get_raw(dec, "rB", NONCE_LEN)?;
    let mac = get_raw(dec, "MAC", MAX_MAC_LEN)?;
    dec.finish()?;
    if !consistent {
        status = super::akep2::STATUS_ERROR;
    }
    Ok(ClientConfirm { status, client_id, rb, mac })
}
