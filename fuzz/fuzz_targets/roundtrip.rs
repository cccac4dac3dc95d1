//! Printing and parsing back: what an expression prints as parses, and
//! printing that again gives the same text (reals print with 16
//! significant digits, as libclassad prints them, so the first print may
//! round; the second must not change anything), in both syntaxes; the
//! multi-line layout too. Old syntax has no escapes: a string holding a
//! line break, or a backslash before a quote or at its end, has no text
//! there (libclassad's writer breaks it too), so such expressions are
//! checked in new syntax only.
#![no_main]

use classad::Syntax;
use classad_fuzz::{old_syntax_can_write, parser, times_print_back, Gen};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|generated: Gen| {
    let text = generated.text();
    let Ok(expr) = parser(Syntax::New).parse_expr(&text) else {
        return;
    };
    if !times_print_back(&expr) {
        return;
    }
    for syntax in [Syntax::New, Syntax::Old] {
        let printed = expr.display(syntax).to_string();
        if syntax == Syntax::Old && !old_syntax_can_write(&expr) {
            continue;
        }
        let again = match parser(syntax).parse_expr(&printed) {
            Ok(again) => again,
            Err(e) => panic!("{text:?} printed in {syntax:?} as {printed:?}, which does not parse: {e}"),
        };
        let reprinted = again.display(syntax).to_string();
        assert_eq!(reprinted, printed, "{text:?}: printing in {syntax:?} is not a fixed point");
    }
    let pretty = expr.display(Syntax::New).pretty().to_string();
    match parser(Syntax::New).parse_expr(&pretty) {
        Ok(again) => {
            assert_eq!(again.to_string(), expr.to_string(), "{text:?}: the multi-line layout reads differently")
        }
        Err(e) => panic!("{text:?}: the multi-line layout {pretty:?} does not parse: {e}"),
    }
});
