//! `Pool` against libclassad's `symmetricMatch`/`matches` and `MatchAd`,
//! pair by pair: the jobs of classad's `tests/data/matching/jobs.ads` against every machine
//! ad of the pool sample, as it is (`data/matching/pool_matches.jsonl`) and
//! with its glideins' retirement times moved into the future
//! (`pool_matches_refreshed.jsonl`); both written by `generate_matching.py`.

#[path = "../../classad/tests/common/mod.rs"]
mod common;

use classad::format::Reader;
use classad::matching::MatchAd;
use classad::{ClassAd, EvalOptions, Semantics, Value};
use matchmaker::matching::{Match, Pool};
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
    let text = include_str!("../../classad/tests/data/matching/jobs.ads");
    Reader::new(text.as_bytes(), None).collect::<Result<_, _>>().expect("the jobs read")
}

/// `Pool` finds, for every job, exactly the machines libclassad's
/// `symmetricMatch` accepts, with the ranks `MatchAd` gives, on one thread
/// and on many.
#[test]
fn batch_matching_agrees_with_libclassad_and_match_ad() {
    let options = EvalOptions::new().semantics(Semantics::Old);
    for (machines, oracle) in [
        (pool_machines(), include_str!("../../classad/tests/data/matching/pool_matches.jsonl")),
        (refreshed(pool_machines()), include_str!("../../classad/tests/data/matching/pool_matches_refreshed.jsonl")),
    ] {
        let jobs = jobs();
        let pool = Pool::new(&options, machines.clone());
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
            #[cfg(feature = "parallel")]
            assert_eq!(pool.par_matches(job), expected, "job {j}, in parallel");
            assert_eq!(pool.count(job), expected.len(), "job {j}");
            reused.clear();
            pool.matches_into(job, &mut reused);
            assert_eq!(reused, expected, "job {j}, reused vector");
        }
    }
}

mod generated {
    //! `Pool` against `MatchAd` on generated pools: requests whose
    //! `Requirements` compare machine attributes with constants (the
    //! shape evaluated over columns) and machines whose values are every
    //! kind of literal, missing, or computed.

    use classad::matching::MatchAd;
    use classad::{parse_ad, ClassAd, EvalOptions, Semantics};
    use matchmaker::matching::{Match, Pool};
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
            let pool = Pool::new(&options, machines.clone());
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
            #[cfg(feature = "parallel")]
            prop_assert!(same(&pool.par_matches(&job), &expected));
            // A second request reuses the columns the first one built.
            prop_assert_eq!(pool.count(&job), expected.len());
            // Skipping ads skips exactly them.
            let mut kept = Vec::new();
            let mut asked = Vec::new();
            pool.matches_into_filtered(&job, |i| { asked.push(i); i % 3 != 0 }, &mut kept);
            let filtered: Vec<Match> = expected.iter().filter(|m| m.index % 3 != 0).copied().collect();
            prop_assert!(same(&kept, &filtered), "{requirements}: filtered {kept:?}, expected {filtered:?}");
            prop_assert!(asked.windows(2).all(|w| w[0] < w[1]), "asked in order, once each: {asked:?}");
            #[cfg(feature = "parallel")]
            prop_assert!(same(&pool.par_matches_filtered(&job, |i| i % 3 != 0), &filtered));
        }

        /// A pool changed ad by ad (`replace`, `push`) after requests built
        /// its columns answers as a pool made afresh of the changed ads.
        #[test]
        fn updated_pool_agrees_with_fresh_pool(
            machines in prop::collection::vec(machine(), 0..120),
            replacements in prop::collection::vec((any::<prop::sample::Index>(), machine()), 0..24),
            pushed in prop::collection::vec(machine(), 0..8),
            first in requirements(),
            second in requirements(),
            old in any::<bool>(),
        ) {
            let job = |requirements: &str| {
                parse_ad(&format!("[ RequestMemory = 2048; Requirements = {requirements}; Rank = TARGET.Memory ]"))
                    .expect("generated job parses")
            };
            let (first, second) = (job(&first), job(&second));
            let options = EvalOptions::new().semantics(if old { Semantics::Old } else { Semantics::New });
            let mut current = machines.clone();
            let mut pool = Pool::new(&options, machines);
            // The first request builds the columns it compares.
            let _ = pool.matches(&first);
            for (k, (at, machine)) in replacements.into_iter().enumerate() {
                if current.is_empty() {
                    break;
                }
                let index = at.index(current.len());
                let before = pool.replace(index, machine.clone());
                prop_assert_eq!(before.to_string(), current[index].to_string());
                current[index] = machine;
                if k % 5 == 0 {
                    let _ = pool.count(&first);
                }
            }
            for machine in pushed {
                prop_assert_eq!(pool.push(machine.clone()), current.len());
                current.push(machine);
            }
            prop_assert_eq!(pool.len(), current.len());
            let fresh = Pool::new(&options, current.clone());
            for request in [&first, &second, &first] {
                let expected = fresh.matches(request);
                let pairs: Vec<Match> = current
                    .iter()
                    .enumerate()
                    .filter_map(|(index, machine)| {
                        let pair = MatchAd::new(&options, request, machine);
                        pair.symmetric_match().then(|| Match { index, left_rank: pair.left_rank(), right_rank: pair.right_rank() })
                    })
                    .collect();
                let found = pool.matches(request);
                prop_assert_eq!(found.len(), pairs.len());
                prop_assert_eq!(&found, &expected);
                #[cfg(feature = "parallel")]
                prop_assert_eq!(pool.par_matches(request), expected.clone());
                prop_assert_eq!(pool.count(request), expected.len());
            }
        }
    }
}
