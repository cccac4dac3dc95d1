//! The catalog of built-in functions: every fact about a built-in that
//! the syntax layer, the linter and the preparer need, declared once, in
//! one table (its implementation is in [`functions`](crate::functions),
//! in a table indexed by [`BuiltinId`]).
//!
//! This module imports nothing from the crate: the parser resolves a
//! call's name to a [`BuiltinId`] once, the expression tree stores that id,
//! and the evaluator indexes its table of implementations with it.
//!
//! Adding a built-in is one row here (name, arity, purity, result type,
//! group) and its implementation in the group's `functions` module; the
//! compiler refuses a row without an implementation, and a test checks
//! the row against the function reference (`functions/reference.md`).
//!
//! ```
//! use classad::builtins::{Builtin, BuiltinId, Purity};
//! let substr = Builtin::find("SUBSTR").unwrap();
//! assert_eq!(substr.id, BuiltinId::Substr);
//! assert_eq!(substr.name, "substr");
//! assert!(substr.arity.accepts(2) && substr.arity.accepts(3) && !substr.arity.accepts(4));
//! assert_eq!(substr.purity, Purity::Pure);
//! assert_eq!(BuiltinId::Time.builtin().purity, Purity::Varying);
//! ```

use std::fmt;

/// The argument counts a function accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arity {
    /// The fewest arguments.
    pub min: usize,
    /// The most, or `None` for any number.
    pub max: Option<usize>,
}

impl Arity {
    /// Whether `count` arguments are accepted.
    pub fn accepts(self, count: usize) -> bool {
        count >= self.min && self.max.is_none_or(|max| count <= max)
    }
}

impl fmt::Display for Arity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.max {
            Some(max) if max == self.min => write!(f, "{max}"),
            Some(max) => write!(f, "{} to {max}", self.min),
            None => write!(f, "{} or more", self.min),
        }
    }
}

/// Whether a built-in's value depends on its arguments alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Purity {
    /// Its value depends on its arguments alone (not on the clock, chance,
    /// the environment, files or other attributes): a prepared expression
    /// computes a call on known arguments once.
    Pure,
    /// Not a source of change (the linter takes a call on constant
    /// arguments as constant), but not computed ahead when an expression
    /// is prepared: its value may be a list or an ad, or it reads the
    /// scope it is called in.
    Unfolded,
    /// A function of the clock, chance, the environment or text: a call is
    /// not constant even on constant arguments.
    Varying,
}

/// The type a built-in's value has whenever it is defined (not UNDEFINED
/// or ERROR), for the built-ins that have one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultType {
    /// A string.
    String,
    /// An integer or a real.
    Number,
    /// A boolean.
    Boolean,
}

/// The groups of built-ins, one module of [`functions`](crate::functions)
/// each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Group {
    /// `isUndefined`, `isString`, ...
    Predicates,
    /// `ifThenElse`, `eval`, ...
    Control,
    /// `size`, `member`, `sum`, ...
    Lists,
    /// `strcat`, `substr`, ...
    Strings,
    /// `regexp`, `replace`, ...
    Regex,
    /// `versioncmp`, `versionGT`, ...
    Versions,
    /// `stringListMember`, ...
    StringLists,
    /// `int`, `real`, `floor`, ...
    Conversion,
    /// `pow`, `quantize`, `random`.
    Math,
    /// `time`, `formatTime`, ...
    Time,
    /// `envV1ToV2`, `userMap`, ...
    Condor,
}

impl Group {
    /// The name of the module of [`functions`](crate::functions) that
    /// implements and documents the group.
    pub fn module(self) -> &'static str {
        match self {
            Group::Predicates => "predicates",
            Group::Control => "control",
            Group::Lists => "lists",
            Group::Strings => "strings",
            Group::Regex => "regex",
            Group::Versions => "versions",
            Group::StringLists => "string_lists",
            Group::Conversion => "conversion",
            Group::Math => "math",
            Group::Time => "time",
            Group::Condor => "condor",
        }
    }
}

/// One built-in function: a row of [`CATALOG`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Builtin {
    /// Its id (its index in [`CATALOG`]).
    pub id: BuiltinId,
    /// The canonical spelling of its name (calls may use any case).
    pub name: &'static str,
    /// How many arguments it takes; a call with another count is ERROR.
    pub arity: Arity,
    /// Whether its value depends on its arguments alone.
    pub purity: Purity,
    /// The type of its value whenever that is defined, if it has one.
    pub result: Option<ResultType>,
    /// Its group (the module that implements it).
    pub group: Group,
}

impl Builtin {
    /// Every built-in, in id order.
    pub fn all() -> &'static [Builtin] {
        &CATALOG
    }

    /// The built-in called `name` (any case), if there is one.
    pub fn find(name: &str) -> Option<&'static Builtin> {
        CATALOG.iter().find(|builtin| builtin.name.eq_ignore_ascii_case(name))
    }
}

impl BuiltinId {
    /// The number of built-ins.
    pub const COUNT: usize = COUNT;

    /// Its row of the catalog.
    #[inline]
    pub fn builtin(self) -> &'static Builtin {
        &CATALOG[self as usize]
    }

    /// The canonical spelling of its name.
    pub fn name(self) -> &'static str {
        self.builtin().name
    }

    /// Its index in [`CATALOG`] (below [`BuiltinId::COUNT`]).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// Declares [`BuiltinId`] and [`CATALOG`] from one row per built-in:
/// id, name, arity (`(min, max)`, `..` for no maximum), purity, result
/// type (`Any` for none).
macro_rules! catalog {
    ($($group:ident { $($id:ident $name:literal ($min:literal, $max:tt) $purity:ident $result:ident,)* })*) => {
        /// A built-in function, as the expression tree names it once the
        /// parser has resolved a call.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        #[repr(u8)]
        pub enum BuiltinId {
            $($(
                #[doc = concat!("`", $name, "`")]
                $id,
            )*)*
        }

        const COUNT: usize = [$($(BuiltinId::$id,)*)*].len();

        /// Every built-in, in id order.
        pub static CATALOG: [Builtin; COUNT] = [
            $($(Builtin {
                id: BuiltinId::$id,
                name: $name,
                arity: Arity { min: $min, max: catalog!(@max $max) },
                purity: Purity::$purity,
                result: catalog!(@result $result),
                group: Group::$group,
            },)*)*
        ];
    };
    (@max ..) => { None };
    (@max $max:literal) => { Some($max) };
    (@result Any) => { None };
    (@result $result:ident) => { Some(ResultType::$result) };
}

// One row per built-in, by group: id, name, arity (min, max; `..` for any
// number more), purity, result type. The order gives the ids (and
// `functions::builtin_names`'s order); a row may go anywhere in its group.
#[rustfmt::skip]
catalog! {
    Predicates {
        IsUndefined            "isUndefined"             (1, 1)   Pure     Boolean,
        IsError                "isError"                 (1, 1)   Pure     Boolean,
        IsString               "isString"                (1, 1)   Pure     Boolean,
        IsInteger              "isInteger"               (1, 1)   Pure     Boolean,
        IsReal                 "isReal"                  (1, 1)   Pure     Boolean,
        IsBoolean              "isBoolean"               (1, 1)   Pure     Boolean,
        IsList                 "isList"                  (1, 1)   Pure     Boolean,
        IsClassAd              "isClassAd"               (1, 1)   Pure     Boolean,
        IsAbstime              "isAbstime"               (1, 1)   Pure     Boolean,
        IsReltime              "isReltime"               (1, 1)   Pure     Boolean,
    }
    Control {
        IfThenElse             "ifThenElse"              (3, 3)   Pure     Any,
        Eval                   "eval"                    (1, 1)   Varying  Any,
        Unparse                "unparse"                 (1, 1)   Unfolded String,
        Unresolved             "unresolved"              (1, 2)   Unfolded Any,
        Debug                  "debug"                   (1, 1)   Varying  Any,
    }
    Lists {
        Size                   "size"                    (1, 1)   Pure     Number,
        Member                 "member"                  (2, 2)   Pure     Boolean,
        IdenticalMember        "identicalMember"         (2, 2)   Pure     Boolean,
        Sum                    "sum"                     (1, 1)   Unfolded Any,
        Avg                    "avg"                     (1, 1)   Unfolded Any,
        Min                    "min"                     (1, 1)   Unfolded Any,
        Max                    "max"                     (1, 1)   Unfolded Any,
        AnyCompare             "anyCompare"              (3, 3)   Unfolded Boolean,
        AllCompare             "allCompare"              (3, 3)   Unfolded Boolean,
        EvalInEachContext      "evalInEachContext"       (2, 2)   Unfolded Any,
        CountMatches           "countMatches"            (2, 2)   Unfolded Number,
    }
    Strings {
        Substr                 "substr"                  (2, 3)   Pure     String,
        Strcmp                 "strcmp"                  (2, 2)   Pure     Number,
        Stricmp                "stricmp"                 (2, 2)   Pure     Number,
        Strcat                 "strcat"                  (0, ..)  Pure     String,
        ToUpper                "toUpper"                 (1, 1)   Pure     String,
        ToLower                "toLower"                 (1, 1)   Pure     String,
        Join                   "join"                    (0, ..)  Unfolded String,
        Split                  "split"                   (1, 2)   Unfolded Any,
        SplitUserName          "splitUserName"           (1, 1)   Unfolded Any,
        SplitSlotName          "splitSlotName"           (1, 1)   Unfolded Any,
    }
    Regex {
        Regexp                 "regexp"                  (2, 3)   Pure     Boolean,
        RegexpMember           "regexpMember"            (2, 3)   Pure     Boolean,
        Regexps                "regexps"                 (3, 4)   Unfolded String,
        Replace                "replace"                 (3, 4)   Unfolded String,
        ReplaceAll             "replaceAll"              (3, 4)   Unfolded String,
    }
    Versions {
        Versioncmp             "versioncmp"              (2, 2)   Pure     Any,
        VersionGT              "versionGT"               (2, 2)   Pure     Boolean,
        VersionGE              "versionGE"               (2, 2)   Pure     Boolean,
        VersionLT              "versionLT"               (2, 2)   Pure     Boolean,
        VersionLE              "versionLE"               (2, 2)   Pure     Boolean,
        VersionEQ              "versionEQ"               (2, 2)   Pure     Boolean,
        VersionInRange         "version_in_range"        (3, 3)   Pure     Boolean,
    }
    StringLists {
        StringListSize         "stringListSize"          (1, 2)   Pure     Number,
        StringListSum          "stringListSum"           (1, 2)   Pure     Any,
        StringListAvg          "stringListAvg"           (1, 2)   Pure     Any,
        StringListMin          "stringListMin"           (1, 2)   Pure     Any,
        StringListMax          "stringListMax"           (1, 2)   Pure     Any,
        StringListMember       "stringListMember"        (2, 3)   Pure     Boolean,
        StringListIMember      "stringListIMember"       (2, 3)   Pure     Boolean,
        StringListSubsetMatch  "stringListSubsetMatch"   (2, 3)   Pure     Boolean,
        StringListISubsetMatch "stringListISubsetMatch"  (2, 3)   Pure     Boolean,
        StringListsIntersect   "stringListsIntersect"    (2, 3)   Pure     Boolean,
        StringListRegexpMember "stringList_regexpMember" (2, 4)   Pure     Boolean,
    }
    Conversion {
        Int                    "int"                     (1, 1)   Pure     Number,
        Real                   "real"                    (1, 1)   Pure     Number,
        String                 "string"                  (1, 1)   Pure     String,
        Bool                   "bool"                    (1, 1)   Pure     Boolean,
        Floor                  "floor"                   (1, 1)   Pure     Number,
        Ceiling                "ceiling"                 (1, 1)   Pure     Number,
        Ceil                   "ceil"                    (1, 1)   Unfolded Number,
        Round                  "round"                   (1, 1)   Pure     Number,
    }
    Math {
        Pow                    "pow"                     (2, 2)   Pure     Number,
        Quantize               "quantize"                (2, 2)   Pure     Any,
        Random                 "random"                  (0, 1)   Varying  Number,
    }
    Time {
        Time                   "time"                    (0, 0)   Varying  Number,
        CurrentTime            "currentTime"             (0, 0)   Varying  Any,
        AbsTime                "absTime"                 (0, 2)   Varying  Any,
        RelTime                "relTime"                 (1, 1)   Unfolded Any,
        TimeZoneOffset         "timeZoneOffset"          (0, 0)   Varying  Any,
        DayTime                "dayTime"                 (0, 0)   Varying  Any,
        SplitTime              "splitTime"               (1, 1)   Unfolded Any,
        FormatTime             "formatTime"              (0, 2)   Unfolded String,
        Interval               "interval"                (1, 1)   Unfolded Any,
        GetYear                "getYear"                 (1, 1)   Unfolded Number,
        GetMonth               "getMonth"                (1, 1)   Unfolded Number,
        GetDayOfYear           "getDayOfYear"            (1, 1)   Unfolded Number,
        GetDayOfMonth          "getDayOfMonth"           (1, 1)   Unfolded Number,
        GetDayOfWeek           "getDayOfWeek"            (1, 1)   Unfolded Number,
        GetDays                "getDays"                 (1, 1)   Unfolded Number,
        GetHours               "getHours"                (1, 1)   Unfolded Number,
        GetMinutes             "getMinutes"              (1, 1)   Unfolded Number,
        GetSeconds             "getSeconds"              (1, 1)   Unfolded Number,
    }
    Condor {
        EnvV1ToV2              "envV1ToV2"               (1, 1)   Unfolded Any,
        MergeEnvironment       "mergeEnvironment"        (0, ..)  Unfolded Any,
        ArgsToList             "argsToList"              (1, 2)   Unfolded Any,
        ListToArgs             "listToArgs"              (1, 2)   Unfolded Any,
        UserHome               "userHome"                (1, 2)   Varying  Any,
        UserMap                "userMap"                 (2, 4)   Varying  Any,
    }
}

// Each row's id is its index.
const _: () = {
    let mut i = 0;
    while i < COUNT {
        assert!(CATALOG[i].id as usize == i);
        i += 1;
    }
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_in_any_case() {
        for (i, a) in CATALOG.iter().enumerate() {
            for b in &CATALOG[i + 1..] {
                assert!(!a.name.eq_ignore_ascii_case(b.name), "{} and {}", a.name, b.name);
            }
            assert_eq!(Builtin::find(&a.name.to_ascii_uppercase()).map(|b| b.id), Some(a.id));
        }
        assert!(Builtin::find("noSuchFunction").is_none());
    }
}
