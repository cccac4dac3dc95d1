//! External and internal references and flattening against libclassad's
//! `externalRefs`/`internalRefs`/`flatten`
//! (`data/references/references.jsonl.gz`, written by
//! `generate_references.py`): hand-written edge cases and quirks, the
//! expressions of the pool sample's machine ads and the test jobs, and
//! seeded random expressions, under both semantics; and the cases where we
//! differ on purpose (`data/references/divergences.jsonl`).

use std::io::Read;

use classad::flatten::{flatten, Flattened};
use classad::references::{external, internal};
use classad::{parse_expr, ClassAd, EvalOptions, Semantics};
use serde_json::Value as Json;

fn names(value: &Json) -> Option<Vec<String>> {
    value.as_array().map(|a| a.iter().map(|n| n.as_str().expect("a name").to_owned()).collect())
}

/// External references, internal references and the flattened form, as the
/// data files write them (`None` where they cannot be determined).
type Outcome = (Option<Vec<String>>, Option<Vec<String>>, String);

fn ours(options: &EvalOptions, ad: &ClassAd, expr: &classad::Expr) -> Outcome {
    let flattened = match flatten(options, ad, expr) {
        Ok(Flattened::Value(value)) => format!("value {value}"),
        Ok(Flattened::Expr(expr)) => format!("expr {expr}"),
        Err(_) => "error".to_owned(),
    };
    (external(options, ad, expr).ok(), internal(options, ad, expr).ok(), flattened)
}

fn recorded(value: &Json) -> (Option<Vec<String>>, Option<Vec<String>>, Option<String>) {
    (names(&value["external"]), names(&value["internal"]), value["flatten"].as_str().map(str::to_owned))
}

#[test]
fn references_agree_with_libclassad() {
    let mut text = String::new();
    flate2::read::GzDecoder::new(&include_bytes!("data/references/references.jsonl.gz")[..])
        .read_to_string(&mut text)
        .expect("gzip data");
    let mut lines = text.lines();
    let header: Json = serde_json::from_str(lines.next().expect("header")).expect("JSON");
    let ads: Vec<ClassAd> = header["ads"]
        .as_array()
        .expect("ads")
        .iter()
        .map(|t| t.as_str().expect("text").parse().expect("the oracle's ad parses"))
        .collect();
    let (mut checked, mut layer, mut failures) = (0, 0, Vec::new());
    for line in lines {
        let case: Json = serde_json::from_str(line).expect("JSON line");
        let semantics = if case["semantics"] == "old" { Semantics::Old } else { Semantics::New };
        let options = EvalOptions::new().semantics(semantics);
        let ad = &ads[case["ad"].as_u64().expect("ad index") as usize];
        let source = case["expr"].as_str().expect("expr");
        let expr = parse_expr(source).expect("the oracle's expression parses");
        let (external, internal, flattened) = ours(&options, ad, &expr);
        // Not recorded for expressions that read the clock.
        let ours = (external, internal, case["flatten"].as_str().map(|_| flattened));
        let theirs = recorded(&case);
        // docs/divergences.md, `htcondor-layer`: HTCondor's own functions
        // exist here under new semantics too; libclassad flattens a call
        // of one to ERROR there.
        let htcondor_layer = semantics == Semantics::New
            && ["stringListMember(", "evalInEachContext("].iter().any(|f| source.contains(f))
            && theirs.2.as_deref().is_some_and(|t| t.contains("error"));
        if htcondor_layer {
            layer += 1;
        } else if ours != theirs {
            failures.push(format!("{semantics:?} {source}: ours {ours:?}, libclassad {theirs:?}"));
        }
        checked += 1;
    }
    assert!(checked > 4000, "{checked} cases");
    assert!(layer <= 4, "{layer} cases set aside as htcondor-layer");
    assert!(failures.is_empty(), "{} of {checked} differ:\n{}", failures.len(), failures.join("\n"));
}

/// Long chains of references and a cycle end in a result or an error,
/// never a crash. (libclassad gives up on chains a few hundred long; here
/// the evaluation depth limit, 2,000 by default, decides.)
#[test]
fn deep_chains_and_cycles() {
    let mut ad = ClassAd::new();
    ad.insert("A0", parse_expr("TARGET.Memory + X").expect("expr"));
    for i in 1..1500 {
        ad.insert(format!("A{i}").as_str(), parse_expr(&format!("A{} + 1", i - 1)).expect("expr"));
    }
    ad.insert("Loop1", parse_expr("Loop2 + 1").expect("expr"));
    ad.insert("Loop2", parse_expr("Loop1").expect("expr"));
    let options = EvalOptions::new();
    let top = parse_expr("A1499 > 0").expect("expr");
    assert_eq!(external(&options, &ad, &top).expect("external"), ["TARGET.Memory", "X"]);
    assert_eq!(internal(&options, &ad, &top).expect("internal").len(), 1500);
    assert_eq!(flatten(&options, &ad, &top).expect("flatten").to_string(), "A1499 > 0");
    let lp = parse_expr("Loop1").expect("expr");
    assert!(external(&options, &ad, &lp).is_err());
    assert!(internal(&options, &ad, &lp).is_err());
    assert!(flatten(&options, &ad, &lp).is_err());
    // Past the depth limit: an error, as libclassad.
    let shallow = EvalOptions::new().limits(classad::EvalLimits { max_depth: 100, ..Default::default() });
    assert!(flatten(&shallow, &ad, &top).is_err());
}

/// Attributes that each use the one before twice: searching or flattening
/// without memory (as libclassad does) takes 2^n steps, so the step limit
/// of the evaluation (10 million by default, lower here to keep the test
/// short) ends it with an error.
#[test]
fn shared_references_are_bounded() {
    let mut ad = ClassAd::new();
    ad.insert("D0", parse_expr("TARGET.Memory + X").expect("expr"));
    for i in 1..60 {
        ad.insert(format!("D{i}").as_str(), parse_expr(&format!("D{0} + D{0}", i - 1)).expect("expr"));
    }
    let options = EvalOptions::new().limits(classad::EvalLimits { max_steps: 100_000, ..Default::default() });
    let top = parse_expr("D59").expect("expr");
    let start = std::time::Instant::now();
    assert!(external(&options, &ad, &top).is_err());
    assert!(internal(&options, &ad, &top).is_err());
    assert!(flatten(&options, &ad, &top).is_err());
    // A few levels are fine.
    let small = parse_expr("D5").expect("expr");
    assert_eq!(external(&options, &ad, &small).expect("external"), ["TARGET.Memory", "X"]);
    assert_eq!(internal(&options, &ad, &small).expect("internal"), ["D0", "D1", "D2", "D3", "D4", "D5"]);
    assert_eq!(flatten(&options, &ad, &small).expect("flatten").to_string(), "D5");
    assert!(start.elapsed() < std::time::Duration::from_secs(60), "{:?}", start.elapsed());
}

/// `[ p = self ].p` names the ad it is in, which names itself: a cycle
/// for the searches (libclassad runs out of depth), not a hang.
#[test]
fn an_ad_naming_itself() {
    let ad: ClassAd = "[ A = 1 ]".parse().expect("ad");
    let options = EvalOptions::new();
    for text in ["[ p = self ].p", "[ p = self; q = A ].p"] {
        let expr = parse_expr(text).expect("expr");
        assert!(external(&options, &ad, &expr).is_err(), "{text}");
        assert!(internal(&options, &ad, &expr).is_err(), "{text}");
        assert_eq!(flatten(&options, &ad, &expr).expect("flatten").to_string(), text);
    }
}

/// The cases where we differ from libclassad on purpose, each tagged with
/// the section of docs/divergences.md that explains it: we give what the
/// file says we give, and that is not what libclassad gives.
#[test]
fn divergences_are_as_documented() {
    let sections = include_str!("../../docs/divergences.md");
    let mut tags = Vec::new();
    for line in include_str!("data/references/divergences.jsonl").lines() {
        let case: Json = serde_json::from_str(line).expect("JSON line");
        let tag = case["tag"].as_str().expect("tag");
        assert!(sections.contains(&format!("\n## {tag}\n")), "no section {tag} in docs/divergences.md");
        let semantics = if case["semantics"] == "old" { Semantics::Old } else { Semantics::New };
        let options = EvalOptions::new().semantics(semantics);
        let ad: ClassAd = case["ad"].as_str().expect("ad").parse().expect("ad parses");
        let expr = parse_expr(case["expr"].as_str().expect("expr")).expect("expr parses");
        let (external, internal, flattened) = ours(&options, &ad, &expr);
        let ours = (external, internal, Some(flattened));
        assert_eq!(ours, recorded(&case["ours"]), "{tag}: {}", case["expr"]);
        assert_ne!(ours, recorded(&case["libclassad"]), "{tag}: {} agrees with libclassad now", case["expr"]);
        tags.push(tag.to_owned());
    }
    assert_eq!(tags, ["circular-references", "record-order", "reference-depth", "htcondor-layer"]);
}
