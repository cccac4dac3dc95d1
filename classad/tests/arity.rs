//! The argument counts of `functions::arity` (read from the function
//! reference) against the implementations and against libclassad:
//!
//! * every built-in called with a count outside its range is ERROR, under
//!   both semantics;
//! * for every count from 0 to 7, the table accepts exactly the counts
//!   libclassad accepts (`data/functions/arity.jsonl`, written by
//!   `gen_arity.py`: a count is accepted when some call with that many
//!   arguments is not ERROR), and our value of libclassad's witness call
//!   for each accepted count is not ERROR either, so the range's counts do
//!   not fail for arity reasons.

use classad::functions::{arity, builtin_names};
use classad::{parse_expr, ClassAd, EvalContext, EvalOptions, Semantics, Value};

/// The highest count `gen_arity.py` tries.
const MAX: usize = 7;

#[test]
fn counts_outside_the_range_are_errors() {
    let mut wrong = Vec::new();
    for name in builtin_names() {
        let range = arity(name).expect("every built-in has an arity");
        for count in 0..=MAX {
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

#[test]
fn the_table_accepts_what_libclassad_accepts() {
    let ad: ClassAd = "[ a = b + 1; b = 2 ]".parse().expect("the generator's ad");
    let options = EvalOptions::new().semantics(Semantics::Old);
    let mut wrong = Vec::new();
    let mut names = 0;
    for line in include_str!("data/functions/arity.jsonl").lines() {
        let row: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let name = row["name"].as_str().expect("name");
        names += 1;
        let Some(range) = arity(name) else {
            wrong.push(format!("{name}: no arity"));
            continue;
        };
        let oracle: Vec<usize> = row["accepts"]
            .as_array()
            .expect("accepts")
            .iter()
            .map(|n| usize::try_from(n.as_u64().expect("a count")).expect("small"))
            .collect();
        let ours: Vec<usize> = (0..=MAX).filter(|&n| range.accepts(n)).collect();
        if ours != oracle {
            wrong.push(format!("{name}: we accept {ours:?} ({range}), libclassad {oracle:?}"));
        }
        for (count, call) in row["witnesses"].as_object().expect("witnesses") {
            let call = call.as_str().expect("a call");
            let value = EvalContext::new(&options).my(&ad).eval(&parse_expr(call).expect("call parses"));
            if value == Value::Error {
                wrong.push(format!("{name} with {count} arguments: {call} is ERROR here, not in libclassad"));
            }
        }
    }
    assert_eq!(names, builtin_names().count(), "arity.jsonl covers every built-in");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
