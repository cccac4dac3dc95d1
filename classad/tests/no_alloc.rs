//! Evaluating the usual matchmaking expressions allocates nothing.
//!
//! A counting global allocator (this test binary only) checks that once the
//! ads are parsed, evaluating Requirements-style expressions in a match does
//! not touch the heap, with either semantics. Only allocations made by the
//! measuring thread count (the test harness has threads of its own).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use classad::{ClassAd, EvalContext, EvalOptions, Name, Semantics};

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

const JOB: &str = r#"[
    MyType = "Job"; Owner = "alice"; RequestCpus = 1; RequestMemory = 2048; RequestDisk = 1000000;
    Requirements = TARGET.Memory >= RequestMemory && TARGET.Arch == "X86_64";
    Full = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk)
        && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus) && (TARGET.HasFileTransfer);
    Rank = TARGET.Memory + 10 * TARGET.Cpus;
    Mixed = RequestMemory * 1.5 < TARGET.Memory || TARGET.OpSys =?= undefined ? Owner != "bob" : false
]"#;

const MACHINE: &str = r#"[
    MyType = "Machine"; Arch = "X86_64"; OpSys = "LINUX"; Cpus = 4; Memory = 8192; Disk = 40000000;
    HasFileTransfer = true; KeyboardIdle = 1200; LoadAvg = 0.1; CondorLoadAvg = 0.0;
    Start = (KeyboardIdle > 15 * 60) && ((LoadAvg - CondorLoadAvg) <= 0.3);
    Requirements = START && TARGET.RequestCpus <= MY.Cpus
]"#;

#[test]
fn matchmaking_expressions_allocate_nothing() {
    let job: ClassAd = JOB.parse().expect("job parses");
    let machine: ClassAd = MACHINE.parse().expect("machine parses");
    let names = ["Requirements", "Full", "Rank", "Mixed"].map(Name::new);
    for semantics in [Semantics::New, Semantics::Old] {
        let options = EvalOptions::new().semantics(semantics);
        let job_side = EvalContext::new(&options).my(&job).target(&machine);
        let machine_side = EvalContext::new(&options).my(&machine).target(&job);
        let requirements = job.get("Requirements").expect("present").clone();
        // Warm up once-initialised statics.
        assert!(job_side.attr_is_true(names[0]));
        let count = allocations_during(|| {
            for _ in 0..1000 {
                assert!(job_side.attr_is_true(names[0]));
                assert!(job_side.attr_is_true(names[1]));
                assert!(job_side.is_true(&requirements));
                assert!(job_side.attr_is_true(names[3]));
                assert!(machine_side.attr_is_true(names[0]));
            }
        });
        assert_eq!(count, 0, "{semantics:?}: {count} allocations in 5000 evaluations");
    }
}

#[test]
fn numeric_results_allocate_nothing() {
    let job: ClassAd = JOB.parse().expect("job parses");
    let machine: ClassAd = MACHINE.parse().expect("machine parses");
    let options = EvalOptions::new();
    let context = EvalContext::new(&options).my(&job).target(&machine);
    let rank = Name::new("Rank");
    assert_eq!(context.eval_attr(rank), classad::Value::Int(8232));
    let count = allocations_during(|| {
        for _ in 0..1000 {
            assert_eq!(context.eval_attr(rank), classad::Value::Int(8232));
        }
    });
    assert_eq!(count, 0);
}
