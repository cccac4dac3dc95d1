//! File-name patterns for `TRANSFORM ... matching (PATTERNS)`, as
//! `condor_submit`'s `queue ... matching` and `condor_transform_ads`
//! expand them: `*`, `?` and `[...]` (`[!...]` or `[^...]` for the
//! complement, `a-z` ranges) in any part of a path, a leading `.` matched
//! only by a `.` in the pattern (`.*` matches `.` and `..` too), a
//! directory with a `/` after its name, each pattern's matches sorted so
//! written, a name matched twice given once.

use std::path::Path;

/// Which matches a `matching` keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Files and directories (`matching` or `matching any`).
    Any,
    /// Files only (`matching files`).
    Files,
    /// Directories only (`matching dirs`).
    Dirs,
}

/// Whether `name` (one path component) matches `pattern`.
fn matches(pattern: &[u8], name: &[u8]) -> bool {
    if name.first() == Some(&b'.') && pattern.first() != Some(&b'.') {
        return false;
    }
    // Greedy, going back to the last `*` on a mismatch: time in
    // proportion to the pattern times the name, whatever the stars.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < name.len() {
        if pattern.get(pi) == Some(&b'*') {
            star = Some((pi + 1, ni));
            pi += 1;
            continue;
        }
        if let Some((true, len)) = pattern.get(pi..).filter(|p| !p.is_empty()).map(|p| token(p, name[ni])) {
            pi += len;
            ni += 1;
            continue;
        }
        let Some((after_star, from)) = star else {
            return false;
        };
        pi = after_star;
        ni = from + 1;
        star = Some((after_star, from + 1));
    }
    pattern[pi..].iter().all(|&c| c == b'*')
}

/// Whether the pattern's first token (`?`, a bracket expression, or one
/// byte; an unclosed `[` is itself) matches the byte `c`, and the token's
/// length.
fn token(p: &[u8], c: u8) -> (bool, usize) {
    match p[0] {
        b'?' => (true, 1),
        b'[' => match class(&p[1..], c) {
            Some((hit, len)) => (hit, len + 1),
            None => (c == b'[', 1),
        },
        literal => (literal == c, 1),
    }
}

/// The bracket expression after a `[` (`!` or `^` first for the
/// complement, `a-z` ranges, a `]` first is a member): whether `c` is in
/// it, and its length with the closing `]`; `None` when it does not close.
fn class(p: &[u8], c: u8) -> Option<(bool, usize)> {
    let (negated, skip) = match p.first() {
        Some(b'!' | b'^') => (true, 1),
        _ => (false, 0),
    };
    let body = &p[skip..];
    let close = body.iter().skip(1).position(|&b| b == b']')? + 1;
    let set = &body[..close];
    let mut i = 0;
    let mut hit = false;
    while i < set.len() {
        if i + 2 < set.len() && set[i + 1] == b'-' {
            hit |= (set[i]..=set[i + 2]).contains(&c);
            i += 3;
        } else {
            hit |= set[i] == c;
            i += 1;
        }
    }
    Some((hit != negated, skip + close + 1))
}

fn has_wildcard(part: &str) -> bool {
    part.contains(['*', '?', '['])
}

/// The paths `pattern` matches, sorted, directories with a final `/`;
/// `None` past `limit` of them. A relative pattern is looked up in
/// `directory` (the current one when `None`); the paths are as written.
fn expand(pattern: &str, kind: Kind, limit: usize, directory: Option<&Path>) -> Option<Vec<String>> {
    let on_disk = |written: &str| match directory {
        Some(d) if !written.starts_with('/') => d.join(if written.is_empty() { "." } else { written }),
        _ => std::path::PathBuf::from(if written.is_empty() { "." } else { written }),
    };
    let absolute = pattern.starts_with('/');
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    // Paths found so far, as written (without a final `/`).
    let mut found: Vec<String> = vec![if absolute { "/".to_string() } else { String::new() }];
    for (k, part) in parts.iter().enumerate() {
        let last = k + 1 == parts.len();
        let mut next = Vec::new();
        for base in &found {
            let join = |name: &str| {
                if base.is_empty() || base.ends_with('/') {
                    format!("{base}{name}")
                } else {
                    format!("{base}/{name}")
                }
            };
            if !has_wildcard(part) {
                let path = join(part);
                if on_disk(&path).symlink_metadata().is_ok() {
                    next.push(path);
                }
                continue;
            }
            let Ok(entries) = std::fs::read_dir(on_disk(base)) else {
                continue;
            };
            // `.` and `..` are entries too, for a pattern starting with a dot.
            let dots = [".", ".."].into_iter().map(str::to_string);
            let names = entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .chain(dots)
                .filter(|name| matches(part.as_bytes(), name.as_bytes()));
            for name in names {
                let path = join(&name);
                // Inner parts must be directories to go on.
                if last || on_disk(&path).is_dir() {
                    next.push(path);
                }
                if next.len() > limit {
                    return None;
                }
            }
        }
        found = next;
    }
    if parts.is_empty() {
        return Some(Vec::new());
    }
    let found = found
        .into_iter()
        .filter_map(|path| {
            let dir = on_disk(&path).is_dir();
            match (kind, dir) {
                (Kind::Files, true) | (Kind::Dirs, false) => None,
                (_, true) => Some(if path.ends_with('/') { path } else { format!("{path}/") }),
                (_, false) => Some(path),
            }
        })
        .collect::<Vec<String>>();
    // Sorted as written, the directories' `/` included (as glob sorts).
    let mut found = found;
    found.sort();
    Some(found)
}

/// The files and directories `patterns` (separated by commas and white
/// space) match, in the patterns' order, each pattern's sorted, none
/// twice; at most `limit` (more is an error). Relative patterns are
/// looked up in `directory` (the current one when `None`).
pub(crate) fn glob(patterns: &str, kind: Kind, limit: usize, directory: Option<&Path>) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for pattern in patterns.split(|c: char| c == ',' || c.is_ascii_whitespace()).filter(|p| !p.is_empty()) {
        let too_many = || format!("TRANSFORM ... matching: more than {limit} files");
        for path in expand(pattern, kind, limit, directory).ok_or_else(too_many)? {
            if !out.contains(&path) {
                out.push(path);
            }
        }
        if out.len() > limit {
            return Err(too_many());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_as_shell_globs_do() {
        assert!(matches(b"*.txt", b"a1.txt"));
        assert!(!matches(b"*.txt", b".hid.txt"));
        assert!(matches(b".*", b".hid.txt"));
        assert!(matches(b"a?.txt", b"a2.txt"));
        assert!(!matches(b"a?.txt", b"a.txt"));
        assert!(matches(b"[ab]*", b"b.dat"));
        assert!(!matches(b"[!ab]*", b"b.dat"));
        assert!(matches(b"[a-c]x", b"bx"));
        assert!(matches(b"[]]x", b"]x"));
        assert!(matches(b"a[", b"a["));
        assert!(matches(b"*a*", b"xxaxx") && !matches(b"*a*b", b"xxaxx") && matches(b"a*", b"a"));
        // Many stars cost no more than a pass per star.
        let stars = "*a".repeat(40) + "*b";
        assert!(!matches(stars.as_bytes(), "a".repeat(200).as_bytes()));
    }

    #[test]
    fn files_and_directories_as_condor_transform_ads_lists_them() {
        // What condor_transform_ads 23.9.6 gave on the same tree.
        let dir = std::env::temp_dir().join(format!("classad-rs-glob-{}", std::process::id()));
        let gl = dir.join("gl");
        std::fs::create_dir_all(gl.join("sub")).unwrap();
        for f in ["a1.txt", "a2.txt", "b.dat", ".hid.txt"] {
            std::fs::write(gl.join(f), "").unwrap();
        }
        let g = |p: &str, kind| glob(p, kind, 100, Some(&dir)).unwrap();
        assert_eq!(g("gl/*.txt", Kind::Any), ["gl/a1.txt", "gl/a2.txt"]);
        assert_eq!(g("gl/*.txt gl/b*", Kind::Any), ["gl/a1.txt", "gl/a2.txt", "gl/b.dat"]);
        assert_eq!(g("gl/*", Kind::Files), ["gl/a1.txt", "gl/a2.txt", "gl/b.dat"]);
        assert_eq!(g("gl/*", Kind::Dirs), ["gl/sub/"]);
        assert_eq!(g("gl/*", Kind::Any), ["gl/a1.txt", "gl/a2.txt", "gl/b.dat", "gl/sub/"]);
        assert_eq!(g("gl/*.txt,gl/a*", Kind::Any), ["gl/a1.txt", "gl/a2.txt"]);
        assert_eq!(g("gl/a1.txt", Kind::Any), ["gl/a1.txt"]);
        assert_eq!(g("gl/.*", Kind::Any), ["gl/../", "gl/./", "gl/.hid.txt"]);
        assert!(g("gl/nomatch*", Kind::Any).is_empty());
        assert!(g("gl/literal", Kind::Any).is_empty());
        assert!(glob("gl/*", Kind::Any, 2, Some(&dir)).is_err());
        // An absolute pattern is where it says.
        let absolute = format!("{}/gl/b*", dir.display());
        assert_eq!(glob(&absolute, Kind::Any, 100, None).unwrap(), [format!("{}/gl/b.dat", dir.display())]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
