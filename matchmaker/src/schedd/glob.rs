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
    fn go(p: &[u8], n: &[u8]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some((b'*', rest)) => (0..=n.len()).any(|i| go(rest, &n[i..])),
            Some((b'?', rest)) => !n.is_empty() && go(rest, &n[1..]),
            Some((b'[', rest)) => match (class(rest), n.split_first()) {
                (Some((hit, after)), Some((&c, n_rest))) => hit(c) && go(after, n_rest),
                (Some(_), None) => false,
                // An unclosed `[` is itself.
                (None, _) => n.first() == Some(&b'[') && go(rest, &n[1..]),
            },
            Some((&c, rest)) => n.first() == Some(&c) && go(rest, &n[1..]),
        }
    }
    go(pattern, name)
}

/// The bracket expression after a `[`: a test of one byte, and the
/// pattern after the `]` (`None` when it does not close).
#[allow(clippy::type_complexity)]
fn class(p: &[u8]) -> Option<(Box<dyn Fn(u8) -> bool + '_>, &[u8])> {
    let (negated, body) = match p.first() {
        Some(b'!' | b'^') => (true, &p[1..]),
        _ => (false, p),
    };
    // A `]` first is a member.
    let close = body.iter().skip(1).position(|&c| c == b']')? + 1;
    let set = &body[..close];
    let test = move |c: u8| {
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
        hit != negated
    };
    Some((Box::new(test), &body[close + 1..]))
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
