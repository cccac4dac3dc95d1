//! Who is asking: a bearer IDTOKEN checked with the daemon's token keys,
//! or nobody (`unauthenticated@unmapped`), at the peer's address; and
//! whether the daemon's authorizer lets them run a command.

use std::net::IpAddr;

use axum::http::{header, HeaderMap, StatusCode};
use cedar::authz::{AuthMethod, AuthorizationLimit, CommandPermission, Identity, Peer, Permission};
use cedar::handshake::ServerConfig;
use cedar::token::jwt::{Jwt, Validation};

use crate::ApiError;

/// The longest `Authorization` header read (a token is far shorter).
const MAX_AUTHORIZATION: usize = 16 * 1024;

/// The caller of one request.
///
/// A token must be signed by one of the daemon's token keys
/// (`SEC_TOKEN_POOL_SIGNING_KEY_FILE`, `SEC_PASSWORD_DIRECTORY`), not be
/// expired, older than `SEC_TOKEN_MAX_AGE` or revoked, and (here, unlike
/// CEDAR) be issued by the daemon's `TRUST_DOMAIN`. Its subject is the
/// identity, mapped as the handshake maps an IDTOKENS identity; its
/// `scope` claims limit the levels it may use, as `LimitAuthorization`
/// does.
///
/// ```
/// use cedar::authz::Permission;
/// use cedar::handshake::{CommandTable, ServerConfig};
/// let lookup = |knob: &str| (knob == "ALLOW_READ").then(|| "127.0.0.1".to_owned());
/// let server =
///     ServerConfig::from_config("NEGOTIATOR", CommandTable::new(), &lookup, cedar::token::FileCheck::none()).unwrap();
/// let local = daemon_http::Caller::from_request(&Default::default(), [127, 0, 0, 1].into(), &server).unwrap();
/// assert_eq!(local.user(), None);
/// assert!(local.holds(&server, Permission::Read));
/// let remote = daemon_http::Caller::from_request(&Default::default(), [10, 0, 0, 1].into(), &server).unwrap();
/// assert!(!remote.holds(&server, Permission::Read));
/// ```
#[derive(Debug, Clone)]
pub struct Caller {
    ip: IpAddr,
    /// The mapped identity of a verified token (`None`: unauthenticated).
    user: Option<String>,
    /// The token's scopes as a limit.
    limit: Option<AuthorizationLimit>,
}

impl Caller {
    /// The caller of a request from `ip` with `headers`: a bearer token
    /// must verify (401 otherwise); no `Authorization` header is an
    /// unauthenticated caller.
    pub fn from_request(headers: &HeaderMap, ip: IpAddr, server: &ServerConfig) -> Result<Caller, ApiError> {
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return Ok(Caller { ip, user: None, limit: None });
        };
        if value.len() > MAX_AUTHORIZATION {
            return Err(ApiError::unauthorized("the Authorization header is too long"));
        }
        let value = value.to_str().map_err(|_| ApiError::unauthorized("the Authorization header is not text"))?;
        let token = match value.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => return Err(ApiError::unauthorized("the Authorization header is not `Bearer <token>`")),
        };
        let Some(tokens) = server.tokens.as_ref() else {
            return Err(ApiError::unauthorized("this daemon has no token signing keys"));
        };
        let jwt = Jwt::parse(token).map_err(|e| ApiError::unauthorized(format!("not a token: {}", e.message())))?;
        let revoked = |c: &cedar::token::Claims| tokens.revocation.as_ref().is_some_and(|r| r.is_revoked(c));
        let mut validation = Validation::now().with_max_age(tokens.max_age);
        if tokens.revocation.is_some() {
            validation = validation.with_revocation(&revoked);
        }
        if let Some(domain) = server.trust_domain.as_deref().filter(|d| !d.is_empty()) {
            validation = validation.with_issuer(domain);
        }
        let verified = jwt
            .verify_with(&tokens.keys, &validation)
            .map_err(|e| ApiError::unauthorized(format!("the token is refused: {}", e.message())))?;
        let identity = Identity::resolve(AuthMethod::IdTokens, &verified.subject, None, &server.identity);
        let limit = verified
            .limit_authorization()
            .map(|l| AuthorizationLimit::parse(&l))
            .transpose()
            .map_err(|e| ApiError::unauthorized(format!("the token's scopes: {}", e.message())))?;
        Ok(Caller { ip, user: Some(identity.fqu()), limit })
    }

    /// The identity, as the authorizer and `AuthenticatedIdentity` see it.
    pub fn user(&self) -> Option<&str> {
        self.user.as_deref()
    }

    fn peer(&self) -> Peer<'_> {
        let mut peer = Peer::new(self.ip);
        if let Some(user) = &self.user {
            peer = peer.with_user(user);
        }
        if let Some(limit) = &self.limit {
            peer = peer.with_limit(limit);
        }
        peer
    }

    /// Whether the caller holds `perm` (its token's scopes included).
    pub fn holds(&self, server: &ServerConfig, perm: Permission) -> bool {
        server.authorizer.check(&self.peer(), perm).is_allowed()
    }

    /// Authorizes the caller for CEDAR command `command` at the level the
    /// daemon registers it with: 403 when refused (logged as the CEDAR
    /// server logs a refusal); for a `write`, 401 first when the caller
    /// has no token.
    pub fn authorize(&self, server: &ServerConfig, command: &CommandPermission, write: bool) -> Result<(), ApiError> {
        if write && self.user.is_none() {
            return Err(ApiError::unauthorized("this request needs `Authorization: Bearer <IDTOKEN>`"));
        }
        let peer = self.peer();
        let decision = server.authorizer.check_command(&peer, command.perm, command.alternates);
        if decision.is_allowed() {
            Ok(())
        } else {
            tracing::info!("HTTP: {}", decision.log_line(&peer, command.perm, command.name));
            Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden",
                format!("{} is not authorized for {} ({})", peer.user(), command.perm, decision.reason()),
            ))
        }
    }
}
