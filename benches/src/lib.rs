//! Benchmark support for classad-rs: inputs identical to those of
//! libclassad's own benchmark, so the two can be compared side by side.
//!
//! The benchmarks themselves are in `benches/classad.rs` and
//! `benches/matching.rs`; `compare.sh` runs
//! them next to libclassad's and prints a table (see `docs/benchmarks.md`).

pub mod anchor;
pub mod cedar_wire;
pub mod collector_query;
pub mod pool;

/// A real slot ad from a production pool (the first `Machine` ad of the
/// shared OSPool sample, 347 attributes), in libclassad's canonical new
/// syntax; regenerate with `data/make_pool_slot.py`.
pub const POOL_SLOT_AD: &str = include_str!("../data/pool_slot.ad");

#[cfg(test)]
mod tests {
    #[test]
    fn pool_slot_ad_parses() {
        let ad = classad::parse_ad(super::POOL_SLOT_AD).expect("pool slot ad parses");
        assert_eq!(ad.len(), 347);
    }
}
