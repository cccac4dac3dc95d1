//! The truth kernel: the conditions of a prepared expression evaluated
//! straight from the target's literal attribute values, without the
//! interpreter.
//!
//! Typical `Requirements` are `&&`/`||` chains of comparisons between a
//! target attribute and a constant. Such a condition can only be `true`,
//! `false`, UNDEFINED or ERROR, so the kernel computes a one-byte [`Truth`]
//! instead of a value, and compares integers and strings in place. When a
//! target attribute it reads is not a literal (`Memory = TotalMemory / 2`),
//! it gives up and the caller evaluates the prepared steps as usual; nothing
//! here has side effects, so giving up halfway is safe.

use super::super::ops;
use super::super::val::Val;
use super::step::{items, Step};
use crate::ad::ClassAd;
use crate::expr::{BinaryOp, Expr, Literal, Repr, UnaryOp};
use crate::name::Name;

/// What a condition can be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    /// `false`, or a number equal to 0.
    False,
    /// `true`, or a non-zero number.
    True,
    /// UNDEFINED.
    Undefined,
    /// ERROR, or a value that is not a condition (a string, a list...).
    Error,
}

impl Truth {
    /// How `&&`, `||` and `!` see a value: UNDEFINED stays UNDEFINED,
    /// booleans and numbers are their truth, anything else is ERROR.
    #[inline]
    pub(super) fn of(value: &Val<'_>) -> Truth {
        match value {
            Val::Undefined => Truth::Undefined,
            v => match v.truth() {
                Some(true) => Truth::True,
                Some(false) => Truth::False,
                None => Truth::Error,
            },
        }
    }

    #[inline]
    pub(super) fn from_bool(b: bool) -> Truth {
        if b {
            Truth::True
        } else {
            Truth::False
        }
    }

    /// Whether `self` as the left operand of `&&` (`dominant` false) or
    /// `||` (true) decides the result alone: ERROR and the dominant value do.
    #[inline]
    pub(super) fn decides(self, dominant: bool) -> bool {
        self == Truth::Error || self == Truth::from_bool(dominant)
    }

    /// `left && right` (`dominant` false) or `left || right` (true), as
    /// `ops::logical`: a deciding left side alone; otherwise the right
    /// side, except that a non-dominant right after UNDEFINED is UNDEFINED.
    #[inline]
    pub(super) fn combine(dominant: bool, left: Truth, right: Truth) -> Truth {
        if left.decides(dominant) {
            return left;
        }
        match right {
            Truth::Undefined | Truth::Error => right,
            right if right == Truth::from_bool(dominant) || left != Truth::Undefined => right,
            _ => Truth::Undefined,
        }
    }

    /// The value a condition with this truth has.
    pub(super) fn value(self) -> Val<'static> {
        match self {
            Truth::False => Val::Bool(false),
            Truth::True => Val::Bool(true),
            Truth::Undefined => Val::Undefined,
            Truth::Error => Val::Error,
        }
    }
}

/// A condition compiled from prepared steps.
#[derive(Debug)]
pub(super) enum Kernel {
    /// `TARGET.name op constant` (or the other way round) with a
    /// comparison operator, whose value is always a truth.
    Test {
        op: BinaryOp,
        name: Name,
        constant: Literal,
        target_first: bool,
    },
    /// A target attribute as an operand of `!`, `&&` or `||`.
    Truthy(Name),
    /// A constant operand of `!`, `&&` or `||`.
    Fixed(Truth),
    Not(Box<Kernel>),
    /// `a && b && ...` (`dominant` false) or `a || b || ...` (true).
    Chain {
        dominant: bool,
        items: Box<[Kernel]>,
    },
}

impl Kernel {
    /// The kernel of a whole prepared expression, if it is a condition the
    /// kernel can evaluate. Only steps whose value is always a truth
    /// qualify at the top: a bare literal or attribute keeps its own value.
    pub(super) fn compile(step: &Step, steps: &[Step]) -> Option<Kernel> {
        let at = |id: &u32| &steps[*id as usize];
        match step {
            Step::Compare { op, name, literal, target_first } if compares(*op) => {
                Some(Kernel::Test { op: *op, name: *name, constant: literal.clone(), target_first: *target_first })
            }
            // `is` and `isnt` are not fused into `Step::Compare`.
            Step::Binary(op, a, b) if compares(*op) => match (at(a), at(b)) {
                (Step::Target(name), Step::Literal(literal)) => {
                    Some(Kernel::Test { op: *op, name: *name, constant: literal.clone(), target_first: true })
                }
                (Step::Literal(literal), Step::Target(name)) => {
                    Some(Kernel::Test { op: *op, name: *name, constant: literal.clone(), target_first: false })
                }
                _ => None,
            },
            Step::Unary(UnaryOp::Not, operand) => Some(Kernel::Not(Box::new(Kernel::operand(at(operand), steps)?))),
            Step::Chain { dominant, first, len } => {
                let items = items(steps, *first, *len);
                let items = items.iter().map(|item| Kernel::operand(item, steps)).collect::<Option<_>>()?;
                Some(Kernel::Chain { dominant: *dominant, items })
            }
            // The kernel reads literal target values only, which cannot
            // lead back into MY.
            Step::Within(_, body) => Kernel::compile(at(body), steps),
            _ => None,
        }
    }

    /// The kernel of an operand of `!`, `&&` or `||`, which only matters
    /// through its truth.
    fn operand(step: &Step, steps: &[Step]) -> Option<Kernel> {
        match step {
            Step::Target(name) => Some(Kernel::Truthy(*name)),
            Step::Literal(literal) => Some(Kernel::Fixed(Truth::of(&Val::from_literal(literal)))),
            Step::Within(_, body) => Kernel::operand(&steps[*body as usize], steps),
            step => Kernel::compile(step, steps),
        }
    }

    /// The truth against `target`, or `None` when a target attribute it
    /// reads is not a literal.
    pub(super) fn truth(&self, target: &ClassAd) -> Option<Truth> {
        match self {
            Kernel::Test { op, name, constant, target_first } => {
                let value = target_literal(*name, target)?;
                let (a, b) = if *target_first { (value, constant) } else { (constant, value) };
                Some(test(*op, a, b))
            }
            Kernel::Truthy(name) => Some(Truth::of(&Val::from_literal(target_literal(*name, target)?))),
            Kernel::Fixed(truth) => Some(*truth),
            Kernel::Not(operand) => Some(match operand.truth(target)? {
                Truth::False => Truth::True,
                Truth::True => Truth::False,
                other => other,
            }),
            Kernel::Chain { dominant, items } => {
                let (first, rest) = items.split_first()?;
                let mut left = first.truth(target)?;
                for item in rest {
                    if left.decides(*dominant) {
                        return Some(left);
                    }
                    left = Truth::combine(*dominant, left, item.truth(target)?);
                }
                Some(left)
            }
        }
    }
}

/// The operators a [`Kernel::Test`] takes: their values are always a truth.
pub(super) fn compares(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(op, Lt | Le | Gt | Ge | Eq | Ne | Is | Isnt)
}

/// The literal of a literal expression.
fn literal_of(expr: &Expr) -> Option<&Literal> {
    match &expr.0 {
        Repr::Lit(literal) => Some(literal),
        Repr::Node(_) => None,
    }
}

/// UNDEFINED, for a missing attribute.
static MISSING: Literal = Literal::Undefined;

/// The target's attribute `name` when it is a literal (UNDEFINED when it
/// is missing).
#[inline]
pub(super) fn target_literal(name: Name, target: &ClassAd) -> Option<&Literal> {
    match target.lookup_name(name) {
        Some(expr) => literal_of(expr),
        None => Some(&MISSING),
    }
}

/// `a op b` for a comparison operator, integers and string equality in
/// place and everything else through the interpreter's operators.
#[inline]
pub(super) fn test(op: BinaryOp, a: &Literal, b: &Literal) -> Truth {
    match (a, b) {
        (Literal::Int(x), Literal::Int(y)) if !matches!(op, BinaryOp::Is | BinaryOp::Isnt) => integer_test(op, *x, *y),
        (Literal::Str(x), Literal::Str(y)) if matches!(op, BinaryOp::Eq | BinaryOp::Ne) => {
            Truth::from_bool(ops::strings_equal(x, y) == (op == BinaryOp::Eq))
        }
        // Literals are never lists or ads, so `=?=` of two is never ERROR.
        _ if matches!(op, BinaryOp::Is | BinaryOp::Isnt) => {
            let same = matches!(ops::identical(&Val::from_literal(a), &Val::from_literal(b)), Val::Bool(true));
            Truth::from_bool(same == (op == BinaryOp::Is))
        }
        _ => general(op, a, b),
    }
}

/// `a op b` for integers and a comparison operator other than `is` and
/// `isnt`.
#[inline]
pub(super) fn integer_test(op: BinaryOp, a: i64, b: i64) -> Truth {
    Truth::from_bool(match op {
        BinaryOp::Lt => a < b,
        BinaryOp::Le => a <= b,
        BinaryOp::Gt => a > b,
        BinaryOp::Ge => a >= b,
        BinaryOp::Eq => a == b,
        _ => a != b,
    })
}

#[inline(never)]
fn general(op: BinaryOp, a: &Literal, b: &Literal) -> Truth {
    let (a, b) = (Val::from_literal(a), Val::from_literal(b));
    let value = match op {
        BinaryOp::Is | BinaryOp::Isnt => match ops::identical(&a, &b) {
            Val::Bool(same) => Val::Bool(same == (op == BinaryOp::Is)),
            other => other,
        },
        _ => ops::binary(op, a, b),
    };
    debug_assert!(matches!(value, Val::Bool(_) | Val::Undefined | Val::Error), "{op:?} gave {value:?}");
    Truth::of(&value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::prepared::Preparer;
    use crate::eval::EvalOptions;

    fn kernel_of(my: &ClassAd, text: &str) -> bool {
        let expr: Expr = text.parse().expect("expression");
        let options = EvalOptions::new();
        let mut preparer = Preparer::new(&options, my);
        let step = preparer.prepare(&expr);
        Kernel::compile(&step, &preparer.arena).is_some()
    }

    #[test]
    fn compiles_the_conditions_of_typical_requirements() {
        let job: ClassAd = "[ RequestMemory = 2048; RequestDisk = 1000 ]".parse().expect("ad");
        assert!(kernel_of(
            &job,
            r#"(TARGET.Arch == "X86_64") && (TARGET.Memory >= RequestMemory) && (TARGET.Disk >= RequestDisk)
                && (TARGET.HasFileTransfer) && !(TARGET.Broken =?= true)"#
        ));
        assert!(kernel_of(&job, "TARGET.Memory >= RequestMemory"));
        assert!(kernel_of(&job, "TARGET.x == 1 || 2 < TARGET.y"));
    }

    #[test]
    fn leaves_values_that_are_not_truths_to_the_steps() {
        let job: ClassAd = "[ RequestMemory = 2048; Slack = TARGET.Memory / 2 ]".parse().expect("ad");
        // A bare attribute or literal keeps its own value (5 is not `true`).
        assert!(!kernel_of(&job, "TARGET.Memory"));
        assert!(!kernel_of(&job, "5"));
        // Arithmetic on target values, also through MY's attributes.
        assert!(!kernel_of(&job, "TARGET.Memory + 1 > RequestMemory"));
        assert!(!kernel_of(&job, "TARGET.Memory >= Slack"));
        assert!(!kernel_of(&job, "TARGET.Memory > 1 && Slack"));
    }

    #[test]
    fn gives_up_on_target_attributes_that_are_not_literals() {
        let job = ClassAd::new();
        let expr: Expr = "TARGET.Memory >= 1024 && TARGET.Cpus > 0".parse().expect("expression");
        let options = EvalOptions::new();
        let mut preparer = Preparer::new(&options, &job);
        let step = preparer.prepare(&expr);
        let kernel = Kernel::compile(&step, &preparer.arena).expect("a condition");
        let literal: ClassAd = "[ Memory = 4096; Cpus = 0 ]".parse().expect("ad");
        assert_eq!(kernel.truth(&literal), Some(Truth::False));
        let computed: ClassAd = "[ Memory = Total / 2; Total = 4096; Cpus = 1 ]".parse().expect("ad");
        assert_eq!(kernel.truth(&computed), None);
        let missing: ClassAd = "[ Memory = 4096 ]".parse().expect("ad");
        assert_eq!(kernel.truth(&missing), Some(Truth::Undefined));
    }
}
