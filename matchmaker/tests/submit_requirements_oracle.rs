//! Submit requirements and job transforms against a real schedd
//! (HTCondor 23.9.6): `tests/data/submit_requirements/record.sh` submitted
//! each job of `submits/` to a schedd configured with `schedd.conf` and
//! kept the job ad `condor_submit -dump` made (`ads/`), what
//! `condor_submit` printed (`expected/*.submit`: accepted, warned,
//! refused with which message) and, for an accepted job, its ad in the
//! queue after the schedd's transforms (`expected/*.q`). Ours must give the
//! same verdicts, messages and transformed attributes.

use std::path::{Path, PathBuf};

use classad::format::{self, Format};
use classad::ClassAd;
use matchmaker::config::Loader;
use matchmaker::schedd::{JobTransforms, Macros, SubmitRequirements, Verdict};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/submit_requirements")
}

fn one_ad(path: &Path) -> ClassAd {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut ads = format::parse_ads(&text, Some(Format::Old)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(ads.len(), 1, "{}", path.display());
    ads.remove(0)
}

/// What condor_submit printed, as a verdict.
fn recorded(text: &str) -> Verdict {
    let warnings: Vec<String> =
        text.lines().filter_map(|l| l.strip_prefix("WARNING: QMGMT:0:")).map(str::to_string).collect();
    if text.contains("Failed to commit job submission") {
        let reason = text
            .lines()
            .filter_map(|l| l.strip_prefix("ERROR: "))
            .find(|l| !l.starts_with("Failed to commit"))
            .unwrap_or("")
            .to_string();
        Verdict::Refused { name: String::new(), reason, warnings }
    } else {
        assert!(text.contains("submitted to cluster"), "neither accepted nor refused: {text}");
        Verdict::Accepted { warnings }
    }
}

#[test]
fn a_real_schedd_refuses_warns_and_transforms_as_we_do() {
    let dir = data();
    let text = std::fs::read_to_string(dir.join("schedd.conf")).expect("schedd.conf");
    let config = Loader::new().subsystem("SCHEDD").parse_str(&text, "schedd.conf").expect("schedd.conf reads");
    let transforms = JobTransforms::from_config(&config);
    let requirements = SubmitRequirements::from_config(&config);
    let schedd = one_ad(&dir.join("schedd.ad"));
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(dir.join("ads")).expect("ads/").map(|e| e.expect("an entry").path()).collect();
    cases.sort();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let (mut problems, mut refused, mut warned) = (Vec::new(), 0, 0);
    for path in &cases {
        let case = path.file_stem().and_then(|s| s.to_str()).expect("a name").to_string();
        let job = one_ad(path);
        let made = transforms.transform_ads(&job, &Macros::new(), Some(&config)).expect("the transforms apply");
        let [(ours, _)] = made.as_slice() else { panic!("{case}: {} ads", made.len()) };
        let verdict = requirements.check(ours, Some(&schedd));
        let submitted = std::fs::read_to_string(dir.join("expected").join(format!("{case}.submit"))).expect("submit");
        let theirs = recorded(&submitted);
        match (&verdict, &theirs) {
            (Verdict::Refused { reason: a, warnings: wa, .. }, Verdict::Refused { reason: b, warnings: wb, .. }) => {
                refused += 1;
                if a != b || wa != wb {
                    problems.push(format!("{case}: refused with {a:?} {wa:?}, the schedd said {b:?} {wb:?}"));
                }
            }
            (Verdict::Accepted { warnings: a }, Verdict::Accepted { warnings: b }) => {
                warned += usize::from(!b.is_empty());
                if a != b {
                    problems.push(format!("{case}: warnings {a:?}, the schedd's {b:?}"));
                }
                // The attributes the transforms set, as the queue holds them.
                let queued = one_ad(&dir.join("expected").join(format!("{case}.q")));
                for name in ["Transformed", "AcctGroup", "Doubled", "Special", "SubmittedBy"] {
                    let (a, b) = (ours.get(name).map(ToString::to_string), queued.get(name).map(ToString::to_string));
                    if a != b {
                        problems.push(format!("{case}: {name} = {a:?}, the schedd's {b:?}"));
                    }
                }
            }
            _ => problems.push(format!("{case}: ours {verdict:?}, the schedd's {theirs:?}")),
        }
    }
    assert!(refused > 0 && warned > 0, "the cases cover refusals ({refused}) and warnings ({warned})");
    assert!(problems.is_empty(), "{} differences:\n{}", problems.len(), problems.join("\n"));
}
