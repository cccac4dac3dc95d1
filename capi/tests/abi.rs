//! The C ABI called as C calls it (raw pointers, lengths, status codes),
//! checked against the Rust API's answers on the same input.

// Calling a C ABI from Rust is unsafe by nature: each call passes
// pointers the test made just before.
#![allow(unsafe_code, clippy::undocumented_unsafe_blocks)]

use std::ffi::CStr;
use std::ptr::{null, null_mut};

use classad_capi::*;

/// The message of `error` (freed).
unsafe fn message(error: *mut ClassadError) -> String {
    let text = unsafe { CStr::from_ptr(classad_error_message(error)) }.to_str().expect("UTF-8").to_string();
    unsafe { classad_error_free(error) };
    text
}

/// `s` as the library's string (freed).
unsafe fn take(mut s: ClassadString) -> String {
    let bytes = unsafe { std::slice::from_raw_parts(s.ptr.cast::<u8>(), s.len) };
    let text = std::str::from_utf8(bytes).expect("UTF-8").to_string();
    assert_eq!(unsafe { *s.ptr.add(s.len) }, 0, "NUL-terminated");
    unsafe { classad_string_free(&mut s) };
    assert!(s.ptr.is_null(), "emptied");
    unsafe { classad_string_free(&mut s) }; // twice does nothing
    text
}

unsafe fn borrowed(s: ClassadStr) -> &'static str {
    std::str::from_utf8(unsafe { std::slice::from_raw_parts(s.ptr.cast::<u8>(), s.len) }).expect("UTF-8")
}

unsafe fn parse(text: &str, format: ClassadFormat) -> *mut ClassadAd {
    let mut ad = null_mut();
    let mut error = null_mut();
    let status = unsafe { classad_ad_parse(text.as_ptr().cast(), text.len(), format, &mut ad, &mut error) };
    assert_eq!(status, ClassadStatus::Ok, "{}", unsafe { message(error) });
    assert!(error.is_null());
    ad
}

fn snapshot(name: &str) -> String {
    format!("{}/../matchmaker/tests/data/cycle/snap-200-200-3-6/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_parse_error_has_its_line_and_column() {
    let text = "[\n  a = 1;\n  b = (2 + ;\n]";
    let rust = classad::parse_ad(text).expect_err("does not parse");
    unsafe {
        let (mut ad, mut error) = (null_mut(), null_mut());
        let status = classad_ad_parse(text.as_ptr().cast(), text.len(), CLASSAD_FORMAT_NEW, &mut ad, &mut error);
        assert_eq!(status, ClassadStatus::Parse);
        assert!(ad.is_null());
        assert_eq!(classad_error_code(error), ClassadStatus::Parse);
        assert_eq!((classad_error_line(error), classad_error_column(error)), (rust.line, rust.column));
        assert_eq!(rust.line, 3);
        assert!(message(error).contains(&rust.message));

        let mut expr = null_mut();
        let mut error = null_mut();
        let bad = "a && && b";
        assert_eq!(classad_expr_parse(bad.as_ptr().cast(), bad.len(), &mut expr, &mut error), ClassadStatus::Parse);
        assert_eq!(classad_error_column(error), 6);
        classad_error_free(error);
    }
}

#[test]
fn bad_arguments_are_status_codes_not_crashes() {
    unsafe {
        let mut error = null_mut();
        // A NULL handle, a NULL result, an unknown format, bytes that are not UTF-8.
        assert_eq!(classad_ad_print(null(), CLASSAD_FORMAT_NEW, null_mut(), &mut error), ClassadStatus::Argument);
        assert!(message(error).contains("NULL"));
        let ad = classad_ad_new();
        assert_eq!(classad_ad_print(ad, CLASSAD_FORMAT_NEW, null_mut(), null_mut()), ClassadStatus::Argument);
        let mut out = ClassadString { ptr: null_mut(), len: 0 };
        assert_eq!(classad_ad_print(ad, 99, &mut out, &mut error), ClassadStatus::Argument);
        assert!(message(error).contains("99 is not a CLASSAD_FORMAT"));
        let bytes = b"[ a = \"\xff\" ]";
        let mut parsed = null_mut();
        assert_eq!(
            classad_ad_parse(bytes.as_ptr().cast(), bytes.len(), CLASSAD_FORMAT_NEW, &mut parsed, null_mut()),
            ClassadStatus::Utf8
        );
        // NULL with a nonzero length; NULL with 0 is the empty string.
        assert_eq!(classad_ad_set(ad, null(), 3, c"1".as_ptr(), 1, null_mut()), ClassadStatus::Argument);
        assert_eq!(classad_ad_set(ad, null(), 0, c"1".as_ptr(), 1, &mut error), ClassadStatus::Argument);
        assert!(message(error).contains("empty"));
        // Out of range.
        let mut name = ClassadStr { ptr: null(), len: 0 };
        assert_eq!(classad_ad_name(ad, 0, &mut name, null_mut()), ClassadStatus::Argument);
        assert!(classad_ad_list_get(null(), 0).is_null());
        // Freeing NULL is allowed everywhere.
        classad_ad_free(null_mut());
        classad_ad_list_free(null_mut());
        classad_expr_free(null_mut());
        classad_value_free(null_mut());
        classad_pool_free(null_mut());
        classad_matches_free(null_mut());
        classad_negotiator_free(null_mut());
        classad_accountant_free(null_mut());
        classad_cycle_free(null_mut());
        classad_error_free(null_mut());
        classad_string_free(null_mut());
        classad_ad_free(ad);
    }
}

#[test]
fn attributes_are_set_read_evaluated_and_removed() {
    unsafe {
        let ad = parse("[ Memory = 4096; Name = \"slot1\" ]", CLASSAD_FORMAT_AUTO);
        let job = parse("[ RequestMemory = 2048; Fits = TARGET.Memory >= RequestMemory ]", CLASSAD_FORMAT_NEW);
        let mut error = null_mut();
        assert_eq!(classad_ad_set_int(ad, c"Cpus".as_ptr(), 4, 8, &mut error), ClassadStatus::Ok);
        assert_eq!(classad_ad_set_real(ad, c"Load".as_ptr(), 4, 0.25, null_mut()), ClassadStatus::Ok);
        assert_eq!(classad_ad_set_bool(ad, c"Busy".as_ptr(), 4, true, null_mut()), ClassadStatus::Ok);
        let s = "a \"quoted\" value";
        assert_eq!(
            classad_ad_set_string(ad, c"Note".as_ptr(), 4, s.as_ptr().cast(), s.len(), null_mut()),
            ClassadStatus::Ok
        );
        let e = "Cpus * 2";
        assert_eq!(classad_ad_set(ad, c"Twice".as_ptr(), 5, e.as_ptr().cast(), e.len(), null_mut()), ClassadStatus::Ok);
        let bad = "Cpus *";
        assert_eq!(
            classad_ad_set(ad, c"Bad".as_ptr(), 3, bad.as_ptr().cast(), bad.len(), &mut error),
            ClassadStatus::Parse
        );
        classad_error_free(error);
        assert_eq!(classad_ad_size(ad), 7);
        let mut name = ClassadStr { ptr: null(), len: 0 };
        assert_eq!(classad_ad_name(ad, 6, &mut name, null_mut()), ClassadStatus::Ok);
        assert_eq!(borrowed(name), "Twice");

        let value = classad_value_new();
        assert_eq!(classad_value_type(value), ClassadValueType::Undefined);
        let mut i = 0i64;
        classad_ad_eval(ad, null(), c"twice".as_ptr(), 5, CLASSAD_SEMANTICS_NEW, value, null_mut());
        assert_eq!(classad_value_int(value, &mut i, null_mut()), ClassadStatus::Ok);
        assert_eq!(i, 16);
        classad_ad_eval(ad, null(), c"Note".as_ptr(), 4, CLASSAD_SEMANTICS_NEW, value, null_mut());
        let mut text = ClassadStr { ptr: null(), len: 0 };
        assert_eq!(classad_value_string(value, &mut text, null_mut()), ClassadStatus::Ok);
        assert_eq!(borrowed(text), s);
        let mut printed = ClassadString { ptr: null_mut(), len: 0 };
        classad_value_print(value, &mut printed, null_mut());
        assert_eq!(take(printed), "\"a \\\"quoted\\\" value\"");
        // A wrong type is an error naming both.
        assert_eq!(classad_value_int(value, &mut i, &mut error), ClassadStatus::Argument);
        assert!(message(error).contains("string"));
        // MY and TARGET.
        let mut b = false;
        classad_ad_eval(job, ad, c"Fits".as_ptr(), 4, CLASSAD_SEMANTICS_OLD, value, null_mut());
        assert_eq!(classad_value_bool(value, &mut b, null_mut()), ClassadStatus::Ok);
        assert!(b);
        classad_ad_eval(ad, null(), c"Missing".as_ptr(), 7, CLASSAD_SEMANTICS_OLD, value, null_mut());
        assert_eq!(classad_value_type(value), ClassadValueType::Undefined);
        let mut r = 0.0;
        classad_ad_eval(ad, null(), c"Load".as_ptr(), 4, CLASSAD_SEMANTICS_OLD, value, null_mut());
        assert_eq!(classad_value_real(value, &mut r, null_mut()), ClassadStatus::Ok);
        assert_eq!(r, 0.25);

        // get, remove.
        let mut expr = null_mut();
        assert_eq!(classad_ad_get(ad, c"Twice".as_ptr(), 5, &mut expr, null_mut()), ClassadStatus::Ok);
        let mut out = ClassadString { ptr: null_mut(), len: 0 };
        classad_expr_print(expr, CLASSAD_FORMAT_NEW, &mut out, null_mut());
        assert_eq!(take(out), "Cpus * 2");
        assert_eq!(classad_ad_set_expr(job, c"Copied".as_ptr(), 6, expr, null_mut()), ClassadStatus::Ok);
        classad_expr_free(expr);
        assert_eq!(classad_ad_remove(ad, c"Twice".as_ptr(), 5, null_mut()), ClassadStatus::Ok);
        assert_eq!(classad_ad_remove(ad, c"Twice".as_ptr(), 5, &mut error), ClassadStatus::NotFound);
        classad_error_free(error);
        assert_eq!(classad_ad_get(ad, c"Twice".as_ptr(), 5, &mut expr, null_mut()), ClassadStatus::NotFound);

        // An expression evaluated many times into one value.
        let text = "MY.Memory / 1024 + TARGET.RequestMemory";
        classad_expr_parse(text.as_ptr().cast(), text.len(), &mut expr, null_mut());
        for _ in 0..3 {
            assert_eq!(classad_expr_eval(expr, ad, job, CLASSAD_SEMANTICS_NEW, value, null_mut()), ClassadStatus::Ok);
            classad_value_int(value, &mut i, null_mut());
            assert_eq!(i, 4 + 2048);
        }
        classad_expr_free(expr);
        classad_value_free(value);
        classad_ad_free(ad);
        classad_ad_free(job);
    }
}

#[test]
fn ads_print_in_every_format_as_the_rust_api_does() {
    let text = "[ Name = \"slot1\"; Memory = 4096; Requirements = TARGET.RequestMemory <= Memory ]";
    let rust = classad::parse_ad(text).expect("parses");
    for (format, ours) in [
        (CLASSAD_FORMAT_NEW, classad::format::Format::New),
        (CLASSAD_FORMAT_OLD, classad::format::Format::Old),
        (CLASSAD_FORMAT_JSON, classad::format::Format::Json),
        (CLASSAD_FORMAT_XML, classad::format::Format::Xml),
    ] {
        unsafe {
            let ad = parse(text, CLASSAD_FORMAT_NEW);
            let mut out = ClassadString { ptr: null_mut(), len: 0 };
            assert_eq!(classad_ad_print(ad, format, &mut out, null_mut()), ClassadStatus::Ok);
            let printed = take(out);
            assert_eq!(printed, classad::format::ad_to_string(&rust, ours));
            // And it reads back, detected.
            let again = parse(&printed, CLASSAD_FORMAT_AUTO);
            assert_eq!(classad_ad_size(again), 3, "{printed}");
            classad_ad_free(again);
            classad_ad_free(ad);
        }
    }
}

#[test]
fn lists_read_from_text_and_files() {
    unsafe {
        let text = "a = 1\nb = 2\n\na = 3\n";
        let mut list = null_mut();
        assert_eq!(
            classad_ad_list_parse(text.as_ptr().cast(), text.len(), CLASSAD_FORMAT_AUTO, &mut list, null_mut()),
            ClassadStatus::Ok
        );
        assert_eq!(classad_ad_list_len(list), 2);
        let second = classad_ad_list_get(list, 1);
        assert_eq!(classad_ad_size(second), 1);
        assert!(classad_ad_list_get(list, 2).is_null());
        let copy = classad_ad_clone(second);
        assert_eq!(classad_ad_list_push(list, copy, null_mut()), ClassadStatus::Ok);
        classad_ad_free(copy);
        assert_eq!(classad_ad_list_len(list), 3);
        let mut out = ClassadString { ptr: null_mut(), len: 0 };
        classad_ad_list_print(list, CLASSAD_FORMAT_OLD, &mut out, null_mut());
        assert_eq!(take(out), "a = 1\nb = 2\n\na = 3\n\na = 3\n\n");
        classad_ad_list_free(list);

        // A file, gzipped; a file that is missing.
        let path = snapshot("jobs.ad.gz");
        let mut jobs = null_mut();
        assert_eq!(
            classad_ad_list_read_file(path.as_ptr().cast(), path.len(), &mut jobs, null_mut()),
            ClassadStatus::Ok
        );
        assert_eq!(classad_ad_list_len(jobs), 200);
        classad_ad_list_free(jobs);
        let missing = "/nonexistent/slots.ad";
        let mut error = null_mut();
        assert_eq!(
            classad_ad_list_read_file(missing.as_ptr().cast(), missing.len(), &mut jobs, &mut error),
            ClassadStatus::Io
        );
        assert!(message(error).contains(missing));
        // An ad that does not read: its line.
        let bad = "a = 1\n\nb = (\n";
        assert_eq!(
            classad_ad_list_parse(bad.as_ptr().cast(), bad.len(), CLASSAD_FORMAT_OLD, &mut list, &mut error),
            ClassadStatus::Parse
        );
        assert_eq!(classad_error_line(error), 3);
        classad_error_free(error);
    }
}

#[test]
fn a_pool_matches_as_the_rust_pool_does_and_changes_one_slot_at_a_time() {
    let slots_path = snapshot("slots.ad");
    let slots_rust = matchmaker::snapshot::read_ads(std::path::Path::new(&slots_path)).expect("reads");
    let jobs_rust = matchmaker::snapshot::read_ads(std::path::Path::new(&snapshot("jobs.ad.gz"))).expect("reads");
    let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
    let rust = matchmaker::matching::Pool::new(opts.clone(), slots_rust.clone());
    unsafe {
        let (mut slots, mut pool) = (null_mut(), null_mut());
        classad_ad_list_read_file(slots_path.as_ptr().cast(), slots_path.len(), &mut slots, null_mut());
        assert_eq!(classad_pool_new(slots, CLASSAD_SEMANTICS_OLD, &mut pool, null_mut()), ClassadStatus::Ok);
        assert_eq!(classad_pool_len(pool), 200);
        let matches = classad_matches_new();
        assert!(classad_matches_data(matches).is_null());
        for job in jobs_rust.iter().step_by(17) {
            let job_c = std::ptr::from_ref(job).cast::<ClassadAd>();
            assert_eq!(classad_pool_matches(pool, job_c, matches, null_mut()), ClassadStatus::Ok);
            let got = std::slice::from_raw_parts(classad_matches_data(matches), classad_matches_len(matches));
            let want: Vec<ClassadMatch> = rust
                .matches(job)
                .into_iter()
                .map(|m| ClassadMatch { index: m.index, job_rank: m.left_rank, slot_rank: m.right_rank })
                .collect();
            assert_eq!(got, want.as_slice());
            let mut count = 0;
            classad_pool_count(pool, job_c, &mut count, null_mut());
            assert_eq!(count, want.len());
            // Pair by pair, the same answers.
            for (i, slot) in slots_rust.iter().enumerate().step_by(13) {
                let (mut matched, mut left, mut right) = (false, 0.0, 0.0);
                let slot_c = std::ptr::from_ref(slot).cast::<ClassadAd>();
                classad_match(job_c, slot_c, CLASSAD_SEMANTICS_OLD, &mut matched, &mut left, &mut right, null_mut());
                let pair = classad::matching::MatchAd::new(&opts, job, slot);
                assert_eq!(matched, pair.symmetric_match(), "slot {i}");
                assert_eq!((left, right), (pair.left_rank(), pair.right_rank()));
            }
        }
        // A slot replaced, one pushed.
        let job = parse("[ Requirements = TARGET.Memory >= 100000000 ]", CLASSAD_FORMAT_NEW);
        let big = parse("[ Name = \"big\"; Memory = 200000000; Requirements = true ]", CLASSAD_FORMAT_NEW);
        classad_pool_matches(pool, job, matches, null_mut());
        assert_eq!(classad_matches_len(matches), 0);
        assert_eq!(classad_pool_replace(pool, 7, big, null_mut()), ClassadStatus::Ok);
        let mut index = 0;
        assert_eq!(classad_pool_push(pool, big, &mut index, null_mut()), ClassadStatus::Ok);
        assert_eq!(index, 200);
        classad_pool_matches(pool, job, matches, null_mut());
        let got = std::slice::from_raw_parts(classad_matches_data(matches), classad_matches_len(matches));
        assert_eq!(got.iter().map(|m| m.index).collect::<Vec<_>>(), [7, 200]);
        assert_eq!(classad_ad_size(classad_pool_ad(pool, 200)), 3);
        assert_eq!(classad_pool_replace(pool, 201, big, null_mut()), ClassadStatus::Argument);
        classad_ad_free(big);
        classad_ad_free(job);
        classad_matches_free(matches);
        classad_pool_free(pool);
        classad_ad_list_free(slots);
    }
}

#[test]
fn a_cycle_decides_what_the_rust_negotiator_decides() {
    let dir = std::path::PathBuf::from(snapshot(""));
    let mut snap = matchmaker::snapshot::Snapshot::read(
        &dir.join("slots.ad"),
        &dir.join("jobs.ad.gz"),
        Some(&dir.join("config-negotiator.dump")),
        &matchmaker::snapshot::Priorities::Fresh,
        Some(&dir.join("submitters.ad")),
    )
    .expect("the snapshot reads");
    let mut negotiator = matchmaker::negotiator::Negotiator::from_config(&snap.config).expect("configured");
    negotiator.settings.resend_matched_jobs = true;
    let queues = snap.queues(&negotiator);
    let want = negotiator.cycle(&mut snap.accountant, &snap.slots, &queues, 0).expect("a cycle");
    assert_eq!(want.matches.len(), 192);
    unsafe {
        let config = snapshot("config-negotiator.dump");
        let (mut neg, mut acct, mut slots, mut jobs, mut subs, mut cycle) =
            (null_mut(), null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
        assert_eq!(
            classad_negotiator_load(config.as_ptr().cast(), config.len(), &mut neg, null_mut()),
            ClassadStatus::Ok
        );
        classad_negotiator_set_resend_matched_jobs(neg, true, null_mut());
        classad_accountant_new(neg, &mut acct, null_mut());
        for (name, list) in [("slots.ad", &mut slots), ("jobs.ad.gz", &mut jobs), ("submitters.ad", &mut subs)] {
            let path = snapshot(name);
            classad_ad_list_read_file(path.as_ptr().cast(), path.len(), list, null_mut());
        }
        let status =
            classad_negotiator_cycle(neg, acct, slots, jobs, subs, CLASSAD_NOW_LAST_UPDATE, &mut cycle, null_mut());
        assert_eq!(status, ClassadStatus::Ok);
        assert_eq!(classad_cycle_match_count(cycle), want.matches.len());
        for (i, w) in want.matches.iter().enumerate() {
            let mut m = std::mem::zeroed::<ClassadCycleMatch>();
            assert_eq!(classad_cycle_match(cycle, i, &mut m, null_mut()), ClassadStatus::Ok);
            assert_eq!((m.cluster_id, m.proc_id), (w.job.cluster, w.job.proc));
            assert_eq!((borrowed(m.slot), borrowed(m.submitter)), (w.slot.as_str(), w.submitter.as_str()));
            assert_eq!(borrowed(m.reason), "no preemption");
        }
        assert_eq!(classad_cycle_rejection_count(cycle), want.rejections.len());
        let mut r = std::mem::zeroed::<ClassadCycleRejection>();
        classad_cycle_rejection(cycle, 0, &mut r, null_mut());
        assert_eq!(borrowed(r.reason), want.rejections[0].reason.to_string());
        assert_eq!(classad_cycle_submitter_count(cycle), 3);
        let mut s = std::mem::zeroed::<ClassadCycleSubmitter>();
        classad_cycle_submitter(cycle, 2, &mut s, null_mut());
        assert_eq!((borrowed(s.name), s.matches, s.idle_jobs), ("bench03@anchor.local", 58, 66));
        let mut error = null_mut();
        assert_eq!(classad_cycle_submitter(cycle, 3, &mut s, &mut error), ClassadStatus::Argument);
        classad_error_free(error);
        let mut json = ClassadString { ptr: null_mut(), len: 0 };
        classad_cycle_json(cycle, &mut json, null_mut());
        let json: serde_json::Value = serde_json::from_str(&take(json)).expect("JSON");
        assert_eq!(json["matches"].as_array().map(Vec::len), Some(192));

        // The accountant was charged: bench01 used 67 slots.
        let mut p = std::mem::zeroed::<ClassadPriority>();
        let name = "bench01@anchor.local";
        classad_accountant_priority(acct, name.as_ptr().cast(), name.len(), &mut p, null_mut());
        assert_eq!(p.effective_priority, p.real_priority * p.priority_factor);
        let mut userprio = ClassadString { ptr: null_mut(), len: 0 };
        classad_accountant_userprio(acct, &mut userprio, null_mut());
        assert!(take(userprio).contains("Name1 = "));
        classad_cycle_free(cycle);
        for list in [slots, jobs, subs] {
            classad_ad_list_free(list);
        }
        classad_accountant_free(acct);
        classad_negotiator_free(neg);
    }
}

#[test]
fn configurations_and_logs_that_do_not_read_are_errors() {
    unsafe {
        let (mut neg, mut error) = (null_mut(), null_mut());
        let config = "NEGOTIATOR_CONSIDER_PREEMPTION = maybe\n";
        assert_eq!(
            classad_negotiator_new(config.as_ptr().cast(), config.len(), &mut neg, &mut error),
            ClassadStatus::Config
        );
        assert!(message(error).contains("NEGOTIATOR_CONSIDER_PREEMPTION"));
        assert_eq!(classad_negotiator_new(null(), 0, &mut neg, null_mut()), ClassadStatus::Ok);
        let mut acct = null_mut();
        let not_a_log = snapshot("slots.ad");
        assert_eq!(
            classad_accountant_load(neg, not_a_log.as_ptr().cast(), not_a_log.len(), &mut acct, &mut error),
            ClassadStatus::Io
        );
        assert!(message(error).contains("not an accountant log"));
        assert!(acct.is_null());
        classad_negotiator_free(neg);
    }
}

#[test]
fn the_version_is_the_headers() {
    let header = include_str!("../include/classad.h");
    let define = |name: &str| -> u32 {
        header
            .lines()
            .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} in the header"))
    };
    let abi = define("CLASSAD_ABI_VERSION_MAJOR") * 1_000_000
        + define("CLASSAD_ABI_VERSION_MINOR") * 1000
        + define("CLASSAD_ABI_VERSION_PATCH");
    assert_eq!(classad_abi_version(), abi);
    let version = unsafe { CStr::from_ptr(classad_version()) }.to_str().expect("UTF-8");
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
}

#[test]
fn many_threads_match_against_one_pool_each_with_its_own_matches() {
    let slots_path = snapshot("slots.ad");
    let jobs = matchmaker::snapshot::read_ads(std::path::Path::new(&snapshot("jobs.ad.gz"))).expect("reads");
    unsafe {
        let (mut slots, mut pool) = (null_mut(), null_mut());
        classad_ad_list_read_file(slots_path.as_ptr().cast(), slots_path.len(), &mut slots, null_mut());
        classad_pool_new(slots, CLASSAD_SEMANTICS_OLD, &mut pool, null_mut());
        // One thread's answers, then four threads at once on the same pool.
        let count = |pool: *const ClassadPool, job: &classad::ClassAd| {
            let matches = classad_matches_new();
            let job = std::ptr::from_ref(job).cast::<ClassadAd>();
            assert_eq!(classad_pool_matches(pool, job, matches, null_mut()), ClassadStatus::Ok);
            let n = classad_matches_len(matches);
            classad_matches_free(matches);
            n
        };
        let want: Vec<usize> = jobs.iter().map(|j| count(pool, j)).collect();
        let shared = pool as usize; // the pool is Sync: shared by address
        let got: Vec<Vec<usize>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| jobs.iter().map(|j| count(shared as *const ClassadPool, j)).collect::<Vec<_>>()))
                .collect();
            handles.into_iter().map(|h| h.join().expect("no panic")).collect()
        });
        for answers in got {
            assert_eq!(answers, want);
        }
        classad_pool_free(pool);
        classad_ad_list_free(slots);
    }
}
