//! The policy linter: each kind of finding on the mistakes it is for, no
//! finding on correct expressions, and the real policies of the pool
//! sample.

mod common;

use classad::lint::{lint, Kind, LintOptions, Linter, Severity};
use classad::{parse_expr, ClassAd};
use common::{ad, expression};
use proptest::prelude::*;

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
        ("x < undefined", vec![Kind::UndefinedComparison]),
        ("1 < Cpus < 10", vec![Kind::ChainedComparison]),
        (r#"HasDocker == "true" && x"#, vec![]),
        (r#"(x > 1) == "true""#, vec![Kind::StringBooleanComparison]),
        (r#"size(Name) == "3""#, vec![Kind::StringNumberComparison]),
        (r#"OpSys == "LINUX" || "WINDOWS""#, vec![Kind::StringCondition]),
        (r#"!"LINUX""#, vec![Kind::StringCondition]),
        (r#"ifThenElse("x", 1, 2) > y"#, vec![Kind::StringCondition]),
        ("Memory > 1024 & Cpus > 1", vec![Kind::BitwiseLogic]),
        ("~(x == 1)", vec![Kind::BitwiseLogic]),
        ("Memory / (1 / 0)", vec![Kind::ConstantError]),
        (r#"x + int("abc")"#, vec![Kind::ConstantError]),
        (r#"strcat(Owner, "x") * 2 > 1"#, vec![Kind::StringArithmetic]),
        (r#"Memory > 1024 && OpSys == "LINUX" || Arch == "X86_64""#, vec![Kind::MixedAndOr]),
        ("a || b && c || d && e", vec![Kind::MixedAndOr]),
        ("x && (a || b && c)", vec![Kind::MixedAndOr]),
        ("(a && b || c) || d", vec![Kind::MixedAndOr]),
    ] {
        assert_eq!(kinds(text, &none), expected, "{text}");
    }
    let mixed = &lint(&parse_expr("a && b || c || d && e").expect("expr"), &none)[0];
    assert_eq!(mixed.suggestion.as_deref(), Some("(a && b) || c || (d && e)"));
    assert_eq!(mixed.expr, "a && b || c || d && e");
    assert_eq!(mixed.severity(), Severity::Warning);
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
        "(Owner == \"coltrane\") * 10 + (Memory > 1024)",
        "(1 < Cpus) + (Cpus < 10)",
        "Cpus & 3",
        "x / 2 + 1.0 / 3",
        "unresolved(Requirements, \"Memory\")",
        "isError(x / y) || evalInEachContext(Nope > 1, Ads)",
        "(a && b) || c",
        "a && (b || c)",
        "a || (b && c) || d",
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

#[test]
fn references_looked_up_where_they_point() {
    let machines: Vec<ClassAd> =
        ["[ Memory = 2048; OpSys = \"LINUX\"; HasDocker = true ]", "[ Memory = 4096; OpSys = \"LINUX\" ]"]
            .iter()
            .map(|t| t.parse().expect("ad"))
            .collect();
    let job: ClassAd = "[ RequestMemory = 1024; Owner = \"ann\" ]".parse().expect("ad");
    let linter = Linter::new(&machines);
    let found = |text: &str| -> Vec<(Kind, String, Option<String>)> {
        linter
            .lint(&parse_expr(text).expect(text), Some(&job))
            .into_iter()
            .map(|f| (f.kind, f.expr, f.suggestion))
            .collect()
    };
    // MY.x is looked up in the job only, TARGET.x in the machines only.
    assert_eq!(
        found("MY.Memory > 1 && TARGET.RequestMemory > 1 && MY.RequestMemory > 1 && Memory > 1"),
        [
            (Kind::UnknownAttribute, "MY.Memory".to_owned(), None),
            (Kind::UnknownAttribute, "TARGET.RequestMemory".to_owned(), None),
        ]
    );
    // Tested for UNDEFINED somewhere: deliberate, whatever the scope.
    for guarded in [
        "TARGET.Disk > 1 && TARGET.Disk =!= undefined",
        "isUndefined(Disk) || TARGET.Disk > 1",
        "(TARGET.Disk ?: 0) > 1",
        "MY.Disk =?= true",
        "evalInEachContext(Disk > 1, TARGET.Memory)",
        "[ Disk = 1; Used = Disk ].Used > 0",
    ] {
        assert_eq!(found(guarded), [], "{guarded}");
    }
    // A mistaken test for UNDEFINED is reported as such, not the name.
    let mistaken = found("TARGET.Disk > 1 || TARGET.Disk == undefined");
    assert_eq!(mistaken.iter().map(|(k, ..)| *k).collect::<Vec<_>>(), [Kind::UndefinedComparison]);
    // Types from the ads the names are looked up in.
    assert_eq!(
        found("TARGET.HasDocker == \"true\" && Owner > 3"),
        [
            (Kind::StringBooleanComparison, "TARGET.HasDocker == \"true\"".to_owned(), None),
            (Kind::StringNumberComparison, "Owner > 3".to_owned(), None),
        ]
    );
    // =?= is case-sensitive.
    assert_eq!(
        found("TARGET.OpSys =?= \"linux\" && OpSys =!= \"LINUX\""),
        [(
            Kind::CaseSensitiveComparison,
            "TARGET.OpSys is \"linux\"".to_owned(),
            Some("TARGET.OpSys =?= \"LINUX\"".to_owned())
        )]
    );
}

#[test]
fn cycles_through_the_ads_attributes() {
    let ad: ClassAd = "[ A = B + 1; B = ifThenElse(C, MY.A, 0); C = true; D = D; E = A; F = [ F = 1 ].F; G = other.G ]"
        .parse()
        .expect("ad");
    let findings = Linter::new(&[]).lint_ad(&ad);
    let got: Vec<(&str, Kind, &str, &str)> =
        findings.iter().map(|(name, f)| (name.as_str(), f.kind, f.expr.as_str(), f.message.as_str())).collect();
    assert_eq!(
        got,
        [
            (
                "A",
                Kind::CyclicReference,
                "B",
                "A refers back to itself (A -> B -> A): the cycle has no value (ERROR here, UNDEFINED in libclassad)"
            ),
            (
                "B",
                Kind::CyclicReference,
                "MY.A",
                "B refers back to itself (B -> A -> B): the cycle has no value (ERROR here, UNDEFINED in libclassad)"
            ),
            (
                "D",
                Kind::CyclicReference,
                "D",
                "D refers back to itself (D -> D): the cycle has no value (ERROR here, UNDEFINED in libclassad)"
            ),
        ]
    );
}

/// Expressions printed in the HTCondor manual (Condor 7.7.6, sections
/// 3.3, 3.4.3 and 3.5.4): the mistakes are real.
#[test]
fn the_manuals_expressions() {
    let none = LintOptions::default();
    for (text, expected) in [
        ("(RemoteUserPrio == UNDEFINED)", vec![Kind::UndefinedComparison]),
        ("((LastCkptServer == TARGET.CkptServer) || (LastCkptServer == UNDEFINED))", vec![Kind::UndefinedComparison]),
        ("(JAVA5_HOOK_PREPARE_JOB != UNDEFINED)", vec![Kind::UndefinedComparison]),
        ("(TARGET.HaveBamboozle == True) && (TARGET.resource_name != UNDEFINED)", vec![Kind::UndefinedComparison]),
        ("(Owner == \"coltrane\" * 1000000000000) + Imagesize", vec![Kind::StringArithmetic]),
        ("(Owner == \"coltrane\") + (Owner == \"tyner\")", vec![]),
        // Means what the manual says it does, but only because `&&` binds
        // tighter: the grouping is worth writing down.
        ("TARGET.Owner==\"smith\" || LoadAvg<=0.3 && KeyboardIdle>15*60", vec![Kind::MixedAndOr]),
        ("( (KeyboardIdle > 150 ) && ( HOST_KeyboardIdle > 150 ) )", vec![]),
        ("Friend + ResearchGroup*10", vec![]),
        ("(TARGET.FileSystemDomain == MY.FileSystemDomain)", vec![]),
    ] {
        assert_eq!(kinds(text, &none), expected, "{text}");
    }
}

/// Every attribute of every ad of the pool sample, alone, against the
/// test jobs (machine ads) and against the machines (the test jobs): only
/// findings that hold.
#[test]
fn the_pool_sample() {
    let ads = common::pool_sample();
    let run = |ads: &[ClassAd], reference: &[ClassAd]| -> Vec<String> {
        let linter = Linter::new(reference);
        let mut all: Vec<String> = ads
            .iter()
            .flat_map(|ad| linter.lint_ad(ad))
            .map(|(name, finding)| format!("{name}: {} {}", finding.kind, finding.expr))
            .collect();
        all.sort();
        all.dedup();
        all
    };
    // Alone, every ad (machines, daemons, submitters) is clean: no
    // mistakes, no `MY.x` the ad lacks but does not test for, no cycles.
    assert_eq!(run(&ads, &[]), Vec::<String>::new());

    let machines: Vec<ClassAd> =
        ads.iter().filter(|ad| ad.get("MyType").is_some_and(|t| t.to_string() == "\"Machine\"")).cloned().collect();
    let jobs: Vec<ClassAd> =
        classad::format::Reader::new(&include_bytes!("data/matching/jobs.ads")[..], Some(classad::format::Format::New))
            .collect::<Result<_, _>>()
            .expect("the test jobs read");
    // The jobs' attributes all exist in the machines.
    assert_eq!(run(&jobs, &machines), Vec::<String>::new());
    // The machines' policies refer to job attributes the four test jobs
    // lack and do not test for (real jobs have JobUniverse, K8s jobs
    // RequestK8SNamespace, notebook jobs FromJupyter), and two GPU machines
    // average attributes of their own that only exist while GPUs are used.
    // Everything the policies test for UNDEFINED is not reported.
    assert_eq!(
        run(&machines, &jobs),
        [
            "MaxJobRetirementTime: unknown-attribute JobUniverse",
            "START_EXTRA: unknown-attribute TARGET.FromJupyter",
            "Start: unknown-attribute TARGET.RequestK8SNamespace",
            "UptimeGPUsSecondsAverageUsage: unknown-attribute FirstUpdateUptimeGPUsSeconds",
            "UptimeGPUsSecondsAverageUsage: unknown-attribute LastUpdateUptimeGPUsSeconds",
            "UptimeGPUsSecondsAverageUsage: unknown-attribute StartOfJobUptimeGPUsSeconds",
            "UptimeGPUsSecondsAverageUsage: unknown-attribute UptimeGPUsSeconds",
        ]
    );
}

/// Hostile input: the deepest expressions the parser accepts, long lists
/// full of findings, ads whose attributes all refer to each other.
#[test]
fn hostile_input_ends() {
    let none = LintOptions::default();
    // Each level is a parenthesis and an operator (and a minus): near the
    // parser's limit of 1000.
    let nested = format!("{}x{}", "(1 + ".repeat(495), ")".repeat(495));
    assert!(kinds(&nested, &none).is_empty());
    let nested_error = format!("{}\"a\"{}", "(x == -".repeat(330), ")".repeat(330));
    assert!(!kinds(&nested_error, &none).is_empty());
    let chain = vec!["x == undefined"; 900].join(" && ");
    assert_eq!(kinds(&chain, &none).len(), 900);
    let list = format!("{{ x, {} }}", vec!["\"a\" * 1"; 20_000].join(", "));
    assert_eq!(kinds(&list, &none).len(), 20_000);

    let n = 3000;
    let text: String = (0..n).map(|i| format!("a{i} = a{} + MY.a{};\n", (i + 1) % n, (i * 7) % n)).collect();
    let ad: ClassAd = format!("[{text}]").parse().expect("ad");
    let findings = Linter::new(&[]).lint_ad(&ad);
    assert_eq!(findings.len(), n);
    assert!(findings.iter().all(|(_, f)| f.kind == Kind::CyclicReference));
}

#[test]
fn kinds_have_distinct_names() {
    let mut names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Kind::ALL.len());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Any expression, in any ad, against any reference ads: findings whose
    /// part is printed as the canonical syntax of something that parses.
    #[test]
    fn any_input_lints(text in expression(), my in ad(), reference in proptest::collection::vec(ad(), 0..3)) {
        if let Ok(expr) = parse_expr(&text) {
            let linter = Linter::new(&reference);
            for finding in linter.lint(&expr, Some(&my)).into_iter().chain(linter.lint(&expr, None)) {
                prop_assert!(parse_expr(&finding.expr).is_ok(), "{text:?}: {finding:?}");
            }
            for (name, finding) in linter.lint_ad(&my) {
                prop_assert!(my.contains(name), "{name}: {finding:?}");
            }
        }
    }
}
