//! The tables `negotiator-sim report` reads: the first byte chooses CSV
//! (`output::csv::from_csv_str`) or Parquet
//! (`output::parquet::from_parquet_bytes`); a table that reads is given to
//! `report::build` under the name the byte chooses, as one of a run's
//! tables.
#![no_main]

use libfuzzer_sys::fuzz_target;
use negotiator_sim::output::{csv, parquet};

const NAMES: &[&str] = &["cycles", "jobs", "users", "slots", "groups", "other"];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let name = NAMES[usize::from(selector >> 1) % NAMES.len()];
    let table = if selector & 1 == 0 {
        let Ok(text) = std::str::from_utf8(input) else {
            return;
        };
        csv::from_csv_str(name, text)
    } else {
        parquet::from_parquet_bytes(name, input.to_vec())
    };
    if let Ok(table) = table {
        if let Ok(report) = negotiator_sim::report::build("fuzz", &[table]) {
            let _ = report.html();
        }
    }
});
