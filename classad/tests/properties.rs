//! Property tests: printing round-trips through the parser, and evaluating
//! arbitrary expressions in arbitrary ads always finishes without panicking.

mod common;

use classad::{parse_expr, ClassAd, EvalContext, EvalLimits, EvalOptions, Expr, Semantics};
use common::{ad, expression};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// print(parse(text)) parses back to the same tree and prints the same.
    #[test]
    fn print_parse_round_trip(text in expression()) {
        if let Ok(expr) = parse_expr(&text) {
            let printed = expr.to_string();
            let reparsed = parse_expr(&printed)
                .unwrap_or_else(|e| panic!("printed form {printed:?} of {text:?} does not parse: {e}"));
            prop_assert!(reparsed.same_as(&expr), "{text:?} printed as {printed:?} reparsed as {reparsed}");
            prop_assert_eq!(reparsed.to_string(), printed);
        }
    }

    /// Evaluation of anything, in any ads, with either semantics, finishes
    /// and gives a printable value.
    #[test]
    fn evaluation_always_finishes(text in expression(), my in ad(), target in ad()) {
        if let Ok(expr) = parse_expr(&text) {
            let limits = EvalLimits { max_depth: 500, max_steps: 200_000, ..EvalLimits::default() };
            for semantics in [Semantics::New, Semantics::Old] {
                let options = EvalOptions::new().semantics(semantics).limits(limits);
                let alone = EvalContext::new(&options).eval(&expr);
                let in_match = EvalContext::new(&options).my(&my).target(&target).eval(&expr);
                let _ = (alone.to_string(), in_match.to_string());
                for name in ["a", "b", "c", "Requirements"] {
                    let _ = EvalContext::new(&options).my(&my).target(&target).eval_attr(name).to_string();
                }
            }
        }
    }
}

#[test]
fn generated_ads_print_and_parse_back() {
    let ad: ClassAd = "[ a = b + 1; b = { 1, \"x\" }; 'odd name' = [ c = parent.a ] ]".parse().expect("parses");
    let again: ClassAd = ad.to_string().parse().expect("reparses");
    assert!(again.same_as(&ad));
    let e: Expr = again.get("odd name").cloned().expect("present");
    assert_eq!(e.to_string(), "[ c = 'parent'.a ]");
}
