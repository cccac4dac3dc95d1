//! Tables as CSV, in the quoting of RFC 4180.
//!
//! The first line names the columns; each following line is one row.
//! Lines end in `\n` (the reader also takes `\r\n`). Text values are
//! always written between double quotes (a quote inside is doubled), so
//! a value that looks like a number stays text; integers are written in
//! decimal, reals in the shortest form that reads back to the very same
//! `f64` (`0.1`, `2.0`, `1e-7`, `NaN`, `inf`, `-inf`), which is also the
//! same on every platform and every run. A real is always written with a
//! `.`, an exponent or as a name, so it never reads back as an integer.
//!
//! The reader types a column by the table's fixed schema
//! ([`crate::output::schema`]) when the file is named after one of the
//! four tables, and otherwise by its values: text if any value was
//! quoted, else integer if all are, else real if all are, else text.
//!
//! ```
//! use negotiator_sim::output::csv::{from_csv_str, to_csv_string};
//! use negotiator_sim::table::{Column, Table};
//!
//! let mut t = Table::new("jobs");
//! t.push("job", Column::Str(vec!["1.0".into(), "say \"hi\", twice".into()]));
//! t.push("wait", Column::Int(vec![30, -1]));
//! t.push("ratio", Column::Float(vec![0.1, 3.0]));
//! let text = to_csv_string(&t);
//! assert_eq!(text, "job,wait,ratio\n\"1.0\",30,0.1\n\"say \"\"hi\"\", twice\",-1,3.0\n");
//! assert_eq!(from_csv_str("jobs", &text)?, t);
//! # Ok::<(), negotiator_sim::output::OutputError>(())
//! ```

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

use crate::output::schema::{self, ColumnType};
use crate::output::{io_error, OutputError};
use crate::table::{Column, Table};

/// Writes `table` as CSV to `path` (replacing it).
pub fn write_file(path: &Path, table: &Table) -> Result<(), OutputError> {
    let file = std::fs::File::create(path).map_err(io_error(path))?;
    let mut out = std::io::BufWriter::new(file);
    write(&mut out, table).map_err(io_error(path))?;
    out.flush().map_err(io_error(path))
}

/// Writes `table` as CSV to `out`.
pub fn write(out: &mut impl Write, table: &Table) -> std::io::Result<()> {
    write_header(out, table)?;
    write_rows(out, table)
}

/// Writes the header line of `table` (its column names) as CSV to `out`.
pub fn write_header(out: &mut impl Write, table: &Table) -> std::io::Result<()> {
    let mut line = String::new();
    for (i, (name, _)) in table.columns.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        push_name(&mut line, name);
    }
    line.push('\n');
    out.write_all(line.as_bytes())
}

/// Writes the rows of `table` as CSV to `out`, without the header line:
/// the header and then the rows of tables with the same columns, one
/// after another, are the CSV of the table of all their rows.
///
/// ```
/// use negotiator_sim::output::csv::{to_csv_string, write_header, write_rows};
/// use negotiator_sim::table::{Column, Table};
///
/// let part = |v: Vec<i64>| {
///     let mut t = Table::new("t");
///     t.push("n", Column::Int(v));
///     t
/// };
/// let mut out = Vec::new();
/// write_header(&mut out, &part(vec![]))?;
/// write_rows(&mut out, &part(vec![1, 2]))?;
/// write_rows(&mut out, &part(vec![3]))?;
/// assert_eq!(String::from_utf8(out)?, to_csv_string(&part(vec![1, 2, 3])));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_rows(out: &mut impl Write, table: &Table) -> std::io::Result<()> {
    let mut line = String::new();
    for row in 0..table.rows() {
        line.clear();
        for (i, (_, column)) in table.columns.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            match column {
                Column::Int(v) => line.push_str(&v[row].to_string()),
                Column::Float(v) => push_float(&mut line, v[row]),
                Column::Str(v) => push_quoted(&mut line, &v[row]),
            }
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// `table` as CSV text.
pub fn to_csv_string(table: &Table) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write(&mut out, table);
    String::from_utf8_lossy(&out).into_owned()
}

/// A real in the shortest form that reads back exactly: Rust's `{:?}`
/// (`1.0`, `0.1`, `1e-7`, `1e20`, `NaN`, `inf`).
pub fn format_float(x: f64) -> String {
    format!("{x:?}")
}

fn push_float(line: &mut String, x: f64) {
    line.push_str(&format_float(x));
}

fn push_quoted(line: &mut String, s: &str) {
    line.push('"');
    for c in s.chars() {
        if c == '"' {
            line.push('"');
        }
        line.push(c);
    }
    line.push('"');
}

fn push_name(line: &mut String, name: &str) {
    if name.is_empty() || name.contains([',', '"', '\n', '\r']) || name.trim() != name {
        push_quoted(line, name);
    } else {
        line.push_str(name);
    }
}

/// Reads the CSV file `path` into a table named after the file (without
/// its extension).
pub fn read_file(path: &Path) -> Result<Table, OutputError> {
    let text = std::fs::read_to_string(path).map_err(io_error(path))?;
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    parse(&name, &text, path)
}

/// Reads CSV text into a table called `name`.
pub fn from_csv_str(name: &str, text: &str) -> Result<Table, OutputError> {
    parse(name, text, Path::new(name))
}

/// One field: its text, whether it was quoted, and the line it began on.
struct Field<'a> {
    text: Cow<'a, str>,
    quoted: bool,
    line: usize,
}

fn parse(name: &str, text: &str, path: &Path) -> Result<Table, OutputError> {
    let err = |line: usize, message: String| OutputError::Csv { path: path.to_path_buf(), line, message };
    let mut fields = Fields { text, pos: 0, line: 1, path };
    // The header.
    let mut names: Vec<String> = Vec::new();
    while let Some((field, end)) = fields.next_field()? {
        names.push(field.text.into_owned());
        if end {
            break;
        }
    }
    if names.is_empty() || (names.len() == 1 && names[0].is_empty()) {
        return Err(err(1, "empty file: no header line".into()));
    }
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(err(1, format!("column {n:?} appears twice")));
        }
    }
    let mut cells: Vec<Vec<Field>> = names.iter().map(|_| Vec::new()).collect();
    let mut col = 0;
    let mut record_line = fields.line;
    while let Some((field, end)) = fields.next_field()? {
        if col == 0 {
            record_line = field.line;
            // A blank line (at the end of the file): no record.
            if end && !field.quoted && field.text.is_empty() {
                continue;
            }
        }
        if col < names.len() {
            cells[col].push(field);
        }
        col += 1;
        if end {
            if col != names.len() {
                return Err(err(record_line, format!("{col} fields, but the header names {} columns", names.len())));
            }
            col = 0;
        }
    }
    if col != 0 {
        // The text ended right after a comma: an empty last field.
        if col + 1 != names.len() {
            return Err(err(record_line, format!("{} fields, but the header names {} columns", col + 1, names.len())));
        }
        cells[col].push(Field { text: Cow::Borrowed(""), quoted: false, line: fields.line });
    }
    let mut table = Table::new(name);
    for (column_name, fields) in names.iter().zip(cells) {
        let ty = schema::column_type(name, column_name).unwrap_or_else(|| infer(&fields));
        let column = match ty {
            ColumnType::Str => Column::Str(fields.into_iter().map(|f| f.text.into_owned()).collect()),
            ColumnType::Int => Column::Int(
                fields
                    .iter()
                    .map(|f| {
                        f.text
                            .parse::<i64>()
                            .map_err(|_| err(f.line, format!("column {column_name}: {:?} is not an integer", f.text)))
                    })
                    .collect::<Result<_, _>>()?,
            ),
            ColumnType::Float => Column::Float(
                fields
                    .iter()
                    .map(|f| {
                        parse_float(&f.text)
                            .ok_or_else(|| err(f.line, format!("column {column_name}: {:?} is not a number", f.text)))
                    })
                    .collect::<Result<_, _>>()?,
            ),
        };
        table.push(column_name, column);
    }
    Ok(table)
}

fn parse_float(s: &str) -> Option<f64> {
    // Rust's parser also takes "infinity" and a leading '+'; both are fine.
    if s.is_empty() {
        return None;
    }
    s.parse::<f64>().ok()
}

fn infer(fields: &[Field]) -> ColumnType {
    if fields.iter().any(|f| f.quoted) {
        ColumnType::Str
    } else if fields.iter().all(|f| f.text.parse::<i64>().is_ok()) {
        ColumnType::Int
    } else if fields.iter().all(|f| parse_float(&f.text).is_some()) {
        ColumnType::Float
    } else {
        ColumnType::Str
    }
}

/// The fields of CSV text, one after the other (RFC 4180: quoted fields
/// may hold commas, doubled quotes and line breaks). Fields borrow the
/// text unless a doubled quote must be undone.
struct Fields<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    path: &'a Path,
}

impl<'a> Fields<'a> {
    fn error(&self, line: usize, message: &str) -> OutputError {
        OutputError::Csv { path: self.path.to_path_buf(), line, message: message.to_string() }
    }

    /// The next field and whether it ends its record; `None` at the end.
    fn next_field(&mut self) -> Result<Option<(Field<'a>, bool)>, OutputError> {
        let bytes = self.text.as_bytes();
        if self.pos >= bytes.len() {
            return Ok(None);
        }
        let line = self.line;
        let (text, quoted) = if bytes[self.pos] == b'"' {
            let start = self.pos + 1;
            let mut i = start;
            let mut doubled = false;
            loop {
                match memchr::memchr2(b'"', b'\n', &bytes[i..]) {
                    None => return Err(self.error(line, "a quoted field is not closed")),
                    Some(k) if bytes[i + k] == b'\n' => {
                        self.line += 1;
                        i += k + 1;
                    }
                    Some(k) => {
                        if bytes.get(i + k + 1) == Some(&b'"') {
                            doubled = true;
                            i += k + 2;
                        } else {
                            i += k;
                            break;
                        }
                    }
                }
            }
            let raw = &self.text[start..i];
            self.pos = i + 1;
            (if doubled { Cow::Owned(raw.replace("\"\"", "\"")) } else { Cow::Borrowed(raw) }, true)
        } else {
            let start = self.pos;
            let k = memchr::memchr3(b',', b'\n', b'"', &bytes[start..]).map_or(bytes.len(), |k| start + k);
            if bytes.get(k) == Some(&b'"') {
                return Err(self.error(line, "a quote inside an unquoted field (quote the whole field)"));
            }
            self.pos = k;
            let mut raw = &self.text[start..k];
            if let Some(stripped) = raw.strip_suffix('\r') {
                raw = stripped;
            }
            if raw.contains('\r') {
                return Err(self.error(line, "a carriage return outside quotes not followed by a line feed"));
            }
            (Cow::Borrowed(raw), false)
        };
        // What follows the field: a comma, a line end or the end.
        let mut pos = self.pos;
        if quoted && bytes.get(pos) == Some(&b'\r') && bytes.get(pos + 1) == Some(&b'\n') {
            pos += 1;
        }
        let end = match bytes.get(pos) {
            None => true,
            Some(b',') => false,
            Some(b'\n') => {
                self.line += 1;
                true
            }
            Some(_) => return Err(self.error(self.line, "text after a closing quote")),
        };
        self.pos = pos + 1;
        Ok(Some((Field { text, quoted, line }, end)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new("mixed");
        t.push("name", Column::Str(vec!["a,b".into(), "line\nbreak".into(), "".into(), "42".into()]));
        t.push("n", Column::Int(vec![i64::MIN, 0, -1, i64::MAX]));
        t.push("x", Column::Float(vec![0.1 + 0.2, f64::MIN_POSITIVE, 1e300, -0.0]));
        t
    }

    #[test]
    fn round_trip_keeps_every_value_exactly() {
        let t = sample();
        let text = to_csv_string(&t);
        let back = from_csv_str("mixed", &text).unwrap();
        assert_eq!(back, t);
        // Bit for bit, -0.0 included.
        let (Some(Column::Float(a)), Some(Column::Float(b))) = (t.column("x"), back.column("x")) else { panic!() };
        for (x, y) in a.iter().zip(b) {
            assert_eq!(x.to_bits(), y.to_bits());
        }
        assert!(text.contains("0.30000000000000004"), "{text}");
        assert!(text.contains("\"line\nbreak\""), "{text}");
    }

    #[test]
    fn non_finite_reals_round_trip() {
        let mut t = Table::new("t");
        t.push("x", Column::Float(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY]));
        let text = to_csv_string(&t);
        assert_eq!(text, "x\nNaN\ninf\n-inf\n");
        let Some(Column::Float(v)) = from_csv_str("t", &text).unwrap().column("x").cloned() else { panic!() };
        assert!(v[0].is_nan() && v[1] == f64::INFINITY && v[2] == f64::NEG_INFINITY);
    }

    #[test]
    fn integral_reals_stay_reals() {
        let mut t = Table::new("t");
        t.push("x", Column::Float(vec![1.0, 100.0, 1e20]));
        assert_eq!(to_csv_string(&t), "x\n1.0\n100.0\n1e20\n");
        assert_eq!(from_csv_str("t", &to_csv_string(&t)).unwrap(), t);
    }

    #[test]
    fn schema_types_the_known_tables() {
        // A user called "7" and an empty group stay text; an empty table
        // keeps its column types.
        let text = "time,user,group,usage\n0,7,,1\n";
        let t = from_csv_str("users", text).unwrap();
        assert_eq!(t.column("user"), Some(&Column::Str(vec!["7".into()])));
        assert_eq!(t.column("group"), Some(&Column::Str(vec!["".into()])));
        assert_eq!(t.column("usage"), Some(&Column::Float(vec![1.0])));
        let empty = from_csv_str("cycles", "time,busy_slots\n").unwrap();
        assert_eq!(empty.column("busy_slots"), Some(&Column::Float(vec![])));
    }

    #[test]
    fn crlf_and_missing_final_newline_are_read() {
        let t = from_csv_str("t", "a,b\r\n1,\"x\"\r\n2,\"y\"").unwrap();
        assert_eq!(t.column("a"), Some(&Column::Int(vec![1, 2])));
        assert_eq!(t.column("b"), Some(&Column::Str(vec!["x".into(), "y".into()])));
    }

    #[test]
    fn bad_input_names_the_line() {
        let e = from_csv_str("cycles", "time,matches\n0,1\n60,x\n").unwrap_err().to_string();
        assert_eq!(e, "cycles:3: column matches: \"x\" is not an integer");
        let e = from_csv_str("t", "a,b\n1,2\n3\n").unwrap_err().to_string();
        assert_eq!(e, "t:3: 1 fields, but the header names 2 columns");
        let e = from_csv_str("t", "a\n\"open\n").unwrap_err().to_string();
        assert_eq!(e, "t:2: a quoted field is not closed");
        let e = from_csv_str("t", "a\n\"x\"y\n").unwrap_err().to_string();
        assert_eq!(e, "t:2: text after a closing quote");
        let e = from_csv_str("t", "").unwrap_err().to_string();
        assert_eq!(e, "t:1: empty file: no header line");
    }

    #[test]
    fn empty_fields_and_line_breaks_in_quotes() {
        let t = from_csv_str("t", "a,b,c\n1,,\"x\ny\"\n2,\"\",\n").unwrap();
        assert_eq!(t.column("b"), Some(&Column::Str(vec!["".into(), "".into()])));
        assert_eq!(t.column("c"), Some(&Column::Str(vec!["x\ny".into(), "".into()])));
        // Line numbers count the line breaks inside quotes.
        let e = from_csv_str("t", "a,b\n\"x\ny\",1\n2\n").unwrap_err().to_string();
        assert_eq!(e, "t:4: 1 fields, but the header names 2 columns");
        // A last line ending in a comma has an empty last field.
        let t = from_csv_str("t", "a,b\n\"1\",").unwrap();
        assert_eq!(t.column("b"), Some(&Column::Str(vec!["".into()])));
        let e = from_csv_str("t", "a,b,c\n1,").unwrap_err().to_string();
        assert_eq!(e, "t:2: 2 fields, but the header names 3 columns");
        let e = from_csv_str("t", "a\nx\"y\n").unwrap_err().to_string();
        assert_eq!(e, "t:2: a quote inside an unquoted field (quote the whole field)");
        let e = from_csv_str("t", "a,a\n").unwrap_err().to_string();
        assert_eq!(e, "t:1: column \"a\" appears twice");
    }

    #[test]
    fn writing_is_deterministic() {
        assert_eq!(to_csv_string(&sample()), to_csv_string(&sample().clone()));
    }
}
