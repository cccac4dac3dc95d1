//! The prepared form of an expression: [`Step`]s, each a node whose
//! operands are other steps of the same expression, named by position;
//! and the type tests (`isUndefined`, `isString`, ...) a step may make.

use crate::eval::val::Val;
use crate::expr::{BinaryOp, Expr, Literal, UnaryOp};
use crate::name::Name;

/// Where a step is in its prepared expression's `steps`.
pub(super) type StepId = u32;

/// A prepared expression node. Its operands are other steps, named by
/// their position in the prepared expression's `steps`.
pub(super) enum Step {
    /// A literal: written in the expression, or computed while preparing
    /// from MY's attributes and constants.
    Literal(Literal),
    /// `TARGET.name`: the attribute looked up in the target ad.
    Target(Name),
    /// `TARGET.name op literal` (or `literal op TARGET.name` when
    /// `target_first` is false): a lookup and an operator, in one step.
    Compare {
        op: BinaryOp,
        name: Name,
        literal: Literal,
        target_first: bool,
    },
    /// `a && b && ...` (`dominant` false) or `a || b || ...` (true), folded
    /// from the left exactly as the nested operators are.
    /// The items are the `len` steps from `first`.
    Chain {
        dominant: bool,
        first: StepId,
        len: u32,
    },
    Unary(UnaryOp, StepId),
    Binary(BinaryOp, StepId, StepId),
    Cond(StepId, StepId, StepId),
    Elvis(StepId, StepId),
    /// `isUndefined(x)`, `isString(x)`, ...: whether the value has a type.
    IsType(TypeTest, StepId),
    /// Evaluated by the interpreter in MY's scope.
    Whole(Expr),
    /// The inlined expression of one of MY's attributes (by name), whose
    /// steps may reach back into MY (through the target, or the
    /// interpreter): while they run, the attribute is marked as being
    /// evaluated, as the interpreter marks it (by the address of MY's
    /// expression, found when the step runs, so that the steps serve any
    /// ad that has the same expression), so that a cycle back to it is
    /// ERROR here too.
    Within(Name, StepId),
}

impl Step {
    /// Whether evaluating the step may evaluate one of MY's attributes
    /// other than through inlined steps: by reading a target attribute
    /// (whose expression may refer to MY) or running the interpreter.
    pub(super) fn may_reenter(&self, steps: &[Step]) -> bool {
        let at = |id: &StepId| steps[*id as usize].may_reenter(steps);
        match self {
            Step::Literal(_) => false,
            Step::Target(_) | Step::Compare { .. } | Step::Whole(_) | Step::Within(..) => true,
            Step::Chain { first, len, .. } => items(steps, *first, *len).iter().any(|item| item.may_reenter(steps)),
            Step::Unary(_, a) | Step::IsType(_, a) => at(a),
            Step::Binary(_, a, b) | Step::Elvis(a, b) => at(a) || at(b),
            Step::Cond(c, a, b) => at(c) || at(a) || at(b),
        }
    }
}

/// The items of a chain: the `len` steps from `first`.
#[inline]
pub(super) fn items(steps: &[Step], first: StepId, len: u32) -> &[Step] {
    &steps[first as usize..(first + len) as usize]
}

/// The type a type predicate (`isUndefined`, `isString`, ...) tests for.
#[derive(Clone, Copy, Debug)]
pub(super) enum TypeTest {
    Undefined,
    Error,
    String,
    Integer,
    Real,
    Boolean,
    List,
    ClassAd,
    AbsTime,
    RelTime,
}

impl TypeTest {
    /// The test a built-in's name performs, if it is a type predicate.
    pub(super) fn of(name: &str) -> Option<TypeTest> {
        const TESTS: &[(&str, TypeTest)] = &[
            ("isUndefined", TypeTest::Undefined),
            ("isError", TypeTest::Error),
            ("isString", TypeTest::String),
            ("isInteger", TypeTest::Integer),
            ("isReal", TypeTest::Real),
            ("isBoolean", TypeTest::Boolean),
            ("isList", TypeTest::List),
            ("isClassAd", TypeTest::ClassAd),
            ("isAbstime", TypeTest::AbsTime),
            ("isReltime", TypeTest::RelTime),
        ];
        TESTS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, test)| *test)
    }

    pub(super) fn holds(self, value: &Val<'_>) -> bool {
        matches!(
            (self, value),
            (TypeTest::Undefined, Val::Undefined)
                | (TypeTest::Error, Val::Error)
                | (TypeTest::String, Val::Str(_))
                | (TypeTest::Integer, Val::Int(_))
                | (TypeTest::Real, Val::Real(_))
                | (TypeTest::Boolean, Val::Bool(_))
                | (TypeTest::List, Val::List(_))
                | (TypeTest::ClassAd, Val::Ad(_))
                | (TypeTest::AbsTime, Val::AbsTime(_))
                | (TypeTest::RelTime, Val::RelTime(_))
        )
    }
}
