//! The TOKEN (IDTOKENS) method's exchange: AKEP2 keyed by a token's
//! signature, sans-IO, for both roles.
//!
//! This module computes; it does not touch a socket. The wire layer turns
//! each of the three messages into one CEDAR message (items in the order of
//! the struct fields, then end-of-message) and back:
//!
//! | message | items, in order |
//! |---|---|
//! | [`ClientHello`] C→S | int status; int len(client id); string client id; string token (`header.payload`, no length int before it); int len(rA); rA as raw bytes |
//! | [`ServerReply`] S→C | int status; int len(client id); string client id; int len(server id); string server id; int len(rA); rA raw; int len(rB); rB raw; int len(MAC); MAC raw |
//! | [`ClientConfirm`] C→S | int status; int len(client id); string client id; int len(rB); rB raw; int len(MAC); MAC raw |
//!
//! ("int" is CEDAR's 8-byte integer, "string" its NUL-terminated string,
//! "raw" `put_bytes` with no terminator; the lengths count bytes without
//! the NUL.) Status is `0` (OK) or `-1` (error). A side in error still sends
//! its message, with status `-1`, every length `0`, every string empty and
//! no raw bytes (the hello keeps whatever token it had), so that both sides
//! read the same items (`client_send_one`, `server_send`, `client_send_two`
//! in condor_auth_passwd.cpp 2273–2775).
//!
//! The computations (all verified against HTCondor 23.9.6's C++):
//! * K  = HKDF-SHA256(ikm = signature, salt = seed_ka ‖ header.payload,
//!   info "master ka"), 32 bytes; K′ likewise with seed_kb and "master kb"
//!   (`fetchLogin` 575–615, `setup_shared_keys` 914–935);
//! * server MAC = HMAC-SHA1 under K over `clientid ' ' serverid NUL rA rB`
//!   (`calculate_hkt` 2519–2571);
//! * client MAC = HMAC-SHA1 under K over `clientid NUL rB` (`calculate_hk`
//!   2223–2270);
//! * W = HKDF-SHA256(ikm = rB, salt "session key", info "htcondor"), 32
//!   bytes (`set_session_key` 2839–2880). K′ is derived but W does not use
//!   it, and rB crosses the wire in the clear: W is no secret. Encryption
//!   keys come from the ECDH exchange of the security handshake instead.
//!
//! ```
//! use cedar::token::akep2::{Client, Server, ServerConfig, NONCE_LEN};
//! use cedar::token::jwt::{Jwt, MintClaims, Validation};
//! use cedar::token::key::SigningKey;
//!
//! let key = SigningKey::from_secret("POOL", b"pool secret".to_vec()).unwrap();
//! let token = MintClaims::new("anchor.local", "condor@anchor.local", 1_700_000_000, None, vec![])
//!     .mint(&key)
//!     .unwrap();
//! let jwt = Jwt::parse(&token).unwrap();
//!
//! let (client, hello) = Client::new(&jwt, [1; NONCE_LEN]);
//! let config = ServerConfig::new("condor@password", &key, Validation::at(1_700_000_010));
//! let (server, reply) = Server::receive_hello(&hello, &config, [2; NONCE_LEN]);
//! let (confirm, client_side) = client.receive_reply(&reply);
//! let server_side = server.receive_confirm(&confirm).unwrap();
//! assert_eq!(server_side.token.subject, "condor@anchor.local");
//! assert_eq!(client_side.unwrap().session_key(), server_side.session_key());
//! ```

use hmac::{Hmac, Mac};
use sha1::Sha1;
use sha2::Sha256;

use super::jwt::{Jwt, Validation, Verified, MAX_TOKEN_LEN};
use super::key::KeySource;
use super::seed::{SEED_KA, SEED_KB, SEED_LEN};
use crate::error::Result;
use crate::{Error, ErrorKind};

/// Length of the nonces rA and rB (`AUTH_PW_KEY_LEN`).
pub const NONCE_LEN: usize = SEED_LEN;
/// Length of the HMAC-SHA1 MACs.
pub const MAC_LEN: usize = 20;
/// Longest MAC a C++ peer reads (`EVP_MAX_MD_SIZE`).
pub const MAX_MAC_LEN: usize = 64;
/// Longest client or server id: the C++ client reads ids into 1024-byte
/// buffers, NUL included (`AUTH_PW_MAX_NAME_LEN`).
pub const MAX_ID_LEN: usize = 1023;
/// Status: all is well (`AUTH_PW_A_OK`).
pub const STATUS_OK: i32 = 0;
/// Status: this side failed (`AUTH_PW_ERROR`).
pub const STATUS_ERROR: i32 = -1;
/// The server id a 23.9 server sends to peers built since 23.9.0
/// (`CONDOR_PASSWORD_FQU`); older peers get `condor_pool@<UID_DOMAIN>`.
pub const SERVER_ID: &str = "condor@password";

fn auth(what: impl Into<String>) -> Error {
    Error::new(ErrorKind::Authentication, format!("TOKEN: {}", what.into()))
}

fn crypto(what: &str) -> Error {
    Error::new(ErrorKind::Crypto, format!("TOKEN: {what}"))
}

/// K and K′, derived from a token's signature.
#[derive(Clone)]
pub struct Keys {
    k: [u8; 32],
    k_prime: [u8; 32],
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys { <secret> }")
    }
}

fn hkdf32(ikm: &[u8], salt: &[u8], info: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    // 32 bytes is far below HKDF-SHA256's output limit.
    if hkdf::Hkdf::<Sha256>::new(Some(salt), ikm).expand(info, &mut out).is_err() {
        out = [0u8; 32];
    }
    out
}

impl Keys {
    /// Derives K and K′ from the token's decoded `signature` and its
    /// `header.payload` text.
    pub fn derive(signature: &[u8], signing_input: &str) -> Keys {
        let salt = |seed: &[u8; SEED_LEN]| {
            let mut s = Vec::with_capacity(SEED_LEN + signing_input.len());
            s.extend_from_slice(seed);
            s.extend_from_slice(signing_input.as_bytes());
            s
        };
        Keys {
            k: hkdf32(signature, &salt(&SEED_KA), b"master ka"),
            k_prime: hkdf32(signature, &salt(&SEED_KB), b"master kb"),
        }
    }

    /// K, the MAC key.
    pub fn k(&self) -> &[u8; 32] {
        &self.k
    }

    /// K′ (unused by HTCondor's session key; kept for completeness).
    pub fn k_prime(&self) -> &[u8; 32] {
        &self.k_prime
    }

    fn mac(&self, parts: &[&[u8]]) -> Hmac<Sha1> {
        // A 32-byte key is below SHA-1's 64-byte block: HMAC zero-pads it,
        // so filling the block here gives the same MAC without a fallible call.
        let mut block = hmac::digest::Key::<Hmac<Sha1>>::default();
        block[..32].copy_from_slice(&self.k);
        let mut m = <Hmac<Sha1> as hmac::digest::KeyInit>::new(&block);
        for p in parts {
            m.update(p);
        }
        m
    }

    fn server_parts<'a>(client_id: &'a str, server_id: &'a str, ra: &'a [u8], rb: &'a [u8]) -> [&'a [u8]; 6] {
        [client_id.as_bytes(), b" ", server_id.as_bytes(), b"\0", ra, rb]
    }

    /// The server's MAC: HMAC-SHA1 under K over `clientid ' ' serverid NUL rA rB`.
    pub fn server_mac(&self, client_id: &str, server_id: &str, ra: &[u8], rb: &[u8]) -> [u8; MAC_LEN] {
        self.mac(&Keys::server_parts(client_id, server_id, ra, rb)).finalize().into_bytes().into()
    }

    /// The client's MAC: HMAC-SHA1 under K over `clientid NUL rB`.
    pub fn client_mac(&self, client_id: &str, rb: &[u8]) -> [u8; MAC_LEN] {
        self.mac(&[client_id.as_bytes(), b"\0", rb]).finalize().into_bytes().into()
    }
}

/// The session key W = HKDF-SHA256(rB, salt "session key", info "htcondor").
pub fn session_key(rb: &[u8]) -> [u8; 32] {
    hkdf32(rb, b"session key", b"htcondor")
}

/// Message 1, client to server. (The fields are the protocol's, fixed
/// since HTCondor 8.9: the struct is deliberately exhaustive, so the wire
/// layer can build it.)
#[derive(Clone, PartialEq, Eq)]
pub struct ClientHello {
    /// [`STATUS_OK`] or [`STATUS_ERROR`].
    pub status: i32,
    /// The client's id: the token's `sub`.
    pub client_id: String,
    /// The token's `header.payload` (never the signature).
    pub token: String,
    /// The client's nonce rA, [`NONCE_LEN`] bytes (empty on error).
    pub ra: Vec<u8>,
}

/// Message 2, server to client.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerReply {
    /// [`STATUS_OK`] or [`STATUS_ERROR`].
    pub status: i32,
    /// The client's id, echoed.
    pub client_id: String,
    /// The server's id ([`SERVER_ID`]).
    pub server_id: String,
    /// rA, echoed.
    pub ra: Vec<u8>,
    /// The server's nonce rB.
    pub rb: Vec<u8>,
    /// [`Keys::server_mac`].
    pub mac: Vec<u8>,
}

/// Message 3, client to server. A C++ server also checks that the length
/// sent before the client id equals the id's length (`server_receive_two`
/// 2491–2494); the wire layer should refuse a mismatch.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientConfirm {
    /// [`STATUS_OK`] or [`STATUS_ERROR`].
    pub status: i32,
    /// The client's id, again.
    pub client_id: String,
    /// rB, echoed.
    pub rb: Vec<u8>,
    /// [`Keys::client_mac`].
    pub mac: Vec<u8>,
}

/// Debug output shows each field's length only: ids are identities, the
/// token and MACs are credentials.
struct Len(usize);

impl std::fmt::Debug for Len {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{} bytes>", self.0)
    }
}

impl std::fmt::Debug for ClientHello {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientHello")
            .field("status", &self.status)
            .field("client_id", &Len(self.client_id.len()))
            .field("token", &Len(self.token.len()))
            .field("ra", &Len(self.ra.len()))
            .finish()
    }
}

impl std::fmt::Debug for ServerReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerReply")
            .field("status", &self.status)
            .field("client_id", &Len(self.client_id.len()))
            .field("server_id", &self.server_id)
            .field("ra", &Len(self.ra.len()))
            .field("rb", &Len(self.rb.len()))
            .field("mac", &Len(self.mac.len()))
            .finish()
    }
}

impl std::fmt::Debug for ClientConfirm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfirm")
            .field("status", &self.status)
            .field("client_id", &Len(self.client_id.len()))
            .field("rb", &Len(self.rb.len()))
            .field("mac", &Len(self.mac.len()))
            .finish()
    }
}

fn check_id(what: &str, id: &str) -> Result<()> {
    if id.len() > MAX_ID_LEN {
        return Err(Error::new(ErrorKind::LimitExceeded, format!("TOKEN: {what} over {MAX_ID_LEN} bytes")));
    }
    if id.contains('\0') {
        return Err(Error::new(ErrorKind::Malformed, format!("TOKEN: {what} contains NUL")));
    }
    Ok(())
}

fn check_bytes(what: &str, b: &[u8], max: usize) -> Result<()> {
    if b.len() > max {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!("TOKEN: {what} of {} bytes (at most {max})", b.len()),
        ));
    }
    Ok(())
}

impl ClientHello {
    /// The hello of a client that has failed: the shape without content.
    pub fn error() -> ClientHello {
        ClientHello { status: STATUS_ERROR, client_id: String::new(), token: String::new(), ra: Vec::new() }
    }

    /// Checks the bounds a reader must enforce before taking the message
    /// (the wire layer may call it, or read with the same limits).
    pub fn check_bounds(&self) -> Result<()> {
        check_id("client id", &self.client_id)?;
        if self.token.len() > MAX_TOKEN_LEN {
            return Err(Error::new(ErrorKind::LimitExceeded, format!("TOKEN: token over {MAX_TOKEN_LEN} bytes")));
        }
        check_bytes("rA", &self.ra, NONCE_LEN)
    }
}

impl ServerReply {
    /// The reply of a server that has failed.
    pub fn error() -> ServerReply {
        ServerReply {
            status: STATUS_ERROR,
            client_id: String::new(),
            server_id: String::new(),
            ra: Vec::new(),
            rb: Vec::new(),
            mac: Vec::new(),
        }
    }

    /// Checks the bounds a reader must enforce.
    pub fn check_bounds(&self) -> Result<()> {
        check_id("client id", &self.client_id)?;
        check_id("server id", &self.server_id)?;
        check_bytes("rA", &self.ra, NONCE_LEN)?;
        check_bytes("rB", &self.rb, NONCE_LEN)?;
        check_bytes("MAC", &self.mac, MAX_MAC_LEN)
    }
}

impl ClientConfirm {
    /// The confirmation of a client that has failed.
    pub fn error() -> ClientConfirm {
        ClientConfirm { status: STATUS_ERROR, client_id: String::new(), rb: Vec::new(), mac: Vec::new() }
    }

    /// Checks the bounds a reader must enforce.
    pub fn check_bounds(&self) -> Result<()> {
        check_id("client id", &self.client_id)?;
        check_bytes("rB", &self.rb, NONCE_LEN)?;
        check_bytes("MAC", &self.mac, MAX_MAC_LEN)
    }
}

fn random_nonce() -> [u8; NONCE_LEN] {
    let mut n = [0u8; NONCE_LEN];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut n);
    n
}

/// The client's side, between its hello and the server's reply.
pub struct Client {
    state: std::result::Result<ClientState, Error>,
}

struct ClientState {
    client_id: String,
    ra: [u8; NONCE_LEN],
    keys: Keys,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("failed", &self.state.is_err()).finish()
    }
}

/// What the client knows once the exchange has gone well on its side.
/// (The C++ server does not say whether it accepted message 3.)
#[derive(Clone)]
pub struct ClientSession {
    server_id: String,
    session_key: [u8; 32],
}

impl std::fmt::Debug for ClientSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSession").field("server_id", &self.server_id).finish_non_exhaustive()
    }
}

impl ClientSession {
    /// The id the server gave ([`SERVER_ID`] for a 23.9 server).
    pub fn server_id(&self) -> &str {
        &self.server_id
    }

    /// W (see the module documentation: not a secret).
    pub fn session_key(&self) -> &[u8; 32] {
        &self.session_key
    }
}

impl Client {
    /// Starts with `token` (found by [`crate::token::discovery`]) and the
    /// nonce `ra`; returns the hello to send. A token without `sub` or
    /// without a signature puts the client in error: it still sends the
    /// error hello, and [`Client::receive_reply`] reports why.
    pub fn new(token: &Jwt, ra: [u8; NONCE_LEN]) -> (Client, ClientHello) {
        let client_id = token.claims().subject.clone().unwrap_or_default();
        let problem = if client_id.is_empty() {
            Some(auth("token has no subject"))
        } else if token.signature().is_empty() {
            Some(auth("token has no signature"))
        } else {
            check_id("client id", &client_id).err().or_else(|| {
                (token.signing_input().len() > MAX_TOKEN_LEN)
                    .then(|| Error::new(ErrorKind::LimitExceeded, "TOKEN: token too long"))
            })
        };
        if let Some(e) = problem {
            let hello = ClientHello { token: token.signing_input().to_string(), ..ClientHello::error() };
            return (Client { state: Err(e) }, hello);
        }
        let keys = Keys::derive(token.signature(), token.signing_input());
        let hello = ClientHello {
            status: STATUS_OK,
            client_id: client_id.clone(),
            token: token.signing_input().to_string(),
            ra: ra.to_vec(),
        };
        (Client { state: Ok(ClientState { client_id, ra, keys }) }, hello)
    }

    /// [`Client::new`] with a fresh random rA.
    pub fn start(token: &Jwt) -> (Client, ClientHello) {
        Client::new(token, random_nonce())
    }

    /// A client with no usable token: it speaks the protocol's error shape
    /// so the server stays in step, and fails with `reason`.
    pub fn failed(reason: Error) -> (Client, ClientHello) {
        (Client { state: Err(reason) }, ClientHello::error())
    }

    /// Takes the server's reply; returns the confirmation to send (always:
    /// an error one if anything failed) and the outcome.
    pub fn receive_reply(self, reply: &ServerReply) -> (ClientConfirm, Result<ClientSession>) {
        match self.check_reply(reply) {
            Ok((confirm, session)) => (confirm, Ok(session)),
            Err(e) => (ClientConfirm::error(), Err(e)),
        }
    }

    fn check_reply(self, reply: &ServerReply) -> Result<(ClientConfirm, ClientSession)> {
        let st = self.state?;
        reply.check_bounds()?;
        if reply.status != STATUS_OK {
            return Err(auth(format!("the server refused the token (status {})", reply.status)));
        }
        if reply.ra.len() != NONCE_LEN || reply.rb.len() != NONCE_LEN {
            return Err(Error::new(ErrorKind::Protocol, "TOKEN: server sent nonces of the wrong length"));
        }
        if reply.server_id.is_empty() || reply.mac.is_empty() {
            return Err(Error::new(ErrorKind::Protocol, "TOKEN: server sent an empty id or MAC"));
        }
        if reply.client_id != st.client_id {
            return Err(Error::new(ErrorKind::Protocol, "TOKEN: server echoed another client id"));
        }
        if reply.ra != st.ra {
            return Err(Error::new(ErrorKind::Protocol, "TOKEN: server echoed another rA"));
        }
        st.keys
            .mac(&Keys::server_parts(&st.client_id, &reply.server_id, &st.ra, &reply.rb))
            .verify_slice(&reply.mac)
            .map_err(|_| crypto("the server's MAC does not match: it does not hold this token's key"))?;
        let confirm = ClientConfirm {
            status: STATUS_OK,
            client_id: st.client_id.clone(),
            rb: reply.rb.clone(),
            mac: st.keys.client_mac(&st.client_id, &reply.rb).to_vec(),
        };
        let session = ClientSession { server_id: reply.server_id.clone(), session_key: session_key(&reply.rb) };
        Ok((confirm, session))
    }
}

/// What a server needs to check a hello.
#[non_exhaustive]
pub struct ServerConfig<'a> {
    /// The id the server sends ([`SERVER_ID`]).
    pub server_id: &'a str,
    /// Where signing keys come from ([`crate::token::key::KeyStore`]).
    pub keys: &'a dyn KeySource,
    /// How to check the token's claims.
    pub validation: Validation<'a>,
}

impl<'a> ServerConfig<'a> {
    /// A configuration from its parts.
    pub fn new(server_id: &'a str, keys: &'a dyn KeySource, validation: Validation<'a>) -> ServerConfig<'a> {
        ServerConfig { server_id, keys, validation }
    }
}

/// The server's side, between its reply and the client's confirmation.
pub struct Server {
    state: std::result::Result<ServerState, Error>,
}

struct ServerState {
    client_id: String,
    rb: [u8; NONCE_LEN],
    keys: Keys,
    verified: Verified,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("failed", &self.state.is_err()).finish()
    }
}

/// An authenticated client, from the server's side.
#[derive(Clone)]
#[non_exhaustive]
pub struct ServerSession {
    /// What the token grants: the identity is `token.subject`, the
    /// session's `LimitAuthorization` is `token.authz`.
    pub token: Verified,
    session_key: [u8; 32],
}

impl std::fmt::Debug for ServerSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerSession").field("token", &self.token).finish_non_exhaustive()
    }
}

impl ServerSession {
    /// W (see the module documentation: not a secret).
    pub fn session_key(&self) -> &[u8; 32] {
        &self.session_key
    }
}

impl Server {
    /// Takes the client's hello, checks the token, and returns the reply to
    /// send (always: an error one if the token is refused) with the state
    /// that awaits message 3. `rb` is the server's nonce.
    pub fn receive_hello(hello: &ClientHello, config: &ServerConfig<'_>, rb: [u8; NONCE_LEN]) -> (Server, ServerReply) {
        match Server::check_hello(hello, config, rb) {
            Ok((state, reply)) => (Server { state: Ok(state) }, reply),
            Err(e) => (Server { state: Err(e) }, ServerReply::error()),
        }
    }

    /// [`Server::receive_hello`] with a fresh random rB.
    pub fn start(hello: &ClientHello, config: &ServerConfig<'_>) -> (Server, ServerReply) {
        Server::receive_hello(hello, config, random_nonce())
    }

    fn check_hello(
        hello: &ClientHello,
        config: &ServerConfig<'_>,
        rb: [u8; NONCE_LEN],
    ) -> Result<(ServerState, ServerReply)> {
        hello.check_bounds()?;
        check_id("server id", config.server_id)?;
        if config.server_id.is_empty() {
            return Err(Error::new(ErrorKind::Policy, "TOKEN: the server id is empty"));
        }
        if hello.status != STATUS_OK {
            return Err(auth(format!("the client reported an error (status {})", hello.status)));
        }
        if hello.ra.len() != NONCE_LEN {
            return Err(Error::new(ErrorKind::Protocol, format!("TOKEN: rA of {} bytes", hello.ra.len())));
        }
        if hello.token.is_empty() {
            return Err(auth("the client sent no token"));
        }
        let jwt = Jwt::parse_unsigned(&hello.token)?;
        let key = config.keys.signing_key(jwt.required_key_id()?)?;
        let verified = config.validation.check(jwt.claims())?;
        // HTCondor compares the client id with sub only after message 3,
        // and then fails without telling the client; refusing here keeps
        // both sides' outcome the same and tells the client.
        if hello.client_id != verified.subject {
            return Err(auth("the client id is not the token's subject"));
        }
        let signature = jwt.expected_signature(&key)?;
        let keys = Keys::derive(&signature, jwt.signing_input());
        let reply = ServerReply {
            status: STATUS_OK,
            client_id: hello.client_id.clone(),
            server_id: config.server_id.to_string(),
            ra: hello.ra.clone(),
            rb: rb.to_vec(),
            mac: keys.server_mac(&hello.client_id, config.server_id, &hello.ra, &rb).to_vec(),
        };
        Ok((ServerState { client_id: hello.client_id.clone(), rb, keys, verified }, reply))
    }

    /// Takes the client's confirmation; the client is authenticated if its
    /// MAC proves it holds the token's signature.
    pub fn receive_confirm(self, confirm: &ClientConfirm) -> Result<ServerSession> {
        let st = self.state?;
        confirm.check_bounds()?;
        if confirm.status != STATUS_OK {
            return Err(auth(format!("the client reported an error (status {})", confirm.status)));
        }
        if confirm.rb.len() != NONCE_LEN || confirm.client_id != st.client_id || confirm.rb != st.rb {
            return Err(Error::new(
                ErrorKind::Protocol,
                "TOKEN: the client's confirmation does not match the exchange",
            ));
        }
        st.keys
            .mac(&[st.client_id.as_bytes(), b"\0", &st.rb])
            .verify_slice(&confirm.mac)
            .map_err(|_| crypto("the client's MAC does not match: it does not hold this token's signature"))?;
        Ok(ServerSession { token: st.verified, session_key: session_key(&st.rb) })
    }
}
