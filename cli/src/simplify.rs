//! `classad simplify`: expressions flattened in the scope of an ad, one
//! per line.

use std::path::Path;
use std::process::ExitCode;

use classad::flatten::flatten;
use classad::{EvalOptions, Semantics};

use crate::{fail, input};

pub fn run(semantics: Semantics, my: Option<&Path>, exprs: &[String]) -> ExitCode {
    let ad = match my.map(input::first_ad).transpose() {
        Ok(ad) => ad.unwrap_or_default(),
        Err(message) => return fail(&message),
    };
    let options = EvalOptions::new().semantics(semantics);
    let mut status = ExitCode::SUCCESS;
    for text in exprs {
        match classad::parse_expr(text) {
            Ok(expr) => match flatten(&options, &ad, &expr) {
                Ok(flat) => println!("{flat}"),
                Err(err) => {
                    println!("flatten error: {err}");
                    status = ExitCode::from(1);
                }
            },
            Err(err) => {
                println!("parse error: {err}");
                status = ExitCode::from(1);
            }
        }
    }
    status
}
