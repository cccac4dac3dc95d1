//! Inputs the fuzz targets (`fuzz/`) and the long differential runs
//! (`tests/data/differential/run_long.py`) found failing, kept as tests:
//! each checks the property the target checks, or libclassad's value, on
//! the input it failed on.

use classad::format::{self, Format, Reader};
use classad::{ClassAd, Expr, Syntax};

/// The `convert` target's property: every format reads back what it wrote,
/// as many ads, and writing is a fixed point from the second round on.
fn converts_back(input: &[u8]) {
    let ads: Vec<ClassAd> = Reader::new(input, None).skip_bad_ads(true).filter_map(Result::ok).collect();
    assert!(!ads.is_empty());
    for to in [Format::New, Format::Old, Format::Json, Format::Xml] {
        let text = format::to_string(&ads, to);
        let back = format::parse_ads(&text, Some(to)).unwrap_or_else(|e| panic!("{to}: {e}\n{text:?}"));
        // The old format has no text for an ad without attributes.
        let expected = if to == Format::Old { ads.iter().filter(|ad| !ad.is_empty()).count() } else { ads.len() };
        assert_eq!(back.len(), expected, "{to}");
        let second = format::to_string(&back, to);
        let again = format::parse_ads(&second, Some(to)).unwrap_or_else(|e| panic!("{to}: {e}"));
        assert_eq!(format::to_string(&again, to), second, "{to}: not a fixed point");
    }
}

#[test]
fn convert_a_nul_in_a_name_or_a_string() {
    // An old-format line with raw NUL bytes (found in a mutated pool ad):
    // new syntax wrote them as `\000`, an escape its reader refuses.
    converts_back(b"Cl\0im = 1\nS = \"a\0b\"\n");
}

#[test]
fn convert_an_empty_ad_among_others() {
    // `[]` has no old-format text: it vanishes there, and only there.
    converts_back(b"[ a = 1 ]\n[ ]\n[ b = 2 ]\n");
}

/// The `roundtrip` target's property: printing is a fixed point.
fn prints_back(text: &str) {
    let expr: Expr = text.parse().expect("parses");
    for syntax in [Syntax::New, Syntax::Old] {
        let printed = expr.display(syntax).to_string();
        if syntax == Syntax::Old && printed.contains('\n') {
            // No escapes in old syntax: the line break is written as is.
            assert!(classad::Parser::new(Default::default()).syntax(syntax).parse_expr(&printed).is_err());
            continue;
        }
        let again = classad::Parser::new(Default::default()).syntax(syntax).parse_expr(&printed).expect("reparses");
        assert_eq!(again.display(syntax).to_string(), printed, "{syntax:?}");
    }
}

#[test]
fn roundtrip_a_real_printed_with_fewer_digits() {
    // 17 significant digits in, 16 out (as libclassad prints reals): the
    // value changes once, then printing is stable.
    prints_back("1.2006689607669759e-306");
}

#[test]
fn roundtrip_a_line_break_in_a_string() {
    prints_back("\"\\\"\\n\"");
}

#[test]
fn roundtrip_a_string_ending_in_a_backslash() {
    // Old syntax escapes only the quote, so `"]\"` reads as an escaped
    // quote: such a string has no old-syntax text (libclassad's writer
    // breaks it the same way); new syntax keeps it.
    let text = r#"[ Requirements = "]\\"; Memory = 0 ]"#;
    let expr: Expr = text.parse().expect("parses");
    let old = expr.display(Syntax::Old).to_string();
    assert!(classad::Parser::new(Default::default()).syntax(Syntax::Old).parse_expr(&old).is_err());
    let new = expr.to_string();
    assert!(new.parse::<Expr>().expect("reparses").same_as(&expr));
}

#[test]
fn roundtrip_an_absolute_time_in_year_zero() {
    // A garbage time string read as year 0; printed as `0-01-01...` (as
    // libclassad prints it) it read back as the day before.
    prints_back(r#"absTime("\"-------0-------")"#);
    prints_back(r#"absTime("0999-12-31T23:59:59Z")"#);
}

#[test]
fn convert_a_line_break_in_a_quoted_name() {
    // Old syntax cannot write the name (no escapes); every other format can.
    let ad: ClassAd = "[ 'a\\nb' = 1 ]".parse().expect("parses");
    assert_eq!(ad.iter().next().map(|(name, _)| name.as_str().to_owned()).as_deref(), Some("a\nb"));
    for to in [Format::New, Format::Json, Format::Xml] {
        let text = format::to_string([&ad], to);
        let back = format::parse_ads(&text, Some(to)).unwrap_or_else(|e| panic!("{to}: {e}\n{text:?}"));
        assert!(back.len() == 1 && back[0].same_as(&ad), "{to}");
    }
    assert!(format::parse_ads(&format::to_string([&ad], Format::Old), Some(Format::Old)).is_err());
}

#[test]
fn unparse_uses_the_multi_line_layout() {
    // What libclassad 25.14.1 gives (differential run, seed 3).
    let ad: ClassAd = "[ a = ({1}) ? 2 : 3; b = [x = {1}]; c = 1 + 2 ]".parse().expect("parses");
    let eval = |text: &str| classad::parse_expr(text).expect("parses").eval_in(&ad);
    assert_eq!(eval("unparse(a)"), classad::Value::Str("(\n   {\n      1\n   }) ? 2 : 3".into()));
    assert_eq!(
        eval("unparse(b)"),
        classad::Value::Str("\n    [\n        x = \n           {\n              1\n           }\n    ]".into())
    );
    assert_eq!(eval("unparse(c)"), classad::Value::Str("1 + 2".into()));
}

#[test]
fn roundtrip_a_selection_on_an_integer() {
    // `0 .n` is a selection on the integer 0; libclassad prints it `0.n`,
    // which reads back as the malformed real `0.` (found by the cedar_ad
    // target on `RR = n.R.R == 0 .n.R`). We print `0 .n`.
    prints_back("0 .n.R");
    prints_back("n.R.R == 0 .n.R");
    let expr: Expr = "0 .n".parse().expect("parses");
    assert_eq!(expr.to_string(), "0 .n");
    assert_eq!(expr.display(Syntax::Old).to_string(), "0 .n");
    // Reals and other literals print as libclassad prints them.
    assert_eq!("0.0 .x".parse::<Expr>().expect("parses").to_string(), "0.0.x");
    assert_eq!("true .x".parse::<Expr>().expect("parses").to_string(), "true.x");
    converts_back(b"RR = n.R.R == 0 .n.R\n");
}

#[test]
fn json_a_string_starting_like_an_expression_with_a_wide_character() {
    // The trace target's finding: a JSON string beginning `\/Expr` with a
    // two-byte character where `(` would be made the reader slice inside
    // the character and panic. It is a string.
    let ads = classad::format::parse_ads("[{\"A\": \"\\/Expr\u{63b})\\/\"}]", None).expect("reads");
    assert_eq!(ads[0].lookup_string("A").as_deref(), Some("/Expr\u{63b})/"));
}
