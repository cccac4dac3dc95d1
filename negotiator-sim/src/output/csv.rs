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

use std::io::Write;
use std::path::{Path, PathBuf};

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
    let mut line = String::new();
    for (i, (name, _)) in table.columns.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        push_name(&mut line, name);
    }
    line.push('\n');
    out.write_all(line.as_bytes())?;
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
struct Field {
    text: String,
    quoted: bool,
    line: usize,
}

fn parse(name: &str, text: &str, path: &Path) -> Result<Table, OutputError> {
    let err = |line: usize, message: String| OutputError::Csv { path: path.to_path_buf(), line, message };
    let records = split_records(text, path)?;
    let mut records = records.into_iter();
    let Some(header) = records.next() else {
        return Err(err(1, "empty file: no header line".into()));
    };
    let names: Vec<String> = header.iter().map(|f| f.text.clone()).collect();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(err(1, format!("column {n:?} appears twice")));
        }
    }
    let mut cells: Vec<Vec<Field>> = names.iter().map(|_| Vec::new()).collect();
    for record in records {
        let line = record.first().map_or(0, |f| f.line);
        if record.len() != names.len() {
            return Err(err(line, format!("{} fields, but the header names {} columns", record.len(), names.len())));
        }
        for (col, field) in cells.iter_mut().zip(record) {
            col.push(field);
        }
    }
    let mut table = Table::new(name);
    for (column_name, fields) in names.iter().zip(cells) {
        let ty = schema::column_type(name, column_name).unwrap_or_else(|| infer(&fields));
        let column = match ty {
            ColumnType::Str => Column::Str(fields.into_iter().map(|f| f.text).collect()),
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

/// Splits text into records of fields (RFC 4180: quoted fields may hold
/// commas, doubled quotes and line breaks). Blank lines at the end are
/// ignored.
fn split_records(text: &str, path: &Path) -> Result<Vec<Vec<Field>>, OutputError> {
    let err =
        |line: usize, message: &str| OutputError::Csv { path: PathBuf::from(path), line, message: message.to_string() };
    let mut records = Vec::new();
    let mut record: Vec<Field> = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    loop {
        // At the start of a field.
        let start_line = line;
        let mut field = String::new();
        let quoted = chars.peek() == Some(&'"');
        if quoted {
            chars.next();
            loop {
                match chars.next() {
                    None => return Err(err(start_line, "a quoted field is not closed")),
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => {
                        if c == '\n' {
                            line += 1;
                        }
                        field.push(c);
                    }
                }
            }
        }
        // Unquoted text, or what follows the closing quote.
        loop {
            match chars.peek() {
                None | Some(',') | Some('\n') => break,
                Some('\r') => {
                    chars.next();
                    if chars.peek() != Some(&'\n') {
                        return Err(err(line, "a carriage return outside quotes not followed by a line feed"));
                    }
                }
                Some('"') => return Err(err(line, "a quote inside an unquoted field (quote the whole field)")),
                Some(&c) => {
                    if quoted {
                        return Err(err(line, "text after a closing quote"));
                    }
                    chars.next();
                    field.push(c);
                }
            }
        }
        record.push(Field { text: field, quoted, line: start_line });
        match chars.next() {
            Some(',') => {}
            Some('\n') => {
                line += 1;
                records.push(std::mem::take(&mut record));
            }
            _ => {
                // End of text: a last line without its line feed.
                let blank = record.len() == 1 && !record[0].quoted && record[0].text.is_empty();
                if !blank {
                    records.push(record);
                }
                break;
            }
        }
    }
    // Trailing blank lines.
    while records.last().is_some_and(|r| r.len() == 1 && !r[0].quoted && r[0].text.is_empty()) {
        records.pop();
    }
    Ok(records)
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
    fn writing_is_deterministic() {
        assert_eq!(to_csv_string(&sample()), to_csv_string(&sample().clone()));
    }
}
