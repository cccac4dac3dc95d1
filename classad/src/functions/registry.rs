//! Functions the embedding program adds.
//!
//! A registered function is called like a built-in: it gets its arguments
//! unevaluated, through [`Args`], and evaluates the ones it needs (so it
//! decides its own strictness, as `ifThenElse` and the `is*` predicates
//! do). It returns a [`Value`]. Names are case-insensitive, like every
//! function name. The registry is shared by the whole process, as
//! libclassad's is; a call is resolved when it is evaluated, so a function
//! may be registered after the expressions that call it were parsed. Until
//! then such a call is ERROR, as any unknown function is.
//!
//! Built-ins cannot be replaced: [`register`] refuses their names, and
//! refuses a name already registered (call [`unregister`] first to replace
//! one on purpose).
//!
//! ```
//! use classad::functions::{register, unregister, Args};
//! use classad::{ClassAd, Value};
//!
//! // twice(x): 2 * x for integers, ERROR for anything else.
//! register("twice", |args: &mut Args<'_, '_>| match (args.len(), args.eval(0)) {
//!     (1, Value::Int(i)) => Value::Int(i.wrapping_mul(2)),
//!     _ => Value::Error,
//! })
//! .unwrap();
//!
//! let ad: ClassAd = "[ Cpus = 4; Slots = Twice(Cpus) ]".parse().unwrap();
//! assert_eq!(ad.eval_attr("Slots"), Value::Int(8));
//! assert!(register("strcat", |_: &mut Args<'_, '_>| Value::Undefined).is_err());
//! assert!(unregister("twice"));
//! assert_eq!(ad.eval_attr("Slots"), Value::Error);
//! ```

use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;
use rustc_hash::FxHashMap;

use crate::eval::{Evaluator, Frame, Val};
use crate::expr::Expr;
use crate::name::Name;
use crate::value::Value;

/// A registered function.
type Function = dyn Fn(&mut Args<'_, '_>) -> Value + Send + Sync;

/// Why [`register`] refused a function.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    /// The name is a built-in function's.
    #[error("`{0}` is a built-in function and cannot be replaced")]
    Builtin(String),
    /// A function of that name is already registered.
    #[error("a function named `{0}` is already registered")]
    AlreadyRegistered(String),
    /// The name is not an identifier (letters, digits and `_`, not starting
    /// with a digit).
    #[error("`{0}` is not a valid function name")]
    InvalidName(String),
}

/// The arguments of a call to a registered function, evaluated on demand
/// in the scope of the call.
pub struct Args<'e, 'a> {
    ev: &'e mut Evaluator<'a>,
    args: &'a [Expr],
    frame: &'a Frame<'a>,
}

impl Args<'_, '_> {
    /// The number of arguments.
    pub fn len(&self) -> usize {
        self.args.len()
    }

    /// True when the call has no arguments.
    pub fn is_empty(&self) -> bool {
        self.args.is_empty()
    }

    /// Argument `i` as written, unevaluated.
    pub fn expr(&self, i: usize) -> Option<&Expr> {
        self.args.get(i)
    }

    /// Evaluates argument `i` in the calling scope (UNDEFINED when there is
    /// no such argument). Evaluation counts against the same depth and step
    /// limits as the rest of the expression.
    pub fn eval(&mut self, i: usize) -> Value {
        match self.args.get(i) {
            Some(arg) => self.ev.eval(arg, self.frame).into_value(),
            None => Value::Undefined,
        }
    }
}

fn registry() -> &'static RwLock<FxHashMap<u32, Arc<Function>>> {
    static REGISTRY: OnceLock<RwLock<FxHashMap<u32, Arc<Function>>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Adds a function under `name` (any case).
///
/// Fails for the name of a built-in, a name already registered, or a name
/// that is not an identifier.
pub fn register(
    name: &str,
    function: impl Fn(&mut Args<'_, '_>) -> Value + Send + Sync + 'static,
) -> Result<(), RegisterError> {
    if !is_identifier(name) {
        return Err(RegisterError::InvalidName(name.to_owned()));
    }
    let key = Name::new(name);
    if key.builtin().is_some() {
        return Err(RegisterError::Builtin(name.to_owned()));
    }
    let mut functions = registry().write();
    if functions.contains_key(&key.symbol()) {
        return Err(RegisterError::AlreadyRegistered(name.to_owned()));
    }
    functions.insert(key.symbol(), Arc::new(function));
    Ok(())
}

/// Removes the function registered under `name`; false if there was none.
pub fn unregister(name: &str) -> bool {
    registry().write().remove(&Name::new(name).symbol()).is_some()
}

/// True when a function is registered under `name` (built-ins are not
/// registered: see [`builtin_names`](super::builtin_names)).
pub fn is_registered(name: &str) -> bool {
    registry().read().contains_key(&Name::new(name).symbol())
}

/// Calls the registered function `name`; ERROR when there is none.
pub(crate) fn call<'a>(ev: &mut Evaluator<'a>, name: Name, args: &'a [Expr], frame: &'a Frame<'a>) -> Val<'a> {
    // Take the function out of the lock: it may evaluate calls of other
    // registered functions, or (un)register some.
    let Some(function) = registry().read().get(&name.symbol()).cloned() else {
        return Val::Error;
    };
    let value = function(&mut Args { ev, args, frame });
    match value {
        Value::Undefined => Val::Undefined,
        Value::Error => Val::Error,
        Value::Bool(b) => Val::Bool(b),
        Value::Int(i) => Val::Int(i),
        Value::Real(r) => Val::Real(r),
        Value::Str(s) => Val::string(s.as_str()),
        Value::AbsTime(t) => Val::AbsTime(t),
        Value::RelTime(t) => Val::RelTime(t.0),
        // Lists and ads become expressions of this evaluation.
        value @ (Value::List(_) | Value::ClassAd(_)) => {
            let expr = ev.keep_expr(value.to_expr());
            ev.eval(expr, frame)
        }
    }
}
