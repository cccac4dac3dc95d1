//! Evaluator unit tests; the oracle-generated conformance corpus is in
//! `tests/conformance.rs`.

use crate::{parse_ad, parse_expr, ClassAd, Clock, EvalContext, EvalLimits, EvalOptions, Semantics, Value};

fn eval(source: &str) -> String {
    parse_expr(source).map(|e| e.eval().to_string()).unwrap_or_else(|e| format!("PARSE {e}"))
}

fn eval_in(ad: &str, source: &str, semantics: Semantics) -> String {
    let ad = parse_ad(ad).expect("ad parses");
    let opts = EvalOptions::new().semantics(semantics);
    let expr = parse_expr(source).expect("expr parses");
    EvalContext::new(&opts).my(&ad).eval(&expr).to_string()
}

fn eval_match(my: &str, target: &str, source: &str, semantics: Semantics) -> String {
    let my = parse_ad(my).expect("my parses");
    let target = parse_ad(target).expect("target parses");
    let opts = EvalOptions::new().semantics(semantics);
    let expr = parse_expr(source).expect("expr parses");
    EvalContext::new(&opts).my(&my).target(&target).eval(&expr).to_string()
}

#[test]
fn arithmetic() {
    for (source, value) in [
        ("1 + 2", "3"),
        ("1.5 * 2", "3.000000000000000E+00"),
        ("7 / 2", "3"),
        ("-7 / 2", "-3"),
        ("-7 % 3", "-1"),
        ("7 % -3", "1"),
        ("1 / 0", "error"),
        ("1 % 0", "error"),
        ("5.5 % 2", "error"),
        ("9223372036854775807 + 1", "-9223372036854775808"),
        ("true + 1", "2"),
        ("\"a\" + \"b\"", "error"),
        ("undefined + error", "error"),
        ("undefined + 1", "undefined"),
        ("1e300 * 1e300", "error"),
        ("1 << 64", "1"),
        ("-8 >> 1", "-4"),
        ("-8 >>> 60", "15"),
        ("true & 1", "error"),
        ("6 & 3 | 8 ^ 1", "11"),
    ] {
        assert_eq!(eval(source), value, "{source}");
    }
}

#[test]
fn logic_and_comparison() {
    for (source, value) in [
        ("undefined && false", "false"),
        ("undefined || true", "true"),
        ("undefined || false", "undefined"),
        ("false || error", "error"),
        ("error || true", "error"),
        ("true && \"abc\"", "error"),
        ("!undefined", "undefined"),
        ("3 == 3.0", "true"),
        ("\"ABC\" == \"abc\"", "true"),
        ("\"ABC\" =?= \"abc\"", "false"),
        ("1 =?= 1.0", "false"),
        ("undefined =?= undefined", "true"),
        ("undefined == undefined", "undefined"),
        ("\"a\" < 1", "error"),
        ("{1} == {1}", "error"),
        ("x ?: 7", "7"),
        ("3 ?: 7", "3"),
        ("undefined ? 1 : 2", "undefined"),
        ("\"s\" ? 1 : 2", "error"),
        ("0 ? 1 : 2", "2"),
    ] {
        assert_eq!(eval(source), value, "{source}");
    }
}

#[test]
fn lists_records_and_scoping() {
    for (source, value) in [
        ("{1, 2, 3}[1]", "2"),
        ("{1, 2, 3}[3]", "error"),
        ("{[a=1],[a=2],3}.a", "{ 1,2,error }"),
        ("[a = 1; b = a + 1].b", "2"),
        ("[a = 1][\"A\"]", "1"),
        ("[a = 1][\"b\"]", "undefined"),
        ("[a = [b = parent.x]; x = 7].a.b", "7"),
        ("[a = [b = root.x]; x = 7].a.b", "undefined"),
        ("[x = [a = b]; b = 1].x.a", "1"),
        ("[x = [b = 1]; a = 5].x.a", "5"),
        ("{1 + 1, y}", "{ 1 + 1,y }"),
        ("size({1, x, 3})", "3"),
    ] {
        assert_eq!(eval(source), value, "{source}");
    }
}

#[test]
fn cycles_are_errors_and_never_hang() {
    assert_eq!(eval_in("[a = b; b = a]", "a", Semantics::New), "error");
    assert_eq!(eval_in("[a = a]", "a", Semantics::New), "error");
    assert_eq!(eval_in("[A0 = 0 ? e : A0]", "A0", Semantics::New), "error");
    assert_eq!(eval_in("[a = isError(b); b = a]", "a", Semantics::New), "true");
    assert_eq!(eval_in("[a = eval(\"a\")]", "a", Semantics::New), "error");
    // A list that contains itself, projected: bounded by the depth limit.
    assert_eq!(eval_match("[a = 1]", "[c = { c, TARGET }]", "({MY, c}).x", Semantics::Old), "error");
    assert_eq!(eval_in("[c = { c }]", "c.x", Semantics::New), "error");
}

#[test]
fn old_and_new_semantics() {
    assert_eq!(eval_in("[a = 1; b = MY.a]", "b", Semantics::New), "undefined");
    assert_eq!(eval_in("[a = 1; b = MY.a]", "b", Semantics::Old), "1");
    assert_eq!(eval_match("[a = 1]", "[b = 2]", "b", Semantics::New), "undefined");
    assert_eq!(eval_match("[a = 1]", "[b = 2]", "b", Semantics::Old), "2");
    assert_eq!(eval_match("[a = 1]", "[b = 2]", "TARGET.b + MY.a", Semantics::New), "3");
    assert_eq!(eval_match("[a = 1]", "[b = 2]", "other.b", Semantics::New), "2");
    assert_eq!(eval_match("[a = 1]", "[e = a]", "TARGET.e", Semantics::New), "undefined");
    assert_eq!(eval_match("[a = 1]", "[e = a]", "TARGET.e", Semantics::Old), "1");
    assert_eq!(eval_in("[a = [b = MY.x; x = 3]; x = 7]", "a.b", Semantics::Old), "3");
    assert_eq!(eval_in("[a = [b = MY.x; x = 3]; x = 7]", "a.b", Semantics::New), "undefined");
    assert_eq!(eval_in("[]", "CurrentTime", Semantics::New), "undefined");
    let opts = EvalOptions::new().semantics(Semantics::Old).clock(Clock::Fixed(42));
    assert_eq!(parse_expr("CurrentTime").map(|e| e.eval_with(&opts)), Ok(Value::Int(42)));
}

#[test]
fn limits_make_the_whole_result_error() {
    let opts = EvalOptions::new().limits(EvalLimits { max_depth: 2000, max_steps: 50, ..EvalLimits::default() });
    let e = parse_expr("isError(size({1,2}) + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1)").expect("parses");
    assert_eq!(e.eval_with(&opts), Value::Error);
    // A long chain of attribute references.
    let mut ad = ClassAd::new();
    for i in 0..5000 {
        ad.insert_expr(format!("a{i}").as_str(), &format!("a{} + 1", i + 1)).expect("parses");
    }
    ad.insert("a5000", 0);
    assert_eq!(ad.eval_attr("a0"), Value::Error);
    assert_eq!(ad.eval_attr("a4000"), Value::Int(1000));
}
