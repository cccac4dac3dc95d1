//! `ExprTree`: one expression.

use classad::{EvalContext, Expr, Syntax, Value};
use pyo3::prelude::*;

use crate::ad::PyClassAd;
use crate::convert::value_to_py;
use crate::errors::parse_error;
use crate::semantics::{options, SemanticsArg};

/// A ClassAd expression (`classad2.ExprTree`).
#[pyclass(name = "ExprTree", module = "classad_rs", frozen, eq)]
#[derive(Clone)]
pub(crate) struct PyExprTree {
    pub(crate) expr: Expr,
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
    #[pyo3(signature = (scope=None, target=None, semantics=None))]
    fn eval(
        &self,
        py: Python<'_>,
        scope: Option<PyRef<'_, PyClassAd>>,
        target: Option<PyRef<'_, PyClassAd>>,
        semantics: Option<SemanticsArg>,
    ) -> PyResult<Py<PyAny>> {
        let value = self.value_in(scope.as_deref(), target.as_deref(), semantics);
        value_to_py(py, &value)
    }

    /// The expression evaluated (in `scope`, against `target`), as an
    /// `ExprTree` of its value.
    #[pyo3(signature = (scope=None, target=None, semantics=None))]
    fn simplify(
        &self,
        scope: Option<PyRef<'_, PyClassAd>>,
        target: Option<PyRef<'_, PyClassAd>>,
        semantics: Option<SemanticsArg>,
    ) -> PyExprTree {
        let value = self.value_in(scope.as_deref(), target.as_deref(), semantics);
        PyExprTree { expr: value.to_expr() }
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
    /// The value of the expression with `scope` as MY and `target` as
    /// TARGET.
    fn value_in(
        &self,
        scope: Option<&PyClassAd>,
        target: Option<&PyClassAd>,
        semantics: Option<SemanticsArg>,
    ) -> Value {
        let options = options(semantics);
        let mut context = EvalContext::new(&options);
        if let Some(scope) = scope {
            context = context.my(&scope.ad);
        }
        if let Some(target) = target {
            context = context.target(&target.ad);
        }
        context.eval(&self.expr)
    }
}
