//! `classad lint`: mistakes in policy expressions.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use classad::lint::{lint, Finding, LintOptions};
use classad::ClassAd;

use crate::fail;
use crate::input::Input;

/// One finding and where it is.
struct Located {
    /// The expression as given, or `FILE: ad N: ATTR`.
    source: String,
    finding: Finding,
}

pub fn run(against: &[PathBuf], json: bool, items: &[String]) -> ExitCode {
    let mut reference = Vec::new();
    for path in against {
        match read_ads(path) {
            Ok(ads) => reference.extend(ads),
            Err(code) => return code,
        }
    }
    let mut found: Vec<Located> = Vec::new();
    let mut bad = false;
    for item in items {
        let path = Path::new(item);
        if path.is_file() {
            let ads = match read_ads(path) {
                Ok(ads) => ads,
                Err(code) => return code,
            };
            for (n, ad) in ads.iter().enumerate() {
                let options = LintOptions { my: Some(ad), reference: &reference };
                for (name, expr) in ad.iter() {
                    for finding in lint(expr, &options) {
                        found.push(Located { source: format!("{item}: ad {}: {name}", n + 1), finding });
                    }
                }
            }
        } else {
            match classad::parse_expr(item) {
                Ok(expr) => {
                    let options = LintOptions { my: None, reference: &reference };
                    found.extend(
                        lint(&expr, &options).into_iter().map(|finding| Located { source: item.clone(), finding }),
                    );
                }
                Err(err) => {
                    eprintln!("classad: {item}: parse error: {err}");
                    bad = true;
                }
            }
        }
    }
    if json {
        println!("{}", to_json(&found));
    } else {
        for located in &found {
            let f = &located.finding;
            println!("{}: {} {}: {}", located.source, f.severity(), f.kind, f.message);
            println!("    in: {}", f.expr);
            if let Some(suggestion) = &f.suggestion {
                println!("    suggestion: {suggestion}");
            }
        }
    }
    if bad || !found.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn read_ads(path: &Path) -> Result<Vec<ClassAd>, ExitCode> {
    let input = Input::open(Some(path)).map_err(|message| fail(&message))?;
    let name = input.name.clone();
    input.ads(None).collect::<Result<Vec<_>, _>>().map_err(|err| {
        eprintln!("classad: {name}: {err}");
        ExitCode::from(1)
    })
}

/// The findings as a JSON array (see `docs/analysis.md`).
fn to_json(found: &[Located]) -> String {
    let items: Vec<serde_json::Value> = found
        .iter()
        .map(|located| {
            let f = &located.finding;
            serde_json::json!({
                "source": located.source,
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
