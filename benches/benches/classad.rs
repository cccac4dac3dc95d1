//! Criterion benchmarks of classad-rs, named and built like the
//! measurements of libclassad's own benchmark
//! (`../shared/anchor/classad-bench.cpp`) so the two compare directly.
//!
//! Every benchmark counts one iteration as one element -- one ad parsed, or
//! one machine evaluated against -- so criterion's time per iteration is the
//! anchor's ns/op. `compare.sh` runs both and prints the table; see
//! `docs/benchmarks.md`.
//!
//! The `stream` group reads the whole pool sample
//! (`classad/tests/data/pool_sample.ads.gz`, 4.4 MB of `condor_status -l`
//! output once decompressed) per iteration, in the old format as it is and
//! converted to the other formats; libclassad's figure for the same file
//! comes from `anchor/parse-pool.sh`.
//!
//! Environment: `CLASSAD_BENCH_MACHINES` (default 20000) is the number of
//! machine ads the matching benchmarks cycle over.

use std::hint::black_box;
use std::io::Read;
use std::time::{Duration, Instant};

use classad::format::{self, Format, Reader};
use classad::{ClassAd, EvalContext, EvalOptions, Expr, Name, Parser, Prepared, Semantics, Value};
use classad_benches::anchor::{job_ad_text, machine_ad_text, PRE_JOB_RANK};
use classad_benches::POOL_SLOT_AD;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};

/// Distinct generated ads the parse benchmarks cycle over.
const PARSE_ADS: u32 = 1000;
/// Ads kept alive before they are all freed, as the anchor keeps its batch
/// (parse and free are both timed).
const KEEP: usize = 1000;

fn machines_count() -> u32 {
    std::env::var("CLASSAD_BENCH_MACHINES").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000)
}

/// Times parsing `texts` round-robin, one ad per iteration.
fn bench_parse(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, name: &str, texts: &[String]) {
    let parser = Parser::default();
    let mut keep: Vec<ClassAd> = Vec::with_capacity(KEEP);
    let mut next = 0;
    group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let ad = parser.parse_ad(black_box(&texts[next])).expect("ad parses");
                keep.push(ad);
                if keep.len() == KEEP {
                    keep.clear();
                }
                next += 1;
                if next == texts.len() {
                    next = 0;
                }
            }
            keep.clear();
            start.elapsed()
        });
    });
}

fn parse(c: &mut Criterion) {
    let machines: Vec<String> = (0..PARSE_ADS).map(machine_ad_text).collect();
    let jobs: Vec<String> = (0..PARSE_ADS).map(job_ad_text).collect();
    let slot = vec![POOL_SLOT_AD.to_string()];
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Elements(1));
    bench_parse(&mut group, "parse_machine_new_syntax", &machines);
    bench_parse(&mut group, "parse_job_new_syntax", &jobs);
    bench_parse(&mut group, "parse_pool_slot_ad", &slot);
    group.finish();
}

/// The pool sample, decompressed: old-format ads separated by blank lines.
fn pool_sample() -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../classad/tests/data/pool_sample.ads.gz");
    let file = std::fs::File::open(path).expect("the pool sample is in the repository");
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(file).read_to_end(&mut text).expect("the pool sample decompresses");
    text
}

/// Reads every ad of `text` with a streaming [`Reader`] (as from a file:
/// the reader sees a byte stream, not a string), dropping each ad once read.
fn read_stream(text: &[u8], format: Format) -> usize {
    let mut ads = 0;
    for ad in Reader::new(text, Some(format)) {
        black_box(ad.expect("the pool sample reads"));
        ads += 1;
    }
    ads
}

fn stream(c: &mut Criterion) {
    let old = pool_sample();
    let ads = format::parse_ads(std::str::from_utf8(&old).expect("UTF-8"), Some(Format::Old)).expect("pool reads");
    let mut group = c.benchmark_group("stream");
    // One iteration reads the whole 4.4 MB sample (tens of milliseconds).
    group.sample_size(10);
    for (name, format) in [
        ("stream_pool_old", Format::Old),
        ("stream_pool_new", Format::New),
        ("stream_pool_json", Format::Json),
        ("stream_pool_xml", Format::Xml),
    ] {
        let text = if format == Format::Old { old.clone() } else { format::to_string(&ads, format).into_bytes() };
        assert_eq!(read_stream(&text, format), ads.len());
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| read_stream(black_box(&text), format)));
    }
    group.finish();
}

/// Times `step` over the machines round-robin, one machine per iteration.
fn bench_machines(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    machines: &[ClassAd],
    mut step: impl FnMut(&ClassAd) -> u64,
) {
    let mut next = 0;
    group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let mut n = 0u64;
            let start = Instant::now();
            for _ in 0..iters {
                n += step(&machines[next]);
                next += 1;
                if next == machines.len() {
                    next = 0;
                }
            }
            let elapsed = start.elapsed();
            black_box(n);
            elapsed
        });
    });
}

/// `(long)d % 7` of a numeric value, as the anchor sums for PRE_JOB_RANK.
fn rank_check(v: &Value) -> u64 {
    let d = match v {
        Value::Int(i) => *i as f64,
        Value::Real(r) => *r,
        _ => return 0,
    };
    ((d as i64) % 7) as u64
}

fn eval(c: &mut Criterion) {
    let m = machines_count();
    let parser = Parser::default();
    let machines: Vec<ClassAd> =
        (0..m).map(|i| parser.parse_ad(&machine_ad_text(i)).expect("machine ad parses")).collect();
    let job = parser.parse_ad(&job_ad_text(0)).expect("job ad parses");
    let prerank: Expr = parser.parse_expr(PRE_JOB_RANK).expect("PRE_JOB_RANK parses");
    let opts = EvalOptions::new().semantics(Semantics::Old);
    let requirements = Name::new("Requirements");
    let start_attr = Name::new("Start");

    let job_req = |mach: &ClassAd| u64::from(EvalContext::new(&opts).my(&job).target(mach).attr_is_true(requirements));
    let machine_req =
        |mach: &ClassAd| u64::from(EvalContext::new(&opts).my(mach).target(&job).attr_is_true(requirements));
    let symmetric = |mach: &ClassAd| u64::from(job_req(mach) == 1 && machine_req(mach) == 1);
    let machine_start =
        |mach: &ClassAd| u64::from(EvalContext::new(&opts).my(mach).target(&job).attr_is_true(start_attr));
    let pre_job_rank = |mach: &ClassAd| rank_check(&EvalContext::new(&opts).my(mach).target(&job).eval(&prerank));

    // The anchor prints a check value per measurement; the same sums here
    // (for M = 20000: 18800, 18800, 72512) show both evaluate alike.
    let sum = |f: &dyn Fn(&ClassAd) -> u64| machines.iter().map(f).sum::<u64>();
    eprintln!(
        "classad-rs checks: machines={m} eval_job_requirements={} symmetric_match={} \
         eval_machine_start={} eval_pre_job_rank={}",
        sum(&job_req),
        sum(&symmetric),
        sum(&machine_start),
        sum(&pre_job_rank),
    );

    let mut group = c.benchmark_group("eval");
    group.throughput(Throughput::Elements(1));
    bench_machines(&mut group, "eval_job_requirements", &machines, job_req);
    bench_machines(&mut group, "symmetric_match", &machines, symmetric);
    bench_machines(&mut group, "eval_machine_start", &machines, machine_start);
    bench_machines(&mut group, "eval_job_requirements_fixed_pair", &machines[..1], job_req);
    bench_machines(&mut group, "eval_pre_job_rank", &machines, pre_job_rank);

    // The job's Requirements prepared once (its own attributes folded,
    // TARGET.x resolved), then evaluated against every machine in turn with
    // the next machines prefetched: one iteration is one machine.
    let prepared = Prepared::attribute(&opts, &job, requirements);
    assert_eq!(prepared.matching(&machines).len() as u64, sum(&job_req), "prepared and interpreted agree");
    group.bench_function("eval_job_requirements_prepared", |b| {
        b.iter_custom(|iters| {
            let mut matched = 0;
            let mut left = iters;
            let start = Instant::now();
            while left > 0 {
                let batch = &machines[..(left as usize).min(machines.len())];
                matched += prepared.matching(batch).len();
                left -= batch.len() as u64;
            }
            let elapsed = start.elapsed();
            black_box(matched);
            elapsed
        });
    });
    bench_machines(&mut group, "eval_job_requirements_prepared_fixed_pair", &machines[..1], |mach| {
        u64::from(prepared.is_true(mach))
    });
    group.finish();
}

fn config() -> Criterion {
    // Short enough that the whole suite runs in about a minute; override
    // with criterion's own flags, e.g. `-- --measurement-time 10`.
    Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4)).sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = parse, eval, stream
}
criterion_main!(benches);
