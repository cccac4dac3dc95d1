//! Conversions between Python objects and ClassAd expressions and values,
//! as classad2 does them.

use classad::{ClassAd, Expr, Literal, Name, Value};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::error;
use crate::objects::{PyClassAd, PyExprTree};

/// A Python value as an expression: None and `Value.Undefined` are
/// `undefined`, `Value.Error` is `error`; bool, int, float and str are
/// literals, and so are bytes (a string of their UTF-8 text, as classad2
/// stores them); a `datetime` is an absolute time; lists and tuples are
/// lists; dicts are nested ads; an `ExprTree` or a `ClassAd` is itself.
pub(crate) fn py_to_expr(value: &Bound<'_, PyAny>) -> PyResult<Expr> {
    py_to_expr_within(value, MAX_NESTING)
}

/// How deeply Python lists and dicts may nest in a value given to an ad (a
/// list that contains itself would otherwise recurse forever).
pub(crate) const MAX_NESTING: u32 = 1000;

pub(crate) fn py_to_expr_within(value: &Bound<'_, PyAny>, depth: u32) -> PyResult<Expr> {
    let Some(depth) = depth.checked_sub(1) else {
        return Err(error(format!(
            "Unable to convert Python object to a ClassAd expression: nested deeper than {MAX_NESTING} levels."
        )));
    };
    if value.is_none() {
        return Ok(Expr::literal(Literal::Undefined));
    }
    if let Ok(tree) = value.cast::<PyExprTree>() {
        return Ok(tree.get().expr.clone());
    }
    if let Ok(ad) = value.cast::<PyClassAd>() {
        return Ok(Expr::record(ad.borrow().ad.clone()));
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Expr::literal(Literal::Bool(b.is_true())));
    }
    // `Value` is an IntEnum: its members are ints, so they come first.
    if let Some(literal) = value_member_literal(value)? {
        return Ok(Expr::literal(literal));
    }
    if value.is_instance_of::<PyInt>() {
        let n: i64 = value.extract()?;
        return Ok(Expr::literal(Literal::Int(n)));
    }
    if let Ok(x) = value.cast::<PyFloat>() {
        return Ok(Expr::literal(Literal::Real(x.value())));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Expr::literal(Literal::Str(s.to_cow()?.as_ref().into())));
    }
    if let Ok(bytes) = value.cast::<PyBytes>() {
        let Ok(text) = std::str::from_utf8(bytes.as_bytes()) else {
            return Err(error("Unable to convert Python bytes to a ClassAd string: they are not UTF-8.".to_owned()));
        };
        return Ok(Expr::literal(Literal::Str(text.into())));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        return Ok(Expr::record(dict_to_ad(dict, depth)?));
    }
    let datetime = value.py().import("datetime")?.getattr("datetime")?;
    if value.is_instance(&datetime)? {
        return datetime_to_expr(value);
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items = value.try_iter()?.map(|item| py_to_expr_within(&item?, depth)).collect::<PyResult<Vec<_>>>()?;
        return Ok(Expr::list(items));
    }
    Err(error("Unable to convert Python object to a ClassAd expression.".to_owned()))
}

/// A `datetime` as an absolute time: an aware one is its instant, kept
/// with its offset; a naive one is local time (as Python's `timestamp()`
/// and classad2 read it), written in UTC as classad2 writes it.
fn datetime_to_expr(value: &Bound<'_, PyAny>) -> PyResult<Expr> {
    let offset = value.call_method0("utcoffset")?;
    let offset_secs = if offset.is_none() {
        0
    } else {
        let secs: f64 = offset.call_method0("total_seconds")?.extract()?;
        secs as i32
    };
    let timestamp: f64 = value.call_method0("timestamp")?.extract()?;
    let time = classad::AbsTime { secs: timestamp.floor() as i64, offset: offset_secs };
    Ok(Expr::literal(Literal::AbsTime(time)))
}

pub(crate) fn dict_to_ad(dict: &Bound<'_, PyDict>, depth: u32) -> PyResult<ClassAd> {
    let mut ad = ClassAd::new();
    for (key, value) in dict.iter() {
        let name: String = key.extract().map_err(|_| PyTypeError::new_err("ClassAd keys must be strings"))?;
        ad.insert(attribute_name(&name)?, py_to_expr_within(&value, depth)?);
    }
    Ok(ad)
}

/// An attribute name from Python: data, so interned within the library's
/// `NameLimits` (a `ClassAdException` past them).
pub(crate) fn attribute_name(text: &str) -> PyResult<Name> {
    Name::try_new(text).map_err(|e| error(e.to_string()))
}

/// What `ClassAd.__getitem__` returns: the Python value of a literal, a
/// Python list of a list (its items converted the same way), a `ClassAd`
/// of a nested ad; an `ExprTree` for anything else.
pub(crate) fn literal_to_py(py: Python<'_>, expr: &Expr) -> PyResult<Py<PyAny>> {
    use classad::Node;
    if let Some(literal) = expr.as_literal() {
        return value_to_py(py, &Value::from(literal));
    }
    match expr.as_node() {
        Some(Node::List(items)) => {
            let items = items.iter().map(|item| literal_to_py(py, item)).collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any().unbind())
        }
        Some(Node::Record(ad)) => Ok(Py::new(py, PyClassAd { ad: ClassAd::clone(ad) })?.into_any()),
        _ => Ok(Py::new(py, PyExprTree { expr: expr.clone() })?.into_any()),
    }
}

/// An evaluated value as a Python object: UNDEFINED and ERROR are the
/// members of `classad_rs.Value`, an absolute time is an aware `datetime`
/// in UTC, a relative time its seconds as a float.
pub(crate) fn value_to_py(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    Ok(match value {
        Value::Undefined => value_member(py, &UNDEFINED, "Undefined")?,
        Value::Error => value_member(py, &ERROR, "Error")?,
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Int(n) => n.into_pyobject(py)?.into_any().unbind(),
        Value::Real(x) => PyFloat::new(py, *x).into_any().unbind(),
        Value::Str(s) => PyString::new(py, s).into_any().unbind(),
        Value::RelTime(t) => PyFloat::new(py, t.0).into_any().unbind(),
        Value::AbsTime(t) => {
            // An aware datetime in UTC whatever the time's own offset, as
            // classad2 gives.
            let datetime = py.import("datetime")?;
            let utc = datetime.getattr("timezone")?.getattr("utc")?;
            match datetime.getattr("datetime")?.call_method1("fromtimestamp", (t.secs, utc)) {
                Ok(value) => value.unbind(),
                Err(_) => return Err(error(format!("{value} is outside the range of datetime"))),
            }
        }
        // As classad2: the elements as `__getitem__` gives them, not evaluated.
        Value::List(items) => {
            let items = items.iter().map(|item| literal_to_py(py, item)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Value::ClassAd(ad) => Py::new(py, PyClassAd { ad: ClassAd::clone(ad) })?.into_any(),
    })
}

/// `undefined` for `Value.Undefined`, `error` for `Value.Error`; None for
/// anything else.
fn value_member_literal(value: &Bound<'_, PyAny>) -> PyResult<Option<Literal>> {
    let py = value.py();
    let class = VALUE_CLASS
        .get_or_try_init(py, || py.import("classad_rs").and_then(|m| m.getattr("Value")).map(Bound::unbind))?;
    if !value.get_type().is(class.bind(py)) {
        return Ok(None);
    }
    let undefined = value_member(py, &UNDEFINED, "Undefined")?;
    Ok(Some(if value.is(undefined.bind(py)) { Literal::Undefined } else { Literal::Error }))
}

/// The class `classad_rs.Value`, looked up once.
static VALUE_CLASS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `classad_rs.Value.Undefined` and `.Error`, looked up once.
static UNDEFINED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ERROR: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn value_member(py: Python<'_>, cell: &PyOnceLock<Py<PyAny>>, name: &str) -> PyResult<Py<PyAny>> {
    let member = cell.get_or_try_init(py, || {
        py.import("classad_rs").and_then(|m| m.getattr("Value")).and_then(|v| v.getattr(name)).map(Bound::unbind)
    })?;
    Ok(member.clone_ref(py))
}
