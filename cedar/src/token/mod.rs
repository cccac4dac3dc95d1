//! IDTOKENS: HTCondor's HS256 tokens, their signing keys, and the TOKEN
//! authentication method's AKEP2 exchange, as HTCondor 23.9.6 does them.
//!
//! * [`key`]: signing key files (`SEC_TOKEN_POOL_SIGNING_KEY_FILE`,
//!   `SEC_PASSWORD_DIRECTORY/<kid>`), the "simple scramble", the POOL key's
//!   doubling, the HS256 key, and creating a missing pool key as the
//!   collector does;
//! * [`jwt`]: parsing, checking and minting tokens, byte for byte as
//!   `condor_token_create` mints them;
//! * [`discovery`]: choosing a token from a token directory as the C++
//!   client does;
//! * [`revocation`]: `SEC_TOKEN_REVOCATION_EXPR` over a token's claims;
//! * [`akep2`]: the three messages of the TOKEN method and both roles,
//!   sans-IO (the wire layer carries them).
//!
//! Paths and knobs (`TRUST_DOMAIN`, `SEC_TOKEN_MAX_AGE`, …) are arguments:
//! reading the configuration is the daemon's business.
//!
//! ```
//! use cedar::token::key::SigningKey;
//! use cedar::token::jwt::{Jwt, MintClaims, Validation};
//!
//! // A pool key file holds scrambled bytes; the key is them unscrambled, twice.
//! let file = cedar::token::key::scramble(b"0123456789abcdef");
//! let pool = SigningKey::from_file_bytes("POOL", &file).unwrap();
//! let token = MintClaims::new("anchor.local", "condor@anchor.local", 1_700_000_000, None, vec!["READ".into()])
//!     .mint(&pool)
//!     .unwrap();
//! let ok = Jwt::parse(&token).unwrap().verify_with(&pool, &Validation::at(1_700_000_001)).unwrap();
//! assert_eq!(ok.limit_authorization().as_deref(), Some("READ"));
//! ```

pub mod akep2;
pub mod discovery;
pub mod json;
pub mod jwt;
pub mod key;
pub mod revocation;
mod seed;
pub mod wire;

pub use akep2::{Client, ClientConfirm, ClientHello, Server, ServerConfig, ServerReply};
pub use jwt::{Claims, Jwt, MintClaims, Validation, Verified};
pub use key::{FileCheck, KeySource, KeyStore, SigningKey};
pub use seed::SEED_LEN;

/// Most entries read from one token or key directory.
pub const MAX_DIRECTORY_ENTRIES: usize = 4096;
