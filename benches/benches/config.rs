//! Criterion benchmarks of the HTCondor configuration reader
//! (`matchmaker::config`).
//!
//! * `config/parse_default_configuration`: read HTCondor's full default
//!   configuration written out as a configuration file -- every default of
//!   HTCondor 23.9 as a `NAME = value` statement, the text
//!   `condor_config_val -dump` prints for an empty configuration (about
//!   36 KB) -- into a `Config`. One iteration is the whole file.
//! * `config/expand_all_defaults`: expand every value of that configuration
//!   (what `condor_config_val -dump -v` or a daemon reading all its knobs
//!   does). One iteration is all of them.
//! * `config/parse_policies`: a configuration of the policy metaknobs
//!   (`UWCS_DESKTOP`, `HOLD_IF_MEMORY_EXCEEDED`, `PREEMPT_IF(...)`,
//!   `PartitionableSlot`) and a few dozen statements.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use matchmaker::config::{tool, Config};

/// HTCondor's defaults as a configuration file.
fn default_configuration() -> String {
    tool::dump(&Config::default(), false).stdout
}

const POLICIES: &str = "\
use ROLE : CentralManager, Execute
use POLICY : UWCS_DESKTOP
use POLICY : HOLD_IF_MEMORY_EXCEEDED
RUNTIME_EXCEEDED = (time() - JobStart) > $(MAX_RUNTIME:86400)
use POLICY : PREEMPT_IF(RUNTIME_EXCEEDED)
use FEATURE : PartitionableSlot(1, 100%)
PRIORITY_HALFLIFE = 3600 * 24
DEFAULT_PRIO_FACTOR = 1000
GROUP_NAMES = group_a, group_b, group_c
GROUP_QUOTA_DYNAMIC_group_a = 0.5
GROUP_QUOTA_DYNAMIC_group_b = 0.3
GROUP_QUOTA_DYNAMIC_group_c = 0.2
GROUP_ACCEPT_SURPLUS = true
NEGOTIATOR_PRE_JOB_RANK = $(UWCS_NEGOTIATOR_PRE_JOB_RANK)
if version >= 9.0.0
  NEGOTIATOR_CONSIDER_PREEMPTION = false
endif
";

fn config_benches(c: &mut Criterion) {
    let text = default_configuration();
    let parsed = Config::parse_str(&text, "defaults").expect("the defaults read back");
    let names = parsed.names();
    let mut group = c.benchmark_group("config");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse_default_configuration", |b| {
        b.iter(|| Config::parse_str(black_box(&text), "defaults").expect("reads"));
    });
    group.throughput(Throughput::Elements(names.len() as u64));
    group.bench_function("expand_all_defaults", |b| {
        b.iter(|| {
            let mut total = 0;
            for name in &names {
                total += parsed.lookup(black_box(name)).map_or(0, |l| l.value.len());
            }
            total
        });
    });
    group.throughput(Throughput::Bytes(POLICIES.len() as u64));
    group.bench_function("parse_policies", |b| {
        b.iter(|| Config::parse_str(black_box(POLICIES), "policies").expect("reads"));
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4)).sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = config_benches
}
criterion_main!(benches);
