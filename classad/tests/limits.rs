//! Every limit on hostile input, each set low to check that it is
//! enforced and that exceeding it gives an error (a parse error, a stream
//! error or ERROR), and the stress cases of deep but legal input, which
//! complete (or stop at a limit) with the default limits.

use classad::format::{Format, ReadLimits, Reader};
use classad::{ClassAd, EvalLimits, EvalOptions, ParseLimits, Parser, Value};

fn limited(limits: EvalLimits) -> EvalOptions {
    EvalOptions::new().limits(limits)
}

/// The ad `[ first; next(1, 0); next(2, 1); ...; next(n, n - 1) ]`: a chain
/// of attributes, each defined from the one before.
fn chain(first: &str, n: usize, next: impl Fn(usize, usize) -> String) -> ClassAd {
    let attributes: Vec<String> = std::iter::once(first.to_owned()).chain((1..=n).map(|i| next(i, i - 1))).collect();
    format!("[ {} ]", attributes.join("; ")).parse().expect("parses")
}

fn eval(text: &str, options: &EvalOptions) -> Value {
    classad::parse_expr(text).expect("parses").eval_with(options)
}

#[test]
fn parse_nesting_depth() {
    let parser = Parser::new(ParseLimits { max_depth: 50, ..ParseLimits::default() });
    let nested = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
    assert!(parser.parse_expr(&nested(40)).is_ok());
    let err = parser.parse_expr(&nested(60)).expect_err("too deep");
    assert!(err.message.contains("nest"), "{err}");
    // Lists and ads count too.
    let lists = format!("{}{}", "{".repeat(60), "}".repeat(60));
    assert!(parser.parse_expr(&lists).is_err());
}

#[test]
fn parse_input_size() {
    let parser = Parser::new(ParseLimits { max_input: 100, ..ParseLimits::default() });
    assert!(parser.parse_ad(&format!("[ a = \"{}\" ]", "x".repeat(50))).is_ok());
    let err = parser.parse_ad(&format!("[ a = \"{}\" ]", "x".repeat(200))).expect_err("too large");
    assert!(err.message.contains("limit of 100 bytes"), "{err}");
}

#[test]
fn input_size_per_ad_in_a_stream() {
    let big = format!("A = \"{}\"\n", "x".repeat(5000));
    let input = format!("A = 1\n\n{big}\nA = 3\n");
    let limits = ReadLimits { max_ad_bytes: 1000, ..ReadLimits::default() };
    let read: Vec<_> = Reader::new(input.as_bytes(), Some(Format::Old)).limits(limits).skip_bad_ads(true).collect();
    assert_eq!(read.len(), 3);
    assert!(read[0].is_ok() && read[2].is_ok());
    let err = read[1].as_ref().expect_err("too large");
    assert!(err.to_string().contains("1000"), "{err}");
}

#[test]
fn string_length() {
    let tight = limited(EvalLimits { max_string: 20, ..EvalLimits::default() });
    assert_eq!(eval(r#"strcat("0123456789", "0123456789")"#, &tight), Value::Str("01234567890123456789".into()));
    assert_eq!(eval(r#"strcat("0123456789", "0123456789", "x")"#, &tight), Value::Error);
    assert_eq!(eval(r#"join(",", {"0123456789", "0123456789"})"#, &tight), Value::Error);
    assert_eq!(eval(r#"toUpper(strcat("0123456789", "0123456789", "x")) ?: "caught""#, &tight), Value::Error);
    // Any function's result is held to it, not only strcat's and join's.
    assert_eq!(eval(r#"sprintf("%30d", 1)"#, &tight), Value::Error);
    // The limit fails the whole evaluation: nothing catches it.
    assert_eq!(eval(r#"isError(strcat("0123456789", "0123456789", "x"))"#, &tight), Value::Error);
}

#[test]
fn string_growth_costs_steps() {
    // Each level doubles the string: 2^k bytes for one strcat step per
    // level would let a short expression allocate without bound. Charged a
    // step per 64 bytes, it stops at the step limit first.
    let ad = chain(r#"s0 = "0123456789abcdef""#, 40, |i, j| format!("s{i} = strcat(s{j}, s{j})"));
    let options = limited(EvalLimits { max_steps: 100_000, ..EvalLimits::default() });
    assert_eq!(ad.eval_attr_with("s40", &options), Value::Error);
    assert_eq!(ad.eval_attr_with("s4", &options).as_str().map(str::len), Some(256));
}

#[test]
fn list_length() {
    let tight = limited(EvalLimits { max_list: 3, ..EvalLimits::default() });
    assert_eq!(eval(r#"size(split("a b c"))"#, &tight), Value::Int(3));
    assert_eq!(eval(r#"size(split("a b c d"))"#, &tight), Value::Error);
    // A literal list is the parser's business, not this limit's.
    assert_eq!(eval("size({1, 2, 3, 4, 5})", &tight), Value::Int(5));
}

#[test]
fn evaluation_depth() {
    let ad = chain("a0 = 0", 300, |i, j| format!("a{i} = a{j} + 1"));
    assert_eq!(ad.eval_attr("a300"), Value::Int(300));
    let shallow = limited(EvalLimits { max_depth: 100, ..EvalLimits::default() });
    assert_eq!(ad.eval_attr_with("a300", &shallow), Value::Error);
    assert_eq!(ad.eval_attr_with("a10", &shallow), Value::Int(10));
}

#[test]
fn evaluation_steps() {
    // 2^25 evaluations of `x` if nothing stopped it.
    let ad = chain("x0 = 1", 25, |i, j| format!("x{i} = x{j} + x{j}"));
    assert_eq!(ad.eval_attr("x10"), Value::Int(1024));
    let few = limited(EvalLimits { max_steps: 100_000, ..EvalLimits::default() });
    assert_eq!(ad.eval_attr_with("x25", &few), Value::Error);
    assert_eq!(ad.eval_attr_with("x15", &few), Value::Int(32_768));
    assert_eq!(EvalLimits::default().max_steps, 10_000_000);
}

#[test]
fn regex_size() {
    let tight = limited(EvalLimits { max_regex: 8, ..EvalLimits::default() });
    assert_eq!(eval(r#"regexp("a+b", "xaab")"#, &tight), Value::Bool(true));
    assert_eq!(eval(r#"regexp("(a|b|c|d)+e", "ae")"#, &tight), Value::Error);
    assert_eq!(eval(r#"stringListRegexpMember("(a|b|c|d)+e", "ae, f")"#, &tight), Value::Error);
    // A pattern within the length limit whose compiled form is too large
    // is invalid too (the engine's own bound).
    assert_eq!(eval(r#"regexp("(((a{100}){100}){100})", "a")"#, &EvalOptions::new()), Value::Error);
}

// The stress cases: deep but legal input, with the default limits.

#[test]
fn stress_ten_thousand_nested_parentheses() {
    let text = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let err = classad::parse_expr(&text).expect_err("deeper than the default limit");
    assert!(err.message.contains("nest"), "{err}");
    let deep = Parser::new(ParseLimits { max_depth: 20_000, ..ParseLimits::default() });
    let expr = deep.parse_expr(&text).expect("within a raised limit");
    // Parentheses cost no evaluation level: this runs in a test's small
    // thread stack, with the default limits.
    assert_eq!(expr.eval(), Value::Int(1));
    let negations = format!("{}1{}", "-(".repeat(5_000), ")".repeat(5_000));
    let negations = deep.parse_expr(&negations).expect("within a raised limit");
    // Other operators count: the depth limit stops them before the stack.
    assert_eq!(negations.eval(), Value::Error);
    let deeper = limited(EvalLimits { max_depth: 40_000, ..EvalLimits::default() });
    assert_eq!(negations.eval_with(&deeper), Value::Int(1));
    assert_eq!(expr.to_string().len(), text.len());
}

#[test]
fn stress_a_hundred_thousand_element_list() {
    let items: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
    let text = format!("[ l = {{{}}}; n = size(l); s = sum(l); last = l[99999] ]", items.join(", "));
    let ad: ClassAd = text.parse().expect("parses");
    assert_eq!(ad.eval_attr("n"), Value::Int(100_000));
    assert_eq!(ad.eval_attr("s"), Value::Int(4_999_950_000));
    assert_eq!(ad.eval_attr("last"), Value::Int(99_999));
    let printed: ClassAd = ad.to_string().parse().expect("reparses");
    assert!(printed.same_as(&ad));
}

#[test]
fn stress_a_thousand_deep_chain_of_references() {
    let ad = chain(r#"r0 = "end""#, 1000, |i, j| format!("r{i} = r{j}"));
    assert_eq!(ad.eval_attr("r1000"), Value::Str("end".into()));
    // The same chain through TARGET in a match, and through nested ads.
    let nested = format!("{}[ v = 7 ]{}", "[ a = ".repeat(500), " ]".repeat(500));
    let ad: ClassAd = format!("[ x = {nested} ]").parse().expect("parses");
    let path = format!("x{}.v", ".a".repeat(500));
    assert_eq!(classad::parse_expr(&path).expect("parses").eval_in(&ad), Value::Int(7));
}

/// A parse error about a token of a long line quotes a few hundred bytes of
/// it, not the line, and still gives its line and column.
#[test]
fn parse_errors_quote_a_bounded_excerpt() {
    let long_name = "a".repeat(1 << 20);
    for text in [format!("1 + 2\n  3 {long_name}"), format!("1\n '{long_name}'")] {
        let err = classad::parse_expr(&text).expect_err("does not parse");
        let message = err.to_string();
        assert!(message.len() < 600, "{} bytes: {}", message.len(), &message[..600.min(message.len())]);
        assert!(message.starts_with("line 2, column "), "{message}");
    }
    let text = format!("[ A = 1; B = 2 {long_name} ]");
    let mut reader = Reader::new(text.as_bytes(), Some(Format::New));
    let err = reader.next().expect("an item").expect_err("a stream error");
    let message = err.to_string();
    assert!(message.len() < 600, "{} bytes", message.len());
    assert!(message.starts_with("ad 1, line 1, column "), "{message}");
}
