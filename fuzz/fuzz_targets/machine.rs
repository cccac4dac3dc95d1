//! Machine descriptions (`negotiator-sim slots --machine FILE`):
//! `Machine::from_toml_str`, then the startd's slots for it under the
//! default configuration (`Startd::new`), as `slots` builds them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use matchmaker::config::Loader;
use matchmaker::startd::slots::{Machine, Startd};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(machine) = Machine::from_toml_str(text, "machine.toml") else {
        return;
    };
    let config = Loader::new().subsystem("STARTD").defaults();
    let _ = Startd::new(machine, &config);
});
