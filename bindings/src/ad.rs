//! `ClassAd`: the mapping of names to expressions.

use classad::format::{self, Format};
use classad::{EvalContext, Syntax};
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::convert::{attribute_name, dict_to_ad, literal_to_py, py_to_expr, value_to_py, MAX_NESTING};
use crate::errors::{checked, error, parse_error};
use crate::objects::{PyClassAd, PyExprTree};
use crate::semantics::{options, SemanticsArg};

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
        self.ad.insert(attribute_name(name)?, py_to_expr(value)?);
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

    /// Removes `name` and gives its value (as `__getitem__`), or `default`
    /// when absent (`KeyError` without a default).
    #[pyo3(signature = (name, *default))]
    fn pop(&mut self, py: Python<'_>, name: &str, default: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        match self.ad.remove(name) {
            Some(expr) => literal_to_py(py, &expr),
            None if !default.is_empty() => Ok(default.get_item(0)?.unbind()),
            None => Err(PyKeyError::new_err(name.to_owned())),
        }
    }

    /// Removes the last attribute and gives `(name, value)` (`KeyError`
    /// when empty).
    fn popitem(&mut self, py: Python<'_>) -> PyResult<(String, Py<PyAny>)> {
        let name = self.ad.names().last().ok_or_else(|| PyKeyError::new_err("popitem(): the ClassAd is empty"))?;
        let name = name.as_str().to_owned();
        let expr = self.ad.remove(name.as_str()).ok_or_else(|| PyKeyError::new_err(name.clone()))?;
        Ok((name, literal_to_py(py, &expr)?))
    }

    /// The value of `name`; when absent, sets it to `default` and gives
    /// `default` back (as `dict.setdefault` and classad2 do).
    #[pyo3(signature = (name, default=None))]
    fn setdefault(&mut self, py: Python<'_>, name: &str, default: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        if self.ad.contains(name) {
            return self.get(py, name, None);
        }
        let default = default.map_or_else(|| py.None(), |value| value.clone().unbind());
        self.ad.insert(attribute_name(name)?, py_to_expr(default.bind(py))?);
        Ok(default)
    }

    /// Sets attributes from a mapping (or `(name, value)` pairs) and from
    /// keyword arguments, as `dict.update`.
    #[pyo3(signature = (other=None, **attributes))]
    fn update(&mut self, other: Option<&Bound<'_, PyAny>>, attributes: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        if let Some(other) = other {
            if let Ok(ad) = other.cast::<PyClassAd>() {
                let ad = ad.borrow().ad.clone();
                for (name, value) in ad.iter() {
                    self.ad.insert(name, value.clone());
                }
            } else if other.hasattr("keys")? {
                for name in other.call_method0("keys")?.try_iter()? {
                    let name = name?;
                    let value = other.get_item(&name)?;
                    self.__setitem__(&name.extract::<String>()?, &value)?;
                }
            } else {
                for pair in other.try_iter()? {
                    let (name, value): (String, Bound<'_, PyAny>) = pair?.extract()?;
                    self.__setitem__(&name, &value)?;
                }
            }
        }
        if let Some(attributes) = attributes {
            for (name, value) in attributes.iter() {
                self.__setitem__(&name.extract::<String>()?, &value)?;
            }
        }
        Ok(())
    }

    /// Removes every attribute.
    fn clear(&mut self) {
        self.ad.clear();
    }

    /// The attribute's expression (`KeyError` if absent).
    fn lookup(&self, name: &str) -> PyResult<PyExprTree> {
        let expr = self.ad.lookup(name).ok_or_else(|| PyKeyError::new_err(name.to_owned()))?;
        Ok(PyExprTree { expr: expr.clone() })
    }

    /// The attribute evaluated in this ad (`KeyError` if absent).
    #[pyo3(signature = (name, semantics=None))]
    fn eval(&self, py: Python<'_>, name: &str, semantics: Option<SemanticsArg>) -> PyResult<Py<PyAny>> {
        let expr = self.ad.lookup(name).ok_or_else(|| PyKeyError::new_err(name.to_owned()))?;
        let options = options(semantics);
        let value = checked(EvalContext::new(&options).my(&self.ad).eval(expr))?;
        value_to_py(py, &value)
    }

    /// True when `ad`'s `Requirements` is true against this ad (`ad` as
    /// MY, this ad as TARGET), as classad2 has it: `machine.matches(job)`
    /// asks whether the job accepts the machine. A non-zero number counts
    /// as true; UNDEFINED, ERROR and a missing `Requirements` as false.
    #[pyo3(signature = (ad, semantics=None))]
    fn matches(&self, ad: PyRef<'_, PyClassAd>, semantics: Option<SemanticsArg>) -> PyResult<bool> {
        let options = options(semantics);
        checked(classad::matching::MatchAd::new(&options, &self.ad, &ad.ad).right_matches_left())
    }

    /// True when both ads' `Requirements` are true against each other.
    #[pyo3(signature = (target, semantics=None))]
    #[allow(non_snake_case)]
    fn symmetricMatch(&self, target: PyRef<'_, PyClassAd>, semantics: Option<SemanticsArg>) -> PyResult<bool> {
        let options = options(semantics);
        checked(classad::matching::MatchAd::new(&options, &self.ad, &target.ad).symmetric_match())
    }

    /// `expr` partially evaluated in this ad: what depends only on the
    /// ad's attributes is computed, references to anything else are kept.
    /// A Python value when nothing is left to evaluate, else an `ExprTree`.
    #[pyo3(signature = (expr, semantics=None))]
    fn flatten(
        &self,
        py: Python<'_>,
        expr: PyRef<'_, PyExprTree>,
        semantics: Option<SemanticsArg>,
    ) -> PyResult<Py<PyAny>> {
        use classad::flatten::Flattened;
        let options = options(semantics);
        match checked(classad::flatten::flatten(&options, &self.ad, &expr.expr))? {
            Ok(Flattened::Value(value)) => value_to_py(py, &value),
            Ok(Flattened::Expr(expr)) => Ok(Py::new(py, PyExprTree { expr })?.into_any()),
            Err(e) => Err(error(e.to_string())),
        }
    }

    /// The attributes `expr` refers to that this ad does not define
    /// (`TARGET.Memory`, `x`), sorted.
    #[pyo3(signature = (expr, semantics=None))]
    #[allow(non_snake_case)]
    fn externalRefs(&self, expr: PyRef<'_, PyExprTree>, semantics: Option<SemanticsArg>) -> PyResult<Vec<String>> {
        classad::references::external(&options(semantics), &self.ad, &expr.expr).map_err(|e| error(e.to_string()))
    }

    /// The attributes of this ad that `expr` refers to, sorted.
    #[pyo3(signature = (expr, semantics=None))]
    #[allow(non_snake_case)]
    fn internalRefs(&self, expr: PyRef<'_, PyExprTree>, semantics: Option<SemanticsArg>) -> PyResult<Vec<String>> {
        classad::references::internal(&options(semantics), &self.ad, &expr.expr).map_err(|e| error(e.to_string()))
    }

    /// Pickles as its text.
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

    /// `printOld` (classad2's other name).
    #[allow(non_snake_case)]
    fn formatOld(&self) -> String {
        self.printOld()
    }

    /// `printJson` (classad2's other name).
    #[allow(non_snake_case)]
    fn formatJson(&self) -> String {
        self.printJson()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyClassAd>().is_ok_and(|other| other.borrow().ad.same_as(&self.ad))
    }

    /// libclassad's multi-line layout, as classad2 prints.
    fn __str__(&self) -> String {
        self.ad.display(Syntax::New).pretty().to_string()
    }

    fn __repr__(&self) -> String {
        self.ad.to_string()
    }
}

/// `collections.abc.<view>(ad)`.
fn mapping_view<'py>(ad: &Bound<'py, PyClassAd>, view: &str) -> PyResult<Bound<'py, PyAny>> {
    ad.py().import("collections.abc")?.getattr(view)?.call1((ad,))
}
