//! Why an evaluation gave ERROR, where libclassad says why.
//!
//! libclassad keeps the reason of some errors in a global message
//! (`CondorErrMsg`, which HTCondor's Python `lastError()` returns). The one
//! evaluation sets is a comparison of a string with a value that is not a
//! string: `"strings can only be compared to strings"`. This module keeps
//! that reason per thread, for callers that show libclassad's message (the
//! Python module's `lastError()`). Values never depend on it.

use std::cell::Cell;

thread_local! {
    static REASON: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// The reason for an ERROR compared from a string and a non-string.
pub(crate) const STRINGS_ONLY: &str = "strings can only be compared to strings";

/// Records `reason` as this thread's latest.
#[cold]
pub(crate) fn note(reason: &'static str) {
    REASON.with(|cell| cell.set(Some(reason)));
}

/// The reason of the latest ERROR this thread's evaluations gave that has
/// one (as libclassad's `CondorErrMsg`), cleared by the call; `None` when
/// there was none since the last call.
///
/// ```
/// use classad::{eval, parse_expr, EvalContext, EvalOptions, Value};
/// let options = EvalOptions::new();
/// let value = EvalContext::new(&options).eval(&parse_expr(r#"7 == "7""#)?);
/// assert_eq!(value, Value::Error);
/// assert_eq!(eval::take_error_reason(), Some("strings can only be compared to strings"));
/// assert_eq!(eval::take_error_reason(), None);
/// # Ok::<(), classad::ParseError>(())
/// ```
pub fn take_error_reason() -> Option<&'static str> {
    REASON.with(Cell::take)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_expr, EvalContext, EvalOptions, Value};

    fn eval(text: &str) -> Value {
        let options = EvalOptions::new();
        EvalContext::new(&options).eval(&parse_expr(text).expect("parses"))
    }

    #[test]
    fn only_a_string_compared_with_a_non_string_has_a_reason() {
        take_error_reason();
        for text in ["1 / 0", "1 < {}", "\"a\" + 1", "\"a\" < \"b\"", "undefined == \"a\"", "\"a\" =?= 1"] {
            eval(text);
            assert_eq!(take_error_reason(), None, "{text}");
        }
        for text in ["\"a\" < 1", "2.5 >= \"b\"", "true == \"x\"", "\"7\" != 7"] {
            assert_eq!(eval(text), Value::Error, "{text}");
            assert_eq!(take_error_reason(), Some(STRINGS_ONLY), "{text}");
        }
    }
}
