//! Tables as Apache Parquet files (one file per table).

use std::path::Path;

use crate::output::OutputError;
use crate::table::Table;

/// Writes `table` as a Parquet file at `path`.
pub fn write_file(path: &Path, _table: &Table) -> Result<(), OutputError> {
    Err(OutputError::Parquet { path: path.to_path_buf(), message: "Parquet output is not built yet".into() })
}
