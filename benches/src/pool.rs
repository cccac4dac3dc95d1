//! The real pool sample for the batch-matching benchmarks: the `Machine` ads
//! of `classad/tests/data/pool_sample.ads.gz` (143 OSPool glidein slots) and
//! the four jobs of `classad/tests/data/matching/jobs.ads`.
//!
//! Every machine's `START` compares `CurrentTime` with its glidein's
//! retirement time, long past in the snapshot, so as they are no machine
//! accepts a job. [`machines`] with `refreshed` moves those times into the
//! future, exactly as `classad/tests/data/matching/generate_matching.py`
//! does for its oracle run: 207 of the 572 (job, machine) pairs then match.

use std::io::Read;

use classad::format::{Format, Reader};
use classad::{ClassAd, Value};

const POOL_SAMPLE: &[u8] = include_bytes!("../../classad/tests/data/pool_sample.ads.gz");
const JOBS: &str = include_str!("../../classad/tests/data/matching/jobs.ads");

/// The sample's `Machine` ads in file order; with `refreshed`, every ad
/// that has `GLIDEIN_ToRetire` or `GLIDEIN_ToDie` gets them set to
/// 2100-01-01 and a day later.
pub fn machines(refreshed: bool) -> Vec<ClassAd> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(POOL_SAMPLE).read_to_string(&mut text).expect("the pool sample decompresses");
    let mut machines: Vec<ClassAd> = Reader::new(text.as_bytes(), Some(Format::Old))
        .map(|ad| ad.expect("the pool sample reads"))
        .filter(|ad| ad.eval_attr("MyType") == Value::from("Machine"))
        .collect();
    if refreshed {
        for ad in &mut machines {
            if ad.contains("GLIDEIN_ToRetire") || ad.contains("GLIDEIN_ToDie") {
                ad.insert("GLIDEIN_ToRetire", 4_102_444_800i64);
                ad.insert("GLIDEIN_ToDie", 4_102_531_200i64);
            }
        }
    }
    machines
}

/// The four test jobs (a typical OSPool job, one accepting anything, one
/// with `Requirements = 1` and a string `Rank`, one matching on the site).
pub fn jobs() -> Vec<ClassAd> {
    Reader::new(JOBS.as_bytes(), None).map(|ad| ad.expect("the jobs read")).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn sample_sizes() {
        assert_eq!(super::machines(true).len(), 143);
        assert_eq!(super::jobs().len(), 4);
    }
}
