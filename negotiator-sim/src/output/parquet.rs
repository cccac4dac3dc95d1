//! Tables as Apache Parquet files (one file per table).
//!
//! Each column becomes a required (never null) leaf column: integers as
//! `INT64`, reals as `DOUBLE`, text as `BYTE_ARRAY` annotated `STRING`
//! (UTF-8). All rows go into one row group; pages are not compressed
//! (the tables are small, and a codec would only add dependencies).
//! The file holds no time stamp, so the same table gives the same bytes.
//! Any Parquet reader (pyarrow, pandas, DuckDB, Polars, Spark) reads it.
//!
//! ```
//! use negotiator_sim::output::parquet::{read_file, write_file};
//! use negotiator_sim::table::{Column, Table};
//!
//! let mut t = Table::new("cycles");
//! t.push("time", Column::Int(vec![0, 60]));
//! t.push("busy_slots", Column::Float(vec![0.5, 2.0]));
//! t.push("note", Column::Str(vec!["a".into(), "b".into()]));
//! let dir = std::env::temp_dir().join(format!("parquet-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("cycles.parquet");
//! write_file(&path, &t)?;
//! assert_eq!(&std::fs::read(&path)?[..4], b"PAR1");
//! assert_eq!(read_file(&path)?, t);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::Path;
use std::sync::Arc;

use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{ChunkReader, FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::record::Field;
use parquet::schema::types::Type as SchemaType;

use crate::output::{io_error, OutputError};
use crate::table::{Column, Table};

fn parquet_error(path: &Path) -> impl FnOnce(parquet::errors::ParquetError) -> OutputError + '_ {
    move |e| OutputError::Parquet { path: path.to_path_buf(), message: e.to_string() }
}

/// The Parquet schema of `table`: one required leaf per column.
fn schema(table: &Table) -> Result<SchemaType, parquet::errors::ParquetError> {
    let mut fields = Vec::with_capacity(table.columns.len());
    for (name, column) in &table.columns {
        let (physical, logical) = match column {
            Column::Int(_) => (PhysicalType::INT64, None),
            Column::Float(_) => (PhysicalType::DOUBLE, None),
            Column::Str(_) => (PhysicalType::BYTE_ARRAY, Some(LogicalType::String)),
        };
        let field = SchemaType::primitive_type_builder(name, physical)
            .with_repetition(Repetition::REQUIRED)
            .with_logical_type(logical)
            .build()?;
        fields.push(Arc::new(field));
    }
    SchemaType::group_type_builder(&table.name).with_fields(fields).build()
}

/// Writes `table` as a Parquet file at `path` (replacing it).
pub fn write_file(path: &Path, table: &Table) -> Result<(), OutputError> {
    let file = std::fs::File::create(path).map_err(io_error(path))?;
    write(file, table).map_err(parquet_error(path))
}

/// Writes `table` in Parquet to `out`.
pub fn write<W: std::io::Write + Send>(out: W, table: &Table) -> Result<(), parquet::errors::ParquetError> {
    let props = Arc::new(WriterProperties::builder().set_created_by("negotiator-sim".to_string()).build());
    let mut writer = SerializedFileWriter::new(out, Arc::new(schema(table)?), props)?;
    if table.rows() > 0 {
        let mut group = writer.next_row_group()?;
        for (_, column) in &table.columns {
            let Some(mut col) = group.next_column()? else { break };
            match column {
                Column::Int(v) => {
                    col.typed::<Int64Type>().write_batch(v, None, None)?;
                }
                Column::Float(v) => {
                    col.typed::<DoubleType>().write_batch(v, None, None)?;
                }
                Column::Str(v) => {
                    let bytes: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                    col.typed::<ByteArrayType>().write_batch(&bytes, None, None)?;
                }
            }
            col.close()?;
        }
        group.close()?;
    }
    writer.close()?;
    Ok(())
}

/// Refuses column chunks whose place in the file (from its footer) has a
/// negative offset or size, or ends past the file's `size` bytes: the
/// Parquet reader asserts (panics) on the first two, and reads garbage on
/// the last.
fn check_chunks(metadata: &ParquetMetaData, size: u64, path: &Path) -> Result<(), OutputError> {
    for (g, group) in metadata.row_groups().iter().enumerate() {
        for chunk in group.columns() {
            let start = chunk.dictionary_page_offset().unwrap_or_else(|| chunk.data_page_offset());
            let len = chunk.compressed_size();
            let inside = start >= 0 && len >= 0 && start.checked_add(len).is_some_and(|end| end as u64 <= size);
            if !inside {
                return Err(OutputError::Parquet {
                    path: path.to_path_buf(),
                    message: format!(
                        "row group {}, column {}: a chunk of {len} bytes at offset {start}, outside the file's {size} bytes",
                        g + 1,
                        chunk.column_path()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Reads a Parquet file of flat, required `INT64`, `DOUBLE` and `STRING`
/// columns (as [`write_file`] writes) into a table named after the file.
pub fn read_file(path: &Path) -> Result<Table, OutputError> {
    let file = std::fs::File::open(path).map_err(io_error(path))?;
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    read(file, &name, path)
}

/// Reads a Parquet file's bytes into a table called `name` (see
/// [`read_file`]); errors name `name` as the file.
pub fn from_parquet_bytes(name: &str, bytes: Vec<u8>) -> Result<Table, OutputError> {
    read(bytes::Bytes::from(bytes), name, Path::new(name))
}

fn read<R: ChunkReader + 'static>(input: R, name: &str, path: &Path) -> Result<Table, OutputError> {
    let size = input.len();
    let reader = SerializedFileReader::new(input).map_err(parquet_error(path))?;
    check_chunks(reader.metadata(), size, path)?;
    let mut table = Table::new(name);
    let descr = reader.metadata().file_metadata().schema_descr_ptr();
    let mut columns: Vec<Column> = Vec::new();
    for leaf in descr.columns() {
        columns.push(match leaf.physical_type() {
            PhysicalType::INT64 => Column::Int(Vec::new()),
            PhysicalType::DOUBLE => Column::Float(Vec::new()),
            PhysicalType::BYTE_ARRAY => Column::Str(Vec::new()),
            other => {
                return Err(OutputError::Parquet {
                    path: path.to_path_buf(),
                    message: format!("column {}: type {other} is not read", leaf.name()),
                })
            }
        });
    }
    let bad = |column: &str, field: &Field| OutputError::Parquet {
        path: path.to_path_buf(),
        message: format!("column {column}: unexpected value {field}"),
    };
    for row in reader.get_row_iter(None).map_err(parquet_error(path))? {
        let row = row.map_err(parquet_error(path))?;
        for ((name, field), column) in row.get_column_iter().zip(columns.iter_mut()) {
            match (column, field) {
                (Column::Int(v), Field::Long(x)) => v.push(*x),
                (Column::Float(v), Field::Double(x)) => v.push(*x),
                (Column::Str(v), Field::Str(s)) => v.push(s.clone()),
                (_, field) => return Err(bad(name, field)),
            }
        }
    }
    for (leaf, column) in descr.columns().iter().zip(columns) {
        table.push(leaf.name(), column);
    }
    Ok(table)
}
