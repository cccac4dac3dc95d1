//! Every built-in function, called with any arguments, finishes without
//! panicking and gives a printable value.

mod common;

use classad::{parse_expr, EvalContext, EvalLimits, EvalOptions, Semantics};
use common::{ad, expression};
use proptest::prelude::*;

/// Arguments that stress edges: extreme numbers, long or odd strings,
/// format strings, patterns, empty and nested collections.
fn edge_argument() -> impl Strategy<Value = String> {
    prop::sample::select(
        &[
            "9223372036854775807",
            "-9223372036854775808",
            "-1",
            "0",
            "1e308",
            "-1e308",
            "real(\"NaN\")",
            "real(\"INF\")",
            "\"\"",
            "\",\"",
            "\" , ,\"",
            "\"%c%Y%%%z%Z%s%100000Y\"",
            "\"(a*)*b\"",
            "\"[\"",
            "\"\\\\1\"",
            "\"ímsxfg\"",
            "\"a=1;b=2\"",
            "\"'unbalanced\"",
            "\"1.2.3\"",
            "\"slot1@host\"",
            "{}",
            "{ {}, [ ] }",
            "[ a = 1; b = a ]",
            "{ [ c = 1 ], undefined, 3 }",
            "absTime(-62167219201)",
            "relTime(-1e15)",
        ][..],
    )
    .prop_map(str::to_owned)
}

fn argument() -> impl Strategy<Value = String> {
    prop_oneof![2 => edge_argument(), 1 => expression()]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn any_call_finishes(
        function in prop::sample::select(classad::functions::builtin_names().collect::<Vec<_>>()),
        args in prop::collection::vec(argument(), 0..5),
        my in ad(),
    ) {
        let text = format!("{function}({})", args.join(", "));
        if let Ok(expr) = parse_expr(&text) {
            let limits = EvalLimits { max_depth: 500, max_steps: 200_000, ..EvalLimits::default() };
            for semantics in [Semantics::New, Semantics::Old] {
                let options = EvalOptions::new().semantics(semantics).limits(limits);
                let _ = EvalContext::new(&options).my(&my).eval(&expr).to_string();
            }
        }
    }
}

/// Inputs the property test found: integer arithmetic at the ends of the
/// range wraps as libclassad's C does instead of overflowing (the values
/// are libclassad's).
#[test]
fn found_cases() {
    let options = EvalOptions::new();
    for (text, expected) in [
        ("quantize(9223372036854775807, -9223372036854775808)", "0"),
        ("quantize(-9223372036854775808, -9223372036854775808)", "0"),
        ("quantize(7, 3)", "9"),
    ] {
        let value = EvalContext::new(&options).eval(&parse_expr(text).expect(text));
        assert_eq!(value.to_string(), expected, "{text}");
    }
}
