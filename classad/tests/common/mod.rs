//! Shared by the tests: generators for the property tests (expression
//! source text with every construct of the language, and ads whose
//! attributes refer to each other, sometimes in cycles), and the pool
//! sample.

#![allow(dead_code)]

use classad::{parse_expr, ClassAd};
use proptest::prelude::*;

/// Names the generated expressions and ads share, so references resolve
/// (and sometimes form cycles).
const NAMES: &[&str] = &["a", "b", "c", "Memory", "x_1", "self", "parent", "root", "MY", "TARGET", "other"];

pub fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(NAMES).prop_map(str::to_owned),
        "[a-z][a-z0-9_]{0,3}",
        "[a-z !#]{1,4}".prop_map(|s| format!("'{s}'")),
    ]
}

pub fn string_literal() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-zA-Z0-9 ]{0,4}",
        prop::sample::select(&["\\n", "\\t", "\\\"", "\\\\", "\\101", "\\303\\251", "é", "\\'", "\\q"][..])
            .prop_map(str::to_owned),
    ];
    prop::collection::vec(piece, 0..4).prop_map(|parts| format!("\"{}\"", parts.concat()))
}

/// Source text of a literal. Reals have at most 15 significant digits, so
/// the 16 that `%1.15E` prints bring back the same double.
pub fn literal() -> impl Strategy<Value = String> {
    prop_oneof![
        (-1000i64..1000).prop_map(|i| i.to_string()),
        Just("9223372036854775807".to_owned()),
        Just("-9223372036854775808".to_owned()),
        (0u32..100_000, 0u32..1000, -20i32..20).prop_map(|(m, f, e)| format!("{m}.{f:03}e{e}")),
        string_literal(),
        prop::sample::select(
            &["true", "FALSE", "undefined", "error", "relTime(\"1:30\")", "absTime(\"2020-05-06T07:08:09+02:00\")"][..]
        )
        .prop_map(str::to_owned),
    ]
}

const BINARY: &[&str] = &[
    "||", "&&", "|", "^", "&", "==", "!=", "=?=", "=!=", "is", "isnt", "<", "<=", ">", ">=", "<<", ">>", ">>>", "+",
    "-", "*", "/", "%",
];
const FUNCTIONS: &[&str] = &[
    "size",
    "strcat",
    "ifThenElse",
    "isUndefined",
    "isError",
    "int",
    "real",
    "string",
    "member",
    "eval",
    "floor",
    "round",
    "noSuchFunction",
];

/// Source text of an expression; operands are parenthesized so that the
/// generated text always means what its structure says.
pub fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![literal(), name(), name().prop_map(|n| format!(".{n}"))];
    leaf.prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            (inner.clone(), prop::sample::select(BINARY), inner.clone())
                .prop_map(|(a, op, b)| format!("({a}) {op} ({b})")),
            (prop::sample::select(&["!", "~", "-", "+"][..]), inner.clone()).prop_map(|(op, e)| format!("{op}({e})")),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, a, b)| format!("({c}) ? {a} : {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) ?: ({b})")),
            (prop::sample::select(FUNCTIONS), prop::collection::vec(inner.clone(), 0..4))
                .prop_map(|(f, args)| format!("{f}({})", args.join(", "))),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|items| format!("{{{}}}", items.join(", "))),
            prop::collection::vec((name(), inner.clone()), 0..4).prop_map(|attrs| {
                let body: Vec<String> = attrs.iter().map(|(n, e)| format!("{n} = {e}")).collect();
                format!("[{}]", body.join("; "))
            }),
            (inner.clone(), name()).prop_map(|(e, n)| format!("({e}).{n}")),
            (inner.clone(), inner).prop_map(|(e, i)| format!("({e})[{i}]")),
        ]
    })
}

pub fn ad() -> impl Strategy<Value = ClassAd> {
    prop::collection::vec((prop::sample::select(&["a", "b", "c", "Memory", "Requirements"][..]), expression()), 0..5)
        .prop_map(|attrs| {
            let mut ad = ClassAd::new();
            for (name, text) in attrs {
                if let Ok(expr) = parse_expr(&text) {
                    ad.insert(name, expr);
                }
            }
            ad
        })
}

/// Every ad of the shared pool sample (`data/pool_sample.ads.gz`, 205 ads
/// of `condor_status -long` output), in file order.
pub fn pool_sample() -> Vec<ClassAd> {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(&include_bytes!("../data/pool_sample.ads.gz")[..])
        .read_to_string(&mut text)
        .expect("gzip data");
    classad::format::Reader::new(text.as_bytes(), Some(classad::format::Format::Old))
        .collect::<Result<_, _>>()
        .expect("the pool sample reads")
}
