//! The policy linter: each kind of finding on the mistakes it is for, no
//! finding on correct expressions, and the real policies of the pool
//! sample.

mod common;

use classad::lint::{lint, Kind, LintOptions, Severity};
use classad::{parse_expr, ClassAd};

fn kinds(text: &str, options: &LintOptions<'_>) -> Vec<Kind> {
    lint(&parse_expr(text).expect(text), options).iter().map(|f| f.kind).collect()
}

#[test]
fn each_kind_of_mistake() {
    let none = LintOptions::default();
    for (text, expected) in [
        ("RemoteUserPrio == UNDEFINED", vec![Kind::UndefinedComparison]),
        ("undefined != x", vec![Kind::UndefinedComparison]),
        ("x == error", vec![Kind::UndefinedComparison]),
        (r#"Owner == "coltrane" * 1000000000000"#, vec![Kind::StringArithmetic]),
        (r#""a" + 1"#, vec![Kind::StringArithmetic]),
        (r#"!Owner == "x""#, vec![Kind::NegatedComparison]),
        (r#""abc" < 3"#, vec![Kind::StringNumberComparison]),
        ("noSuchFunction(1)", vec![Kind::UnknownFunction]),
        ("substr(\"abc\")", vec![Kind::Arity]),
        ("strcat(Name, 2) == \"12\" && member(Name)", vec![Kind::Arity]),
        ("TARGET.Memory > 3 && 1 == 2", vec![Kind::ConstantCondition]),
        ("TARGET.Memory > 3 || (2 > 1)", vec![Kind::ConstantCondition]),
    ] {
        assert_eq!(kinds(text, &none), expected, "{text}");
    }
    let finding = &lint(&parse_expr(r#"!Owner == "x""#).expect("expr"), &none)[0];
    assert_eq!(finding.suggestion.as_deref(), Some(r#"!(Owner == "x")"#));
    assert_eq!(finding.severity(), Severity::Warning);
}

#[test]
fn correct_expressions_are_clean() {
    let none = LintOptions::default();
    for text in [
        "RemoteUserPrio =?= UNDEFINED",
        "x =!= undefined",
        r#"(Owner == "coltrane") * 1000000000000"#,
        "!(Owner == \"x\")",
        "TARGET.Memory >= RequestMemory && TARGET.Arch == \"X86_64\"",
        "true",
        "START",
        "ifThenElse(x > 1, 2, 3) + time()",
        "strcat(Name) == \"\" && time() > 0",
        "(TARGET.RequestGPUs ?: 0) > 0",
        "1 == 1 ? x : y",
    ] {
        assert_eq!(kinds(text, &none), [], "{text}");
    }
}

#[test]
fn reference_ads_find_unknown_attributes_and_types() {
    let machines: Vec<ClassAd> =
        ["[ Memory = 2048; Arch = \"X86_64\"; OpSys = \"LINUX\" ]", "[ Memory = 4096; Arch = \"ARM\" ]"]
            .iter()
            .map(|t| t.parse().expect("ad"))
            .collect();
    let job: ClassAd = "[ RequestMemory = 1024 ]".parse().expect("ad");
    let options = LintOptions { my: Some(&job), reference: &machines };
    let findings = lint(
        &parse_expr("TARGET.Memroy >= RequestMemory && TARGET.Arch == 3 && TARGET.Disk > 0 && OpSys == \"LINUX\"")
            .expect("expr"),
        &options,
    );
    let got: Vec<(Kind, &str, Option<&str>)> =
        findings.iter().map(|f| (f.kind, f.expr.as_str(), f.suggestion.as_deref())).collect();
    assert_eq!(
        got,
        [
            (Kind::UnknownAttribute, "TARGET.Memroy", Some("TARGET.Memory")),
            (Kind::StringNumberComparison, "TARGET.Arch == 3", None),
            (Kind::UnknownAttribute, "TARGET.Disk", None),
        ]
    );
}

/// Every expression of the pool sample's machine ads, with the pool's
/// ads as reference: only findings that hold.
#[test]
fn the_pool_sample_policies() {
    let ads = common::pool_sample();
    let mut all = Vec::new();
    for ad in &ads {
        for name in ["START", "Requirements", "Rank", "WithinResourceLimits", "IsBlackHole"] {
            if let Some(expr) = ad.lookup(name) {
                let options = LintOptions { my: Some(ad), reference: &[] };
                for finding in lint(expr, &options) {
                    all.push(format!("{name}: {} {}", finding.kind, finding.expr));
                }
            }
        }
    }
    all.sort();
    all.dedup();
    // The machines' own policies are clean of every kind of finding but
    // one: `Rank = (1) + (1) + (1) + (1)` is not a chain of conditions, and
    // START's `(true)` operands are deliberate literals, so nothing.
    assert_eq!(all, Vec::<String>::new());
}
