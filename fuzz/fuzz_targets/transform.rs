//! Job transforms and submit requirements (`matchmaker::schedd`), as
//! `negotiator-sim transform` and the schedd read them. The input is the
//! rules, then optionally a line `----` and a job ad (any format). The first byte
//! chooses: a rules file in the transform language (`Transform::parse`),
//! a ClassAd-form transform (`JobTransforms::classad_form`), or a
//! configuration with `JOB_TRANSFORM_*` and `SUBMIT_REQUIREMENT_*` (read by
//! `JobTransforms::from_config` and `SubmitRequirements::from_config`).
//! Whatever reads is applied to the job. Files a transform names are
//! looked for in a directory that does not exist. An iterating transform
//! makes at most 1,000 ads of the job (a million, the default, takes
//! minutes under the sanitizer: work in proportion to what was asked).
#![no_main]

use libfuzzer_sys::fuzz_target;
use matchmaker::config::Loader;
use matchmaker::schedd::{JobTransforms, Macros, SubmitRequirements, Transform};

const DEFAULT_JOB: &str = r#"[ Owner = "alice"; ClusterId = 1; ProcId = 0; RequestCpus = 1; RequestMemory = 1024;
    JobUniverse = 5; Cmd = "/bin/sleep"; Requirements = TARGET.Memory > 100 ]"#;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(input) else {
        return;
    };
    let (rules, job) = match text.split_once("\n----\n") {
        Some((rules, job)) => (rules, job),
        None => (text, DEFAULT_JOB),
    };
    let Some(mut job) = classad::format::parse_ads(job, None).ok().and_then(|ads| ads.into_iter().next()) else {
        return;
    };
    let mut transforms = JobTransforms::new();
    transforms.set_directory("/nonexistent/fuzz-transform");
    transforms.set_max_ads(1000);
    let mut requirements = None;
    match selector % 3 {
        0 => match Transform::parse("fuzz", rules, "fuzz.xform") {
            Ok(t) => transforms.push(t),
            Err(_) => return,
        },
        1 => match JobTransforms::classad_form("fuzz", rules, "fuzz.ad") {
            Ok(t) => transforms.push(t),
            Err(_) => return,
        },
        _ => {
            let Ok(config) = Loader::new().subsystem("SCHEDD").parse_str(rules, "fuzz.config") else {
                return;
            };
            transforms = JobTransforms::from_config(&config);
            transforms.set_directory("/nonexistent/fuzz-transform");
            transforms.set_max_ads(1000);
            requirements = Some(SubmitRequirements::from_config(&config));
        }
    }
    if let Some(requirements) = &requirements {
        let _ = requirements.check(&job, None);
        let _ = requirements.check_cluster(std::slice::from_ref(&job), None);
    }
    let _ = transforms.transform_ads(&job, &Macros::new(), None);
    let _ = transforms.transform_job(&mut job, None);
});
