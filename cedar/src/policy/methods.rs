//! Authentication and crypto method names, as HTCondor spells and
//! numbers them.

use crate::{Error, ErrorKind};

/// An authentication method.
///
/// The bit values are the `CAUTH_*` constants (condor_auth.h 30–43), sent
/// as the bitmask of the method handshake.
///
/// ```
/// use cedar::policy::AuthMethod;
/// assert_eq!(AuthMethod::parse("idtokens"), Some(AuthMethod::Token));
/// assert_eq!(AuthMethod::Token.bit(), 2048);
/// assert_eq!(AuthMethod::Token.as_str(), "TOKEN"); // the name HTCondor offers on the wire
/// assert_eq!(AuthMethod::parse("GSI"), None); // no longer supported
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AuthMethod {
    /// CLAIMTOBE (2): the client states who it is.
    Claimtobe,
    /// FS (4): a file in a shared /tmp.
    Fs,
    /// FS_REMOTE (8): FS in a given directory.
    FsRemote,
    /// NTSSPI (16): Windows only.
    Ntsspi,
    /// KERBEROS (64).
    Kerberos,
    /// ANONYMOUS (128).
    Anonymous,
    /// SSL (256).
    Ssl,
    /// PASSWORD (512): the pool password (Windows).
    Password,
    /// MUNGE (1024).
    Munge,
    /// TOKEN (2048): IDTOKENS; also spelled TOKENS, IDTOKEN, IDTOKENS.
    Token,
    /// SCITOKENS (4096): also spelled SCITOKEN.
    Scitokens,
}

impl AuthMethod {
    /// Every method, in bit order.
    pub const ALL: [AuthMethod; 11] = [
        AuthMethod::Claimtobe,
        AuthMethod::Fs,
        AuthMethod::FsRemote,
        AuthMethod::Ntsspi,
        AuthMethod::Kerberos,
        AuthMethod::Anonymous,
        AuthMethod::Ssl,
        AuthMethod::Password,
        AuthMethod::Munge,
        AuthMethod::Token,
        AuthMethod::Scitokens,
    ];

    /// A method from its name, ignoring case, with HTCondor's aliases
    /// (`sec_char_to_auth_method`, condor_secman.cpp 3157–3194). `None`
    /// for unknown names (including GSI, which 23.9 no longer knows).
    pub fn parse(name: &str) -> Option<AuthMethod> {
        let n = name.to_ascii_uppercase();
        Some(match n.as_str() {
            "SSL" => AuthMethod::Ssl,
            "NTSSPI" => AuthMethod::Ntsspi,
            "PASSWORD" => AuthMethod::Password,
            "TOKENS" | "TOKEN" | "IDTOKENS" | "IDTOKEN" => AuthMethod::Token,
            "SCITOKENS" | "SCITOKEN" => AuthMethod::Scitokens,
            "FS" => AuthMethod::Fs,
            "FS_REMOTE" => AuthMethod::FsRemote,
            "KERBEROS" => AuthMethod::Kerberos,
            "CLAIMTOBE" => AuthMethod::Claimtobe,
            "MUNGE" => AuthMethod::Munge,
            "ANONYMOUS" => AuthMethod::Anonymous,
            _ => return None,
        })
    }

    /// The `CAUTH_*` bit.
    pub fn bit(self) -> u32 {
        match self {
            AuthMethod::Claimtobe => 2,
            AuthMethod::Fs => 4,
            AuthMethod::FsRemote => 8,
            AuthMethod::Ntsspi => 16,
            AuthMethod::Kerberos => 64,
            AuthMethod::Anonymous => 128,
            AuthMethod::Ssl => 256,
            AuthMethod::Password => 512,
            AuthMethod::Munge => 1024,
            AuthMethod::Token => 2048,
            AuthMethod::Scitokens => 4096,
        }
    }

    /// The method with this bit, if exactly one.
    pub fn from_bit(bit: u32) -> Option<AuthMethod> {
        AuthMethod::ALL.into_iter().find(|m| m.bit() == bit)
    }

    /// The name HTCondor puts in `AuthMethods` (`filterAuthenticationMethods`
    /// canonicalizes the token spellings to TOKEN and SCITOKEN to
    /// SCITOKENS, condor_secman.cpp 3474–3558).
    pub fn as_str(self) -> &'static str {
        match self {
            AuthMethod::Claimtobe => "CLAIMTOBE",
            AuthMethod::Fs => "FS",
            AuthMethod::FsRemote => "FS_REMOTE",
            AuthMethod::Ntsspi => "NTSSPI",
            AuthMethod::Kerberos => "KERBEROS",
            AuthMethod::Anonymous => "ANONYMOUS",
            AuthMethod::Ssl => "SSL",
            AuthMethod::Password => "PASSWORD",
            AuthMethod::Munge => "MUNGE",
            AuthMethod::Token => "TOKEN",
            AuthMethod::Scitokens => "SCITOKENS",
        }
    }

    /// Parse a method list (separators: comma, space, tab, CR, LF, as
    /// HTCondor's `StringTokenIterator`), dropping unknown names as
    /// `filterAuthenticationMethods` does. Order and duplicates are kept.
    pub fn parse_list(list: &str) -> Vec<AuthMethod> {
        tokens(list).filter_map(AuthMethod::parse).collect()
    }
}

impl std::fmt::Display for AuthMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The tokens of a method list, split the way HTCondor's
/// `StringTokenIterator` does by default (on `, \t\r\n`, empty tokens
/// skipped).
pub fn tokens(list: &str) -> impl Iterator<Item = &str> {
    list.split([',', ' ', '\t', '\r', '\n']).filter(|t| !t.is_empty())
}

/// The bitmask of a method list (`SecMan::getAuthBitmask`,
/// condor_secman.cpp 3197): unknown names add nothing.
///
/// ```
/// assert_eq!(cedar::policy::auth_bitmask("IDTOKENS, FS"), 2048 | 4);
/// ```
pub fn auth_bitmask(list: &str) -> u32 {
    tokens(list).filter_map(AuthMethod::parse).fold(0, |acc, m| acc | m.bit())
}

/// A crypto method name. Only AES is implemented by this crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CryptoMethod {
    /// AES: AES-256-GCM on the stream.
    Aes,
    /// BLOWFISH: legacy, refused by this crate.
    Blowfish,
    /// 3DES (also TRIPLEDES): legacy, refused by this crate.
    TripleDes,
}

impl CryptoMethod {
    /// The method of a name, ignoring case (`getCryptProtocolNameToEnum`,
    /// condor_secman.cpp 3654).
    pub fn parse(name: &str) -> Option<CryptoMethod> {
        let n = name.to_ascii_uppercase();
        match n.as_str() {
            "AES" => Some(CryptoMethod::Aes),
            "BLOWFISH" => Some(CryptoMethod::Blowfish),
            "3DES" | "TRIPLEDES" => Some(CryptoMethod::TripleDes),
            _ => None,
        }
    }

    /// HTCondor's name (`getCryptProtocolEnumToName`).
    pub fn as_str(self) -> &'static str {
        match self {
            CryptoMethod::Aes => "AES",
            CryptoMethod::Blowfish => "BLOWFISH",
            CryptoMethod::TripleDes => "3DES",
        }
    }
}

impl std::fmt::Display for CryptoMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The default `SEC_<level>_CRYPTO_METHODS` (`getDefaultCryptoMethods`,
/// condor_secman.cpp 3562).
pub const DEFAULT_CRYPTO_METHODS: &str = "AES,BLOWFISH,3DES";

/// `SecMan::filterCryptoMethods` (condor_secman.cpp 3452): keep the tokens
/// that are exactly `AES`, `3DES`, `TRIPLEDES` or `BLOWFISH`. The match is
/// **case-sensitive**, unlike everywhere else: a configured `aes` is
/// dropped.
///
/// ```
/// assert_eq!(cedar::policy::filter_crypto_methods("aes,AES, Blowfish"), "AES");
/// ```
pub fn filter_crypto_methods(list: &str) -> String {
    tokens(list).filter(|t| matches!(*t, "AES" | "3DES" | "TRIPLEDES" | "BLOWFISH")).collect::<Vec<_>>().join(",")
}

/// The crypto method to use from the reconciled `CryptoMethods` list the
/// server sent: its first entry. Errors with HTCondor's own client texts
/// (condor_secman.cpp 2092–2103) when the list is empty, and when the
/// first method is one this crate does not implement (BLOWFISH, 3DES) or
/// does not know.
///
/// ```
/// use cedar::policy::{choose_crypto_method, CryptoMethod};
/// assert_eq!(choose_crypto_method("AES,BLOWFISH").unwrap(), CryptoMethod::Aes);
/// let e = choose_crypto_method("BLOWFISH,AES").unwrap_err();
/// assert_eq!(e.message(), "Remote server suggested a crypto method (BLOWFISH) we don't support");
/// ```
pub fn choose_crypto_method(list: &str) -> crate::error::Result<CryptoMethod> {
    let first = list.split(',').next().unwrap_or("");
    if list.is_empty() {
        return Err(Error::new(
            ErrorKind::Policy,
            "Remote server requires encryption but provided no crypto method to use; potentially there were no \
             mutually-compatible methods enabled between client and server.",
        ));
    }
    match CryptoMethod::parse(first.trim()) {
        Some(CryptoMethod::Aes) => Ok(CryptoMethod::Aes),
        _ => Err(Error::new(
            ErrorKind::Policy,
            format!("Remote server suggested a crypto method ({first}) we don't support"),
        )),
    }
}
