//! Page tokens: opaque to the client, they carry the offset of the next
//! page and a fingerprint of the query they belong to (so a token is
//! refused on another query). Pages follow the tables' order: while the
//! tables do not change the pages are stable and cover every ad once; an
//! ad that arrives or goes between two pages may shift the later ones by
//! one.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::ApiError;

/// The token format's version, first in every token.
const VERSION: &str = "v1";
/// The longest token read.
const MAX_TOKEN: usize = 256;

/// A fingerprint of a query's parameters (FNV-1a over them, with
/// separators), stable across processes.
pub(crate) fn fingerprint(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The token for the page starting at `offset` of the query `fingerprint`.
pub(crate) fn encode(offset: usize, fingerprint: u64) -> String {
    URL_SAFE_NO_PAD.encode(format!("{VERSION}:{offset}:{fingerprint:016x}"))
}

/// The offset a token names, if it is one of ours for this query.
pub(crate) fn decode(token: &str, fingerprint: u64) -> Result<usize, ApiError> {
    let bad = || ApiError::bad_request("bad_page_token", "the page token is not one this query gave");
    if token.len() > MAX_TOKEN {
        return Err(bad());
    }
    let bytes = URL_SAFE_NO_PAD.decode(token).map_err(|_| bad())?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let mut fields = text.split(':');
    if fields.next() != Some(VERSION) {
        return Err(bad());
    }
    let offset: usize = fields.next().and_then(|o| o.parse().ok()).ok_or_else(bad)?;
    let fp = fields.next().and_then(|f| u64::from_str_radix(f, 16).ok()).ok_or_else(bad)?;
    if fp != fingerprint || fields.next().is_some() {
        return Err(bad());
    }
    Ok(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_reads_back_only_for_its_query() {
        let fp = fingerprint(&["startd", "Cpus > 1", ""]);
        let token = encode(1000, fp);
        assert_eq!(decode(&token, fp).ok(), Some(1000));
        assert!(decode(&token, fingerprint(&["startd", "Cpus > 2", ""])).is_err());
        assert!(decode("not a token", fp).is_err());
        assert!(decode(&URL_SAFE_NO_PAD.encode("v1:x:00"), fp).is_err());
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
    }
}
