//! Job traces of `negotiator-sim simulate` (`simulate/trace.rs`): the
//! first byte chooses `read_swf` (the Standard Workload Format) or
//! `read_history` (`condor_history -long`/`-json`, with or without the
//! jobs' requirements).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use negotiator_sim::simulate::trace::{read_history, read_swf};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let path = Path::new("trace");
    match selector % 3 {
        0 => {
            let _ = read_swf(input, path, "example.org");
        }
        n => {
            let _ = read_history(input, path, "example.org", n == 2);
        }
    }
});
