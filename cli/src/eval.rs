//! `classad eval`: evaluate expressions, one value per line.

use std::path::Path;
use std::process::ExitCode;

use classad::{EvalContext, EvalOptions, Semantics};

use crate::{fail, input};

/// Evaluates `exprs` in order, one line each (`EXPR = value` with
/// `labels`).
pub fn run(semantics: Semantics, my: Option<&Path>, target: Option<&Path>, labels: bool, exprs: &[String]) -> ExitCode {
    let my = match my.map(input::first_ad).transpose() {
        Ok(ad) => ad,
        Err(message) => return fail(&message),
    };
    let target = match target.map(input::first_ad).transpose() {
        Ok(ad) => ad,
        Err(message) => return fail(&message),
    };
    let options = EvalOptions::new().semantics(semantics);
    let mut context = EvalContext::new(&options);
    if let Some(ad) = &my {
        context = context.my(ad);
    }
    if let Some(ad) = &target {
        context = context.target(ad);
    }
    let mut status = ExitCode::SUCCESS;
    for text in exprs {
        match classad::parse_expr(text) {
            Ok(expr) if labels => println!("{} = {}", text.trim(), context.eval(&expr)),
            Ok(expr) => println!("{}", context.eval(&expr)),
            Err(err) => {
                println!("parse error: {err}");
                status = ExitCode::from(1);
            }
        }
    }
    status
}
