//! `MatchAd` and `Pool` against libclassad's `symmetricMatch`/`matches`,
//! pair by pair: the jobs of `data/matching/jobs.ads` against every machine
//! ad of the pool sample, as it is (`data/matching/pool_matches.jsonl`) and
//! with its glideins' retirement times moved into the future
//! (`pool_matches_refreshed.jsonl`); both written by `generate_matching.py`.

mod common;

use classad::format::Reader;
use classad::matching::{rank_value, Match, MatchAd, Pool};
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

/// `Pool` finds, for every job, exactly the machines libclassad's
/// `symmetricMatch` accepts, with the ranks `MatchAd` gives, on one thread
/// and on many.
#[test]
fn batch_matching_agrees_with_libclassad_and_match_ad() {
    let options = EvalOptions::new().semantics(Semantics::Old);
    for (machines, oracle) in [
        (pool_machines(), include_str!("data/matching/pool_matches.jsonl")),
        (refreshed(pool_machines()), include_str!("data/matching/pool_matches_refreshed.jsonl")),
    ] {
        let jobs = jobs();
        let pool = Pool::new(&options, &machines);
        assert_eq!(pool.len(), machines.len());
        let mut reused = Vec::new();
        for (j, job) in jobs.iter().enumerate() {
            let expected: Vec<Match> = oracle
                .lines()
                .map(|line| serde_json::from_str::<Json>(line).expect("JSON line"))
                .filter(|r| r["job"].as_u64() == Some(j as u64) && r["symmetric"].as_bool() == Some(true))
                .map(|r| {
                    let index = r["machine"].as_u64().expect("machine") as usize;
                    let pair = MatchAd::new(&options, job, &machines[index]);
                    Match { index, left_rank: pair.left_rank(), right_rank: pair.right_rank() }
                })
                .collect();
            let found = pool.matches(job);
            assert_eq!(found, expected, "job {j}");
            assert_eq!(pool.par_matches(job), expected, "job {j}, in parallel");
            assert_eq!(pool.count(job), expected.len(), "job {j}");
            reused.clear();
            pool.matches_into(job, &mut reused);
            assert_eq!(reused, expected, "job {j}, reused vector");
        }
    }
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

mod generated {
    //! `Pool` against `MatchAd` on generated pools: requests whose
    //! `Requirements` compare machine attributes with constants (the
    //! shape evaluated over columns) and machines whose values are every
    //! kind of literal, missing, or computed.

    use classad::matching::{Match, MatchAd, Pool};
    use classad::{parse_ad, ClassAd, EvalOptions, Semantics};
    use proptest::prelude::*;

    const NAMES: &[&str] = &["Memory", "Arch", "Flag", "Load"];

    fn value() -> impl Strategy<Value = String> {
        prop::sample::select(
            &[
                "1",
                "0",
                "2048",
                "-3",
                "4096",
                "2.5",
                "0.0",
                "true",
                "false",
                "\"X86_64\"",
                "\"x86_64\"",
                "\"ARM\"",
                "\"\"",
                "undefined",
                "error",
                "Memory * 2",
                "TARGET.RequestMemory",
                "absTime(\"2020-01-01T00:00:00Z\")",
            ][..],
        )
        .prop_map(str::to_owned)
    }

    fn machine() -> impl Strategy<Value = ClassAd> {
        (
            prop::collection::vec(prop::option::of(value()), NAMES.len()),
            prop::sample::select(
                &["true", "false", "TARGET.RequestMemory <= Memory", "START", "undefined", "MY.Flag", "1"][..],
            ),
            prop::sample::select(&["0", "Memory", "TARGET.RequestMemory", "\"x\"", "Flag"][..]),
        )
            .prop_map(|(values, requirements, rank)| {
                let mut text = String::from("[ START = Memory > 1; ");
                for (name, value) in NAMES.iter().zip(values) {
                    if let Some(value) = value {
                        text.push_str(&format!("{name} = {value}; "));
                    }
                }
                text.push_str(&format!("Requirements = {requirements}; Rank = {rank} ]"));
                parse_ad(&text).expect("generated machine parses")
            })
    }

    fn clause() -> impl Strategy<Value = String> {
        (
            prop::sample::select(NAMES),
            prop::sample::select(&["==", "!=", "<", "<=", ">", ">=", "=?=", "=!="][..]),
            value(),
            any::<bool>(),
        )
            .prop_map(|(name, op, value, flip)| {
                if flip {
                    format!("{value} {op} TARGET.{name}")
                } else {
                    format!("TARGET.{name} {op} {value}")
                }
            })
    }

    fn requirements() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            4 => clause(),
            1 => prop::sample::select(NAMES).prop_map(|n| format!("TARGET.{n}")),
            1 => prop::sample::select(&["true", "false", "undefined", "error"][..]).prop_map(str::to_owned),
        ];
        leaf.prop_recursive(3, 12, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 2..4).prop_map(|v| format!("({})", v.join(" && "))),
                prop::collection::vec(inner.clone(), 2..4).prop_map(|v| format!("({})", v.join(" || "))),
                inner.prop_map(|c| format!("!({c})")),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn pool_agrees_with_match_ad(
            machines in prop::collection::vec(machine(), 0..300),
            requirements in requirements(),
            old in any::<bool>(),
        ) {
            let job = parse_ad(&format!("[ RequestMemory = 2048; Requirements = {requirements}; Rank = TARGET.Memory ]"))
                .expect("generated job parses");
            let options = EvalOptions::new().semantics(if old { Semantics::Old } else { Semantics::New });
            let expected: Vec<Match> = machines
                .iter()
                .enumerate()
                .filter_map(|(index, machine)| {
                    let pair = MatchAd::new(&options, &job, machine);
                    pair.symmetric_match().then(|| Match { index, left_rank: pair.left_rank(), right_rank: pair.right_rank() })
                })
                .collect();
            let pool = Pool::new(&options, &machines);
            let same = |a: &[Match], b: &[Match]| {
                a.len() == b.len()
                    && a.iter().zip(b).all(|(x, y)| {
                        x.index == y.index
                            && x.left_rank.to_bits() == y.left_rank.to_bits()
                            && x.right_rank.to_bits() == y.right_rank.to_bits()
                    })
            };
            let found = pool.matches(&job);
            prop_assert!(same(&found, &expected), "{requirements}: pool {found:?}, pairs {expected:?}");
            prop_assert!(same(&pool.par_matches(&job), &expected));
            // A second request reuses the columns the first one built.
            prop_assert_eq!(pool.count(&job), expected.len());
        }
    }
}
