//! `classad`: the ClassAd command-line tool.
//!
//! ```text
//! classad eval [--semantics new|old] [--my FILE] [--target FILE] [--] EXPR...
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use classad::{ClassAd, EvalContext, EvalOptions, Semantics};

#[derive(Parser)]
#[command(name = "classad", version, about = "Evaluate and inspect HTCondor ClassAds")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate expressions, printing one value per line in canonical new syntax.
    ///
    /// Each EXPR is evaluated in the context of the MY ad (and, when given,
    /// with the TARGET ad as its match partner). A line starting
    /// `parse error:` reports an EXPR that does not parse; the exit status
    /// is then 1. Time functions use the TZ environment variable.
    Eval {
        /// Evaluation semantics: `new` (libclassad's default) or `old`
        /// (HTCondor's daemons and tools: unscoped names fall back to TARGET).
        #[arg(long, value_enum, default_value_t = SemanticsArg::New)]
        semantics: SemanticsArg,
        /// File holding the MY ad (new syntax `[ ... ]`).
        #[arg(long, value_name = "FILE")]
        my: Option<PathBuf>,
        /// File holding the TARGET ad (new syntax `[ ... ]`).
        #[arg(long, value_name = "FILE")]
        target: Option<PathBuf>,
        /// Expressions to evaluate, in order.
        #[arg(required = true, value_name = "EXPR", allow_hyphen_values = true)]
        exprs: Vec<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum SemanticsArg {
    New,
    Old,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Eval { semantics, my, target, exprs } => eval(semantics, my.as_deref(), target.as_deref(), &exprs),
    }
}

fn eval(semantics: SemanticsArg, my: Option<&Path>, target: Option<&Path>, exprs: &[String]) -> ExitCode {
    let semantics = match semantics {
        SemanticsArg::New => Semantics::New,
        SemanticsArg::Old => Semantics::Old,
    };
    let my = match my.map(read_ad).transpose() {
        Ok(ad) => ad,
        Err(message) => return fail(&message),
    };
    let target = match target.map(read_ad).transpose() {
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
            Ok(expr) => println!("{}", context.eval(&expr)),
            Err(err) => {
                println!("parse error: {err}");
                status = ExitCode::from(1);
            }
        }
    }
    status
}

/// Reads the ad in `path` (new syntax).
fn read_ad(path: &Path) -> Result<ClassAd, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    classad::parse_ad(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn fail(message: &str) -> ExitCode {
    eprintln!("classad: {message}");
    ExitCode::from(2)
}
