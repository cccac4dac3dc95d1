//! Built-in functions.
//!
//! Every built-in has the same calling convention: it receives its
//! arguments unevaluated, with the evaluator and the calling scope, and
//! decides what to evaluate (so `ifThenElse` is lazy and the `is*`
//! predicates see UNDEFINED and ERROR instead of propagating them). Names
//! are case-insensitive and resolved once, at parse time.
//!
//! | group | functions |
//! |---|---|
//! | [type predicates](predicates) | `isUndefined isError isString isInteger isReal isBoolean isList isClassAd isAbstime isReltime` |
//! | [control](control) | `ifThenElse eval unparse unresolved debug` |
//! | [lists](lists) | `size member identicalMember sum avg min max anyCompare allCompare evalInEachContext countMatches` |
//! | [strings](strings) | `strcat toUpper toLower substr strcmp stricmp join split splitUserName splitSlotName` |
//! | [regular expressions](regex) | `regexp regexpMember regexps replace replaceAll` |
//! | [versions](versions) | `versioncmp versionGT versionGE versionLT versionLE versionEQ version_in_range` |
//! | [string lists](string_lists) | `stringListSize stringListSum stringListAvg stringListMin stringListMax stringListMember stringListIMember stringListSubsetMatch stringListISubsetMatch stringListsIntersect` |
//! | [conversion](conversion) | `int real string bool floor ceiling ceil round` |
//! | [math](math) | `pow quantize random` |
//! | [time](time) | `time currentTime absTime relTime timeZoneOffset dayTime splitTime formatTime interval getYear getMonth getDayOfYear getDayOfMonth getDayOfWeek getHours getMinutes getSeconds getDays` |
//! | [HTCondor](condor) | `envV1ToV2 mergeEnvironment argsToList listToArgs userMap userHome` |
//!
//! An unknown function name parses and evaluates to ERROR, as does a call
//! with the wrong number of arguments.
//!
//! Programs add their own functions with [`register`] (see [`registry`]);
//! they are called the same way, and cannot replace a built-in.
//!
#![doc = include_str!("reference.md")]

mod arity;
pub mod condor;
pub mod control;
pub mod conversion;
pub mod lists;
pub mod math;
pub mod predicates;
pub mod regex;
pub mod registry;
pub mod string_lists;
pub mod strings;
pub mod time;
pub mod versions;

use std::sync::OnceLock;

pub use arity::{arity, Arity};
pub use registry::{is_registered, register, unregister, Args, RegisterError};

use rustc_hash::FxHashMap;

use crate::eval::{Evaluator, Frame, Val};
use crate::expr::{Call, Expr};
use crate::name::Name;

/// The signature every built-in implements.
pub(crate) type NativeFn = for<'a> fn(&mut Evaluator<'a>, &'a [Expr], &'a Frame<'a>) -> Val<'a>;

/// A built-in function.
pub struct Builtin {
    /// The canonical spelling of the name.
    pub name: &'static str,
    pub(crate) func: NativeFn,
}

impl std::fmt::Debug for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Builtin({})", self.name)
    }
}

/// Every built-in, grouped as in the module docs.
fn table() -> impl Iterator<Item = &'static Builtin> {
    [
        predicates::BUILTINS,
        control::BUILTINS,
        lists::BUILTINS,
        strings::BUILTINS,
        regex::BUILTINS,
        versions::BUILTINS,
        string_lists::BUILTINS,
        conversion::BUILTINS,
        math::BUILTINS,
        time::BUILTINS,
        condor::BUILTINS,
    ]
    .into_iter()
    .flatten()
}

/// The built-in called `name` (any case), if there is one.
pub(crate) fn lookup(name: Name) -> Option<&'static Builtin> {
    static INDEX: OnceLock<FxHashMap<u32, &'static Builtin>> = OnceLock::new();
    INDEX.get_or_init(|| table().map(|b| (Name::new(b.name).symbol(), b)).collect()).get(&name.symbol()).copied()
}

/// The names of all built-in functions.
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    table().map(|b| b.name)
}

/// Evaluates a call.
pub(crate) fn call<'a>(ev: &mut Evaluator<'a>, call: &'a Call, frame: &'a Frame<'a>) -> Val<'a> {
    match call.builtin {
        Some(builtin) => (builtin.func)(ev, &call.args, frame),
        None => registry::call(ev, call.name, &call.args, frame),
    }
}

/// Evaluates the only argument, or gives ERROR if there is not exactly one.
pub(crate) fn one_arg<'a>(ev: &mut Evaluator<'a>, args: &'a [Expr], frame: &'a Frame<'a>) -> Option<Val<'a>> {
    match args {
        [arg] => Some(ev.eval(arg, frame)),
        _ => None,
    }
}
