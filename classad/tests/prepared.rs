//! Prepared evaluation gives exactly the interpreter's values.

mod common;

use classad::{parse_ad, parse_expr, ClassAd, EvalContext, EvalOptions, Expr, Prepared, Semantics};
use common::{ad, expression};
use proptest::prelude::*;

/// Checks one (MY, TARGET, expression) under both semantics.
fn agree(my: &ClassAd, target: &ClassAd, expr: &Expr) {
    for semantics in [Semantics::New, Semantics::Old] {
        let options = EvalOptions::new().semantics(semantics);
        let interpreted = EvalContext::new(&options).my(my).target(target).eval(expr);
        let prepared = Prepared::new(&options, my, expr);
        assert_eq!(prepared.eval(target), interpreted, "{semantics:?}: {expr} with MY {my} and TARGET {target}");
        let targets = [target.clone()];
        assert_eq!(prepared.matching(&targets).len(), usize::from(interpreted.is_true()));
    }
}

/// Ads that define TARGET-style names and literal/expression attributes
/// the generated expressions refer to.
fn scoped_ad() -> impl Strategy<Value = ClassAd> {
    (
        ad(),
        prop::collection::vec(
            (prop::sample::select(&["x", "y", "Memory", "TARGET", "other", "MY"][..]), expression()),
            0..3,
        ),
    )
        .prop_map(|(mut ad, extra)| {
            for (name, text) in extra {
                if let Ok(expr) = parse_expr(&text) {
                    ad.insert(name, expr);
                }
            }
            ad
        })
}

fn scoped_expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        expression(),
        prop::sample::select(
            &[
                "TARGET.Memory",
                "TARGET.x",
                "other.y",
                "MY.x",
                "TARGET.TARGET",
                "TARGET.self",
                "x",
                "Memory",
                "RequestMemory"
            ][..]
        )
        .prop_map(str::to_owned),
    ];
    leaf.prop_recursive(3, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), prop::sample::select(&["&&", "||", ">=", "==", "+", "is", "=!="][..]), inner.clone())
                .prop_map(|(a, op, b)| format!("({a}) {op} ({b})")),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, a, b)| format!("({c}) ? ({a}) : ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) ?: ({b})")),
            inner.prop_map(|e| format!("!({e})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn same_values_as_the_interpreter(text in scoped_expression(), my in scoped_ad(), target in scoped_ad()) {
        if let Ok(expr) = parse_expr(&text) {
            agree(&my, &target, &expr);
        }
    }
}

#[test]
fn every_match_case_of_the_corpus() {
    let corpus = include_str!("data/conformance/core.jsonl");
    let mut checked = 0;
    for line in corpus.lines() {
        let record: serde_json::Value = serde_json::from_str(line).expect("JSON");
        let field = |name: &str| record.get(name).and_then(|v| v.as_str());
        let (Some(my), Some(target), Some(expr)) = (field("my"), field("target"), field("expr")) else {
            continue;
        };
        let (Ok(my), Ok(target), Ok(expr)) = (parse_ad(my), parse_ad(target), parse_expr(expr)) else {
            continue;
        };
        agree(&my, &target, &expr);
        checked += 1;
    }
    assert!(checked > 100, "only {checked} match cases");
}

#[test]
fn typical_requirements() {
    let job: ClassAd = r#"[ RequestCpus = 2; RequestMemory = 4096; RequestDisk = 1000000; Owner = "alice";
        Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk)
            && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus) && (TARGET.HasFileTransfer);
        Rank = TARGET.KFlops / 1000 + (TARGET.Memory > RequestMemory * 2 ? 10 : 0) ]"#
        .parse()
        .expect("job");
    let machines: Vec<ClassAd> = [
        r#"[ Arch = "X86_64"; OpSys = "LINUX"; Disk = 2000000; Memory = 8192; Cpus = 4; HasFileTransfer = true; KFlops = 1500000 ]"#,
        r#"[ Arch = "x86_64"; OpSys = "linux"; Disk = 2000000; Memory = 4096; Cpus = 2; HasFileTransfer = 1; KFlops = 1 ]"#,
        r#"[ Arch = "aarch64"; OpSys = "LINUX"; Disk = 2000000; Memory = 8192; Cpus = 4; HasFileTransfer = true ]"#,
        r#"[ Arch = "X86_64"; OpSys = "LINUX"; Disk = 2000000; Memory = 8192; Cpus = 4 ]"#,
        r#"[ Arch = "X86_64"; OpSys = "LINUX"; Disk = 2000000; Memory = TotalMemory / 2; TotalMemory = 16384; Cpus = 4; HasFileTransfer = TARGET.Owner == "alice" ]"#,
        r#"[ TARGET = [ Arch = "X86_64" ]; Arch = "X86_64" ]"#,
        "[ ]",
    ]
    .iter()
    .map(|text| text.parse().expect("machine"))
    .collect();
    for name in ["Requirements", "Rank"] {
        for machine in &machines {
            agree(&job, machine, job.get(name).expect("present"));
        }
    }
    let options = EvalOptions::new().semantics(Semantics::Old);
    let prepared = Prepared::attribute(&options, &job, "Requirements");
    assert_eq!(prepared.matching(&machines), vec![0, 1, 4]);
}
