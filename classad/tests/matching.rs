//! `MatchAd` against libclassad's `symmetricMatch`/`matches`, pair by pair:
//! the jobs of `data/matching/jobs.ads` against every machine ad of the
//! pool sample (`data/matching/pool_matches.jsonl`, written by
//! `generate_matching.py`).

use std::io::Read;

use classad::format::{Format, Reader};
use classad::matching::{rank_value, MatchAd};
use classad::{ClassAd, EvalOptions, Semantics, Value};
use serde_json::Value as Json;

fn pool_machines() -> Vec<ClassAd> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(&include_bytes!("data/pool_sample.ads.gz")[..])
        .read_to_string(&mut text)
        .expect("gzip data");
    let ads: Vec<ClassAd> =
        Reader::new(text.as_bytes(), Some(Format::Old)).collect::<Result<_, _>>().expect("the pool sample reads");
    ads.into_iter().filter(|ad| ad.eval_attr("MyType") == Value::from("Machine")).collect()
}

fn jobs() -> Vec<ClassAd> {
    let text = include_str!("data/matching/jobs.ads");
    Reader::new(text.as_bytes(), None).collect::<Result<_, _>>().expect("the jobs read")
}

/// The canonical text of an ad's own Rank in its side of the match, as the
/// oracle records it (None without one).
fn raw_rank(ad: &ClassAd, context: classad::EvalContext<'_>) -> Option<String> {
    ad.lookup("Rank").map(|expr| context.eval(expr).to_string())
}

#[test]
fn pool_pairs_match_as_in_libclassad() {
    let machines = pool_machines();
    let jobs = jobs();
    let options = EvalOptions::new().semantics(Semantics::Old);
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in include_str!("data/matching/pool_matches.jsonl").lines() {
        let record: Json = serde_json::from_str(line).expect("JSON line");
        let (j, m) =
            (record["job"].as_u64().expect("job") as usize, record["machine"].as_u64().expect("machine") as usize);
        let pair = MatchAd::new(&options, &jobs[j], &machines[m]);
        let ours = (
            pair.symmetric_match(),
            pair.left_matches_right(),
            pair.right_matches_left(),
            raw_rank(&jobs[j], pair.left_context()),
            raw_rank(&machines[m], pair.right_context()),
        );
        let text = |field: &str| record[field].as_str().map(str::to_owned);
        let theirs = (
            record["symmetric"].as_bool().expect("bool"),
            record["job_accepts"].as_bool().expect("bool"),
            record["machine_accepts"].as_bool().expect("bool"),
            text("job_rank"),
            text("machine_rank"),
        );
        if ours != theirs {
            failures.push(format!("job {j} machine {m}: ours {ours:?}, libclassad {theirs:?}"));
        }
        // The rank as a number follows from the value.
        let expected_rank =
            theirs.3.as_deref().map_or(0.0, |t| rank_value(&classad::parse_expr(t).expect("rank text parses").eval()));
        assert_eq!(pair.left_rank().to_bits(), expected_rank.to_bits(), "job {j} machine {m}");
        checked += 1;
    }
    assert_eq!(checked, jobs.len() * machines.len());
    assert!(failures.is_empty(), "{} of {checked} pairs differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn requirements_and_rank_are_each_ads_own() {
    let options = EvalOptions::new().semantics(Semantics::Old);
    let job: ClassAd = "[ Requirements = TARGET.Memory > 1; Rank = 5 ]".parse().expect("ad");
    let bare: ClassAd = "[ Memory = 2 ]".parse().expect("ad");
    let pair = MatchAd::new(&options, &job, &bare);
    assert!(pair.left_matches_right());
    // The machine has no Requirements or Rank of its own: old semantics
    // would find the job's through TARGET, which must not count.
    assert!(!pair.right_matches_left());
    assert!(!pair.symmetric_match());
    assert_eq!(pair.right_rank(), 0.0);
    assert_eq!(pair.left_rank(), 5.0);
    for (rank, value) in [("true", 1.0), ("\"x\"", 0.0), ("undefined", 0.0), ("1 / 0", 0.0), ("2.5", 2.5)] {
        let ad: ClassAd = format!("[ Rank = {rank} ]").parse().expect("ad");
        assert_eq!(MatchAd::new(&options, &ad, &bare).left_rank(), value, "{rank}");
    }
}
