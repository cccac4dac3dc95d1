//! Event traces of `negotiator-sim policy --trace`
//! (`negotiator_sim::policy_trace::parse`); each event that reads is
//! stepped through the default startd policy, as the command does (the
//! `run` lines are not: their length is bounded by the command).
#![no_main]

use classad::ClassAd;
use libfuzzer_sys::fuzz_target;
use matchmaker::config::Loader;
use matchmaker::startd::{step, Policy, Slot};
use negotiator_sim::policy_trace::{parse, Verb};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let job: ClassAd = match r#"[ Owner = "alice"; RequestCpus = 1; RequestMemory = 100 ]"#.parse() {
        Ok(job) => job,
        Err(_) => return,
    };
    let read_ad = |file: &str| match file {
        "job.ad" => Ok(job.clone()),
        _ => Err(format!("{file}: no such file")),
    };
    let Ok(lines) = parse(text, "fuzz.trace", &job, read_ad) else {
        return;
    };
    let config = Loader::new().subsystem("STARTD").defaults();
    let Ok(policy) = Policy::from_config(&config) else {
        return;
    };
    let mut machine: ClassAd =
        match r#"[ Name = "slot1@example"; Cpus = 1; Memory = 2048; KeyboardIdle = 86400 ]"#.parse() {
            Ok(ad) => ad,
            Err(_) => return,
        };
    let mut slot = Slot::new(lines.first().map_or(0, |l| l.time));
    for line in lines.iter().take(200) {
        match &line.verb {
            Verb::Set(changes) => machine.update(changes),
            Verb::Event(event) => slot = step(&policy, &slot, &machine, event, line.time).slot,
            Verb::Run(_) => {}
        }
    }
});
