//! The fast parser and the LALRPOP grammar agree.
//!
//! Parsing runs a hand-written parser first and falls back to the grammar
//! when it gives up. That is only correct if the fast parser never accepts
//! what the grammar rejects and always builds the grammar's tree; and it is
//! only fast if it gives up only on inputs the grammar rejects too. These
//! tests check both on generated expressions, on random token sequences and
//! on every input of the conformance corpus.

use classad::{Expr, Parser, Syntax};
use proptest::prelude::*;

/// Checks one input; returns whether the grammar accepted it.
fn agree(source: &str) -> bool {
    agree_in(Syntax::New, source)
}

/// [`agree`] for a text in `syntax`.
fn agree_in(syntax: Syntax, source: &str) -> bool {
    let parser = Parser::default().syntax(syntax);
    let fast = parser.parse_expr_fast(source);
    let grammar = parser.parse_expr_with_grammar(source);
    match (&fast, &grammar) {
        (Some(fast), Ok(slow)) => {
            assert!(fast.same_as(slow), "{source:?}: fast parser built {fast}, the grammar {slow}");
            assert_eq!(fast.to_string(), slow.to_string(), "{source:?}");
            true
        }
        (Some(fast), Err(err)) => panic!("{source:?}: the fast parser accepted it as {fast}, the grammar says {err}"),
        (None, Ok(slow)) => panic!("{source:?}: the fast parser gave up on what the grammar reads as {slow}"),
        (None, Err(_)) => false,
    }
}

const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    "=",
    ".",
    "?",
    ":",
    "?:",
    "-",
    "+",
    "!",
    "~",
    "*",
    "/",
    "%",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "=?=",
    "=!=",
    "is",
    "isnt",
    "&&",
    "||",
    "&",
    "|",
    "^",
    "<<",
    ">>",
    ">>>",
    "1",
    "5",
    "0.5",
    "1e3",
    "017",
    "\"s\"",
    "\"t\"",
    "a",
    "b",
    "f",
    "'q n'",
    "true",
    "undefined",
    "error",
    "absTime",
    "relTime",
    "\"1:30\"",
    "\"2020-01-01\"",
    "\"x\"",
    "\"a\\\"b\"",
    "\"a\\b\"",
    "\"\\\\\"",
    "'q\\'n'",
    "\"é\"",
    "00",
    "-017",
    "\n",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(TOKENS), prop::bool::weighted(0.7)), 1..14).prop_map(|parts| {
        parts.iter().map(|(token, space)| if *space { format!("{token} ") } else { (*token).to_string() }).collect()
    })
}

/// Pieces of ads in the shapes the parser reads straight from the bytes
/// (`name = literal;`), with the near misses it must leave to the tokens.
const NAMES: &[&str] = &["a", "Memory", "_x1", "true", "is", "'q n'", "a.b", ""];
const ASSIGNS: &[&str] = &["=", " = ", "=\n", " == ", " =?= ", " =!", "", " /* c */ = "];
const VALUES: &[&str] = &[
    "1",
    "-5",
    "- 5",
    "017",
    "019",
    "0x1F",
    "1.5",
    "-0.25",
    "1.",
    "1e3",
    "1.5E-2",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "\"s\"",
    "\"\"",
    "\"a\\\"b\"",
    "\"s\" \"t\"",
    "\"open",
    "x",
    "x.y",
    "x + 1",
    "f(1)",
    "true",
    "FALSE",
    "undefined",
    "error",
    "is",
    "isnt",
    "[ b = 2 ]",
    "{ 1 }",
    "",
];
const ENDS: &[&str] = &[";", "; ", " ;", ";;", "]", " ]", "; ]", "// c\n;", ""];

fn ad_shaped() -> impl Strategy<Value = String> {
    let attribute = (
        prop::sample::select(NAMES),
        prop::sample::select(ASSIGNS),
        prop::sample::select(VALUES),
        prop::sample::select(ENDS),
    )
        .prop_map(|(name, assign, value, end)| format!("{name}{assign}{value}{end}"));
    (prop::collection::vec(attribute, 0..6), prop::bool::ANY).prop_map(|(attributes, spaced)| {
        let open = if spaced { "[ " } else { "[" };
        format!("{open}{}]", attributes.concat())
    })
}

/// Parses `source` as a whole ad (where values repeated from earlier ads
/// come from the parser's memo) and checks it against the grammar.
fn ad_agrees(syntax: Syntax, source: &str) {
    let parser = Parser::default().syntax(syntax);
    let ad = parser.parse_ad(source);
    let grammar = parser.parse_expr_with_grammar(source);
    match (&ad, &grammar) {
        (Ok(ad), Ok(tree)) => assert_eq!(ad.to_string(), tree.to_string(), "{source:?}"),
        (Err(_), Err(_)) => {}
        (Err(_), Ok(tree)) if tree.as_node().is_none_or(|n| !matches!(n, classad::Node::Record(_))) => {}
        _ => panic!("{source:?}: parse_ad gave {ad:?}, the grammar {grammar:?}"),
    }
}

/// Values that share beginnings, so that a value remembered from one ad is
/// a prefix of the next ad's value (which must then be parsed, not taken
/// from the memo).
const SHARED_PREFIXES: &[&str] = &[
    "a && b",
    "a && b2",
    "a && b || c",
    "a && b.c",
    "a && b[1]",
    "a && b /* c */",
    "a && b // c\n",
    "a && b\n",
    "(a && b)",
    "\"a\" + b",
    "\"a\" \"b\"",
    "f(1) * 2",
    "f(1) * 2.5",
    "f(1) * 25",
    "x ?: y",
    "x ?: y ?: z",
    "-a - 1",
    "-a - 1.5",
    "-a - 1e3",
    "a is b",
    "a is b isnt c",
    "\"C:\\dir\\\" + x",
    "[ p = 1 ].p",
    "[ p = 1 ].p + 1",
    // Two backslashes: one in new syntax, two in old.
    "\"a\\\\b\" + x",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn ads_repeating_values_of_earlier_ads(
        values in prop::collection::vec((prop::sample::select(SHARED_PREFIXES), prop::sample::select(ENDS)), 1..8),
        old in prop::bool::ANY,
    ) {
        let syntax = if old { Syntax::Old } else { Syntax::New };
        for (value, end) in values {
            ad_agrees(syntax, &format!("[ Shared = {value}{end}]"));
            ad_agrees(syntax, &format!("[ x = 1; SHARED = {value}{end} y = 2 ]"));
        }
    }
}

#[test]
fn a_remembered_value_respects_the_depth_limit() {
    let deep = format!("[ Deep = {}1{} ]", "(".repeat(50), ")".repeat(50));
    assert!(Parser::default().parse_ad(&deep).is_ok());
    let strict = Parser::new(classad::ParseLimits { max_depth: 20, ..Default::default() });
    assert!(strict.parse_ad(&deep).is_err(), "the shallower limit applies to a remembered value");
    assert!(Parser::default().parse_ad(&deep).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    #[test]
    fn random_token_sequences(source in token_soup()) {
        agree(&source);
    }

    #[test]
    fn ad_shaped_inputs(source in ad_shaped()) {
        agree(&source);
    }

    #[test]
    fn random_token_sequences_in_old_syntax(source in token_soup()) {
        agree_in(Syntax::Old, &source);
    }

    #[test]
    fn ad_shaped_inputs_in_old_syntax(source in ad_shaped()) {
        agree_in(Syntax::Old, &source);
    }
}

#[test]
fn every_corpus_input() {
    let corpus = include_str!("data/conformance/core.jsonl");
    let mut accepted = 0;
    for line in corpus.lines() {
        let record: serde_json::Value = serde_json::from_str(line).expect("JSON");
        for field in ["expr", "my", "target"] {
            if let Some(source) = record.get(field).and_then(|v| v.as_str()) {
                accepted += usize::from(agree(source));
            }
        }
    }
    assert!(accepted > 10_000, "only {accepted} corpus inputs parsed");
}

#[test]
fn structured_inputs() {
    for source in [
        "1 + 2 * 3 - 4 / 5 % 6",
        "a ? b : c ? d : e",
        "(a || b) ? -1 : - 2",
        "x ?: y ?: z.w[1]",
        "-5 .x",
        "-x.y ?: -3",
        "f(-1, !a, [b = {1, -2}; c = .d])",
        "'a' 'b'.'c d'",
        "'f'(1)",
        "a - -5 - - 5 --5",
        "absTime(\"2020-01-01T00:00:00Z\") + relTime(\"1:30\")",
        "TARGET.Memory >= RequestMemory && TARGET.Arch == \"X86_64\"",
        "[ a = 1; ; b = [ c = 2 ]; ]",
        "1 <= 2 < 3 == true != false is true isnt undefined =?= 1 =!= 2",
        "~1 << 2 >> 3 >>> 4 & 5 ^ 6 | 7",
    ] {
        assert!(agree(source), "{source}");
        let _: Expr = source.parse().expect("parses");
    }
    for source in ["-5.x", "'a'.b(1)", "a..b", "[;]", "{1,}", "f(,)", "(1", "1 2", "x ?: !y", "a = b", "0x1F"] {
        assert!(!agree(source), "{source} should not parse");
    }
}
