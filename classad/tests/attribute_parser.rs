//! `AttributeParser` gives exactly what the full parser gives: the same
//! expression (`same_as`), printed the same, and an error exactly where
//! the parser has one, whether the value comes from the literal fast path,
//! the value cache or the line cache. Checked on every line of the real
//! pool sample, every expression and ad of the conformance, function and
//! differential corpora (in both syntaxes), and generated values.

mod common;

use std::io::Read;

use classad::{AttributeParser, Expr, ParseLimits, Parser, Syntax, ValueCacheLimits};
use proptest::prelude::*;
use serde_json::Value as Json;

fn full(syntax: Syntax, text: &str) -> Result<Expr, String> {
    Parser::default().syntax(syntax).parse_expr(text).map_err(|e| e.to_string())
}

/// `got` is what the full parser gives for `text`.
fn assert_same(syntax: Syntax, text: &str, got: Result<Expr, String>) {
    match (full(syntax, text), got) {
        (Ok(want), Ok(got)) => {
            assert!(got.same_as(&want), "{syntax:?} {text:?}: {got:?} is not {want:?}");
            assert_eq!(got.display(Syntax::Old).to_string(), want.display(Syntax::Old).to_string(), "{text:?}");
            assert_eq!(got.to_string(), want.to_string(), "{text:?}");
        }
        (Err(want), Err(got)) => assert_eq!(got, want, "{syntax:?} {text:?}"),
        (want, got) => panic!("{syntax:?} {text:?}: the parser gives {want:?}, the attribute parser {got:?}"),
    }
}

/// Parses each text twice (the second time from the caches) and compares.
fn check_values<'a>(syntax: Syntax, texts: impl IntoIterator<Item = &'a str> + Clone) -> usize {
    let mut parser = AttributeParser::new(ParseLimits::default()).syntax(syntax);
    let mut n = 0;
    for _ in 0..2 {
        for text in texts.clone() {
            assert_same(syntax, text, parser.value(text).map_err(|e| e.to_string()));
            n += 1;
        }
    }
    n
}

fn pool_text() -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(&include_bytes!("data/pool_sample.ads.gz")[..])
        .read_to_string(&mut text)
        .expect("gzip data");
    text
}

#[test]
fn every_line_of_the_pool_sample() {
    let text = pool_text();
    let mut parser = AttributeParser::default();
    let mut lines = 0;
    for ad in text.split("\n\n") {
        for (i, line) in ad.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            let (name, value) = line.split_once('=').expect("name = value");
            let (name, value) = (name.trim_end_matches(' ').trim_start(), value.trim_start_matches(' '));
            for got in [parser.attribute_at(i, line.as_bytes()), parser.attribute(line)] {
                let (got_name, got_value) = got.expect("the line parses");
                assert_eq!(got_name.as_str(), name);
                assert_same(Syntax::Old, value, Ok(got_value));
            }
            lines += 1;
        }
    }
    assert!(lines > 90_000, "{lines} lines");
    // The same values again, now from the value cache.
    let values: Vec<&str> =
        text.lines().filter_map(|l| l.split_once('=')).map(|(_, v)| v.trim_start_matches(' ')).collect();
    check_values(Syntax::Old, values.iter().copied());
}

fn corpus_texts(corpus: &str) -> Vec<String> {
    let mut texts = Vec::new();
    for line in corpus.lines() {
        let Ok(record) = serde_json::from_str::<Json>(line) else { continue };
        for field in ["expr", "my", "target"] {
            if let Some(text) = record.get(field).and_then(Json::as_str) {
                texts.push(text.to_owned());
            }
        }
    }
    texts.sort();
    texts.dedup();
    texts
}

#[test]
fn every_expression_and_ad_of_the_corpora() {
    let mut texts = Vec::new();
    for corpus in [
        include_str!("data/conformance/core.jsonl"),
        include_str!("data/functions/functions.jsonl"),
        include_str!("data/differential/differential.jsonl"),
    ] {
        texts.extend(corpus_texts(corpus));
    }
    assert!(texts.len() > 5_000, "{} texts", texts.len());
    for syntax in [Syntax::Old, Syntax::New] {
        check_values(syntax, texts.iter().map(String::as_str));
    }
}

#[test]
fn lines_at_the_same_position_that_differ() {
    let mut parser = AttributeParser::default();
    for line in ["A = 1", "A = 2", "B = 2", "a = 2", "A = \"x\"", "A = x + 1", "A=x + 1", "A = 1 +", "= 1", "A 1", ""] {
        let want = parser.attribute(line).map(|(n, e)| (n.as_str().to_owned(), e.to_string()));
        let got = parser.attribute_at(0, line.as_bytes()).map(|(n, e)| (n.as_str().to_owned(), e.to_string()));
        assert_eq!(got, want, "{line:?}");
        // Twice: the second time from the line cache when it parsed.
        let again = parser.attribute_at(0, line.as_bytes()).map(|(n, e)| (n.as_str().to_owned(), e.to_string()));
        assert_eq!(again, want, "{line:?}");
    }
    // Bytes that are not UTF-8 are replaced, as the lossy conversion does.
    let (_, value) = parser.attribute_at(1, b"S = \"a\xffb\"").expect("parses");
    assert_eq!(value.to_string(), "\"a\\357\\277\\275b\"");
}

#[test]
fn no_cache_at_all_gives_the_same() {
    let mut parser = AttributeParser::default().cache_limits(ValueCacheLimits::default().max_entries(0));
    for text in ["1", "\"a long string of more than twenty-three bytes\"", "a && b", "{1, 2}"] {
        assert_same(Syntax::Old, text, parser.value(text).map_err(|e| e.to_string()));
        assert_same(
            Syntax::Old,
            text,
            parser.attribute_at(0, format!("A = {text}").as_bytes()).map(|(_, e)| e).map_err(|e| e.to_string()),
        );
    }
    assert_eq!(parser.cached(), 0);
}

fn literal_like() -> impl Strategy<Value = String> {
    prop_oneof![
        common::literal(),
        "-?[0-9]{1,20}",
        "-?[0-9]{1,6}\\.[0-9]{0,6}",
        "[0-9]{1,3}[eE][+-]?[0-9]{1,3}",
        "\"[ -~]{0,40}\"",
        "[tT][rR][uU][eE]|[fF]alse|undefined|error|UNDEFINED",
        " {0,2}[a-z]{1,3} {0,2}",
        "0[xX][0-9]{1,3}|0[0-9]{1,4}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn generated_values_parse_as_the_parser_parses_them(
        texts in prop::collection::vec(prop_oneof![literal_like(), common::expression()], 1..8)
    ) {
        for syntax in [Syntax::Old, Syntax::New] {
            check_values(syntax, texts.iter().map(String::as_str));
        }
    }
}
