//! Writing the simulator's result tables to files: CSV (one file per
//! table, `NAME.csv`) and Parquet (`NAME.parquet`), and reading either
//! back into a [`Table`] (for the report, comparisons and tests).
//!
//! ```
//! use negotiator_sim::output::{read_tables, write_tables, Format};
//! use negotiator_sim::table::{Column, Table};
//!
//! let mut t = Table::new("cycles");
//! t.push("time", Column::Int(vec![0, 60]));
//! t.push("busy_slots", Column::Float(vec![0.1, 2.0]));
//! let dir = std::env::temp_dir().join(format!("output-doc-{}", std::process::id()));
//! let written = write_tables(&dir, &[t.clone()], &[Format::Csv])?;
//! assert_eq!(written, vec![dir.join("cycles.csv")]);
//! assert_eq!(read_tables(&dir)?, vec![t]);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod csv;
#[cfg_attr(not(feature = "parquet"), path = "parquet_absent.rs")]
pub mod parquet;
pub mod schema;

use std::path::{Path, PathBuf};

use crate::table::Table;

/// A file format the tables can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Comma-separated values ([`csv`]): `NAME.csv`.
    Csv,
    /// Apache Parquet ([`parquet`]): `NAME.parquet`.
    Parquet,
}

impl Format {
    /// The file extension of the format (`csv`, `parquet`).
    ///
    /// ```
    /// assert_eq!(negotiator_sim::output::Format::Parquet.extension(), "parquet");
    /// ```
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Parquet => "parquet",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = OutputError;

    /// `csv` or `parquet` (any case).
    fn from_str(s: &str) -> Result<Format, OutputError> {
        match s.to_ascii_lowercase().as_str() {
            "csv" => Ok(Format::Csv),
            "parquet" => Ok(Format::Parquet),
            _ => Err(OutputError::UnknownFormat(s.to_string())),
        }
    }
}

/// What can go wrong writing or reading tables.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// A file or directory could not be created, written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A CSV file is not in the form this module writes.
    #[error("{path}:{line}: {}", classad::excerpt::quote(message))]
    Csv {
        /// The file.
        path: PathBuf,
        /// The line (from 1) where the problem is.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The Parquet encoder or decoder failed.
    #[error("{path}: {message}")]
    Parquet {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A table lacks a column that is needed, or has it with another type.
    #[error("table {table}: {message}")]
    Schema {
        /// The table's name.
        table: String,
        /// What is wrong.
        message: String,
    },
    /// A format name other than `csv` or `parquet`.
    #[error("unknown output format {0:?} (expected csv or parquet)")]
    UnknownFormat(String),
}

pub(crate) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io { path: path.to_path_buf(), source }
}

/// Writes every table in every format under `dir` (created if missing),
/// as `dir/NAME.EXT`, and returns the paths written, table by table and,
/// within a table, in the order of `formats`.
pub fn write_tables(dir: &Path, tables: &[Table], formats: &[Format]) -> Result<Vec<PathBuf>, OutputError> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let mut written = Vec::new();
    for table in tables {
        for &format in formats {
            let path = dir.join(format!("{}.{}", table.name, format.extension()));
            match format {
                Format::Csv => csv::write_file(&path, table)?,
                Format::Parquet => parquet::write_file(&path, table)?,
            }
            written.push(path);
        }
    }
    Ok(written)
}

/// Reads every table of `dir`: each `NAME.csv` and `NAME.parquet` file
/// as the table `NAME`, in the order of their names; a table written in
/// both formats is read once, from its CSV file.
///
/// ```
/// use negotiator_sim::output::{read_tables, write_tables, Format};
/// use negotiator_sim::table::{Column, Table};
///
/// let mut t = Table::new("jobs");
/// t.push("wait", Column::Int(vec![0, 60]));
/// let dir = std::env::temp_dir().join(format!("read-tables-doc-{}", std::process::id()));
/// write_tables(&dir, &[t.clone()], &[Format::Parquet])?;
/// assert_eq!(read_tables(&dir)?, vec![t.clone()]);
/// write_tables(&dir, &[t.clone()], &[Format::Csv])?;
/// assert_eq!(read_tables(&dir)?, vec![t]);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_tables(dir: &Path) -> Result<Vec<Table>, OutputError> {
    // By table name: the file to read, CSV before Parquet.
    let mut files: std::collections::BTreeMap<String, (Format, PathBuf)> = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let path = entry.map_err(io_error(dir))?.path();
        let format = match path.extension().and_then(|e| e.to_str()) {
            Some("csv") => Format::Csv,
            Some("parquet") => Format::Parquet,
            _ => continue,
        };
        let Some(name) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else { continue };
        if !path.is_file() {
            continue;
        }
        match files.get(&name) {
            Some((Format::Csv, _)) => {}
            _ => {
                files.insert(name, (format, path));
            }
        }
    }
    files
        .values()
        .map(|(format, path)| match format {
            Format::Csv => csv::read_file(path),
            Format::Parquet => parquet::read_file(path),
        })
        .collect()
}
