//! Column tables: the shape in which the simulator hands over its results
//! (time series per user, group and cycle; one row per job) to the writers
//! (CSV, Parquet) and to the report (charts, HTML).
//!
//! ```
//! use negotiator_sim::table::{Column, Table};
//!
//! let mut t = Table::new("cycles");
//! t.push("time", Column::Int(vec![0, 60]));
//! t.push("matches", Column::Int(vec![10, 3]));
//! t.push("user", Column::Str(vec!["alice".into(), "bob".into()]));
//! assert_eq!(t.rows(), 2);
//! assert_eq!(t.column("matches"), Some(&Column::Int(vec![10, 3])));
//! ```

/// One column's values, all of one type.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// Integers (times in seconds since the start, counts, ids).
    Int(Vec<i64>),
    /// Reals (usage, priorities, shares, durations).
    Float(Vec<f64>),
    /// Text (user, group, slot names).
    Str(Vec<String>),
}

impl Column {
    /// How many values the column holds.
    pub fn len(&self) -> usize {
        match self {
            Column::Int(v) => v.len(),
            Column::Float(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }

    /// Whether the column holds no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The type of a column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// [`Column::Int`].
    Int,
    /// [`Column::Float`].
    Float,
    /// [`Column::Str`].
    Str,
}

impl ColumnType {
    /// The type of `column`.
    pub fn of(column: &Column) -> ColumnType {
        match column {
            Column::Int(_) => ColumnType::Int,
            Column::Float(_) => ColumnType::Float,
            Column::Str(_) => ColumnType::Str,
        }
    }
}

/// A named table of named columns of equal length.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// The table's name (`users`, `groups`, `cycles`, `jobs`): the file
    /// name it is written under.
    pub name: String,
    /// The columns, in order.
    pub columns: Vec<(String, Column)>,
}

impl Table {
    /// An empty table called `name`.
    pub fn new(name: &str) -> Table {
        Table { name: name.to_string(), columns: Vec::new() }
    }

    /// Adds a column at the end.
    ///
    /// # Panics
    /// When the column's length differs from the table's: a programming
    /// error of whoever builds the table, never a matter of input.
    pub fn push(&mut self, name: &str, column: Column) {
        if let Some((_, first)) = self.columns.first() {
            assert_eq!(first.len(), column.len(), "column {name} of table {} has a different length", self.name);
        }
        self.columns.push((name.to_string(), column));
    }

    /// The number of rows (0 without columns).
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
}
