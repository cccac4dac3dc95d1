//! The cap on interned names ([`NameLimits`]). The cap is process-wide, so
//! this file holds a single test: each test file is its own process, and
//! no other test sees the lowered limits.

use std::collections::BTreeMap;

use classad::format::{parse_ads, Format};
use classad::{interned_count, ClassAd, Name, NameLimits, Value};

/// The text of attribute names no other part of this test spells.
fn fresh(prefix: &str, i: usize) -> String {
    format!("{prefix}_{i}")
}

#[test]
fn the_table_of_names_stops_growing_at_its_limit() {
    // Names spelled before the limit keep working after it.
    let known: ClassAd = "[ Known = 1; Other = Known + 1 ]".parse().expect("parses");
    let room = 50;
    let limits = NameLimits { max_names: interned_count() + room, ..NameLimits::default() };
    limits.install();
    assert_eq!(NameLimits::current(), limits);

    // A stream of ads with endless new names: the table fills, then every
    // ad that brings a new name is rejected with a parse error at it.
    let mut rejected = Vec::new();
    for i in 0..10 * room {
        let text = format!("[ Known = 2; {} = Known ]", fresh("Flood", i));
        match classad::parse_ad(&text) {
            Ok(ad) => assert_eq!(ad.eval_attr(fresh("Flood", i).as_str()), Value::Int(2)),
            Err(err) => rejected.push(err),
        }
    }
    assert_eq!(interned_count(), limits.max_names);
    assert!(rejected.len() >= 9 * room, "only {} rejected", rejected.len());
    let first = &rejected[0];
    assert!(first.message.starts_with("too many distinct names"), "{first}");
    assert_eq!((first.line, first.column), (1, 14), "{first}");
    assert!(first.to_string().contains(&limits.max_names.to_string()), "{first}");

    // Every way in is capped: expressions (a lone name, a name in a larger
    // expression, a quoted name, a function name), each format, eval().
    for text in ["NewA", "1 + NewB", "'new C'", "newFunction(1)", "x.NewD"] {
        let err = classad::parse_expr(text).expect_err(text);
        assert!(err.message.starts_with("too many distinct names"), "{text}: {err}");
    }
    let old = parse_ads("Known = 1\nNewE = 2\n", Some(Format::Old)).expect_err("old format");
    assert!(old.to_string().contains("too many distinct names"), "{old}");
    let json = parse_ads(r#"[{"Known": 1, "NewF": 2}]"#, Some(Format::Json)).expect_err("json");
    assert!(json.to_string().contains("too many distinct names"), "{json}");
    let xml = "<classads><c><a n=\"NewG\"><i>1</i></a></c></classads>";
    let xml = parse_ads(xml, Some(Format::Xml)).expect_err("xml");
    assert!(xml.to_string().contains("too many distinct names"), "{xml}");
    assert_eq!(known.eval_expr(&classad::parse_expr(r#"eval("NewH + 1")"#).expect("parses")), Value::Error);
    // Serialising a map: its keys are data.
    let map: BTreeMap<String, i64> = [("NewI".to_string(), 1)].into();
    let err = classad::to_ad(&map).expect_err("map keys are capped");
    assert!(err.to_string().contains("too many distinct names"), "{err}");

    // What is interned already still parses; a new spelling of it is
    // read as the spelling interned (names are case-insensitive), and so
    // are calls of built-in functions in any spelling.
    let again: ClassAd = "[ Known = 3; Other = KNOWN + SIZE(\"a\") ]".parse().expect("known names parse");
    assert_eq!(again.eval_attr("Other"), Value::Int(4));
    assert_eq!(again.to_string(), "[ Known = 3; Other = Known + size(\"a\") ]");
    assert_eq!(known.eval_attr("Other"), Value::Int(2));

    // Looking up text interns nothing: in the API and in evaluation.
    let count = interned_count();
    for i in 0..1000 {
        let name = fresh("Lookup", i);
        assert!(known.get(name.as_str()).is_none());
        assert!(!known.contains(name.as_str()));
        assert_eq!(known.eval_attr(name.as_str()), Value::Undefined);
        assert_eq!(Name::find(&name), None);
    }
    let lookups = classad::parse_expr(r#"[Known = 4][strcat("Lookup_", 7)]"#).expect("parses");
    assert_eq!(lookups.eval(), Value::Undefined);
    let by_text = classad::parse_expr(r#"[Known = 4]["KNOWN"]"#).expect("parses");
    assert_eq!(by_text.eval(), Value::Int(4));
    assert_eq!(interned_count(), count);

    // Names a program spells itself are not capped.
    let spelled = Name::new("SpelledByTheProgram");
    assert_eq!(interned_count(), count + 1);
    assert_eq!(Name::try_new("SpelledByTheProgram"), Ok(spelled));
    assert!(Name::try_new("NotSpelledYet").is_err());

    // The byte budget counts too.
    NameLimits { max_names: usize::MAX, max_bytes: 0 }.install();
    let err = classad::parse_expr("AnotherNewName").expect_err("no bytes left");
    assert!(err.message.contains("0 bytes"), "{err}");

    // Raising the limits lets new names in again.
    NameLimits::default().install();
    assert!(classad::parse_expr("NewA + 'new C'").is_ok());
}
