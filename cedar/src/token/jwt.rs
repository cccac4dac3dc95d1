//! IDTOKENS: HS256 JSON Web Tokens as HTCondor mints and checks them.
//!
//! Minting follows `Condor_Auth_Passwd::generate_token`
//! (condor_auth_passwd.cpp 1572–1640) through jwt-cpp 0.6.0 with picojson:
//! the header is `{"alg":"HS256","kid":"<kid>"}`; the payload's members are
//! sorted by name (`exp`, `iat`, `iss`, `jti`, `scope`, `sub`), `iat` and
//! `exp` are integers (seconds since the epoch), `jti` is 32 lowercase hex
//! digits (16 random bytes), `scope` is `condor:/A condor:/B` with each `/`
//! written `\/`; both parts are unpadded base64url; the signature is
//! HMAC-SHA256 over `header.payload` under [`SigningKey::jwt_key`].
//!
//! Checking follows what the server does before the AKEP2 exchange
//! (`setup_shared_keys` 860–935, `doServerRec2` 2080–2152): `exp` in the
//! past refuses the token, `iat` older than `SEC_TOKEN_MAX_AGE` too, a
//! revocation expression may refuse it, `sub` and `iss` must be present.
//!
//! ```
//! use cedar::token::jwt::{Jwt, MintClaims, Validation};
//! use cedar::token::key::SigningKey;
//!
//! let key = SigningKey::from_secret("POOL", b"pool secret, doubled".to_vec()).unwrap();
//! let claims = MintClaims {
//!     issuer: "anchor.local".into(),
//!     subject: "condor@anchor.local".into(),
//!     issued_at: 1_700_000_000,
//!     expires_at: Some(1_700_003_600),
//!     id: Some("0123456789abcdef0123456789abcdef".into()),
//!     authz: vec!["READ".into(), "ADVERTISE_STARTD".into()],
//! };
//! let token = claims.mint(&key).unwrap();
//! let jwt = Jwt::parse(&token).unwrap();
//! let checked = jwt.verify(&key, &Validation::at(1_700_000_100).with_issuer("anchor.local")).unwrap();
//! assert_eq!(checked.subject, "condor@anchor.local");
//! assert_eq!(checked.authz, ["READ", "ADVERTISE_STARTD"]);
//! // An hour and a second later it has expired.
//! assert!(jwt.verify(&key, &Validation::at(1_700_003_601)).is_err());
//! ```

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

use super::json::{self, Json};
use super::key::{KeySource, SigningKey, POOL_KEY_ID};
use crate::error::Result;
use crate::{Error, ErrorKind};

/// Longest token accepted, in bytes (the Go port's bound too).
pub const MAX_TOKEN_LEN: usize = 64 * 1024;
/// Most claims in a payload (and members in a header).
pub const MAX_CLAIMS: usize = json::MAX_MEMBERS;

/// The prefix that marks an HTCondor authorization in `scope`.
pub const SCOPE_PREFIX: &str = "condor:/";

/// Unpadded base64url, as jwt-cpp writes it. Reading accepts non-zero
/// trailing bits, as jwt-cpp's decoder does; padding is refused (jwt-cpp
/// would not find `=` in its alphabet either).
const B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::RequireNone)
        .with_decode_allow_trailing_bits(true),
);

fn malformed(what: impl Into<String>) -> Error {
    Error::new(ErrorKind::Malformed, format!("token: {}", what.into()))
}

fn denied(what: impl Into<String>) -> Error {
    Error::new(ErrorKind::Authentication, format!("token refused: {}", what.into()))
}

/// The claims of a token that HTCondor reads, typed; and the whole payload.
///
/// A standard claim of the wrong JSON type (`exp` as a string, `sub` as a
/// number) makes the token malformed: jwt-cpp throws there and HTCondor
/// refuses the token.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct Claims {
    /// `sub`: the identity.
    pub subject: Option<String>,
    /// `iss`: the trust domain that issued the token.
    pub issuer: Option<String>,
    /// `iat`, seconds since the epoch.
    pub issued_at: Option<i64>,
    /// `exp`, seconds since the epoch.
    pub expires_at: Option<i64>,
    /// `nbf`, seconds since the epoch. HTCondor does not check it.
    pub not_before: Option<i64>,
    /// `jti`: the token's id.
    pub id: Option<String>,
    /// `scope`, as written.
    pub scope: Option<String>,
    /// Every payload member, in the order written.
    pub all: Vec<(String, Json)>,
}

impl std::fmt::Debug for Claims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Identities and token ids stay out of logs.
        f.debug_struct("Claims")
            .field("issuer", &self.issuer)
            .field("issued_at", &self.issued_at)
            .field("expires_at", &self.expires_at)
            .field("claims", &self.all.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Claims {
    fn from_object(all: Vec<(String, Json)>) -> Result<Claims> {
        let find = |k: &str| all.iter().find(|(n, _)| n == k).map(|(_, v)| v);
        let string = |k: &str| -> Result<Option<String>> {
            match find(k) {
                None => Ok(None),
                Some(Json::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(malformed(format!("claim {k:?} is not a string"))),
            }
        };
        let int = |k: &str| -> Result<Option<i64>> {
            match find(k) {
                None => Ok(None),
                Some(Json::Int(i)) => Ok(Some(*i)),
                Some(_) => Err(malformed(format!("claim {k:?} is not an integer"))),
            }
        };
        Ok(Claims {
            subject: string("sub")?,
            issuer: string("iss")?,
            issued_at: int("iat")?,
            expires_at: int("exp")?,
            not_before: int("nbf")?,
            id: string("jti")?,
            scope: string("scope")?,
            all: all.clone(),
        })
    }

    /// The `scope` claim split as HTCondor splits it (`StringTokenIterator`:
    /// on commas, spaces, tabs, CR and LF), every entry kept.
    pub fn scopes(&self) -> Vec<String> {
        self.scope.as_deref().map(split_list).unwrap_or_default()
    }

    /// The permission names the token is limited to: each scope entry that
    /// starts with `condor:/`, without the prefix (`doServerRec2`
    /// 2100–2108). Empty: the token carries no limit.
    pub fn authz(&self) -> Vec<String> {
        self.scopes().iter().filter_map(|s| s.strip_prefix(SCOPE_PREFIX).map(str::to_string)).collect()
    }
}

/// Splits on HTCondor's default list delimiters, trimming whitespace.
fn split_list(s: &str) -> Vec<String> {
    s.split([',', ' ', '\t', '\r', '\n'])
        .map(|t| t.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\x0b'))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// A parsed token: the header, the claims, and the raw parts.
#[derive(Clone)]
pub struct Jwt {
    signing_input: String,
    header_len: usize,
    signature: Vec<u8>,
    algorithm: String,
    key_id: Option<String>,
    header: Vec<(String, Json)>,
    claims: Claims,
}

impl std::fmt::Debug for Jwt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jwt")
            .field("algorithm", &self.algorithm)
            .field("key_id", &self.key_id)
            .field("claims", &self.claims)
            .field("signature", &format_args!("<{} bytes>", self.signature.len()))
            .finish()
    }
}

impl Jwt {
    /// Parses `header.payload.signature`. The signature is decoded but not
    /// checked (see [`Jwt::verify`]).
    pub fn parse(token: &str) -> Result<Jwt> {
        if token.len() > MAX_TOKEN_LEN {
            return Err(Error::new(ErrorKind::LimitExceeded, format!("token over {MAX_TOKEN_LEN} bytes")));
        }
        let (input, sig) = token.rsplit_once('.').ok_or_else(|| malformed("no '.' before a signature"))?;
        if !input.contains('.') {
            return Err(malformed("not three parts"));
        }
        let signature = B64.decode(sig).map_err(|_| malformed("signature is not base64url"))?;
        Jwt::parse_parts(input, signature)
    }

    /// Parses `header.payload` without a signature, as the TOKEN method's
    /// server receives it (the client never sends the signature).
    pub fn parse_unsigned(signing_input: &str) -> Result<Jwt> {
        if signing_input.len() > MAX_TOKEN_LEN {
            return Err(Error::new(ErrorKind::LimitExceeded, format!("token over {MAX_TOKEN_LEN} bytes")));
        }
        Jwt::parse_parts(signing_input, Vec::new())
    }

    fn parse_parts(input: &str, signature: Vec<u8>) -> Result<Jwt> {
        let (h, p) = input.split_once('.').ok_or_else(|| malformed("not three parts"))?;
        if p.contains('.') {
            return Err(malformed("more than three parts"));
        }
        let object = |part: &str, what: &str| -> Result<Vec<(String, Json)>> {
            let bytes = B64.decode(part).map_err(|_| malformed(format!("{what} is not base64url")))?;
            match json::parse(&bytes)? {
                Json::Object(m) => Ok(m),
                _ => Err(malformed(format!("{what} is not a JSON object"))),
            }
        };
        let header = object(h, "header")?;
        let payload = object(p, "payload")?;
        let algorithm = match header.iter().find(|(k, _)| k == "alg").map(|(_, v)| v) {
            Some(Json::String(a)) => a.clone(),
            Some(_) => return Err(malformed("alg is not a string")),
            None => return Err(malformed("header has no alg")),
        };
        let key_id = match header.iter().find(|(k, _)| k == "kid").map(|(_, v)| v) {
            Some(Json::String(k)) => Some(k.clone()),
            Some(_) => return Err(malformed("kid is not a string")),
            None => None,
        };
        Ok(Jwt {
            signing_input: input.to_string(),
            header_len: h.len(),
            signature,
            algorithm,
            key_id,
            header,
            claims: Claims::from_object(payload)?,
        })
    }

    /// `header.payload`, exactly as received: what is signed, and what the
    /// TOKEN method's client sends.
    pub fn signing_input(&self) -> &str {
        &self.signing_input
    }

    /// The base64url header part.
    pub fn header_part(&self) -> &str {
        &self.signing_input[..self.header_len]
    }

    /// The base64url payload part.
    pub fn payload_part(&self) -> &str {
        self.signing_input.get(self.header_len + 1..).unwrap_or("")
    }

    /// The decoded signature (empty for [`Jwt::parse_unsigned`]): the
    /// TOKEN method's shared secret.
    pub fn signature(&self) -> &[u8] {
        &self.signature
    }

    /// The header's `alg`.
    pub fn algorithm(&self) -> &str {
        &self.algorithm
    }

    /// The header's `kid`, if any.
    pub fn key_id(&self) -> Option<&str> {
        self.key_id.as_deref()
    }

    /// Every header member, in the order written.
    pub fn header(&self) -> &[(String, Json)] {
        &self.header
    }

    /// The payload's claims.
    pub fn claims(&self) -> &Claims {
        &self.claims
    }

    /// The key id a server looks the key up by: `kid`, which must be
    /// present and non-empty (`fetchTokenSharedKey` 436–452 refuses a token
    /// without one, "explicit is better than implicit").
    pub fn required_key_id(&self) -> Result<&str> {
        match self.key_id.as_deref() {
            Some(k) if !k.is_empty() => Ok(k),
            _ => Err(denied("token has no key id (kid)")),
        }
    }

    /// The HS256 signature this token should carry under `key`, after
    /// checking that `alg` is HS256 (the only algorithm this crate accepts).
    pub fn expected_signature(&self, key: &SigningKey) -> Result<[u8; 32]> {
        self.check_algorithm()?;
        Ok(key.sign(self.signing_input.as_bytes()))
    }

    fn check_algorithm(&self) -> Result<()> {
        if self.algorithm != "HS256" {
            return Err(denied(format!("algorithm {:?} is not HS256", self.algorithm)));
        }
        Ok(())
    }

    /// Checks the signature under `key` (constant time), then the claims
    /// against `validation`.
    pub fn verify(&self, key: &SigningKey, validation: &Validation<'_>) -> Result<Verified> {
        self.check_algorithm()?;
        key.verify(self.signing_input.as_bytes(), &self.signature)?;
        validation.check(&self.claims)
    }

    /// Looks the key up by `kid` in `keys`, then [`Jwt::verify`].
    pub fn verify_with(&self, keys: &dyn KeySource, validation: &Validation<'_>) -> Result<Verified> {
        let key = keys.signing_key(self.required_key_id()?)?;
        self.verify(&key, validation)
    }
}

/// A revocation test over a token's claims: `true` refuses the token
/// (HTCondor evaluates `SEC_TOKEN_REVOCATION_EXPR` over them).
pub type Revoked<'a> = &'a dyn Fn(&Claims) -> bool;

/// What to check a token's claims against.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct Validation<'a> {
    /// The time to check `exp` and `iat` against, seconds since the epoch.
    pub now: i64,
    /// `SEC_TOKEN_MAX_AGE`: refuse a token whose `iat` is more than this
    /// many seconds before `now`. See [`max_age_from_param`].
    pub max_age: Option<i64>,
    /// Refuse a token whose `iss` is not this trust domain. HTCondor's
    /// server only requires `iss` to be present (see the crate README).
    pub issuer: Option<&'a str>,
    /// Refuse a token this returns `true` for.
    pub revoked: Option<Revoked<'a>>,
}

impl std::fmt::Debug for Validation<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validation")
            .field("now", &self.now)
            .field("max_age", &self.max_age)
            .field("issuer", &self.issuer)
            .field("revoked", &self.revoked.is_some())
            .finish()
    }
}

/// `SEC_TOKEN_MAX_AGE` as HTCondor applies it (`setup_shared_keys` 862–866):
/// unset, `0` and `-1` mean no limit; any other value is a limit in seconds
/// (so another negative value refuses every token that has an `iat`).
///
/// ```
/// use cedar::token::jwt::max_age_from_param;
/// assert_eq!(max_age_from_param(None), None);
/// assert_eq!(max_age_from_param(Some(0)), None);
/// assert_eq!(max_age_from_param(Some(-1)), None);
/// assert_eq!(max_age_from_param(Some(3600)), Some(3600));
/// ```
pub fn max_age_from_param(value: Option<i64>) -> Option<i64> {
    match value {
        None | Some(0) | Some(-1) => None,
        Some(v) => Some(v),
    }
}

/// Seconds since the Unix epoch, now.
pub fn unix_now() -> i64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

impl<'a> Validation<'a> {
    /// Checks at time `now` (seconds since the epoch), no other limit.
    pub fn at(now: i64) -> Validation<'a> {
        Validation { now, max_age: None, issuer: None, revoked: None }
    }

    /// Checks at the current time.
    pub fn now() -> Validation<'a> {
        Validation::at(unix_now())
    }

    /// Also refuse tokens issued more than `seconds` ago.
    pub fn with_max_age(mut self, seconds: Option<i64>) -> Validation<'a> {
        self.max_age = seconds;
        self
    }

    /// Also refuse tokens from another trust domain.
    pub fn with_issuer(mut self, trust_domain: &'a str) -> Validation<'a> {
        self.issuer = Some(trust_domain);
        self
    }

    /// Also refuse tokens `revoked` returns `true` for.
    pub fn with_revocation(mut self, revoked: Revoked<'a>) -> Validation<'a> {
        self.revoked = Some(revoked);
        self
    }

    /// Checks `claims` (the signature is the caller's business).
    pub fn check(&self, claims: &Claims) -> Result<Verified> {
        if let (Some(max), Some(iat)) = (self.max_age, claims.issued_at) {
            let age = self.now.saturating_sub(iat);
            if age > max {
                return Err(denied(format!("issued {age} s ago, more than SEC_TOKEN_MAX_AGE {max} s")));
            }
        }
        if let Some(exp) = claims.expires_at {
            let expired_for = self.now.saturating_sub(exp);
            if expired_for > 0 {
                return Err(denied(format!("expired {expired_for} s ago")));
            }
        }
        if let Some(revoked) = self.revoked {
            if revoked(claims) {
                return Err(denied("revoked"));
            }
        }
        let subject = match claims.subject.as_deref() {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => return Err(denied("no subject (sub)")),
        };
        let issuer = match claims.issuer.as_deref() {
            Some(i) if !i.is_empty() => i.to_string(),
            _ => return Err(denied("no issuer (iss)")),
        };
        if let Some(want) = self.issuer {
            if issuer != want {
                return Err(denied(format!("issued by {issuer:?}, not by trust domain {want:?}")));
            }
        }
        Ok(Verified {
            subject,
            issuer,
            id: claims.id.clone(),
            expires_at: claims.expires_at,
            scopes: claims.scopes(),
            authz: claims.authz(),
        })
    }
}

/// What a checked token grants.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Verified {
    /// The identity (`sub`), e.g. `condor@anchor.local`.
    pub subject: String,
    /// The trust domain (`iss`).
    pub issuer: String,
    /// The token id (`jti`), HTCondor's `TokenId`.
    pub id: Option<String>,
    /// `exp`, HTCondor's `TokenExpirationTime`.
    pub expires_at: Option<i64>,
    /// Every scope entry, HTCondor's `TokenScopes` (joined by `,`).
    pub scopes: Vec<String>,
    /// The permission names the session is limited to, HTCondor's
    /// `LimitAuthorization` (joined by `,`); empty means no limit.
    pub authz: Vec<String>,
}

impl std::fmt::Debug for Verified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verified")
            .field("issuer", &self.issuer)
            .field("expires_at", &self.expires_at)
            .field("authz", &self.authz)
            .finish_non_exhaustive()
    }
}

impl Verified {
    /// `LimitAuthorization` as HTCondor writes it into the session's policy
    /// ad: the permission names joined by `,` (`None` when unlimited).
    pub fn limit_authorization(&self) -> Option<String> {
        (!self.authz.is_empty()).then(|| self.authz.join(","))
    }
}

/// The subject of the token a 23.9 client mints for itself from a signing
/// key (`CONDOR_PASSWORD_FQU`).
pub const EPHEMERAL_SUBJECT: &str = "condor@password";
/// The same for a server built before 23.9.0 (`POOL_PASSWORD_USERNAME "@"`).
pub const LEGACY_EPHEMERAL_SUBJECT: &str = "condor_pool@";
/// The lifetime of such a token, in seconds.
pub const EPHEMERAL_LIFETIME: i64 = 60;

/// The claims `condor_token_create` puts in a token (a fixed set: the
/// tool's options).
#[derive(Clone, PartialEq, Eq)]
pub struct MintClaims {
    /// `iss`: the trust domain (`TRUST_DOMAIN`). No spaces, tabs or commas.
    pub issuer: String,
    /// `sub`: the identity (`-identity`).
    pub subject: String,
    /// `iat`, seconds since the epoch.
    pub issued_at: i64,
    /// `exp` (`iat + -lifetime`); `None` for no expiry.
    pub expires_at: Option<i64>,
    /// `jti`; HTCondor always sets one (see [`random_token_id`]).
    pub id: Option<String>,
    /// Permission names for `scope` (`-authz`), in order.
    pub authz: Vec<String>,
}

impl std::fmt::Debug for MintClaims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MintClaims")
            .field("issuer", &self.issuer)
            .field("issued_at", &self.issued_at)
            .field("expires_at", &self.expires_at)
            .field("authz", &self.authz)
            .finish_non_exhaustive()
    }
}

/// A new token id as HTCondor makes one (`randomHexKey(16)`): 16 random
/// bytes as 32 lowercase hex digits.
pub fn random_token_id() -> String {
    let mut b = [0u8; 16];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl MintClaims {
    /// The claims `condor_token_create -identity subject [-lifetime
    /// lifetime] [-authz …]` makes at time `now`, with a random `jti`.
    /// A negative `lifetime` means no expiry, as for the tool.
    pub fn new(issuer: &str, subject: &str, now: i64, lifetime: Option<i64>, authz: Vec<String>) -> MintClaims {
        MintClaims {
            issuer: issuer.to_string(),
            subject: subject.to_string(),
            issued_at: now,
            expires_at: lifetime.filter(|l| *l >= 0).map(|l| now.saturating_add(l)),
            id: Some(random_token_id()),
            authz,
        }
    }

    /// The throw-away token a C++ client mints for itself when it has no
    /// token file but can read one of the server's signing keys and shares
    /// its trust domain (`fetchLogin`, condor_auth_passwd.cpp 517–560):
    /// subject [`EPHEMERAL_SUBJECT`] (or [`LEGACY_EPHEMERAL_SUBJECT`] for a
    /// server older than 23.9.0), no scope, a 60-second lifetime.
    ///
    /// ```
    /// use cedar::token::jwt::{MintClaims, EPHEMERAL_SUBJECT};
    /// let c = MintClaims::ephemeral("anchor.local", EPHEMERAL_SUBJECT, 1000);
    /// assert_eq!((c.subject.as_str(), c.expires_at), ("condor@password", Some(1060)));
    /// ```
    pub fn ephemeral(trust_domain: &str, subject: &str, now: i64) -> MintClaims {
        MintClaims::new(trust_domain, subject, now, Some(EPHEMERAL_LIFETIME), Vec::new())
    }

    /// The claims of a token, to mint it again: what reproduces a token
    /// HTCondor made, byte for byte, with the same key. `None` if the token
    /// has claims `condor_token_create` does not write, or lacks `iss`,
    /// `sub` or `iat`, or has a `scope` entry that is not `condor:/…`.
    pub fn from_claims(claims: &Claims) -> Option<MintClaims> {
        const KNOWN: [&str; 6] = ["exp", "iat", "iss", "jti", "scope", "sub"];
        if claims.all.iter().any(|(k, _)| !KNOWN.contains(&k.as_str())) {
            return None;
        }
        let scopes = claims.scopes();
        let authz = claims.authz();
        if authz.len() != scopes.len() {
            return None;
        }
        Some(MintClaims {
            issuer: claims.issuer.clone()?,
            subject: claims.subject.clone()?,
            issued_at: claims.issued_at?,
            expires_at: claims.expires_at,
            id: claims.id.clone(),
            authz,
        })
    }

    /// The payload JSON, as jwt-cpp writes it.
    pub fn payload_json(&self) -> Result<String> {
        if self.issuer.is_empty() {
            return Err(Error::new(ErrorKind::Policy, "issuer namespace (TRUST_DOMAIN) is not set"));
        }
        if self.issuer.contains([',', ' ', '\t']) {
            return Err(Error::new(ErrorKind::Policy, "issuer namespace may not contain spaces or commas"));
        }
        let mut members = vec![
            ("iss".to_string(), Json::String(self.issuer.clone())),
            ("sub".to_string(), Json::String(self.subject.clone())),
            ("iat".to_string(), Json::Int(self.issued_at)),
        ];
        if !self.authz.is_empty() {
            let scope = self.authz.iter().map(|a| format!("{SCOPE_PREFIX}{a}")).collect::<Vec<_>>().join(" ");
            members.push(("scope".to_string(), Json::String(scope)));
        }
        if let Some(exp) = self.expires_at {
            members.push(("exp".to_string(), Json::Int(exp)));
        }
        if let Some(id) = &self.id {
            members.push(("jti".to_string(), Json::String(id.clone())));
        }
        let json = Json::Object(members).serialize();
        if json.len() > MAX_TOKEN_LEN / 2 {
            return Err(Error::new(ErrorKind::LimitExceeded, "token claims too long"));
        }
        Ok(json)
    }

    /// Signs the claims with `key` into `header.payload.signature`.
    pub fn mint(&self, key: &SigningKey) -> Result<String> {
        let kid = if key.id().is_empty() { POOL_KEY_ID } else { key.id() };
        let header = Json::Object(vec![
            ("alg".to_string(), Json::String("HS256".to_string())),
            ("kid".to_string(), Json::String(kid.to_string())),
        ])
        .serialize();
        let input = format!("{}.{}", B64.encode(header), B64.encode(self.payload_json()?));
        let sig = key.sign(input.as_bytes());
        Ok(format!("{input}.{}", B64.encode(sig)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SigningKey {
        SigningKey::from_secret("POOL", b"0123456789".to_vec()).unwrap()
    }

    #[test]
    fn parse_refuses_bad_shapes() {
        for bad in ["", "a", "a.b", "a.b.c.d", "e30.e30.!!", "e30=.e30.", "W10.e30."] {
            assert!(Jwt::parse(bad).is_err(), "{bad}");
        }
        // {} / {} : parses, but has no alg.
        assert!(Jwt::parse("e30.e30.").unwrap_err().message().contains("alg"));
    }

    #[test]
    fn scopes_split_like_string_token_iterator() {
        let claims = Claims::from_object(vec![(
            "scope".into(),
            Json::String(" condor:/READ,condor:/WRITE\tother condor:/".into()),
        )])
        .unwrap();
        assert_eq!(claims.scopes(), ["condor:/READ", "condor:/WRITE", "other", "condor:/"]);
        assert_eq!(claims.authz(), ["READ", "WRITE", ""]);
    }

    #[test]
    fn wrong_claim_types_are_malformed() {
        let tok = |payload: &str| format!("{}.{}.", B64.encode(r#"{"alg":"HS256","kid":"POOL"}"#), B64.encode(payload));
        assert_eq!(Jwt::parse(&tok(r#"{"exp":"soon"}"#)).unwrap_err().kind(), ErrorKind::Malformed);
        assert_eq!(Jwt::parse(&tok(r#"{"iat":1.5}"#)).unwrap_err().kind(), ErrorKind::Malformed);
        assert_eq!(Jwt::parse(&tok(r#"{"sub":7}"#)).unwrap_err().kind(), ErrorKind::Malformed);
        assert!(Jwt::parse(&tok(r#"{"sub":"x","other":[1,{"a":null}]}"#)).is_ok());
    }

    #[test]
    fn mint_then_verify_and_refuse() {
        let claims = MintClaims::new("anchor.local", "u@anchor.local", 1000, Some(10), vec![]);
        let tok = claims.mint(&key()).unwrap();
        let jwt = Jwt::parse(&tok).unwrap();
        assert_eq!(jwt.key_id(), Some("POOL"));
        assert!(jwt.verify(&key(), &Validation::at(1010)).is_ok());
        assert!(jwt.verify(&key(), &Validation::at(1011)).unwrap_err().message().contains("expired 1 s ago"));
        assert!(jwt
            .verify(&key(), &Validation::at(1005).with_max_age(Some(4)))
            .unwrap_err()
            .message()
            .contains("MAX_AGE"));
        assert!(jwt.verify(&key(), &Validation::at(1005).with_max_age(Some(5))).is_ok());
        let no = |_: &Claims| true;
        assert!(jwt
            .verify(&key(), &Validation::at(1005).with_revocation(&no))
            .unwrap_err()
            .message()
            .contains("revoked"));
        let other = SigningKey::from_secret("POOL", b"x".to_vec()).unwrap();
        assert_eq!(jwt.verify(&other, &Validation::at(1005)).unwrap_err().kind(), ErrorKind::Crypto);
        assert_eq!(MintClaims::from_claims(jwt.claims()).unwrap(), claims);
    }

    #[test]
    fn issuer_with_spaces_is_refused() {
        let mut c = MintClaims::new("a b", "u", 0, None, vec![]);
        assert_eq!(c.mint(&key()).unwrap_err().kind(), ErrorKind::Policy);
        c.issuer = String::new();
        assert_eq!(c.mint(&key()).unwrap_err().kind(), ErrorKind::Policy);
    }
}
