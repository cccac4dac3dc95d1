//! The argument counts of `functions::arity` (read from the function
//! reference) against the implementations: every built-in called with a
//! count outside its range is ERROR, under both semantics.

use classad::functions::{arity, builtin_names};
use classad::{parse_expr, EvalContext, EvalOptions, Semantics, Value};

#[test]
fn counts_outside_the_range_are_errors() {
    let mut wrong = Vec::new();
    for name in builtin_names() {
        let range = arity(name).expect("every built-in has an arity");
        for count in 0..=7 {
            if range.accepts(count) {
                continue;
            }
            let args = vec!["\"1\""; count].join(", ");
            let expr = parse_expr(&format!("{name}({args})")).expect("call parses");
            for semantics in [Semantics::Old, Semantics::New] {
                let options = EvalOptions::new().semantics(semantics);
                let value = EvalContext::new(&options).eval(&expr);
                if value != Value::Error {
                    wrong
                        .push(format!("{name} with {count} arguments ({range} expected) gave {value} ({semantics:?})"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
