//! Transforms compared with HTCondor's `condor_transform_ads`.
//!
//! `tests/data/transforms/` holds rules files, configurations with
//! `JOB_TRANSFORM_*` transforms, job ads, and what `condor_transform_ads`
//! (HTCondor 23.9.6) printed for every pair (`regenerate.sh` makes them
//! again; see the README there). Each ad we make must have the same
//! attributes as HTCondor's, with the same expression text once both are
//! read and printed by this crate's parser and unparser. Where HTCondor
//! failed (no output), we must fail too.

use std::path::{Path, PathBuf};

use classad::format::{self, Format};
use classad::{ClassAd, Syntax};
use matchmaker::config::{Config, Loader};
use matchmaker::schedd::{JobTransforms, Macros, TransformError};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/transforms")
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(data().join(dir))
        .expect("data directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

fn stem(p: &Path) -> String {
    p.file_stem().and_then(|s| s.to_str()).expect("name").to_string()
}

/// Attribute name (lower case) to expression text, through our unparser.
fn normalized(ad: &ClassAd) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> =
        ad.iter().map(|(n, e)| (n.as_str().to_ascii_lowercase(), e.display(Syntax::Old).to_string())).collect();
    v.sort();
    v
}

/// Transforms every ad of `jobs` as condor_transform_ads does: stops at
/// the first ad that fails.
fn run(transforms: &JobTransforms, config: &Config, jobs: &Path) -> Vec<ClassAd> {
    let text = std::fs::read_to_string(jobs).expect("jobs");
    let ads = format::parse_ads(&text, Some(Format::Old)).expect("job ads parse");
    let mut args = Macros::new();
    args.set("ITEMS", &data().join("items").to_string_lossy());
    args.set("SITE", "east");
    let mut out = Vec::new();
    for ad in ads {
        match transforms.transform_ads(&ad, &args, Some(config)) {
            Ok(made) => out.extend(made.into_iter().map(|(ad, _)| ad)),
            Err(TransformError::Syntax { .. } | TransformError::Expansion { .. }) => break,
            Err(e) => panic!("{}: unexpected error {e}", jobs.display()),
        }
    }
    out
}

fn compare(case: &str, jobs: &Path, ours: &[ClassAd]) -> Vec<String> {
    let expected_file = data().join("expected").join(format!("{case}__{}.out", stem(jobs)));
    let text = std::fs::read_to_string(&expected_file).expect("expected output");
    let expected = format::parse_ads(&text, Some(Format::Old)).expect("expected output parses");
    let mut problems = Vec::new();
    if expected.len() != ours.len() {
        problems.push(format!("{case} x {}: {} ads expected, {} made", stem(jobs), expected.len(), ours.len()));
        return problems;
    }
    for (i, (e, o)) in expected.iter().zip(ours).enumerate() {
        let (e, o) = (normalized(e), normalized(o));
        if e != o {
            let only_e: Vec<_> = e.iter().filter(|x| !o.contains(x)).collect();
            let only_o: Vec<_> = o.iter().filter(|x| !e.contains(x)).collect();
            problems.push(format!(
                "{case} x {} ad {i}:\n  HTCondor only: {only_e:?}\n  ours only:     {only_o:?}",
                stem(jobs)
            ));
        }
    }
    problems
}

#[test]
fn rules_files_match_condor_transform_ads() {
    let config = Loader::new().subsystem("TOOL").defaults();
    let mut problems = Vec::new();
    let mut compared = 0;
    for rules in files("rules", "xform") {
        let mut transforms = JobTransforms::new();
        transforms.set_directory(data());
        transforms.add_rules_file(&rules.to_string_lossy()).expect("rules read");
        for jobs in files("jobs", "ad") {
            let ours = run(&transforms, &config, &jobs);
            problems.extend(compare(&stem(&rules), &jobs, &ours));
            compared += 1;
        }
    }
    assert!(compared >= 42, "only {compared} pairs");
    assert!(problems.is_empty(), "{} differences:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn job_transform_configurations_match_condor_transform_ads() {
    let mut problems = Vec::new();
    for conf in files("configs", "conf") {
        let text = std::fs::read_to_string(&conf).expect("config");
        let names = text
            .lines()
            .find_map(|l| l.strip_prefix("# jobtransforms:"))
            .expect("a '# jobtransforms:' line")
            .trim()
            .to_string();
        let config = Loader::new().subsystem("TOOL").parse_str(&text, &conf.to_string_lossy()).expect("config parses");
        let mut transforms = JobTransforms::new();
        transforms.add_from_config(&config, &names);
        for jobs in files("jobs", "ad") {
            let ours = run(&transforms, &config, &jobs);
            problems.extend(compare(&stem(&conf), &jobs, &ours));
        }
    }
    assert!(problems.is_empty(), "{} differences:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn only_the_last_transform_may_iterate() {
    let mut transforms = JobTransforms::new();
    let first = data().join("rules/09_iterate_in.xform");
    let second = data().join("rules/01_set_default.xform");
    transforms.add_rules_file(&first.to_string_lossy()).expect("rules");
    transforms.add_rules_file(&second.to_string_lossy()).expect("rules");
    let err = transforms.transform_ads(&ClassAd::new(), &Macros::new(), None).unwrap_err().to_string();
    assert!(err.contains("09_iterate_in.xform, line 3: an iterating transform"), "{err}");
}

#[test]
fn generated_rules_files_match_condor_transform_ads() {
    // generated/: rules files composed at random (gen-rules.py) run on
    // ten jobs with edge values; condor_transform_ads's answers recorded
    // by record.sh.
    let dir = data().join("generated");
    let config = Loader::new().subsystem("TOOL").defaults();
    let jobs = std::fs::read_to_string(dir.join("jobs.ad")).expect("jobs.ad");
    let jobs = format::parse_ads(&jobs, Some(Format::Old)).expect("jobs.ad parses");
    assert_eq!(jobs.len(), 10);
    let mut rules: Vec<PathBuf> =
        std::fs::read_dir(dir.join("rules")).expect("rules/").map(|e| e.expect("an entry").path()).collect();
    rules.sort();
    let (mut problems, mut pairs, mut crashes) = (Vec::new(), 0, 0);
    for path in &rules {
        let case = stem(path);
        let text = std::fs::read_to_string(dir.join("expected").join(format!("{case}.out"))).expect("expected output");
        let expected = format::parse_ads(&text, Some(Format::Old)).expect("expected output parses");
        let err = std::fs::read_to_string(dir.join("expected").join(format!("{case}.err"))).unwrap_or_default();
        // Where condor_transform_ads crashed, ours must only not crash.
        let crashed = err.contains("Segmentation fault");
        let mut transforms = JobTransforms::new();
        let mut ours = Vec::new();
        if transforms.add_rules_file(&path.to_string_lossy()).is_ok() {
            for ad in &jobs {
                match transforms.transform_ads(ad, &Macros::new(), Some(&config)) {
                    Ok(made) => ours.extend(made.into_iter().map(|(ad, _)| ad)),
                    Err(_) => break,
                }
            }
        }
        pairs += jobs.len();
        if crashed {
            crashes += 1;
            continue;
        }
        if expected.len() != ours.len() {
            problems.push(format!("{case}: {} ads expected, {} made", expected.len(), ours.len()));
            continue;
        }
        for (i, (e, o)) in expected.iter().zip(&ours).enumerate() {
            let (e, o) = (normalized(e), normalized(o));
            if e != o {
                let only_e: Vec<_> = e.iter().filter(|x| !o.contains(x)).collect();
                let only_o: Vec<_> = o.iter().filter(|x| !e.contains(x)).collect();
                problems.push(format!("{case} ad {i}:\n  HTCondor only: {only_e:?}\n  ours only:     {only_o:?}"));
            }
        }
    }
    assert!(pairs >= 1000, "only {pairs} rules x job pairs");
    assert!(crashes * 20 < rules.len(), "{crashes} of {} cases crashed condor_transform_ads", rules.len());
    assert!(problems.is_empty(), "{} differences:\n{}", problems.len(), problems.join("\n"));
}
