//! Typed access to the columns of the result tables, with clear errors
//! when a table lacks one.

use super::ReportError;
use crate::table::{Column, Table};

/// The integer column `name` of `table`.
pub fn ints<'t>(table: &'t Table, name: &str) -> Result<&'t [i64], ReportError> {
    match table.column(name) {
        Some(Column::Int(v)) => Ok(v),
        other => Err(missing(table, name, "integer", other)),
    }
}

/// The real column `name` of `table`.
pub fn floats<'t>(table: &'t Table, name: &str) -> Result<&'t [f64], ReportError> {
    match table.column(name) {
        Some(Column::Float(v)) => Ok(v),
        other => Err(missing(table, name, "real", other)),
    }
}

/// The text column `name` of `table`.
pub fn strs<'t>(table: &'t Table, name: &str) -> Result<&'t [String], ReportError> {
    match table.column(name) {
        Some(Column::Str(v)) => Ok(v),
        other => Err(missing(table, name, "text", other)),
    }
}

fn missing(table: &Table, name: &str, wanted: &str, found: Option<&Column>) -> ReportError {
    let message = match found {
        None => format!("no column {name}"),
        Some(_) => format!("column {name} is not {wanted}"),
    };
    ReportError::Table { table: table.name.clone(), message }
}

/// The table called `name` in `tables`.
pub fn find<'t>(tables: &'t [Table], name: &str) -> Option<&'t Table> {
    tables.iter().find(|t| t.name == name)
}
