//! Tables as columns for Python: `{name: list}` dicts of plain values, and
//! Arrow buffers (bytes laid out as Arrow lays them out) that
//! `classad_rs._tables` wraps into pyarrow arrays without copying. Shared
//! by a cycle's outcome and a simulation's results.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::errors::error;

/// A column of a table.
pub(crate) enum Column {
    F64(Vec<f64>),
    I64(Vec<i64>),
    Bool(Vec<bool>),
    /// Text, `None` for a missing value.
    Str(Vec<Option<String>>),
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
}

/// A value that a column holds: the column of a list of them (integers
/// of every width become `I64`, text `Str`).
pub(crate) trait ColumnValue: Sized {
    /// The column of `values`.
    fn column(values: Vec<Self>) -> Column;
}

impl ColumnValue for f64 {
    fn column(values: Vec<f64>) -> Column {
        Column::F64(values)
    }
}

impl ColumnValue for i64 {
    fn column(values: Vec<i64>) -> Column {
        Column::I64(values)
    }
}

impl ColumnValue for u32 {
    fn column(values: Vec<u32>) -> Column {
        Column::I64(values.into_iter().map(i64::from).collect())
    }
}

impl ColumnValue for u64 {
    /// As `as i64` (counts never come near 2⁶³).
    fn column(values: Vec<u64>) -> Column {
        Column::I64(values.into_iter().map(|v| v as i64).collect())
    }
}

impl ColumnValue for usize {
    /// As `as i64` (counts and positions never come near 2⁶³).
    fn column(values: Vec<usize>) -> Column {
        Column::I64(values.into_iter().map(|v| v as i64).collect())
    }
}

impl ColumnValue for bool {
    fn column(values: Vec<bool>) -> Column {
        Column::Bool(values)
    }
}

impl ColumnValue for String {
    fn column(values: Vec<String>) -> Column {
        Column::Str(values.into_iter().map(Some).collect())
    }
}

impl ColumnValue for Option<String> {
    fn column(values: Vec<Option<String>>) -> Column {
        Column::Str(values)
    }
}

impl ColumnValue for &'static str {
    fn column(values: Vec<&'static str>) -> Column {
        Column::Str(values.into_iter().map(|s| Some(s.to_string())).collect())
    }
}

/// Bits packed least significant first, as Arrow packs them.
fn bitmap(bits: impl Iterator<Item = bool>) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, b) in bits.enumerate() {
        if i % 8 == 0 {
            out.push(0);
        }
        if b {
            if let Some(last) = out.last_mut() {
                *last |= 1 << (i % 8);
            }
        }
    }
    out
}

/// The table as `{column: list}` (plain Python values; `None` for a
/// missing value).
pub(crate) fn columns<'py, N: AsRef<str>>(py: Python<'py>, table: &[(N, Column)]) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (name, column) in table {
        let list = match column {
            Column::F64(v) => PyList::new(py, v)?,
            Column::I64(v) => PyList::new(py, v)?,
            Column::Bool(v) => PyList::new(py, v)?,
            Column::Str(v) => PyList::new(py, v)?,
        };
        out.set_item(name.as_ref(), list)?;
    }
    Ok(out)
}

/// The table as Arrow buffers: per column `(name, type, length, validity,
/// data, offsets)`, type one of `"f64"`, `"i64"`, `"bool"`, `"str"`; the
/// buffers are bytes laid out as Arrow lays them out (little-endian
/// values, packed bits, 32-bit string offsets).
pub(crate) fn buffers<'py, N: AsRef<str>>(py: Python<'py>, table: &[(N, Column)]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for (name, column) in table {
        let name = name.as_ref();
        let n = column.len();
        let none: Option<Bound<'py, PyBytes>> = None;
        let (kind, validity, data, offsets) = match column {
            Column::F64(v) => {
                let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                ("f64", none.clone(), PyBytes::new(py, &bytes), none.clone())
            }
            Column::I64(v) => {
                let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                ("i64", none.clone(), PyBytes::new(py, &bytes), none.clone())
            }
            Column::Bool(v) => ("bool", none.clone(), PyBytes::new(py, &bitmap(v.iter().copied())), none.clone()),
            Column::Str(v) => {
                let validity = v.iter().any(Option::is_none).then(|| bitmap(v.iter().map(Option::is_some)));
                let mut data = Vec::new();
                let mut offsets: Vec<u8> = Vec::with_capacity((n + 1) * 4);
                offsets.extend_from_slice(&0i32.to_le_bytes());
                for s in v {
                    data.extend_from_slice(s.as_deref().unwrap_or("").as_bytes());
                    let end = i32::try_from(data.len())
                        .map_err(|_| error(format!("column {name} is too large for 32-bit string offsets")))?;
                    offsets.extend_from_slice(&end.to_le_bytes());
                }
                (
                    "str",
                    validity.map(|b| PyBytes::new(py, &b)),
                    PyBytes::new(py, &data),
                    Some(PyBytes::new(py, &offsets)),
                )
            }
        };
        out.append((name, kind, n, validity, data, offsets))?;
    }
    Ok(out)
}
