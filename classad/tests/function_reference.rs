//! The function reference in the crate docs (`src/functions/reference.md`):
//! every built-in has a row, and every row's example gives the value the
//! row states (in UTC).

use classad::{parse_expr, Clock, EvalOptions, RandomSource, Semantics};

const REFERENCE: &str = include_str!("../src/functions/reference.md");

/// The cells of the table rows (header and separator rows excluded).
fn rows() -> Vec<Vec<String>> {
    REFERENCE
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| line.trim_matches('|').split(" | ").map(|cell| cell.trim().to_owned()).collect())
        .collect()
}

/// The text between the backticks of a cell.
fn code(cell: &str) -> &str {
    cell.strip_prefix('`').and_then(|c| c.strip_suffix('`')).unwrap_or_else(|| panic!("not code: {cell}"))
}

#[test]
fn every_example_gives_its_value() {
    // The examples that read the local zone are written for UTC.
    std::env::set_var("TZ", "UTC");
    jiff::tz::reset_system_time_zone_cache();
    let options =
        EvalOptions::new().semantics(Semantics::Old).clock(Clock::Fixed(1_700_000_000)).random(RandomSource::Seeded(1));
    let mut failures = Vec::new();
    let rows = rows();
    assert!(rows.len() > 50, "only {} rows", rows.len());
    for row in &rows {
        assert_eq!(row.len(), 4, "row {row:?}");
        let (example, expected) = (code(&row[2]), code(&row[3]));
        let value = match parse_expr(example) {
            Ok(expr) => expr.eval_with(&options).to_string(),
            Err(e) => format!("parse error: {e}"),
        };
        if value != expected {
            failures.push(format!("{example}\n    gives {value}, the reference says {expected}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_builtin_has_a_row() {
    let documented: Vec<String> = rows().iter().map(|row| row[0].to_ascii_lowercase()).collect();
    let missing: Vec<&str> = classad::functions::builtin_names()
        .filter(|name| {
            let call = format!("`{}(", name.to_ascii_lowercase());
            let also = format!(" {}(", name.to_ascii_lowercase());
            !documented.iter().any(|cell| cell.contains(&call) || cell.contains(&also))
        })
        .collect();
    assert!(missing.is_empty(), "functions without a row in reference.md: {missing:?}");
}
