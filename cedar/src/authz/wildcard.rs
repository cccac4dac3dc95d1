//! HTCondor's `*` wildcards for user and host names
//! (`matches_withwildcard_impl` in `stl_string_utils.cpp`), compared
//! without regard to ASCII case.
//!
//! A pattern has at most one significant `*` in front or in the middle and
//! optionally one more at its very end:
//!
//! | pattern | matches |
//! |---|---|
//! | `abc` | exactly `abc` |
//! | `*abc` | names ending in `abc` |
//! | `abc*` | names starting with `abc` |
//! | `*abc*` | names containing `abc` |
//! | `ab*cd` | names starting with `ab` and ending in `cd` (no overlap) |
//! | `ab*cd*` | names starting with `ab` with `cd` somewhere after it |
//!
//! Any further `*` is an ordinary character, as in HTCondor.
//!
//! **Deliberate difference from 23.9.6.** HTCondor's code intends `*abc`
//! and `ab*cd` to be anchored at the end, but its end check
//! (`pos[strlen(pos)] != '\0'`) is always false, so in 23.9.6 `*abc`
//! matches any name that merely *contains* `abc`: `*.wisc.edu` matches
//! `a.wisc.edu.evil.com` and `*@example.org` matches `x@example.org.evil`.
//! This crate anchors the end as documented; the oracle data in
//! `cedar/tests/data/authz/` records HTCondor's answers and
//! `tests/authz_oracle.rs` lists the cases where the two differ.

/// Whether `name` matches the wildcard `pattern` (ASCII case-insensitive).
///
/// ```
/// use cedar::authz::wildcard_matches;
/// assert!(wildcard_matches("*@example.org", "Alice@EXAMPLE.org"));
/// assert!(wildcard_matches("condor*", "condor_pool@x"));
/// assert!(!wildcard_matches("*.wisc.edu", "a.wisc.edu.evil.com"));
/// assert!(wildcard_matches("*", ""));
/// ```
pub fn wildcard_matches(pattern: &str, name: &str) -> bool {
    let p = pattern.as_bytes();
    let s = name.as_bytes();
    let Some(first) = p.iter().position(|&c| c == b'*') else {
        return p.eq_ignore_ascii_case(s);
    };
    let (start, rest) = (&p[..first], &p[first + 1..]);
    // A trailing '*' (distinct from the first one) makes the end open.
    let (middle, open_end) = match rest.split_last() {
        Some((b'*', head)) => (head, true),
        _ => (rest, false),
    };
    if s.len() < start.len() || !s[..start.len()].eq_ignore_ascii_case(start) {
        return false;
    }
    let tail = &s[start.len()..];
    if middle.is_empty() {
        return true;
    }
    if open_end {
        contains_ignore_case(tail, middle)
    } else {
        tail.len() >= middle.len() && tail[tail.len() - middle.len()..].eq_ignore_ascii_case(middle)
    }
}

fn contains_ignore_case(haystack: &[u8], needle: &[u8]) -> bool {
    if needle.len() > haystack.len() {
        return false;
    }
    haystack.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle))
}

/// HTCondor 23.9.6's own answer, quirk included (`*abc` behaves as
/// `*abc*`). Kept for the oracle test that documents the difference.
#[doc(hidden)]
pub fn wildcard_matches_htcondor_23_9(pattern: &str, name: &str) -> bool {
    let p = pattern.as_bytes();
    let s = name.as_bytes();
    let Some(first) = p.iter().position(|&c| c == b'*') else {
        return p.eq_ignore_ascii_case(s);
    };
    let (start, rest) = (&p[..first], &p[first + 1..]);
    let middle = match rest.split_last() {
        Some((b'*', head)) => head,
        _ => rest,
    };
    if s.len() < start.len() || !s[..start.len()].eq_ignore_ascii_case(start) {
        return false;
    }
    middle.is_empty() || contains_ignore_case(&s[start.len()..], middle)
}
