//! The data of the two Python classes the other modules build and take:
//! `ClassAd` ([`PyClassAd`]) and `ExprTree` ([`PyExprTree`]). Their
//! methods are in [`ad`](crate::ad) and [`expr_tree`](crate::expr_tree);
//! the conversions ([`convert`](crate::convert)) make and read them, and
//! each class's methods take or give the other.

use classad::{ClassAd, Expr};
use pyo3::prelude::*;

/// A ClassAd (`classad2.ClassAd`): a mapping of case-insensitive,
/// case-preserving names to expressions.
#[pyclass(name = "ClassAd", module = "classad_rs.classad2", mapping)]
#[derive(Clone, Default)]
pub(crate) struct PyClassAd {
    pub(crate) ad: ClassAd,
}

/// A ClassAd expression (`classad2.ExprTree`).
///
/// Beyond classad2, Python's operators build expressions from trees and
/// Python values, as the v1 `classad` module's did: `Attribute("x") + 1`
/// is the tree `x + 1`, `tree < 2` the tree `... < 2`; `and_`, `or_`,
/// `is_` and `isnt_` build `&&`, `||`, `is` and `isnt`. `==` and `!=`
/// compare trees, as in classad2.
#[pyclass(name = "ExprTree", module = "classad_rs.classad2", frozen)]
#[derive(Clone)]
pub(crate) struct PyExprTree {
    pub(crate) expr: Expr,
}
