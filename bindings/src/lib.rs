//! The native half of the `classad_rs` Python module: thin wrappers of
//! [`classad`] types, conversions between ClassAd values and Python
//! objects, and the errors. The Python package (`python/classad_rs`)
//! re-exports these with the `classad2` names.
//!
//! Every function that evaluates takes the semantics as an explicit
//! argument (`"new"` by default); nothing in the module changes it behind
//! the caller's back.

use classad::format::{self, Format};
use classad::{ClassAd, EvalContext, EvalOptions, Expr, Literal, Semantics, Value};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

pyo3::create_exception!(
    _classad_rs,
    ClassAdException,
    pyo3::exceptions::PyException,
    "A text that does not parse, or an operation a ClassAd refuses."
);

/// The exception for a parse error: `ClassAdException` with the message,
/// and `line`, `column` and `offset` attributes (1-based line and column).
fn parse_error(py: Python<'_>, err: &classad::ParseError) -> PyErr {
    let exc = ClassAdException::new_err(format!("Unable to parse string into a ClassAd: {err}"));
    let value = exc.value(py);
    // Setting attributes on a fresh exception instance cannot fail.
    let _ = value.setattr("line", err.line);
    let _ = value.setattr("column", err.column);
    let _ = value.setattr("offset", err.offset);
    exc
}

/// `"new"` or `"old"` (in any case) to [`Semantics`].
fn semantics(name: &str) -> PyResult<Semantics> {
    if name.eq_ignore_ascii_case("new") {
        Ok(Semantics::New)
    } else if name.eq_ignore_ascii_case("old") {
        Ok(Semantics::Old)
    } else {
        Err(PyValueError::new_err(format!("semantics must be \"new\" or \"old\", not {name:?}")))
    }
}

fn options(name: &str) -> PyResult<EvalOptions> {
    Ok(EvalOptions::new().semantics(semantics(name)?))
}

/// A ClassAd expression (`classad2.ExprTree`).
#[pyclass(name = "ExprTree", module = "classad_rs", frozen, eq)]
#[derive(Clone)]
struct PyExprTree {
    expr: Expr,
}

impl PartialEq for PyExprTree {
    fn eq(&self, other: &PyExprTree) -> bool {
        self.expr.same_as(&other.expr)
    }
}

#[pymethods]
impl PyExprTree {
    /// Parses `expr` (new syntax), or wraps an `ExprTree` (a copy).
    #[new]
    fn new(py: Python<'_>, expr: &Bound<'_, PyAny>) -> PyResult<PyExprTree> {
        if let Ok(tree) = expr.cast::<PyExprTree>() {
            return Ok(tree.get().clone());
        }
        let text: String = expr.extract()?;
        let expr = py.detach(|| classad::parse_expr(&text)).map_err(|e| parse_error(py, &e))?;
        Ok(PyExprTree { expr })
    }

    /// Evaluates the expression; `scope` is the ad it is evaluated in (MY),
    /// `target` the other ad of a match (TARGET).
    #[pyo3(signature = (scope=None, target=None, semantics="new"))]
    fn eval(
        &self,
        py: Python<'_>,
        scope: Option<PyRef<'_, PyClassAd>>,
        target: Option<PyRef<'_, PyClassAd>>,
        semantics: &str,
    ) -> PyResult<Py<PyAny>> {
        let value = self.value_in(scope.as_deref(), target.as_deref(), semantics)?;
        value_to_py(py, &value)
    }

    /// The expression evaluated (in `scope`, against `target`), as an
    /// `ExprTree` of its value.
    #[pyo3(signature = (scope=None, target=None, semantics="new"))]
    fn simplify(
        &self,
        scope: Option<PyRef<'_, PyClassAd>>,
        target: Option<PyRef<'_, PyClassAd>>,
        semantics: &str,
    ) -> PyResult<PyExprTree> {
        let value = self.value_in(scope.as_deref(), target.as_deref(), semantics)?;
        Ok(PyExprTree { expr: value.to_expr() })
    }

    /// Pickles as its text.
    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(Py<PyAny>, (String,))> {
        Ok((slf.get_type().into_any().unbind(), (slf.get().expr.to_string(),)))
    }

    fn __str__(&self) -> String {
        self.expr.to_string()
    }

    fn __repr__(&self) -> String {
        self.expr.to_string()
    }
}

impl PyExprTree {
    /// The value of the expression with `scope` as MY and `target` as
    /// TARGET.
    fn value_in(&self, scope: Option<&PyClassAd>, target: Option<&PyClassAd>, semantics: &str) -> PyResult<Value> {
        let options = options(semantics)?;
        let mut context = EvalContext::new(&options);
        if let Some(scope) = scope {
            context = context.my(&scope.ad);
        }
        if let Some(target) = target {
            context = context.target(&target.ad);
        }
        Ok(context.eval(&self.expr))
    }
}

/// A ClassAd (`classad2.ClassAd`): a mapping of case-insensitive,
/// case-preserving names to expressions.
#[pyclass(name = "ClassAd", module = "classad_rs", mapping)]
#[derive(Clone, Default)]
struct PyClassAd {
    ad: ClassAd,
}

#[pymethods]
impl PyClassAd {
    /// An empty ad, an ad parsed from new-syntax text, or an ad of a
    /// dictionary's items (values converted as by `__setitem__`).
    #[new]
    #[pyo3(signature = (input=None))]
    fn new(py: Python<'_>, input: Option<&Bound<'_, PyAny>>) -> PyResult<PyClassAd> {
        let Some(input) = input else {
            return Ok(PyClassAd::default());
        };
        if let Ok(text) = input.cast::<PyString>() {
            let text = text.to_cow()?.into_owned();
            let ad = py.detach(|| classad::parse_ad(&text)).map_err(|e| parse_error(py, &e))?;
            return Ok(PyClassAd { ad });
        }
        if let Ok(dict) = input.cast::<PyDict>() {
            return Ok(PyClassAd { ad: dict_to_ad(dict, MAX_NESTING)? });
        }
        Err(PyTypeError::new_err("ClassAd() takes None, a string or a dict"))
    }

    /// The attribute's value: a Python value for a literal (and lists and
    /// nested ads of literals), else its `ExprTree`. `KeyError` if absent.
    fn __getitem__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        let expr = self.ad.get(name).ok_or_else(|| PyKeyError::new_err(name.to_owned()))?;
        literal_to_py(py, expr)
    }

    fn __setitem__(&mut self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.ad.insert(name, py_to_expr(value)?);
        Ok(())
    }

    fn __delitem__(&mut self, name: &str) -> PyResult<()> {
        self.ad.remove(name).map(drop).ok_or_else(|| PyKeyError::new_err(name.to_owned()))
    }

    fn __contains__(&self, name: &str) -> bool {
        self.ad.contains(name)
    }

    fn __len__(&self) -> usize {
        self.ad.len()
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let names = PyList::new(py, self.ad.names().map(|name| name.as_str()))?;
        Ok(names.try_iter()?.into_any().unbind())
    }

    /// A view of the names, in the order they were inserted.
    fn keys<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        mapping_view(slf, "KeysView")
    }

    /// A view of the `(name, value)` pairs, values as by `__getitem__`.
    fn items<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        mapping_view(slf, "ItemsView")
    }

    /// A view of the values, as by `__getitem__`.
    fn values<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        mapping_view(slf, "ValuesView")
    }

    /// The value of `name` as by `__getitem__`, or `default` if absent.
    #[pyo3(signature = (name, default=None))]
    fn get(&self, py: Python<'_>, name: &str, default: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        match self.ad.get(name) {
            Some(expr) => literal_to_py(py, expr),
            None => Ok(default.unwrap_or_else(|| py.None())),
        }
    }

    /// The attribute's expression (`KeyError` if absent).
    fn lookup(&self, name: &str) -> PyResult<PyExprTree> {
        let expr = self.ad.lookup(name).ok_or_else(|| PyKeyError::new_err(name.to_owned()))?;
        Ok(PyExprTree { expr: expr.clone() })
    }

    /// The attribute evaluated in this ad (`KeyError` if absent).
    #[pyo3(signature = (name, semantics="new"))]
    fn eval(&self, py: Python<'_>, name: &str, semantics: &str) -> PyResult<Py<PyAny>> {
        let expr = self.ad.lookup(name).ok_or_else(|| PyKeyError::new_err(name.to_owned()))?;
        let options = options(semantics)?;
        let value = EvalContext::new(&options).my(&self.ad).eval(expr);
        value_to_py(py, &value)
    }

    /// True when this ad's `Requirements` is true against `target`.
    #[pyo3(signature = (target, semantics="new"))]
    fn matches(&self, target: PyRef<'_, PyClassAd>, semantics: &str) -> PyResult<bool> {
        let options = options(semantics)?;
        Ok(classad::matching::MatchAd::new(&options, &self.ad, &target.ad).left_matches_right())
    }

    /// True when both ads' `Requirements` are true against each other.
    #[pyo3(signature = (target, semantics="new"))]
    #[allow(non_snake_case)]
    fn symmetricMatch(&self, target: PyRef<'_, PyClassAd>, semantics: &str) -> PyResult<bool> {
        let options = options(semantics)?;
        Ok(classad::matching::MatchAd::new(&options, &self.ad, &target.ad).symmetric_match())
    }

    /// `expr` partially evaluated in this ad: what depends only on the
    /// ad's attributes is computed, references to anything else are kept.
    /// A Python value when nothing is left to evaluate, else an `ExprTree`.
    #[pyo3(signature = (expr, semantics="new"))]
    fn flatten(&self, py: Python<'_>, expr: PyRef<'_, PyExprTree>, semantics: &str) -> PyResult<Py<PyAny>> {
        use classad::flatten::Flattened;
        let options = options(semantics)?;
        match classad::flatten::flatten(&options, &self.ad, &expr.expr) {
            Ok(Flattened::Value(value)) => value_to_py(py, &value),
            Ok(Flattened::Expr(expr)) => Ok(Py::new(py, PyExprTree { expr })?.into_any()),
            Err(e) => Err(ClassAdException::new_err(e.to_string())),
        }
    }

    /// The attributes `expr` refers to that this ad does not define
    /// (`TARGET.Memory`, `x`), sorted.
    #[pyo3(signature = (expr, semantics="new"))]
    #[allow(non_snake_case)]
    fn externalRefs(&self, expr: PyRef<'_, PyExprTree>, semantics: &str) -> PyResult<Vec<String>> {
        classad::references::external(&options(semantics)?, &self.ad, &expr.expr)
            .map_err(|e| ClassAdException::new_err(e.to_string()))
    }

    /// The attributes of this ad that `expr` refers to, sorted.
    #[pyo3(signature = (expr, semantics="new"))]
    #[allow(non_snake_case)]
    fn internalRefs(&self, expr: PyRef<'_, PyExprTree>, semantics: &str) -> PyResult<Vec<String>> {
        classad::references::internal(&options(semantics)?, &self.ad, &expr.expr)
            .map_err(|e| ClassAdException::new_err(e.to_string()))
    }

    /// Pickles as its text (classad2's ads cannot be pickled).
    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(Py<PyAny>, (String,))> {
        Ok((slf.get_type().into_any().unbind(), (slf.borrow().ad.to_string(),)))
    }

    /// The ad in the old format: `Name = value` lines.
    #[allow(non_snake_case)]
    fn printOld(&self) -> String {
        format::ad_to_string(&self.ad, Format::Old)
    }

    /// The ad as a JSON object.
    #[allow(non_snake_case)]
    fn printJson(&self) -> String {
        format::ad_to_string(&self.ad, Format::Json)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyClassAd>().is_ok_and(|other| other.borrow().ad.same_as(&self.ad))
    }

    fn __str__(&self) -> String {
        format::to_string([&self.ad], Format::New)
    }

    fn __repr__(&self) -> String {
        self.ad.to_string()
    }
}

/// `collections.abc.<view>(ad)`.
fn mapping_view<'py>(ad: &Bound<'py, PyClassAd>, view: &str) -> PyResult<Bound<'py, PyAny>> {
    ad.py().import("collections.abc")?.getattr(view)?.call1((ad,))
}

/// The ads of `text` in `format_name` (`"new"`, `"old"`, `"json"`,
/// `"xml"`, or `"auto"` to detect it), parsed without holding the GIL.
#[pyfunction]
#[pyo3(signature = (text, format_name))]
fn parse_ads(py: Python<'_>, text: &str, format_name: &Bound<'_, PyAny>) -> PyResult<Vec<PyClassAd>> {
    // classad2's `ParserType` members are integers.
    let format_name = match format_name.extract::<i64>() {
        Ok(-1 | 4) => "auto".to_owned(),
        Ok(0) => "old".to_owned(),
        Ok(1) => "xml".to_owned(),
        Ok(2) => "json".to_owned(),
        Ok(3) => "new".to_owned(),
        _ => format_name.extract::<String>()?,
    };
    let format = match format_name.to_ascii_lowercase().as_str() {
        "auto" => None,
        "new" => Some(Format::New),
        "old" | "long" => Some(Format::Old),
        "json" => Some(Format::Json),
        "xml" => Some(Format::Xml),
        other => return Err(PyValueError::new_err(format!("unknown format {other:?}"))),
    };
    let text = text.to_owned();
    let ads = py
        .detach(|| format::parse_ads(&text, format))
        .map_err(|e| ClassAdException::new_err(format!("Unable to parse input stream into a ClassAd: {e}")))?;
    Ok(ads.into_iter().map(|ad| PyClassAd { ad }).collect())
}

/// The string literal (new syntax, quotes and escapes) whose value is `text`.
#[pyfunction]
fn quote(text: &str) -> String {
    Expr::literal(Literal::Str(text.into())).to_string()
}

/// The value of the string literal `text`.
#[pyfunction]
fn unquote(text: &str) -> PyResult<String> {
    let Ok(expr) = classad::parse_expr(text) else {
        return Err(PyValueError::new_err("String does not parse to a ClassAd literal"));
    };
    match expr.as_literal() {
        Some(Literal::Str(s)) => Ok(s.to_string()),
        _ => Err(PyValueError::new_err("String does not parse to a ClassAd literal")),
    }
}

/// A Python value as an expression: None is `undefined`; bool, int, float
/// and str are literals; a `datetime` is an absolute time; lists and tuples
/// are lists; dicts are nested ads; an `ExprTree` or a `ClassAd` is itself.
fn py_to_expr(value: &Bound<'_, PyAny>) -> PyResult<Expr> {
    py_to_expr_within(value, MAX_NESTING)
}

/// How deeply Python lists and dicts may nest in a value given to an ad (a
/// list that contains itself would otherwise recurse forever).
const MAX_NESTING: u32 = 1000;

fn py_to_expr_within(value: &Bound<'_, PyAny>, depth: u32) -> PyResult<Expr> {
    let Some(depth) = depth.checked_sub(1) else {
        return Err(ClassAdException::new_err(format!(
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
    Err(ClassAdException::new_err("Unable to convert Python object to a ClassAd expression."))
}

/// A `datetime` as an absolute time: an aware one is its instant, kept
/// with its offset; a naive one is read as UTC, as classad2 reads it.
fn datetime_to_expr(value: &Bound<'_, PyAny>) -> PyResult<Expr> {
    let offset = value.call_method0("utcoffset")?;
    let (instant, offset_secs) = if offset.is_none() {
        let utc = value.py().import("datetime")?.getattr("timezone")?.getattr("utc")?;
        let kwargs = PyDict::new(value.py());
        kwargs.set_item("tzinfo", utc)?;
        (value.call_method("replace", (), Some(&kwargs))?, 0)
    } else {
        let secs: f64 = offset.call_method0("total_seconds")?.extract()?;
        (value.clone(), secs as i32)
    };
    let timestamp: f64 = instant.call_method0("timestamp")?.extract()?;
    let time = classad::AbsTime { secs: timestamp.floor() as i64, offset: offset_secs };
    Ok(Expr::literal(Literal::AbsTime(time)))
}

fn dict_to_ad(dict: &Bound<'_, PyDict>, depth: u32) -> PyResult<ClassAd> {
    let mut ad = ClassAd::new();
    for (key, value) in dict.iter() {
        let name: String = key.extract().map_err(|_| PyTypeError::new_err("ClassAd keys must be strings"))?;
        ad.insert(name.as_str(), py_to_expr_within(&value, depth)?);
    }
    Ok(ad)
}

/// What `ClassAd.__getitem__` returns: the Python value of a literal, of a
/// list or of a nested ad; an `ExprTree` for anything else.
fn literal_to_py(py: Python<'_>, expr: &Expr) -> PyResult<Py<PyAny>> {
    use classad::Node;
    if let Some(literal) = expr.as_literal() {
        return value_to_py(py, &Value::from(literal));
    }
    match expr.as_node() {
        Some(Node::List(items)) if items.iter().all(|item| item.as_literal().is_some()) => {
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
fn value_to_py(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
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
            datetime.getattr("datetime")?.call_method1("fromtimestamp", (t.secs, utc))?.unbind()
        }
        // As classad2: the elements as `__getitem__` gives them, not evaluated.
        Value::List(items) => {
            let items = items.iter().map(|item| literal_to_py(py, item)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Value::ClassAd(ad) => Py::new(py, PyClassAd { ad: ClassAd::clone(ad) })?.into_any(),
    })
}

/// `classad_rs.Value.Undefined` and `.Error`, looked up once.
static UNDEFINED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ERROR: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn value_member(py: Python<'_>, cell: &PyOnceLock<Py<PyAny>>, name: &str) -> PyResult<Py<PyAny>> {
    let member = cell.get_or_try_init(py, || {
        py.import("classad_rs").and_then(|m| m.getattr("Value")).and_then(|v| v.getattr(name)).map(Bound::unbind)
    })?;
    Ok(member.clone_ref(py))
}

/// The module `classad_rs._classad_rs`.
#[pymodule]
fn _classad_rs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyClassAd>()?;
    m.add_class::<PyExprTree>()?;
    m.add("ClassAdException", m.py().get_type::<ClassAdException>())?;
    m.add_function(wrap_pyfunction!(parse_ads, m)?)?;
    m.add_function(wrap_pyfunction!(quote, m)?)?;
    m.add_function(wrap_pyfunction!(unquote, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
