//! The HTCondor configuration reader and macro expander
//! (`matchmaker::config`): the first byte chooses the subsystem the
//! values are read as (and a local name), the rest is a configuration
//! file. Whatever reads is looked up name by name, typed, expanded and
//! dumped as `condor_config_val` does; each must end with a value or an
//! error, and `lookup` must agree with `try_lookup`. The environment is
//! empty, so that the process's does not change what an input means.
#![no_main]

use libfuzzer_sys::fuzz_target;
use matchmaker::config::{tool, Loader};

const SUBSYSTEMS: &[&str] = &["TOOL", "NEGOTIATOR", "SCHEDD", "STARTD", "COLLECTOR", "MASTER"];

/// Names looked up one by one, at most (a dump covers the others).
const MAX_NAMES: usize = 200;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(input) else {
        return;
    };
    let mut loader = Loader::new()
        .env(std::iter::empty::<(String, String)>())
        .subsystem(SUBSYSTEMS[usize::from(selector & 7) % SUBSYSTEMS.len()]);
    if selector & 8 != 0 {
        loader = loader.local_name("VIEW");
    }
    let Ok(config) = loader.parse_str(text, "fuzz.config") else {
        return;
    };
    let names = config.names();
    for name in names.iter().take(MAX_NAMES) {
        if let Ok(found) = config.try_lookup(name) {
            assert_eq!(config.lookup(name), found, "{name}: lookup and try_lookup differ");
        }
        let _ = config.get_int(name);
        let _ = config.get_real(name);
        let _ = config.get_bool(name);
        let _ = config.get_string(name);
        let _ = config.get_expr_opt(name);
        if let Some(raw) = config.raw(name) {
            let _ = config.expand(raw);
        }
    }
    let asked: Vec<&str> = names.iter().take(8).map(String::as_str).collect();
    let _ = tool::query(&config, &asked, selector & 16 != 0);
    let _ = tool::dump(&config, selector & 32 != 0);
});
