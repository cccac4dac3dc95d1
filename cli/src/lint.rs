//! `classad lint`: mistakes in policy expressions.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use classad::lint::{Finding, Linter};
use classad::ClassAd;

use crate::input::Input;
use crate::{fail, write_failed};

/// Where a finding is.
enum Source<'a> {
    /// An expression given on the command line.
    Expr(&'a str),
    /// `ATTR = EXPR` given on the command line.
    Assignment { text: &'a str, attribute: String },
    /// An attribute of the `ad`th ad (from 1) of a file.
    Attribute { file: &'a str, ad: usize, attribute: String },
}

/// One finding and where it is.
struct Located<'a> {
    source: Source<'a>,
    finding: Finding,
}

impl Located<'_> {
    /// The expression as given, or `FILE: ad N: ATTR`.
    fn source(&self) -> String {
        match &self.source {
            Source::Expr(text) | Source::Assignment { text, .. } => (*text).to_owned(),
            Source::Attribute { file, ad, attribute } => format!("{file}: ad {ad}: {attribute}"),
        }
    }
}

pub fn run(against: &[PathBuf], my: Option<&Path>, json: bool, items: &[String]) -> ExitCode {
    let mut reference = Vec::new();
    for path in against {
        match read_ads(path) {
            Ok(ads) => reference.extend(ads),
            Err(code) => return code,
        }
    }
    let my = match my.map(read_ads) {
        None => None,
        Some(Ok(ads)) => ads.into_iter().next(),
        Some(Err(code)) => return code,
    };
    let linter = Linter::new(&reference);
    let mut found: Vec<Located<'_>> = Vec::new();
    let mut bad = false;
    for item in items {
        let path = Path::new(item);
        if path.is_file() {
            let ads = match read_ads(path) {
                Ok(ads) => ads,
                Err(code) => return code,
            };
            for (n, ad) in ads.iter().enumerate() {
                for (name, finding) in linter.lint_ad(ad) {
                    let source = Source::Attribute { file: item, ad: n + 1, attribute: name.as_str().to_owned() };
                    found.push(Located { source, finding });
                }
            }
        } else if let Some((name, text)) = assignment(item) {
            // As an attribute of the --my ad (or of an ad of its own).
            let mut ad = my.clone().unwrap_or_default();
            if let Err(err) = ad.insert_expr(name, text) {
                eprintln!("classad: {item}: parse error: {err}");
                bad = true;
                continue;
            }
            let Some((name, _)) = ad.get_key_value(name) else { continue };
            for (attribute, finding) in linter.lint_ad(&ad) {
                if attribute == name {
                    let source = Source::Assignment { text: item, attribute: attribute.as_str().to_owned() };
                    found.push(Located { source, finding });
                }
            }
        } else {
            match classad::parse_expr(item) {
                Ok(expr) => found.extend(
                    linter
                        .lint(&expr, my.as_ref())
                        .into_iter()
                        .map(|finding| Located { source: Source::Expr(item), finding }),
                ),
                Err(err) => {
                    eprintln!("classad: {item}: parse error: {err}");
                    bad = true;
                }
            }
        }
    }
    if let Err(e) = print(&found, json) {
        return write_failed(&e);
    }
    if bad || !found.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn print(found: &[Located<'_>], json: bool) -> io::Result<()> {
    let mut out = BufWriter::new(io::stdout().lock());
    if json {
        writeln!(out, "{}", to_json(found))?;
    } else {
        for located in found {
            let f = &located.finding;
            writeln!(out, "{}: {} {}: {}", located.source(), f.severity(), f.kind, f.message)?;
            writeln!(out, "    in: {}", f.expr)?;
            if let Some(suggestion) = &f.suggestion {
                writeln!(out, "    suggestion: {suggestion}")?;
            }
        }
    }
    out.flush()
}

/// `ATTR = EXPR` (as a line of an ad in the old format): the name and the
/// expression's text; `None` for an expression (`a == b`, `a =?= b`).
fn assignment(item: &str) -> Option<(&str, &str)> {
    let text = item.trim_start();
    let end = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')).unwrap_or(text.len());
    let name = &text[..end];
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    let rest = text[end..].trim_start().strip_prefix('=')?;
    if rest.starts_with(['=', '?', '!']) {
        return None;
    }
    Some((name, rest))
}

/// The ads of a file; a file that cannot be read ends the command with
/// status 2, one whose ads do not parse with status 1.
fn read_ads(path: &Path) -> Result<Vec<ClassAd>, ExitCode> {
    let input = Input::open(Some(path)).map_err(|message| fail(&message))?;
    let name = input.name.clone();
    input.ads(None).collect::<Result<Vec<_>, _>>().map_err(|err| {
        eprintln!("classad: {name}: {err}");
        ExitCode::from(1)
    })
}

/// The findings as a JSON array (schema in `docs/analysis.md`).
fn to_json(found: &[Located<'_>]) -> String {
    let items: Vec<serde_json::Value> = found
        .iter()
        .map(|located| {
            let f = &located.finding;
            let (file, ad, attribute) = match &located.source {
                Source::Expr(_) => (None, None, None),
                Source::Assignment { attribute, .. } => (None, None, Some(attribute.as_str())),
                Source::Attribute { file, ad, attribute } => (Some(*file), Some(*ad), Some(attribute.as_str())),
            };
            serde_json::json!({
                "source": located.source(),
                "file": file,
                "ad": ad,
                "attribute": attribute,
                "kind": f.kind.name(),
                "severity": f.severity().to_string(),
                "message": f.message,
                "expr": f.expr,
                "suggestion": f.suggestion,
            })
        })
        .collect();
    serde_json::Value::Array(items).to_string()
}
