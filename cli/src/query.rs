//! `classad query`: select ads from a stream and print them or some of
//! their values, as `condor_status -constraint ... -af ...` does.

use std::cmp::Ordering;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use classad::format::{Format, Writer};
use classad::functions::versions::natural_order;
use classad::{ClassAd, EvalContext, EvalOptions, Expr, Semantics, Syntax, Value};

use crate::input::Input;
use crate::{fail, write_failed};

/// What `classad query` was asked.
pub struct Query<'q> {
    pub semantics: Semantics,
    pub constraint: Option<&'q str>,
    pub autoformat: &'q [String],
    pub sort: &'q [String],
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
    let sort: Vec<Expr> = match query.sort.iter().map(|s| parse("sort expression", s)).collect() {
        Ok(sort) => sort,
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

    let mut kept: Vec<(Vec<Value>, ClassAd)> = Vec::new();
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
        if sort.is_empty() {
            // Without a sort, each ad goes out as soon as it is read.
            if let Err(e) = output.ad(&ad) {
                return write_failed(&e);
            }
            continue;
        }
        let context = EvalContext::new(&options).my(&ad);
        let keys: Vec<Value> = sort.iter().map(|key| context.eval(key)).collect();
        // condor_status leaves out the ads where a sort key is UNDEFINED.
        if !keys.iter().any(Value::is_undefined) {
            kept.push((keys, ad));
        }
    }
    let keys: Vec<Vec<Key>> = kept.iter().map(|(values, _)| values.iter().map(Key::new).collect()).collect();
    let sorted = stable_sort(kept.len(), |i, j| {
        keys[i].iter().zip(&keys[j]).map(|(x, y)| x.cmp(y)).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
    });
    for &i in &sorted {
        let (_, ad) = &kept[i];
        if let Err(e) = output.ad(ad) {
            return write_failed(&e);
        }
    }
    match output.finish() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => write_failed(&e),
    }
}

/// A `--sort` key: condor_status's order, but numbers by value.
///
/// condor_status sorts by text: strings as they are, integers and
/// booleans in decimal, reals as the decimal integer of their bits, other
/// values as written, compared in HTCondor's natural order (digit runs as
/// numbers, case-sensitive: `"B"` before `"a"`). That puts negative
/// numbers in reverse and every real after every integer; here numbers
/// (booleans as 0 and 1) compare by value, between the texts that sort
/// before any number's (the empty string, those starting with a space or
/// punctuation before `-`, or a non-ASCII byte) and the others.
#[derive(Debug)]
enum Key {
    Before(String),
    Number(f64),
    After(String),
}

impl Key {
    fn new(value: &Value) -> Key {
        let text = match value {
            Value::Bool(b) => return Key::Number(f64::from(u8::from(*b))),
            Value::Int(_) | Value::Real(_) => return Key::Number(value.as_f64().unwrap_or(f64::NAN)),
            Value::Str(s) => s.as_str().to_owned(),
            other => other.to_expr().to_string(),
        };
        // Bytes compare as C's signed chars.
        match text.bytes().next() {
            None => Key::Before(text),
            Some(b) if (b as i8) < b'-' as i8 => Key::Before(text),
            Some(_) => Key::After(text),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Key::Before(_) => 0,
            Key::Number(_) => 1,
            Key::After(_) => 2,
        }
    }

    fn cmp(&self, other: &Key) -> Ordering {
        match (self, other) {
            (Key::Number(a), Key::Number(b)) => a.total_cmp(b),
            (Key::Before(a), Key::Before(b)) | (Key::After(a), Key::After(b)) => natural_order(a, b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

/// The indices `0..len` in the order `cmp` gives, equal ones in index
/// order: a merge sort that ends and stays in bounds whatever `cmp`
/// answers (the standard library's sort may panic when an order is not
/// total, and natural order is HTCondor's, not proven total).
fn stable_sort(len: usize, cmp: impl Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut items: Vec<usize> = (0..len).collect();
    let mut buffer = Vec::with_capacity(len);
    let mut width = 1;
    while width < len {
        buffer.clear();
        for start in (0..len).step_by(2 * width) {
            let middle = (start + width).min(len);
            let end = (start + 2 * width).min(len);
            let (mut i, mut j) = (start, middle);
            while i < middle && j < end {
                if cmp(items[j], items[i]) == Ordering::Less {
                    buffer.push(items[j]);
                    j += 1;
                } else {
                    buffer.push(items[i]);
                    i += 1;
                }
            }
            buffer.extend_from_slice(&items[i..middle]);
            buffer.extend_from_slice(&items[j..end]);
        }
        std::mem::swap(&mut items, &mut buffer);
        width *= 2;
    }
    items
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
