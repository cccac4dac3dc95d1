//! Batch matching allocates per request, never per pair.
//!
//! A counting global allocator (this test binary only) counts the
//! allocations of matching one request against pools of two sizes. Only allocations made by the
//! measuring thread count (the test harness has threads of its own).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use classad::{ClassAd, EvalOptions, Semantics};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if MEASURING.with(Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

#[allow(unsafe_code)]
// SAFETY: forwards every call unchanged to the system allocator; it only
// counts allocations.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    MEASURING.with(|m| m.set(true));
    f();
    MEASURING.with(|m| m.set(false));
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

/// Batch matching allocates per request (its prepared expressions), never
/// per pair: matching against 2,000 machines costs as many allocations as
/// against 20, once the result vector has room.
#[test]
fn batch_matching_allocates_nothing_per_pair() {
    use matchmaker::matching::Pool;
    let options = EvalOptions::new().semantics(Semantics::Old);
    let job: ClassAd = r#"[ RequestMemory = 2048; RequestCpus = 1; Owner = "alice";
        Requirements = TARGET.Arch == "X86_64" && TARGET.Memory >= RequestMemory && TARGET.Cpus >= RequestCpus
            && TARGET.HasFileTransfer;
        Rank = TARGET.Memory ]"#
        .parse()
        .expect("job");
    let machine = |i: usize| -> ClassAd {
        format!(
            r#"[ Arch = "{}"; Memory = {}; Cpus = {}; HasFileTransfer = true; Start = {};
                Requirements = START; Rank = TARGET.Owner == "alice" ]"#,
            if i.is_multiple_of(7) { "aarch64" } else { "X86_64" },
            1024 * (i % 8),
            1 + i % 4,
            if i.is_multiple_of(3) { "TARGET.RequestCpus <= MY.Cpus" } else { "true" },
        )
        .parse()
        .expect("machine")
    };
    let small: Vec<ClassAd> = (0..20).map(machine).collect();
    let large: Vec<ClassAd> = (0..2000).map(machine).collect();
    let (small_pool, large_pool) = (Pool::new(&options, small), Pool::new(&options, large));
    let mut found = Vec::with_capacity(large_pool.len());
    // The first request builds the columns it compares.
    small_pool.matches_into(&job, &mut found);
    large_pool.matches_into(&job, &mut found);
    found.clear();
    let per_small = allocations_during(|| small_pool.matches_into(&job, &mut found));
    found.clear();
    let per_large = allocations_during(|| large_pool.matches_into(&job, &mut found));
    assert!(found.len() > 1000, "{} matches", found.len());
    assert_eq!(per_small, per_large, "allocations grow with the pool");
}
