//! `MatchAd` against libclassad's `symmetricMatch`/`matches`,
//! pair by pair: the jobs of `data/matching/jobs.ads` against every machine
//! ad of the pool sample, as it is (`data/matching/pool_matches.jsonl`) and
//! with its glideins' retirement times moved into the future
//! (`pool_matches_refreshed.jsonl`); both written by `generate_matching.py`.

mod common;

use classad::format::Reader;
use classad::matching::{rank_value, MatchAd};
use classad::{ClassAd, EvalOptions, Semantics, Value};
use serde_json::Value as Json;

fn pool_machines() -> Vec<ClassAd> {
    common::pool_sample().into_iter().filter(|ad| ad.eval_attr("MyType") == Value::from("Machine")).collect()
}

/// The machines with `GLIDEIN_ToRetire` and `GLIDEIN_ToDie` moved to 2100,
/// as `generate_matching.py` does for the refreshed run.
fn refreshed(mut machines: Vec<ClassAd>) -> Vec<ClassAd> {
    for ad in &mut machines {
        if ad.contains("GLIDEIN_ToRetire") || ad.contains("GLIDEIN_ToDie") {
            ad.insert("GLIDEIN_ToRetire", 4_102_444_800i64);
            ad.insert("GLIDEIN_ToDie", 4_102_531_200i64);
        }
    }
    machines
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

/// Checks every pair of `oracle` (one JSON line per job × machine pair)
/// with `MatchAd`, and returns how many pairs match symmetrically.
fn check_pairs(machines: &[ClassAd], oracle: &str) -> usize {
    let jobs = jobs();
    let options = EvalOptions::new().semantics(Semantics::Old);
    let mut checked = 0;
    let mut symmetric = 0;
    let mut failures = Vec::new();
    for line in oracle.lines() {
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
        symmetric += usize::from(theirs.0);
    }
    assert_eq!(checked, jobs.len() * machines.len());
    assert!(failures.is_empty(), "{} of {checked} pairs differ:\n{}", failures.len(), failures.join("\n"));
    symmetric
}

#[test]
fn pool_pairs_match_as_in_libclassad() {
    let matched = check_pairs(&pool_machines(), include_str!("data/matching/pool_matches.jsonl"));
    assert_eq!(matched, 0, "the sample's retirement times are past");
}

#[test]
fn refreshed_pool_pairs_match_as_in_libclassad() {
    let matched = check_pairs(&refreshed(pool_machines()), include_str!("data/matching/pool_matches_refreshed.jsonl"));
    assert_eq!(matched, 207);
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
