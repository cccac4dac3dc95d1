//! Submit requirements as HTCondor's administrator's manual describes
//! them (section "Submit Requirements" and "Submit Warnings" of the
//! access-point policy chapter), with its own examples.

use classad::ClassAd;
use matchmaker::config::Config;
use matchmaker::schedd::{SubmitRequirements, Verdict};

const MANUAL: &str = r#"
SUBMIT_REQUIREMENT_NAMES = NotStandardUniverse, MinimalRequestMemory, NotChris
SUBMIT_REQUIREMENT_NotStandardUniverse = JobUniverse != 1
SUBMIT_REQUIREMENT_MinimalRequestMemory = RequestMemory > 512
SUBMIT_REQUIREMENT_NotChris = Owner != "chris"
SUBMIT_REQUIREMENT_NotStandardUniverse_REASON = "This pool does not accept standard universe jobs."
SUBMIT_REQUIREMENT_MinimalRequestMemory_REASON = strcat( "The job only requested ", \
  RequestMemory, " Megabytes.  If that small amount is really enough, please contact ..." )
SUBMIT_REQUIREMENT_NotChris_REASON = "Chris, you may only submit jobs to the instructional pool."
"#;

fn job(text: &str) -> ClassAd {
    text.parse().expect("job ad")
}

fn refused_reason(v: Verdict) -> String {
    match v {
        Verdict::Refused { reason, .. } => reason,
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn the_manuals_three_requirements() {
    let reqs = SubmitRequirements::from_config(&Config::parse_str(MANUAL, "schedd.conf").expect("config"));
    assert_eq!(reqs.requirements().len(), 3);
    let ok = job(r#"[ JobUniverse = 5; RequestMemory = 1024; Owner = "alice" ]"#);
    assert_eq!(reqs.check(&ok, None), Verdict::Accepted { warnings: vec![] });
    let standard = job(r#"[ JobUniverse = 1; RequestMemory = 1024; Owner = "alice" ]"#);
    assert_eq!(refused_reason(reqs.check(&standard, None)), "This pool does not accept standard universe jobs.");
    let small = job(r#"[ JobUniverse = 5; RequestMemory = 256; Owner = "alice" ]"#);
    assert_eq!(
        refused_reason(reqs.check(&small, None)),
        "The job only requested 256 Megabytes.  If that small amount is really enough, please contact ..."
    );
    // The first requirement that fails is the only one reported.
    let chris = job(r#"[ JobUniverse = 1; RequestMemory = 256; Owner = "chris" ]"#);
    assert!(matches!(reqs.check(&chris, None), Verdict::Refused { ref name, .. } if name == "NotStandardUniverse"));
    // A cluster with one refused job is refused whole.
    assert!(matches!(reqs.check_cluster(&[ok.clone(), small], None), Verdict::Refused { .. }));
}

#[test]
fn the_manuals_warning() {
    let text = format!(
        "{MANUAL}\nSUBMIT_REQUIREMENT_NAMES = OneGig $(SUBMIT_REQUIREMENT_NAMES)\n\
         SUBMIT_REQUIREMENT_OneGig = RequestMemory > 1024\n\
         SUBMIT_REQUIREMENT_OneGig_REASON = \"As of <date>, the minimum requested memory will be 1024.\"\n\
         SUBMIT_REQUIREMENT_OneGig_IS_WARNING = TRUE\n"
    );
    let reqs = SubmitRequirements::from_config(&Config::parse_str(&text, "schedd.conf").expect("config"));
    let names: Vec<&str> = reqs.requirements().iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["OneGig", "NotStandardUniverse", "MinimalRequestMemory", "NotChris"]);
    // Between 512 and 1024: accepted, with the warning.
    let between = job(r#"[ JobUniverse = 5; RequestMemory = 768; Owner = "alice" ]"#);
    assert_eq!(
        reqs.check(&between, None),
        Verdict::Accepted { warnings: vec!["As of <date>, the minimum requested memory will be 1024.".into()] }
    );
}

#[test]
fn without_a_reason_the_default_names_the_requirement() {
    let reqs = SubmitRequirements::from_config(
        &Config::parse_str(
            "SUBMIT_REQUIREMENT_NAMES = NotChris\nSUBMIT_REQUIREMENT_NotChris = Owner != \"chris\"\n",
            "s",
        )
        .expect("config"),
    );
    assert_eq!(
        refused_reason(reqs.check(&job(r#"[ Owner = "chris" ]"#), None)),
        "Submit requirement NotChris not met."
    );
}

#[test]
fn the_schedd_ad_is_my() {
    let reqs = SubmitRequirements::from_config(
        &Config::parse_str(
            "SUBMIT_REQUIREMENT_NAMES = Cap\nSUBMIT_REQUIREMENT_Cap = TARGET.RequestCpus <= MY.MaxJobCpus\n",
            "s",
        )
        .expect("config"),
    );
    let schedd = job("[ MaxJobCpus = 16 ]");
    assert_eq!(reqs.check(&job("[ RequestCpus = 8 ]"), Some(&schedd)), Verdict::Accepted { warnings: vec![] });
    assert!(matches!(reqs.check(&job("[ RequestCpus = 32 ]"), Some(&schedd)), Verdict::Refused { .. }));
    // Without the schedd's ad, MY.MaxJobCpus is undefined: not a boolean.
    assert_eq!(
        refused_reason(reqs.check(&job("[ RequestCpus = 8 ]"), None)),
        "Submit requirement Cap evaluated to non-boolean."
    );
}
