//! `classad query`: select ads from a stream and print them or some of
//! their values, as `condor_status -constraint ... -af ...` does.

use std::cmp::Ordering;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use classad::format::{Format, Writer};
use classad::functions::versions::natural_order;
use classad::{ClassAd, EvalContext, EvalOptions, Expr, Node, Semantics, Syntax, Value};

use crate::input::Input;
use crate::{fail, printf, write_failed};

/// What `classad query` was asked.
pub struct Query<'q> {
    pub semantics: Semantics,
    pub constraint: Option<&'q str>,
    pub autoformat: &'q [String],
    /// The letters of `-af:FLAGS`.
    pub af_options: &'q str,
    /// `--format FMT EXPR` pairs, flattened.
    pub format: &'q [String],
    pub sort: &'q [String],
    pub limit: Option<usize>,
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
    let columns: Vec<(String, Expr)> =
        match query.autoformat.iter().map(|a| Ok((a.clone(), parse("attribute", a)?))).collect() {
            Ok(columns) => columns,
            Err(code) => return code,
        };
    let mut formats = Vec::new();
    for pair in query.format.chunks(2) {
        let [format, attribute] = pair else { continue };
        let format = match printf::Format::parse(format) {
            Ok(format) => format,
            Err(printf::BadFormat(message)) => {
                eprintln!("classad: bad format: {message}");
                return ExitCode::from(1);
            }
        };
        match parse("attribute", attribute) {
            Ok(expr) => formats.push((format, expr)),
            Err(code) => return code,
        }
    }
    let input = match Input::open(query.file) {
        Ok(input) => input,
        Err(message) => return fail(&message),
    };
    let name = input.name.clone();
    let options = EvalOptions::new().semantics(query.semantics);
    let style = match Style::new(query.af_options) {
        Ok(style) => style,
        Err(message) => {
            eprintln!("classad: {message}");
            return ExitCode::from(1);
        }
    };
    let mut output = if !formats.is_empty() {
        Output::Printf(formats)
    } else if !columns.is_empty() {
        Output::Columns(Columns::new(columns, style))
    } else {
        Output::Whole(Writer::new(BufWriter::new(io::stdout().lock()), query.to))
    };
    let mut lines = BufWriter::new(io::stdout().lock());
    let selected = |ad: &ClassAd| constraint.as_ref().is_none_or(|c| EvalContext::new(&options).my(ad).is_true(c));

    let mut count = 0;
    let mut kept: Vec<(Vec<Value>, ClassAd)> = Vec::new();
    for ad in input.ads(query.from) {
        if query.limit.is_some_and(|limit| count >= limit) {
            break;
        }
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
            count += 1;
            if let Err(e) = output.ad(&ad, &options, &mut lines) {
                return write_failed(&e);
            }
            continue;
        }
        let context = EvalContext::new(&options).my(&ad);
        let keys: Vec<Value> = sort.iter().map(|key| context.eval(key)).collect();
        // condor_status leaves out the ads where a sort key is UNDEFINED
        // (before it counts them for -limit).
        if !keys.iter().any(Value::is_undefined) {
            count += 1;
            kept.push((keys, ad));
        }
    }
    let keys: Vec<Vec<Key>> = kept.iter().map(|(values, _)| values.iter().map(Key::new).collect()).collect();
    let sorted = stable_sort(kept.len(), |i, j| {
        keys[i].iter().zip(&keys[j]).map(|(x, y)| x.cmp(y)).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
    });
    for &i in &sorted {
        let (_, ad) = &kept[i];
        if let Err(e) = output.ad(ad, &options, &mut lines) {
            return write_failed(&e);
        }
    }
    match output.finish(&mut lines).and_then(|()| lines.flush()) {
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

type Lines = BufWriter<io::StdoutLock<'static>>;

/// Where selected ads go: whole, in a format, as `--af` columns or
/// through `--format`s.
enum Output {
    Whole(Writer<Lines>),
    Columns(Columns),
    Printf(Vec<(printf::Format, Expr)>),
}

impl Output {
    fn ad(&mut self, ad: &ClassAd, options: &EvalOptions, lines: &mut Lines) -> io::Result<()> {
        let context = EvalContext::new(options).my(ad);
        match self {
            Output::Whole(writer) => writer.write(ad),
            Output::Columns(columns) => columns.ad(ad, &context, lines),
            Output::Printf(formats) => {
                let mut text = String::new();
                for (format, expr) in formats.iter() {
                    if let Some(piece) = format.render(expr, &context.eval(expr)) {
                        text.push_str(&piece);
                    }
                }
                lines.write_all(text.as_bytes())
            }
        }
    }

    fn finish(self, lines: &mut Lines) -> io::Result<()> {
        match self {
            Output::Whole(writer) => writer.finish()?.flush(),
            Output::Columns(columns) => columns.finish(lines),
            Output::Printf(_) => Ok(()),
        }
    }
}

/// How `-af:FLAGS` lays out the columns (condor_status's letters).
#[derive(Default)]
struct Style {
    /// `h`: a header line, columns padded to their widest value.
    headers: bool,
    /// `l`: `EXPR = value`.
    labels: bool,
    /// `j`: the job ID (`ClusterId.ProcId`) first, as condor_q prints it.
    job_id: bool,
    /// `r`: attributes' expressions as written, not their values.
    raw: bool,
    /// `V`: strings quoted.
    quoted: bool,
    /// Before each column but the first (` `; `t`: a tab; `g`: nothing).
    before: &'static str,
    /// After each column but the last (`,`: a comma; `n`: a newline).
    after: &'static str,
    /// Before each ad's line (`g`: a newline).
    line_start: &'static str,
}

impl Style {
    fn new(flags: &str) -> Result<Style, String> {
        let mut style = Style { before: " ", ..Style::default() };
        for flag in flags.chars() {
            match flag {
                ',' => style.after = ",",
                'n' => style.after = "\n",
                'g' => {
                    style.before = "";
                    style.line_start = "\n";
                }
                't' => style.before = "\t",
                'l' => style.labels = true,
                'V' => style.quoted = true,
                'r' | 'o' => style.raw = true,
                'h' => style.headers = true,
                'j' => style.job_id = true,
                other => return Err(format!("unknown -af option {other:?} (known: h j l r V t n g ,)")),
            }
        }
        Ok(style)
    }
}

/// A cell of a `-af:h` table: its text, and how wide it counts for its
/// column's width: as condor_status counts, strings by their text without
/// quotes, reals as at least 21 characters, integers and job IDs as
/// printed, other values (UNDEFINED, booleans, lists) not at all.
struct Cell {
    text: String,
    size: usize,
}

/// `--af` output: one line per ad; with headers, the lines are kept
/// until the widths are known.
struct Columns {
    columns: Vec<(String, Expr)>,
    style: Style,
    rows: Vec<Vec<Cell>>,
    /// With `j` and `h`: whether some ad has a job ID.
    any_id: bool,
}

impl Columns {
    fn new(columns: Vec<(String, Expr)>, style: Style) -> Columns {
        Columns { columns, style, rows: Vec::new(), any_id: false }
    }

    fn ad(&mut self, ad: &ClassAd, context: &EvalContext<'_>, lines: &mut Lines) -> io::Result<()> {
        let mut cells = Vec::with_capacity(self.columns.len() + 1);
        let id = if self.style.job_id { job_id(ad) } else { None };
        let has_id = id.is_some();
        if self.style.headers && self.style.job_id {
            // The column is there if any ad has an ID.
            self.any_id |= has_id;
            let text = id.unwrap_or_default();
            cells.push(Cell { size: text.len(), text });
        } else if let Some(id) = id {
            cells.push(Cell { size: id.len(), text: id });
        }
        for (_, expr) in &self.columns {
            cells.push(self.cell(ad, context, expr));
        }
        if self.style.headers {
            self.rows.push(cells);
            return Ok(());
        }
        let mut line = String::from(self.style.line_start);
        let labels = has_id.then_some("ID").into_iter().chain(self.columns.iter().map(|(h, _)| h.as_str()));
        for (i, (cell, label)) in cells.iter().zip(labels).enumerate() {
            if i > 0 {
                line.push_str(self.style.after);
                line.push_str(self.style.before);
            }
            if self.style.labels {
                line.push_str(label);
                line.push_str(" = ");
            }
            line.push_str(&cell.text);
        }
        line.push('\n');
        lines.write_all(line.as_bytes())
    }

    fn cell(&self, ad: &ClassAd, context: &EvalContext<'_>, expr: &Expr) -> Cell {
        if self.style.raw {
            let text = match expr.as_node() {
                Some(Node::Attr(name)) => match ad.lookup(*name) {
                    Some(value) => value.display(Syntax::Old).to_string(),
                    None => "undefined".to_owned(),
                },
                _ => expr.display(Syntax::Old).to_string(),
            };
            return Cell { size: text.chars().count(), text };
        }
        let value = context.eval(expr);
        let text = match &value {
            Value::Str(s) if !self.style.quoted => s.as_str().to_owned(),
            other => other.to_expr().display(Syntax::Old).to_string(),
        };
        let size = match &value {
            Value::Str(s) => s.as_str().chars().count(),
            Value::Int(_) => text.len(),
            Value::Real(_) => text.len().max(21),
            _ => 0,
        };
        Cell { text, size }
    }

    /// With headers: the header line and the kept lines, each column as
    /// wide as its header and widest value.
    fn finish(self, lines: &mut Lines) -> io::Result<()> {
        if !self.style.headers {
            return Ok(());
        }
        let mut headers: Vec<String> = Vec::new();
        if self.any_id {
            headers.push(" ID".to_owned());
        }
        headers.extend(self.columns.iter().map(|(h, _)| h.clone()));
        let rows = match (self.style.job_id, self.any_id) {
            (true, true) => align_job_ids(self.rows),
            (true, false) => self.rows.into_iter().map(|row| row.into_iter().skip(1).collect()).collect(),
            _ => self.rows,
        };
        let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
        for row in &rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.size);
            }
        }
        let header_cells = headers.into_iter().map(|text| Cell { size: 0, text }).collect();
        for row in std::iter::once(header_cells).chain(rows) {
            let mut line = String::from(self.style.line_start);
            for (i, (cell, width)) in row.iter().zip(&widths).enumerate() {
                if i > 0 {
                    line.push_str(self.style.after);
                    line.push_str(self.style.before);
                }
                line.push_str(&cell.text);
                let len = cell.text.chars().count();
                if len < *width {
                    line.push_str(&" ".repeat(width - len));
                }
            }
            line.push('\n');
            lines.write_all(line.as_bytes())?;
        }
        Ok(())
    }
}

/// `ClusterId.ProcId`, as `condor_q -af:j` prints it (`5.` without a
/// ProcId, `3` without a ClusterId); `None` for an ad with neither (a
/// machine: condor_status prints no ID).
fn job_id(ad: &ClassAd) -> Option<String> {
    let int = |name: &str| match ad.lookup(name).and_then(Expr::as_literal) {
        Some(classad::Literal::Int(i)) => Some(*i),
        _ => None,
    };
    match (int("ClusterId"), int("ProcId")) {
        (Some(cluster), Some(proc)) => Some(format!("{cluster}.{proc}")),
        (Some(cluster), None) => Some(format!("{cluster}.")),
        (None, Some(proc)) => Some(proc.to_string()),
        (None, None) => None,
    }
}

/// Job IDs in a table as condor_q aligns them: the cluster numbers to
/// the right, the proc numbers (at least 3 wide) to the left of the dot.
fn align_job_ids(mut rows: Vec<Vec<Cell>>) -> Vec<Vec<Cell>> {
    let split = |text: &str| text.split_once('.').map(|(c, p)| (c.len(), p.len()));
    let (mut clusters, mut procs) = (0, 3);
    for row in &rows {
        if let Some((c, p)) = row.first().and_then(|cell| split(&cell.text)) {
            clusters = clusters.max(c);
            procs = procs.max(p);
        }
    }
    for row in &mut rows {
        if let Some(cell) = row.first_mut() {
            if let Some((cluster, proc)) = cell.text.split_once('.') {
                cell.text = format!("{cluster:>clusters$}.{proc:<procs$}");
                cell.size = cell.text.len();
            }
        }
    }
    rows
}
