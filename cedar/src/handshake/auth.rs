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
