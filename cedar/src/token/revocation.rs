//! `SEC_TOKEN_REVOCATION_EXPR`: a ClassAd expression over a token's claims
//! that refuses the tokens it is true for, evaluated as HTCondor evaluates
//! it (`Condor_Auth_Passwd::isTokenRevoked`, condor_auth_passwd.cpp
//! 945–999).
//!
//! * The expression is parsed in old ClassAd syntax (`ParseClassAdRvalExpr`).
//! * The claims become an ad: booleans, integers, numbers and strings under
//!   their claim names; `null`, arrays and objects are left out.
//! * The expression is evaluated against that ad alone. A boolean result
//!   decides; an integer or real counts as true when non-zero; anything
//!   else (undefined, error, a string) counts as **revoked**.
//!
//! HTCondor ignores an expression that fails to parse (nothing is revoked);
//! [`RevocationExpr::parse`] returns the error and leaves the choice to the
//! caller.
//!
//! ```
//! use cedar::token::jwt::{Claims, Jwt, MintClaims, Validation};
//! use cedar::token::key::SigningKey;
//! use cedar::token::revocation::RevocationExpr;
//!
//! let key = SigningKey::from_secret("POOL", b"k".to_vec()).unwrap();
//! let mut claims = MintClaims::new("anchor.local", "alice@anchor.local", 100, None, vec![]);
//! claims.id = Some("deadbeef".into());
//! let jwt = Jwt::parse(&claims.mint(&key).unwrap()).unwrap();
//!
//! let expr = RevocationExpr::parse(r#"jti == "deadbeef" || sub == "mallory@anchor.local""#).unwrap();
//! let revoked = |c: &Claims| expr.is_revoked(c);
//! let err = jwt.verify(&key, &Validation::at(100).with_revocation(&revoked)).unwrap_err();
//! assert!(err.message().contains("revoked"));
//! ```

use classad::{ClassAd, EvalContext, EvalOptions, Expr, Parser, Syntax, Value};

use super::json::Json;
use super::jwt::Claims;
use crate::error::Result;
use crate::{Error, ErrorKind};

/// A parsed `SEC_TOKEN_REVOCATION_EXPR`.
#[derive(Clone, Debug)]
pub struct RevocationExpr {
    expr: Expr,
}

impl RevocationExpr {
    /// Parses the expression (old ClassAd syntax, as HTCondor does).
    pub fn parse(text: &str) -> Result<RevocationExpr> {
        let expr = Parser::default()
            .syntax(Syntax::Old)
            .parse_expr(text)
            .map_err(|e| Error::new(ErrorKind::Policy, format!("SEC_TOKEN_REVOCATION_EXPR does not parse: {e}")))?;
        Ok(RevocationExpr { expr })
    }

    /// The ad the expression is evaluated against.
    pub fn claims_ad(claims: &Claims) -> ClassAd {
        let mut ad = ClassAd::new();
        for (name, value) in &claims.all {
            match value {
                Json::Bool(b) => {
                    ad.insert(name.as_str(), *b);
                }
                Json::Int(i) => {
                    ad.insert(name.as_str(), *i);
                }
                Json::Number(n) => {
                    ad.insert(name.as_str(), *n);
                }
                Json::String(s) => {
                    ad.insert(name.as_str(), s.as_str());
                }
                _ => {}
            }
        }
        ad
    }

    /// Whether the token with these claims is revoked.
    pub fn is_revoked(&self, claims: &Claims) -> bool {
        let ad = RevocationExpr::claims_ad(claims);
        let opts = EvalOptions::new();
        match EvalContext::new(&opts).my(&ad).eval(&self.expr) {
            Value::Bool(b) => b,
            Value::Int(i) => i != 0,
            Value::Real(r) => r != 0.0,
            _ => true,
        }
    }
}
