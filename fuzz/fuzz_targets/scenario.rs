//! Simulation scenarios (`negotiator-sim simulate SCENARIO`):
//! `Scenario::from_toml_str`. Files a scenario names are looked for in a
//! directory that does not exist.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use negotiator_sim::simulate::scenario::Scenario;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Scenario::from_toml_str(text, Path::new("/nonexistent/fuzz-scenario/scenario.toml"));
});
