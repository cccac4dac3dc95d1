//! Parquet in a `negotiator-sim` built without its `parquet` feature (the
//! quick build the README's first command makes): writing or reading a
//! Parquet file is an error that says so; CSV works as always.

use std::path::Path;

use super::OutputError;
use crate::table::Table;

fn absent(path: &Path) -> OutputError {
    OutputError::Parquet {
        path: path.to_path_buf(),
        message: "this negotiator-sim was built without Parquet (the `parquet` feature, on by default): \
                  use CSV, or build it with its default features"
            .to_string(),
    }
}

/// Fails: this build has no Parquet.
pub fn write_file(path: &Path, _table: &Table) -> Result<(), OutputError> {
    Err(absent(path))
}

/// Fails: this build has no Parquet.
pub fn read_file(path: &Path) -> Result<Table, OutputError> {
    Err(absent(path))
}

/// Fails: this build has no Parquet.
pub fn from_parquet_bytes(name: &str, _bytes: Vec<u8>) -> Result<Table, OutputError> {
    Err(absent(Path::new(name)))
}
