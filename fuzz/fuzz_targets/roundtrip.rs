//! Printing and parsing back: an expression printed in new syntax parses
//! to the same tree, and printing is a fixed point in old syntax too.
#![no_main]

use classad::{Expr, Syntax};
use classad_fuzz::{parser, Gen};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|generated: Gen| {
    let text = generated.text();
    let Ok(expr) = parser(Syntax::New).parse_expr(&text) else {
        return;
    };
    let printed = expr.to_string();
    let again: Expr = match parser(Syntax::New).parse_expr(&printed) {
        Ok(again) => again,
        Err(e) => panic!("{text:?} printed as {printed:?}, which does not parse: {e}"),
    };
    assert!(again.same_as(&expr), "{text:?} printed as {printed:?} reads as {again}");
    let old = expr.display(Syntax::Old).to_string();
    if let Ok(back) = parser(Syntax::Old).parse_expr(&old) {
        let old_again = back.display(Syntax::Old).to_string();
        assert_eq!(old_again, old, "old syntax is not a fixed point for {text:?}");
    }
    let _ = expr.display(Syntax::New).pretty().to_string();
});
