//! Who is asking: a bearer IDTOKEN checked with the collector's token
//! keys, or nobody (`unauthenticated@unmapped`), at the peer's address;
//! and whether the authorizer lets them run a command.

use std::net::IpAddr;

use axum::http::{header, HeaderMap, StatusCode};
use cedar::authz::{collector_command, AuthMethod, AuthorizationLimit, Identity, Peer, Permission};
use cedar::handshake::ServerConfig;
use cedar::token::jwt::{Jwt, Validation};

use super::ApiError;

/// The longest `Authorization` header read (a token is far shorter).
const MAX_AUTHORIZATION: usize = 16 * 1024;

/// The caller of one request.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    ip: IpAddr,
    /// The mapped identity of a verified token (`None`: unauthenticated).
    user: Option<String>,
    /// The token's scopes as a limit.
    limit: Option<AuthorizationLimit>,
}

fn unauthorized(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, "unauthenticated", message)
}

impl Caller {
    /// The caller of a request from `ip` with `headers`: a bearer token
    /// must verify (401 otherwise); no `Authorization` header is an
    /// unauthenticated caller.
    pub(crate) fn from_request(headers: &HeaderMap, ip: IpAddr, server: &ServerConfig) -> Result<Caller, ApiError> {
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return Ok(Caller { ip, user: None, limit: None });
        };
        if value.len() > MAX_AUTHORIZATION {
            return Err(unauthorized("the Authorization header is too long"));
        }
        let value = value.to_str().map_err(|_| unauthorized("the Authorization header is not text"))?;
        let token = match value.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => return Err(unauthorized("the Authorization header is not `Bearer <token>`")),
        };
        let Some(tokens) = server.tokens.as_ref() else {
            return Err(unauthorized("this collector has no token signing keys"));
        };
        let jwt = Jwt::parse(token).map_err(|e| unauthorized(format!("not a token: {}", e.message())))?;
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
            .map_err(|e| unauthorized(format!("the token is refused: {}", e.message())))?;
        let identity = Identity::resolve(AuthMethod::IdTokens, &verified.subject, None, &server.identity);
        let limit = verified
            .limit_authorization()
            .map(|l| AuthorizationLimit::parse(&l))
            .transpose()
            .map_err(|e| unauthorized(format!("the token's scopes: {}", e.message())))?;
        Ok(Caller { ip, user: Some(identity.fqu()), limit })
    }

    /// The identity, as the authorizer and `AuthenticatedIdentity` see it.
    pub(crate) fn user(&self) -> Option<&str> {
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
    pub(crate) fn holds(&self, server: &ServerConfig, perm: Permission) -> bool {
        server.authorizer.check(&self.peer(), perm).is_allowed()
    }

    /// Authorizes CEDAR command `command` at the level the collector
    /// registers it with: 403 when refused; for a write, 401 first when
    /// the caller has no token.
    pub(crate) fn authorize(&self, server: &ServerConfig, command: i32, write: bool) -> Result<(), ApiError> {
        if write && self.user.is_none() {
            return Err(unauthorized("this request needs `Authorization: Bearer <IDTOKEN>`"));
        }
        let Some(reg) = u32::try_from(command).ok().and_then(collector_command) else {
            return Err(ApiError::new(StatusCode::FORBIDDEN, "forbidden", "not a collector command"));
        };
        let peer = self.peer();
        let decision = server.authorizer.check_command(&peer, reg.perm, reg.alternates);
        if decision.is_allowed() {
            Ok(())
        } else {
            tracing::info!("HTTP: {}", decision.log_line(&peer, reg.perm, reg.name));
            Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden",
                format!("{} is not authorized for {} ({})", peer.user(), reg.perm, decision.reason()),
            ))
        }
    }
}
