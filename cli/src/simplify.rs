//! `classad simplify`: expressions flattened in the scope of an ad, one
//! per line, optionally followed by their external and internal
//! references.

use std::path::Path;
use std::process::ExitCode;

use classad::flatten::flatten;
use classad::references::{external, internal, ReferenceError};
use classad::{ClassAd, EvalOptions, Expr, Semantics};

use crate::{fail, input};

pub fn run(semantics: Semantics, my: Option<&Path>, refs: bool, exprs: &[String]) -> ExitCode {
    let ad = match my.map(input::first_ad).transpose() {
        Ok(ad) => ad.unwrap_or_default(),
        Err(message) => return fail(&message),
    };
    let options = EvalOptions::new().semantics(semantics);
    let mut status = ExitCode::SUCCESS;
    for text in exprs {
        match classad::parse_expr(text) {
            Ok(expr) => {
                match flatten(&options, &ad, &expr) {
                    Ok(flat) => println!("{flat}"),
                    Err(err) => {
                        println!("flatten error: {err}");
                        status = ExitCode::from(1);
                    }
                }
                if refs {
                    print_references(&options, &ad, &expr);
                }
            }
            Err(err) => {
                println!("parse error: {err}");
                status = ExitCode::from(1);
            }
        }
    }
    status
}

/// The `  external: ` and `  internal: ` lines of `--refs`.
fn print_references(options: &EvalOptions, ad: &ClassAd, expr: &Expr) {
    let line = |names: Result<Vec<String>, ReferenceError>| match names {
        Ok(names) => names.join(", "),
        Err(_) => "cannot be determined".to_owned(),
    };
    println!("  external: {}", line(external(options, ad, expr)));
    println!("  internal: {}", line(internal(options, ad, expr)));
}
