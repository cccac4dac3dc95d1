//! `classad query`: select ads from a stream and print them or some of
//! their values, as `condor_status -constraint ... -af ...` does.

use std::cmp::Ordering;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use classad::format::{Format, Writer};
use classad::{ClassAd, EvalContext, EvalOptions, Expr, Semantics, Syntax, Value};

use crate::input::Input;
use crate::{fail, write_failed};

/// What `classad query` was asked.
pub struct Query<'q> {
    pub semantics: Semantics,
    pub constraint: Option<&'q str>,
    pub autoformat: &'q [String],
    pub sort: Option<&'q str>,
    pub from: Option<Format>,
    pub to: Format,
    pub file: Option<&'q Path>,
}

pub fn run(query: &Query<'_>) -> ExitCode {
    let parse = |what: &str, text: &str| -> Result<Expr, ExitCode> {
        classad::parse_expr(text).map_err(|e| {
            eprintln!("classad: bad {what} {text:?}: {e}");
            ExitCode::from(1)
        })
    };
    let constraint = match query.constraint.map(|c| parse("constraint", c)).transpose() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let sort = match query.sort.map(|s| parse("sort expression", s)).transpose() {
        Ok(s) => s,
        Err(code) => return code,
    };
    let columns: Vec<Expr> = match query.autoformat.iter().map(|a| parse("attribute", a)).collect() {
        Ok(columns) => columns,
        Err(code) => return code,
    };
    let input = match Input::open(query.file) {
        Ok(input) => input,
        Err(message) => return fail(&message),
    };
    let name = input.name.clone();
    let options = EvalOptions::new().semantics(query.semantics);
    let mut output = Output::new(query.to, columns, &options);
    let selected = |ad: &ClassAd| constraint.as_ref().is_none_or(|c| EvalContext::new(&options).my(ad).is_true(c));

    let mut kept: Vec<(Value, ClassAd)> = Vec::new();
    for ad in input.ads(query.from) {
        let ad = match ad {
            Ok(ad) => ad,
            Err(e) => {
                eprintln!("classad: {name}: {e}");
                return ExitCode::from(1);
            }
        };
        if !selected(&ad) {
            continue;
        }
        match &sort {
            // Without a sort, each ad goes out as soon as it is read.
            None => {
                if let Err(e) = output.ad(&ad) {
                    return write_failed(&e);
                }
            }
            Some(key) => kept.push((EvalContext::new(&options).my(&ad).eval(key), ad)),
        }
    }
    // A stable sort: ads with equal keys keep their order.
    kept.sort_by(|(a, _), (b, _)| order(a, b));
    for (_, ad) in &kept {
        if let Err(e) = output.ad(ad) {
            return write_failed(&e);
        }
    }
    match output.finish() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => write_failed(&e),
    }
}

/// The order of `--sort` keys: numbers by value, then strings ignoring
/// case, then booleans (false first), then everything else (UNDEFINED,
/// ERROR, lists, ...), which keeps its input order.
fn order(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Int(_) | Value::Real(_) => 0,
            Value::Str(_) => 1,
            Value::Bool(_) => 2,
            _ => 3,
        }
    }
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => {
            x.as_str().bytes().map(|c| c.to_ascii_lowercase()).cmp(y.as_str().bytes().map(|c| c.to_ascii_lowercase()))
        }
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            _ => rank(a).cmp(&rank(b)),
        },
    }
}

/// Where selected ads go: whole, in a format, or as `--af` lines.
struct Output<'o> {
    columns: Vec<Expr>,
    options: &'o EvalOptions,
    writer: Option<Writer<BufWriter<io::StdoutLock<'static>>>>,
    lines: BufWriter<io::StdoutLock<'static>>,
}

impl<'o> Output<'o> {
    fn new(format: Format, columns: Vec<Expr>, options: &'o EvalOptions) -> Output<'o> {
        let writer = columns.is_empty().then(|| Writer::new(BufWriter::new(io::stdout().lock()), format));
        Output { columns, options, writer, lines: BufWriter::new(io::stdout().lock()) }
    }

    fn ad(&mut self, ad: &ClassAd) -> io::Result<()> {
        if let Some(writer) = &mut self.writer {
            return writer.write(ad);
        }
        let context = EvalContext::new(self.options).my(ad);
        let mut line = String::new();
        for (i, column) in self.columns.iter().enumerate() {
            if i > 0 {
                line.push(' ');
            }
            line.push_str(&autoformat(&context.eval(column)));
        }
        line.push('\n');
        self.lines.write_all(line.as_bytes())
    }

    fn finish(self) -> io::Result<()> {
        if let Some(writer) = self.writer {
            writer.finish()?.flush()?;
        }
        let mut lines = self.lines;
        lines.flush()
    }
}

/// A value as `condor_status -af` prints it: strings bare, everything
/// else as HTCondor writes it in old ClassAd syntax (`0.5`, `2.0`,
/// `undefined`, `{ 1,2 }`).
fn autoformat(value: &Value) -> String {
    match value {
        Value::Str(s) => s.as_str().to_owned(),
        other => other.to_expr().display(Syntax::Old).to_string(),
    }
}
