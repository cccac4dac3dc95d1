//! Built-in functions.
//!
//! Every built-in has the same calling convention: it receives its
//! arguments unevaluated, with the evaluator and the calling scope, and
//! decides what to evaluate (so `ifThenElse` is lazy and the `is*`
//! predicates see UNDEFINED and ERROR instead of propagating them). Names
//! are case-insensitive and resolved once, at parse time, to a
//! [`BuiltinId`] of the catalog
//! ([`builtins`](crate::builtins): each built-in's name, arity, purity and
//! result type); this module holds the implementations, one table indexed
//! by that id.
//!
//! | group | functions |
//! |---|---|
//! | [type predicates](predicates) | `isUndefined isError isString isInteger isReal isBoolean isList isClassAd isAbstime isReltime` |
//! | [control](control) | `ifThenElse eval unparse unresolved debug` |
//! | [lists](lists) | `size member identicalMember sum avg min max anyCompare allCompare evalInEachContext countMatches` |
//! | [strings](strings) | `strcat toUpper toLower substr strcmp stricmp join split splitUserName splitSlotName` |
//! | [regular expressions](regex) | `regexp regexpMember regexps replace replaceAll` |
//! | [versions](versions) | `versioncmp versionGT versionGE versionLT versionLE versionEQ version_in_range` |
//! | [string lists](string_lists) | `stringListSize stringListSum stringListAvg stringListMin stringListMax stringListMember stringListIMember stringListSubsetMatch stringListISubsetMatch stringListsIntersect stringList_regexpMember` |
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

pub use crate::builtins::Arity;
pub use arity::arity;
pub use registry::{is_registered, register, unregister, Args, RegisterError};

use crate::builtins::{BuiltinId, CATALOG};
use crate::eval::{Evaluator, Frame, Val};
use crate::expr::{Call, Expr};

/// The signature every built-in implements.
pub(crate) type NativeFn = for<'a> fn(&mut Evaluator<'a>, &'a [Expr], &'a Frame<'a>) -> Val<'a>;

/// A group's implementations, each with the id of the built-in it
/// implements.
pub(crate) type Implementations = &'static [(BuiltinId, NativeFn)];

/// Every built-in's implementation, indexed by its id.
static IMPLEMENTATIONS: [NativeFn; BuiltinId::COUNT] = by_id(&[
    predicates::IMPLEMENTATIONS,
    control::IMPLEMENTATIONS,
    lists::IMPLEMENTATIONS,
    strings::IMPLEMENTATIONS,
    regex::IMPLEMENTATIONS,
    versions::IMPLEMENTATIONS,
    string_lists::IMPLEMENTATIONS,
    conversion::IMPLEMENTATIONS,
    math::IMPLEMENTATIONS,
    time::IMPLEMENTATIONS,
    condor::IMPLEMENTATIONS,
]);

/// The groups' implementations as one table indexed by id; fails to
/// compile unless every built-in of the catalog has exactly one.
const fn by_id(groups: &[Implementations]) -> [NativeFn; BuiltinId::COUNT] {
    let mut found: [Option<NativeFn>; BuiltinId::COUNT] = [None; BuiltinId::COUNT];
    let mut g = 0;
    while g < groups.len() {
        let mut i = 0;
        while i < groups[g].len() {
            let (id, func) = groups[g][i];
            assert!(found[id.index()].is_none(), "a built-in has two implementations");
            found[id.index()] = Some(func);
            i += 1;
        }
        g += 1;
    }
    let mut table: [NativeFn; BuiltinId::COUNT] = [missing; BuiltinId::COUNT];
    let mut i = 0;
    while i < BuiltinId::COUNT {
        match found[i] {
            Some(func) => table[i] = func,
            None => panic!("a built-in of the catalog has no implementation"),
        }
        i += 1;
    }
    table
}

/// What fills [`by_id`]'s table before the implementations do.
fn missing<'a>(_: &mut Evaluator<'a>, _: &'a [Expr], _: &'a Frame<'a>) -> Val<'a> {
    Val::Error
}

/// The names of all built-in functions.
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    CATALOG.iter().map(|b| b.name)
}

/// Evaluates a call.
pub(crate) fn call<'a>(ev: &mut Evaluator<'a>, call: &'a Call, frame: &'a Frame<'a>) -> Val<'a> {
    match call.builtin {
        Some(id) => IMPLEMENTATIONS[id.index()](ev, &call.args, frame),
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

#[cfg(test)]
mod tests {
    use crate::builtins::Builtin;

    /// The table of groups in this module's documentation lists each
    /// group's built-ins, as the catalog has them.
    #[test]
    fn the_group_table_is_in_step_with_the_catalog() {
        let mut rows = 0;
        for line in include_str!("mod.rs").lines() {
            let Some(row) = line.strip_prefix("//! | [") else {
                continue;
            };
            let (module, names) =
                row.split_once("](").and_then(|(_, rest)| rest.split_once(") | `")).unwrap_or_default();
            let mut documented: Vec<&str> = names.trim_end_matches("` |").split(' ').collect();
            let mut declared: Vec<&str> =
                Builtin::all().iter().filter(|b| b.group.module() == module).map(|b| b.name).collect();
            documented.sort_unstable();
            declared.sort_unstable();
            assert_eq!(documented, declared, "{module}");
            rows += 1;
        }
        assert_eq!(rows, 11, "one row per group");
    }
}
