//! Parse and format errors say what kind of mistake they report, and
//! where, beside their message.

use classad::format::{self, Format, FormatErrorKind};
use classad::lexer::LexErrorKind;
use classad::{parse_ad, parse_expr, ParseErrorKind, ParseLimits, Parser, Syntax};

#[test]
fn parse_errors_have_a_kind_and_a_span() {
    let cases: &[(&str, ParseErrorKind, std::ops::Range<usize>)] = &[
        ("1 + ]", ParseErrorKind::UnexpectedToken, 4..5),
        ("(1 + 2", ParseErrorKind::UnexpectedEnd, 6..6),
        ("\"abc", ParseErrorKind::Lex(LexErrorKind::UnterminatedString), 0..4),
        ("99999999999999999999", ParseErrorKind::Lex(LexErrorKind::IntegerOverflow), 0..20),
        ("0x1F", ParseErrorKind::Lex(LexErrorKind::HexLiteral), 0..4),
        ("1 $ 2", ParseErrorKind::Lex(LexErrorKind::UnexpectedChar), 2..3),
        ("absTime(\"not a time\")", ParseErrorKind::BadTime, 0..0),
    ];
    for (text, kind, span) in cases {
        let error = parse_expr(text).unwrap_err();
        assert_eq!(error.kind(), *kind, "{text}: {error}");
        assert_eq!(error.span(), span.clone(), "{text}: {error}");
        assert_eq!(error.offset, span.start, "{text}");
    }
}

#[test]
fn parse_errors_of_ads_and_limits() {
    assert_eq!(parse_ad("[;]").unwrap_err().kind(), ParseErrorKind::EmptyAd);
    assert_eq!(parse_ad("  1 + 2").unwrap_err().kind(), ParseErrorKind::NotAnAd);
    assert_eq!(parse_ad("  1 + 2").unwrap_err().span(), 2..2);
    let deep = Parser::new(ParseLimits { max_depth: 2, ..ParseLimits::default() });
    assert_eq!(deep.parse_expr("((((1))))").unwrap_err().kind(), ParseErrorKind::TooDeep);
    // The error points where the nesting passes the limit, reading from the
    // left (it pointed at the outermost parenthesis too deep, which moved
    // left as the input grew deeper).
    for n in [1000, 1001, 1100, 5000] {
        let text = format!("  {}1{}", "(".repeat(n), ")".repeat(n));
        let error = classad::parse_expr(&text).unwrap_err();
        assert_eq!((error.kind(), error.span()), (ParseErrorKind::TooDeep, 1001..1001), "{n}: {error}");
        assert!(error.to_string().starts_with("line 1, column 1002: expression nested deeper"), "{error}");
        let lists = format!("x + {{ {}1{} }}", "[a = {".repeat(n), "}]".repeat(n));
        let error = classad::parse_expr(&lists).unwrap_err();
        assert_eq!(error.kind(), ParseErrorKind::TooDeep, "{n}: {error}");
        assert!(matches!(&lists[error.span().start..][..1], "[" | "{"), "{n}: {error}");
    }
    let small = Parser::new(ParseLimits { max_input: 4, ..ParseLimits::default() });
    let error = small.parse_expr("1 + 2 + 3").unwrap_err();
    assert_eq!((error.kind(), error.span()), (ParseErrorKind::TooLarge, 4..4));
    let old = Parser::default().syntax(Syntax::Old);
    assert_eq!(old.parse_expr("017").unwrap_err().kind(), ParseErrorKind::Lex(LexErrorKind::LeadingZeroOld));
}

#[test]
fn the_kind_does_not_change_the_message() {
    let error = parse_expr("1 +\n (2 * ]").unwrap_err();
    assert_eq!(error.to_string(), format!("line {}, column {}: {}", error.line, error.column, error.message));
}

fn format_error(text: &str, format: Format) -> format::FormatError {
    format::parse_ads(text, Some(format)).expect_err(text)
}

#[test]
fn format_errors_have_a_kind() {
    let cases: &[(&str, Format, FormatErrorKind)] = &[
        ("A = 1\n\nB = (2\n", Format::Old, FormatErrorKind::Parse(ParseErrorKind::UnexpectedEnd)),
        ("A = 1\nnot an assignment\n", Format::Old, FormatErrorKind::Malformed),
        ("[ a = 1 ] x", Format::New, FormatErrorKind::Malformed),
        ("[ a = ) ]", Format::New, FormatErrorKind::Parse(ParseErrorKind::UnexpectedToken)),
        ("{ [ a = 1 ]", Format::New, FormatErrorKind::Truncated),
        ("[ a = 1", Format::New, FormatErrorKind::Truncated),
        ("[{\"a\": 01}]", Format::Json, FormatErrorKind::Malformed),
        ("[{\"a\": \"\\/Expr(1 +)\\/\"}]", Format::Json, FormatErrorKind::Parse(ParseErrorKind::UnexpectedEnd)),
        ("[{\"a\": 1}", Format::Json, FormatErrorKind::Truncated),
        ("[{\"a\": 1} x", Format::Json, FormatErrorKind::Malformed),
        ("{ [ a = 1 ] x", Format::New, FormatErrorKind::Malformed),
        ("<classads><c><a n=\"x\"><q>1</q></a></c></classads>", Format::Xml, FormatErrorKind::Malformed),
        (
            "<classads><c><a n=\"x\"><e>1 +</e></a></c></classads>",
            Format::Xml,
            FormatErrorKind::Parse(ParseErrorKind::UnexpectedEnd),
        ),
    ];
    for (text, format, kind) in cases {
        let error = format_error(text, *format);
        assert_eq!(error.kind(), *kind, "{format:?} {text:?}: {error}");
        assert_eq!(
            error.to_string(),
            format!("ad {}, line {}, column {}: {}", error.ad, error.line, error.column, error.message)
        );
    }
}

#[test]
fn format_errors_of_bytes_and_limits() {
    let bytes = b"A = \"\xff\"\n";
    let error = format::Reader::new(&bytes[..], Some(Format::Old)).next().unwrap().unwrap_err();
    assert_eq!(error.kind(), FormatErrorKind::InvalidUtf8);
    let limits = format::ReadLimits { max_ad_bytes: 8, ..format::ReadLimits::default() };
    let error = format::Reader::new(&b"A = 12345678901234567890\n"[..], Some(Format::Old))
        .limits(limits)
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(error.kind(), FormatErrorKind::TooLarge);
}
