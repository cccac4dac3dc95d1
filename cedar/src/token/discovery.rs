//! Finding a token to offer a server, as HTCondor's client does
//! (`findTokens`, `findToken`, `checkToken`; condor_auth_passwd.cpp 98–297).
//!
//! * The directory's regular files are taken in sorted order, skipping the
//!   names HTCondor's default `LOCAL_CONFIG_DIR_EXCLUDE_REGEXP` skips; a
//!   file named `<SUBSYS>_auto_generated_token` (any case) is tried first.
//! * Each file is split on `\n`; each line is trimmed of whitespace; empty
//!   lines and lines starting with `#` are skipped. A NUL ends the file.
//! * The first token that parses, has a `kid` among the server's
//!   `IssuerKeys` (any, if the server sent none), an `iss` equal to the
//!   server's `TrustDomain` (any, if unknown; but an `iss` there must be)
//!   and a `sub`, is used. Expiry
//!   is *not* checked: the C++ client offers expired tokens too.
//!
//! ```
//! use cedar::token::discovery::{tokens_in_text, TokenFilter};
//! let text = "# a comment\n\n  not-a-token  \n";
//! let filter = TokenFilter::new(Some("anchor.local"), &[]);
//! assert!(tokens_in_text(text.as_bytes(), &filter).next().is_none());
//! ```

use std::path::{Path, PathBuf};

use super::jwt::{Jwt, MAX_TOKEN_LEN};
use super::key::{excluded_by_default, read_secret_file, FileCheck};
use crate::error::Result;

/// Largest token file read, in bytes.
pub const MAX_TOKEN_FILE_LEN: u64 = 1024 * 1024;

/// What the server told the client, to choose a token by.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct TokenFilter<'a> {
    /// The server's `TrustDomain`; `None` accepts any issuer.
    pub trust_domain: Option<&'a str>,
    /// The server's `IssuerKeys`; empty accepts any key id.
    pub issuer_keys: &'a [String],
}

impl<'a> TokenFilter<'a> {
    /// A filter from the server's `TrustDomain` and `IssuerKeys`.
    pub fn new(trust_domain: Option<&'a str>, issuer_keys: &'a [String]) -> TokenFilter<'a> {
        TokenFilter { trust_domain, issuer_keys }
    }

    /// Whether HTCondor's client would offer `jwt` (`checkToken`).
    pub fn accepts(&self, jwt: &Jwt) -> bool {
        // A token without kid is skipped; an empty kid is only accepted
        // when the server names no keys (and then the server refuses it).
        let Some(kid) = jwt.key_id() else { return false };
        if !self.issuer_keys.is_empty() && !self.issuer_keys.iter().any(|k| k == kid) {
            return false;
        }
        // jwt-cpp's get_issuer() throws without iss: such a token is skipped.
        let Some(issuer) = jwt.claims().issuer.as_deref() else { return false };
        if let Some(td) = self.trust_domain {
            if !td.is_empty() && td != issuer {
                return false;
            }
        }
        jwt.claims().subject.is_some()
    }
}

/// The tokens in the text of a token file that `filter` accepts, in order.
pub fn tokens_in_text<'t>(text: &'t [u8], filter: &'t TokenFilter<'_>) -> impl Iterator<Item = Jwt> + 't {
    let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
    text[..end]
        .split(|&b| b == b'\n')
        .map(trim_space)
        .filter(|line| !line.is_empty() && line[0] != b'#' && line.len() <= MAX_TOKEN_LEN)
        .filter_map(|line| std::str::from_utf8(line).ok())
        .filter_map(|line| Jwt::parse(line).ok())
        .filter(move |jwt| filter.accepts(jwt))
}

/// Trims what C's `isspace` calls space, as `StringTokenIterator` does.
fn trim_space(line: &[u8]) -> &[u8] {
    let space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r');
    let start = line.iter().position(|b| !space(b)).unwrap_or(line.len());
    let end = line.iter().rposition(|b| !space(b)).map_or(start, |e| e + 1);
    &line[start..end.max(start)]
}

/// The files of `dir` a client reads tokens from, in the order it reads
/// them: `<subsystem>_auto_generated_token` first if present, then the
/// rest sorted by path.
pub fn token_files(dir: &Path, subsystem: Option<&str>) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)?.take(super::MAX_DIRECTORY_ENTRIES) {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else { continue };
        if excluded_by_default(&name) || entry.path().is_dir() {
            continue;
        }
        files.push(entry.path());
    }
    files.sort();
    if let Some(sub) = subsystem {
        let auto = format!("{sub}_auto_generated_token");
        if let Some(i) = files
            .iter()
            .position(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.eq_ignore_ascii_case(&auto)))
        {
            let first = files.remove(i);
            files.insert(0, first);
        }
    }
    Ok(files)
}

/// The first token in `dir` that `filter` accepts, reading each file with
/// `check` (files that fail it, like unreadable ones, are skipped, as
/// HTCondor skips them).
pub fn find_token(
    dir: &Path,
    subsystem: Option<&str>,
    filter: &TokenFilter<'_>,
    check: FileCheck,
) -> Result<Option<Jwt>> {
    for file in token_files(dir, subsystem)? {
        let Ok(text) = read_secret_file(&file, check, MAX_TOKEN_FILE_LEN) else { continue };
        let found = tokens_in_text(&text, filter).next();
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}
