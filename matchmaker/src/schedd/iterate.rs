//! `TRANSFORM` statements that make several ads from each input ad.
//!
//! `TRANSFORM [N] [VARS] [in LIST | from FILE | from (` ... `)]`, read as
//! `condor_submit` reads `queue`: each item of the list (or each line of
//! the file or of the lines up to `)`) is transformed `N` times (1 by
//! default), with the loop variables set (`Item` when none are named; with
//! several, an item is split at commas and white space and the last
//! variable takes what is left). `$(Row)` (= `$(ItemIndex)`) counts items,
//! `$(Step)` counts within an item, `$(XFormId)` counts ads, and
//! `$(Iterating)` is 1. `matching [files|dirs|any] PATTERNS` iterates over
//! the files and directories the patterns match ([`super::glob`]); a
//! slice after `in`, `from` or `matching` is read and, as in HTCondor
//! 23.9, not applied; no item at all is one empty item.

/// The arguments of a `TRANSFORM` statement (macros unexpanded), and the
/// item lines that followed it in a rules file.
#[derive(Debug, Clone)]
pub struct Iteration {
    args: String,
    inline: Option<Vec<String>>,
    pub(crate) line: u32,
}

/// An iteration with its arguments expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Ads per item.
    pub(crate) count: u64,
    /// Loop variables.
    pub(crate) vars: Vec<String>,
    /// The items; `None` when the statement has no list.
    pub(crate) items: Option<Vec<String>>,
}

use super::glob::{glob, Kind};

/// Most ads one input ad may become.
pub(crate) const MAX_ADS: u64 = 1_000_000;

impl Iteration {
    /// Reads the statement's arguments; `following` are the lines after it
    /// (the items when the arguments end with `(`).
    pub(crate) fn parse(args: &str, following: &[&str]) -> Result<Iteration, String> {
        let args = args.trim().to_string();
        let mut inline = None;
        if args.ends_with('(') {
            let mut items = Vec::new();
            let mut closed = false;
            for line in following {
                let l = line.trim();
                if l.starts_with('#') {
                    continue;
                }
                if l.starts_with(')') {
                    closed = true;
                    break;
                }
                items.push(l.to_string());
            }
            if !closed {
                return Err("reached the end without finding the closing ')' of the TRANSFORM items".to_string());
            }
            inline = Some(items);
        }
        Ok(Iteration { args, inline, line: 0 })
    }

    /// The arguments as written.
    pub fn args(&self) -> &str {
        &self.args
    }

    /// Plans the iteration from the expanded arguments; `read_file` reads
    /// an items file, `directory` is where `matching` looks for relative
    /// patterns; at most `max_ads` ads ([`MAX_ADS`] without).
    pub(crate) fn plan(
        &self,
        expanded: &str,
        read_file: &dyn Fn(&str) -> Result<String, String>,
        directory: Option<&std::path::Path>,
        max_ads: Option<u64>,
    ) -> Result<Plan, String> {
        let max_ads = max_ads.unwrap_or(MAX_ADS);
        let mut rest = expanded.trim();
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let mut count = 1;
        if digits > 0 {
            count = rest[..digits].parse::<u64>().map_err(|_| format!("invalid TRANSFORM count in '{expanded}'"))?;
            rest = rest[digits..].trim_start();
        }
        let mut vars = Vec::new();
        let mut mode = None;
        while !rest.is_empty() {
            let end = rest.find(|c: char| c.is_ascii_whitespace() || c == ',').unwrap_or(rest.len());
            let word = &rest[..end];
            let after = rest[end..].trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
            let lower = word.to_ascii_lowercase();
            if matches!(lower.as_str(), "in" | "from" | "matching") {
                mode = Some((lower, after));
                break;
            }
            if !word.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') || word.is_empty() {
                return Err(format!("invalid TRANSFORM statement: '{expanded}'"));
            }
            vars.push(word.to_string());
            rest = after;
        }
        let items = match mode {
            None => {
                if !vars.is_empty() {
                    return Err(format!("invalid TRANSFORM statement: '{expanded}' (variables without in or from)"));
                }
                None
            }
            Some((m, list)) => {
                if vars.is_empty() {
                    vars.push("Item".to_string());
                }
                // A slice (`in [1:] (a, b)`) is read and, as in HTCondor
                // 23.9, not applied.
                let list = match list.strip_prefix('[') {
                    Some(slice) => match slice.find(']') {
                        Some(end) => slice[end + 1..].trim_start(),
                        None => return Err(format!("invalid TRANSFORM statement: '{expanded}' (a slice without ']')")),
                    },
                    None => list,
                };
                let mut items: Vec<String> = match m.as_str() {
                    "in" => {
                        let body = match (&self.inline, list.strip_prefix('(')) {
                            (Some(lines), Some(_)) => lines.join(" "),
                            (_, Some(inner)) => inner.strip_suffix(')').unwrap_or(inner).to_string(),
                            (_, None) => list.to_string(),
                        };
                        body.split(|c: char| c == ',' || c.is_ascii_whitespace())
                            .filter(|s| !s.is_empty())
                            .map(str::to_string)
                            .collect()
                    }
                    "from" => {
                        if let Some(inner) = list.strip_prefix('(') {
                            match &self.inline {
                                Some(lines) => lines.iter().filter(|l| !l.is_empty()).cloned().collect(),
                                None => {
                                    let inner = inner.strip_suffix(')').unwrap_or(inner);
                                    vec![inner.trim().to_string()]
                                }
                            }
                        } else {
                            // Blank lines are items too, as in HTCondor.
                            read_file(list.trim())?.lines().map(|l| l.trim().to_string()).collect()
                        }
                    }
                    _ => {
                        let (kind, rest) = match list.split_once(|c: char| c.is_ascii_whitespace() || c == '(') {
                            Some((w, _)) if w.eq_ignore_ascii_case("files") => (Kind::Files, &list[w.len()..]),
                            Some((w, _)) if w.eq_ignore_ascii_case("dirs") => (Kind::Dirs, &list[w.len()..]),
                            Some((w, _)) if w.eq_ignore_ascii_case("any") => (Kind::Any, &list[w.len()..]),
                            _ => (Kind::Any, list),
                        };
                        let rest = rest.trim_start();
                        let patterns = match (&self.inline, rest.strip_prefix('(')) {
                            (Some(lines), Some(_)) => lines.join(" "),
                            (_, Some(inner)) => inner.strip_suffix(')').unwrap_or(inner).to_string(),
                            (_, None) => rest.to_string(),
                        };
                        glob(&patterns, kind, usize::try_from(max_ads).unwrap_or(usize::MAX), directory)?
                    }
                };
                // No item at all is one empty item, as in HTCondor.
                if items.is_empty() {
                    items.push(String::new());
                }
                Some(items)
            }
        };
        let n_items = items.as_ref().map_or(1, |i| i.len() as u64);
        if count.saturating_mul(n_items) > max_ads {
            return Err(format!("TRANSFORM would make more than {max_ads} ads from one ad"));
        }
        Ok(Plan { count, vars, items })
    }
}

impl Plan {
    /// The loop variables' values for an item: the first takes the whole
    /// item when it is the only one; otherwise the item is split at commas
    /// and white space, the last variable taking the rest.
    pub(crate) fn assign(&self, item: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut rest = item;
        for (i, var) in self.vars.iter().enumerate() {
            if i + 1 == self.vars.len() {
                out.push((var.clone(), rest.to_string()));
                break;
            }
            let end = rest.find([',', ' ', '\t']).unwrap_or(rest.len());
            out.push((var.clone(), rest[..end].to_string()));
            if end == rest.len() {
                break;
            }
            rest = rest[end + 1..].trim_start_matches([' ', '\t']);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(args: &str, following: &[&str]) -> Result<Plan, String> {
        Iteration::parse(args, following)?.plan(args, &|f| Ok(format!("{f}-1\n{f}-2\n")), None, None)
    }

    #[test]
    fn forms() {
        let p = plan("in (x, y z)", &[]).unwrap();
        assert_eq!(
            (p.count, p.vars.clone(), p.items.clone()),
            (1, vec!["Item".into()], Some(vec!["x".into(), "y".into(), "z".into()]))
        );
        let p = plan("2 Q,N from items.txt", &[]).unwrap();
        assert_eq!((p.count, p.vars.clone()), (2, vec!["Q".into(), "N".into()]));
        assert_eq!(p.items, Some(vec!["items.txt-1".into(), "items.txt-2".into()]));
        let p = plan("A B from (", &["p q", "# c", "r,s", ")", "ignored"]).unwrap();
        assert_eq!(p.items, Some(vec!["p q".into(), "r,s".into()]));
        assert_eq!(p.assign("r,s"), vec![("A".into(), "r".into()), ("B".into(), "s".into())]);
        assert_eq!(plan("3", &[]).unwrap(), Plan { count: 3, vars: vec![], items: None });
        assert!(plan("x from (", &["a"]).is_err());
        assert_eq!(plan("in [1:] (a, b)", &[]).unwrap().items, Some(vec!["a".into(), "b".into()]));
        assert_eq!(plan("in ()", &[]).unwrap().items, Some(vec![String::new()]));
        assert_eq!(plan("matching (/nonexistent/*.x)", &[]).unwrap().items, Some(vec![String::new()]));
        assert!(plan("in [1: (a)", &[]).is_err());
        assert!(plan("1000000 in (a b)", &[]).is_err());
    }
}
