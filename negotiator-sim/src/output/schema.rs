//! The fixed columns of the simulator's four tables (`users`, `groups`,
//! `cycles`, `jobs`) and their types: used to type the columns of a CSV
//! file read back, and to check a table before the report reads it.
//! The lists are the ones the simulator fills its tables from (they are
//! declared once, with the rows, in [`crate::simulate::results`]).
//!
//! ```
//! use negotiator_sim::output::schema::{column_type, ColumnType};
//!
//! assert_eq!(column_type("users", "rup"), Some(ColumnType::Float));
//! assert_eq!(column_type("jobs", "slot"), Some(ColumnType::Str));
//! assert_eq!(column_type("mine", "x"), None);
//! ```

use crate::output::OutputError;
use crate::table::Table;

pub use crate::table::ColumnType;

// The columns themselves are declared once, beside the rows that fill
// them, in `simulate::results`; these are those lists.
pub use crate::simulate::results::{CYCLES, GROUPS, JOBS, USERS};

/// The columns of the table called `table`, if it is one of the four.
pub fn columns(table: &str) -> Option<&'static [(&'static str, ColumnType)]> {
    match table {
        "users" => Some(USERS),
        "groups" => Some(GROUPS),
        "cycles" => Some(CYCLES),
        "jobs" => Some(JOBS),
        _ => None,
    }
}

/// The type of column `column` of table `table`, if both are known.
pub fn column_type(table: &str, column: &str) -> Option<ColumnType> {
    columns(table)?.iter().find(|(n, _)| *n == column).map(|&(_, t)| t)
}

/// Checks that `table` has every column its name calls for, each of its
/// type (extra columns are allowed); tables of other names pass.
///
/// ```
/// use negotiator_sim::output::schema::check;
/// use negotiator_sim::table::{Column, Table};
///
/// let mut t = Table::new("cycles");
/// t.push("time", Column::Float(vec![0.0]));
/// let err = check(&t).unwrap_err().to_string();
/// assert!(err.contains("time"), "{err}");
/// ```
pub fn check(table: &Table) -> Result<(), OutputError> {
    let Some(cols) = columns(&table.name) else { return Ok(()) };
    for &(name, ty) in cols {
        match table.column(name) {
            None => {
                return Err(OutputError::Schema { table: table.name.clone(), message: format!("no column {name}") })
            }
            Some(c) if ColumnType::of(c) != ty => {
                return Err(OutputError::Schema {
                    table: table.name.clone(),
                    message: format!("column {name} is {:?}, expected {ty:?}", ColumnType::of(c)),
                })
            }
            Some(_) => {}
        }
    }
    Ok(())
}
