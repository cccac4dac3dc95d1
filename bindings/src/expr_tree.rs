//! `ExprTree`: one expression.

use classad::{BinaryOp, EvalContext, Expr, Syntax, UnaryOp, Value};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyBool, PyTuple};

use crate::convert::{py_to_expr, value_to_py};
use crate::errors::{checked, parse_error};
use crate::objects::{PyClassAd, PyExprTree};
use crate::semantics::{options, SemanticsArg};

#[pymethods]
impl PyExprTree {
    /// Parses `expr` (new syntax), or wraps an `ExprTree` (a copy), or
    /// makes the literal of another Python value (`ExprTree(5)`, as
    /// classad2 allows). With no argument, the literal `undefined`, as
    /// classad2's `ExprTree()`.
    #[new]
    #[pyo3(signature = (expr=None))]
    fn new(py: Python<'_>, expr: Option<&Bound<'_, PyAny>>) -> PyResult<PyExprTree> {
        let Some(expr) = expr else {
            return Ok(PyExprTree { expr: Expr::literal(classad::Literal::Undefined) });
        };
        if let Ok(tree) = expr.cast::<PyExprTree>() {
            return Ok(tree.get().clone());
        }
        let Ok(text) = expr.extract::<String>() else {
            return Ok(PyExprTree { expr: py_to_expr(expr)? });
        };
        let expr = py.detach(|| classad::parse_expr(&text)).map_err(|e| parse_error(py, &e))?;
        Ok(PyExprTree { expr })
    }

    /// Evaluates the expression; `scope` is the ad it is evaluated in (MY),
    /// `target` the other ad of a match (TARGET).
    #[pyo3(signature = (scope=None, target=None, semantics=None))]
    fn eval(
        &self,
        py: Python<'_>,
        scope: Option<PyRef<'_, PyClassAd>>,
        target: Option<PyRef<'_, PyClassAd>>,
        semantics: Option<SemanticsArg>,
    ) -> PyResult<Py<PyAny>> {
        let value = self.value_in(scope.as_deref(), target.as_deref(), semantics)?;
        value_to_py(py, &value)
    }

    /// The expression evaluated (in `scope`, against `target`), as an
    /// `ExprTree` of its value (a relative time in whole seconds, as
    /// classad2 gives it).
    #[pyo3(signature = (scope=None, target=None, semantics=None))]
    fn simplify(
        &self,
        scope: Option<PyRef<'_, PyClassAd>>,
        target: Option<PyRef<'_, PyClassAd>>,
        semantics: Option<SemanticsArg>,
    ) -> PyResult<PyExprTree> {
        let value = match self.value_in(scope.as_deref(), target.as_deref(), semantics)? {
            // libclassad's literal of a relative time holds whole seconds.
            Value::RelTime(t) => Value::RelTime(classad::RelTime(t.0.trunc())),
            value => value,
        };
        Ok(PyExprTree { expr: value.to_expr() })
    }

    /// `self + other`.
    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Add, other, false)
    }

    /// `other + self`.
    fn __radd__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Add, other, true)
    }

    /// `self - other`.
    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Sub, other, false)
    }

    /// `other - self`.
    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Sub, other, true)
    }

    /// `self * other`.
    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Mul, other, false)
    }

    /// `other * self`.
    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Mul, other, true)
    }

    /// `self / other`.
    fn __truediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Div, other, false)
    }

    /// `other / self`.
    fn __rtruediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Div, other, true)
    }

    /// `self % other`.
    fn __mod__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Mod, other, false)
    }

    /// `other % self`.
    fn __rmod__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Mod, other, true)
    }

    /// `self & other`.
    fn __and__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::BitAnd, other, false)
    }

    /// `other & self`.
    fn __rand__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::BitAnd, other, true)
    }

    /// `self | other`.
    fn __or__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::BitOr, other, false)
    }

    /// `other | self`.
    fn __ror__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::BitOr, other, true)
    }

    /// `self ^ other`.
    fn __xor__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::BitXor, other, false)
    }

    /// `other ^ self`.
    fn __rxor__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::BitXor, other, true)
    }

    /// `self << other`.
    fn __lshift__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Shl, other, false)
    }

    /// `other << self`.
    fn __rlshift__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Shl, other, true)
    }

    /// `self >> other`.
    fn __rshift__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Shr, other, false)
    }

    /// `other >> self`.
    fn __rrshift__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Shr, other, true)
    }

    /// `self && other`.
    fn and_(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::And, other, false)
    }

    /// `self || other`.
    fn or_(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Or, other, false)
    }

    /// `self is other`.
    fn is_(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Is, other, false)
    }

    /// `self isnt other`.
    fn isnt_(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        self.combine(py, BinaryOp::Isnt, other, false)
    }

    /// `==` and `!=` compare trees (as `sameAs`); `<`, `<=`, `>` and `>=`
    /// build a comparison.
    fn __richcmp__(&self, py: Python<'_>, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let same = || other.cast::<PyExprTree>().is_ok_and(|other| other.get().expr.same_as(&self.expr));
        let op = match op {
            CompareOp::Eq => return Ok(PyBool::new(py, same()).to_owned().into_any().unbind()),
            CompareOp::Ne => return Ok(PyBool::new(py, !same()).to_owned().into_any().unbind()),
            CompareOp::Lt => BinaryOp::Lt,
            CompareOp::Le => BinaryOp::Le,
            CompareOp::Gt => BinaryOp::Gt,
            CompareOp::Ge => BinaryOp::Ge,
        };
        Ok(self.combine(py, op, other, false))
    }

    /// True when both are the same tree (`==`).
    #[pyo3(name = "sameAs")]
    fn same_as(&self, other: PyRef<'_, PyExprTree>) -> bool {
        self.expr.same_as(&other.expr)
    }

    /// ` -self`.
    fn __neg__(&self) -> PyExprTree {
        PyExprTree { expr: Expr::unary_grouped(UnaryOp::Neg, self.expr.clone()) }
    }

    /// ` +self`.
    fn __pos__(&self) -> PyExprTree {
        PyExprTree { expr: Expr::unary_grouped(UnaryOp::Plus, self.expr.clone()) }
    }

    /// ` ~self` (bitwise complement).
    fn __invert__(&self) -> PyExprTree {
        PyExprTree { expr: Expr::unary_grouped(UnaryOp::BitNot, self.expr.clone()) }
    }

    /// The value (evaluated without an ad, in the default semantics) as an
    /// integer, as the v1 module gave; `ValueError` if it is not a number.
    fn __int__(&self) -> PyResult<i64> {
        match self.value_in(None, None, None)? {
            Value::Int(n) => Ok(n),
            Value::Real(x) if x.is_finite() => Ok(x as i64),
            Value::Bool(b) => Ok(i64::from(b)),
            other => Err(PyValueError::new_err(format!("{other} is not a number"))),
        }
    }

    /// The value as a float, as for `int()`.
    fn __float__(&self) -> PyResult<f64> {
        match self.value_in(None, None, None)? {
            Value::Int(n) => Ok(n as f64),
            Value::Real(x) => Ok(x),
            Value::Bool(b) => Ok(f64::from(u8::from(b))),
            other => Err(PyValueError::new_err(format!("{other} is not a number"))),
        }
    }

    /// Pickles as its text.
    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(Py<PyAny>, (String,))> {
        Ok((slf.get_type().into_any().unbind(), (slf.get().expr.to_string(),)))
    }

    /// libclassad's multi-line layout for lists and ads (as classad2
    /// prints); anything else on one line, as `repr`.
    fn __str__(&self) -> String {
        self.expr.display(Syntax::New).pretty().to_string()
    }

    fn __repr__(&self) -> String {
        self.expr.to_string()
    }
}

impl PyExprTree {
    /// `self op other`, or `other op self` when `reflected`; Python's
    /// `NotImplemented` when `other` cannot be an expression, so that
    /// Python raises its usual `TypeError`.
    fn combine(&self, py: Python<'_>, op: BinaryOp, other: &Bound<'_, PyAny>, reflected: bool) -> Py<PyAny> {
        let Ok(other) = py_to_expr(other) else {
            return py.NotImplemented();
        };
        let (left, right) = if reflected { (other, self.expr.clone()) } else { (self.expr.clone(), other) };
        let tree = PyExprTree { expr: Expr::binary_grouped(op, left, right) };
        match Py::new(py, tree) {
            Ok(tree) => tree.into_any(),
            Err(_) => py.NotImplemented(),
        }
    }

    /// The value of the expression with `scope` as MY and `target` as
    /// TARGET.
    fn value_in(
        &self,
        scope: Option<&PyClassAd>,
        target: Option<&PyClassAd>,
        semantics: Option<SemanticsArg>,
    ) -> PyResult<Value> {
        let options = options(semantics);
        let mut context = EvalContext::new(&options);
        if let Some(scope) = scope {
            context = context.my(&scope.ad);
        }
        if let Some(target) = target {
            context = context.target(&target.ad);
        }
        checked(context.eval(&self.expr))
    }
}

/// The tree of a reference to the attribute `name` (v1's `Attribute`).
#[pyfunction]
#[pyo3(name = "Attribute")]
pub(crate) fn attribute(name: &str) -> PyExprTree {
    PyExprTree { expr: Expr::attr(name) }
}

/// The tree of a call of `name` with `args` (Python values or trees; v1's
/// `Function`).
#[pyfunction]
#[pyo3(name = "Function", signature = (name, *args))]
pub(crate) fn function(name: &str, args: &Bound<'_, PyTuple>) -> PyResult<PyExprTree> {
    let args = args.iter().map(|arg| py_to_expr(&arg)).collect::<PyResult<Vec<_>>>()?;
    Ok(PyExprTree { expr: Expr::call(name, args) })
}

/// The tree of a value (v1's `Literal`): a Python value as a literal, a
/// tree as the literal of its value (evaluated without an ad).
#[pyfunction]
#[pyo3(name = "Literal")]
pub(crate) fn literal(value: &Bound<'_, PyAny>) -> PyResult<PyExprTree> {
    if let Ok(tree) = value.cast::<PyExprTree>() {
        return Ok(PyExprTree { expr: tree.get().value_in(None, None, None)?.to_expr() });
    }
    Ok(PyExprTree { expr: py_to_expr(value)? })
}
