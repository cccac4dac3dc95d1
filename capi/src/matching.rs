//! Matching: two ads side by side (`classad_match`), and a pool of slot
//! ads prepared once and matched against many jobs (`ClassadPool`).
//!
//! A match is symmetric: each ad's `Requirements` is true with the other
//! as TARGET. The ranks are each side's `Rank` of the other (0 when it
//! has none or it is not a number).

use std::sync::Arc;

use classad::matching::MatchAd;
use matchmaker::matching::{Match, Pool};

use crate::ad::ClassadAd;
use crate::ad_list::ClassadAdList;
use crate::error::{guard, ClassadError, ClassadStatus, Failure};
use crate::handles::{free_handle, handle, handle_mut, handle_out, value_out};
use crate::options::{eval_options, ClassadSemantics};

/// One slot of a pool that matches a job.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassadMatch {
    /// The slot's index in the pool.
    pub index: usize,
    /// The job's `Rank` of the slot.
    pub job_rank: f64,
    /// The slot's `Rank` of the job.
    pub slot_rank: f64,
}

impl From<Match> for ClassadMatch {
    fn from(m: Match) -> ClassadMatch {
        ClassadMatch { index: m.index, job_rank: m.left_rank, slot_rank: m.right_rank }
    }
}

/// Whether `left` and `right` match (each one's `Requirements` true
/// against the other) in `semantics`, in `*matched`; each side's `Rank`
/// of the other in `*left_rank` and `*right_rank` (either may be NULL:
/// not wanted).
///
/// Thread safety: any thread, on ads no thread is changing.
///
/// # Safety
/// `left` and `right` are live ads; `matched` a valid place for a bool;
/// `left_rank` and `right_rank` NULL or valid places for a double;
/// `error` NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_match(
    left: *const ClassadAd,
    right: *const ClassadAd,
    semantics: ClassadSemantics,
    matched: *mut bool,
    left_rank: *mut f64,
    right_rank: *mut f64,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (left, right) = unsafe { (handle(left, "the left ad")?, handle(right, "the right ad")?) };
        let options = eval_options(semantics)?;
        let pair = MatchAd::new(&options, &left.0, &right.0);
        // SAFETY: the caller's contract.
        unsafe {
            value_out(matched, pair.symmetric_match())?;
            if !left_rank.is_null() {
                left_rank.write(pair.left_rank());
            }
            if !right_rank.is_null() {
                right_rank.write(pair.right_rank());
            }
        }
        Ok(())
    })
}

/// Slot ads prepared once (each one's own `Requirements` and `Rank`) to
/// be matched against many jobs. Made by `classad_pool_new`, freed with
/// `classad_pool_free`.
///
/// Thread safety: `classad_pool_matches`, `classad_pool_count`,
/// `classad_pool_len` and `classad_pool_ad` may run on the same pool from
/// many threads at once (each with its own `ClassadMatches`);
/// `classad_pool_push` and `classad_pool_replace` need the pool to
/// themselves.
pub struct ClassadPool(Pool);

/// The matches of one job, refilled by each `classad_pool_matches`: the
/// caller makes one with `classad_matches_new` and reuses it, so that
/// matching job after job allocates nothing once it has grown.
pub struct ClassadMatches {
    found: Vec<Match>,
    out: Vec<ClassadMatch>,
}

/// A pool of copies of the ads of `slots` (NULL: an empty pool),
/// evaluated in `semantics` (HTCondor's negotiator uses
/// `CLASSAD_SEMANTICS_OLD`), stored in `*out`; the caller frees it with
/// [`classad_pool_free`] and still owns `slots`.
///
/// # Safety
/// `slots` is NULL or a live list; `out` a valid place for a pointer;
/// `error` NULL or one.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_new(
    slots: *const ClassadAdList,
    semantics: ClassadSemantics,
    out: *mut *mut ClassadPool,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        let options = eval_options(semantics)?;
        // SAFETY: the caller's contract.
        let ads: Vec<Arc<classad::ClassAd>> = match unsafe { slots.as_ref() } {
            Some(list) => list.0.iter().cloned().map(Arc::new).collect(),
            None => Vec::new(),
        };
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, ClassadPool(Pool::new(options, ads))) }
    })
}

/// Frees a pool and its ads. NULL is allowed.
///
/// # Safety
/// `pool` is NULL or a pool made by this library, freed once; no ad
/// borrowed from it is used afterwards.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_free(pool: *mut ClassadPool) {
    // SAFETY: the caller's contract.
    unsafe { free_handle(pool) }
}

/// The number of slots in `pool` (0 when `pool` is NULL).
///
/// # Safety
/// `pool` is NULL or a live pool.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_len(pool: *const ClassadPool) -> usize {
    // SAFETY: the caller's contract.
    unsafe { pool.as_ref() }.map_or(0, |p| p.0.len())
}

/// Slot `index` of `pool`, borrowed: valid until that slot is replaced or
/// the pool freed; do not free it. NULL past the end.
///
/// # Safety
/// `pool` is NULL or a live pool.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_ad(pool: *const ClassadPool, index: usize) -> *const ClassadAd {
    // SAFETY: the caller's contract.
    match unsafe { pool.as_ref() }.and_then(|p| p.0.ads().get(index)) {
        Some(ad) => ClassadAd::borrowed(ad),
        None => std::ptr::null(),
    }
}

/// Adds a copy of `ad` after the pool's slots, prepared; its index goes
/// to `*index` (NULL: not wanted).
///
/// # Safety
/// `pool` is a live pool no other thread uses; `ad` a live ad; `index`
/// NULL or a valid place for a size_t; `error` NULL or a valid place for
/// a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_push(
    pool: *mut ClassadPool,
    ad: *const ClassadAd,
    index: *mut usize,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (pool, ad) = unsafe { (handle_mut(pool, "the pool")?, handle(ad, "the ad")?) };
        let at = pool.0.push(ad.0.clone());
        if !index.is_null() {
            // SAFETY: the caller's contract.
            unsafe { index.write(at) };
        }
        Ok(())
    })
}

/// Replaces slot `index` of `pool` with a copy of `ad` (a slot claimed,
/// released or changed), prepared; the other slots are left as they are.
/// `CLASSAD_STATUS_ARGUMENT` past the end.
///
/// # Safety
/// `pool` is a live pool no other thread uses; `ad` a live ad; `error`
/// NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_replace(
    pool: *mut ClassadPool,
    index: usize,
    ad: *const ClassadAd,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (pool, ad) = unsafe { (handle_mut(pool, "the pool")?, handle(ad, "the ad")?) };
        if index >= pool.0.len() {
            return Err(Failure::argument(format!("slot {index} of a pool of {}", pool.0.len())));
        }
        pool.0.replace(index, ad.0.clone());
        Ok(())
    })
}

/// Matches `job` against every slot of `pool`, into `matches` (what it
/// held is replaced): the slots that match, in pool order, with both
/// ranks.
///
/// # Safety
/// `pool` is a live pool; `job` a live ad; `matches` a live
/// `ClassadMatches` no other thread uses; `error` NULL or a valid place
/// for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_matches(
    pool: *const ClassadPool,
    job: *const ClassadAd,
    matches: *mut ClassadMatches,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (pool, job, matches) =
            unsafe { (handle(pool, "the pool")?, handle(job, "the job")?, handle_mut(matches, "the matches")?) };
        matches.found.clear();
        pool.0.matches_into(&job.0, &mut matches.found);
        matches.out.clear();
        matches.out.extend(matches.found.iter().map(|&m| ClassadMatch::from(m)));
        Ok(())
    })
}

/// The number of slots of `pool` that match `job`, in `*count`.
///
/// # Safety
/// `pool` is a live pool; `job` a live ad; `count` a valid place for a
/// size_t; `error` NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_pool_count(
    pool: *const ClassadPool,
    job: *const ClassadAd,
    count: *mut usize,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (pool, job) = unsafe { (handle(pool, "the pool")?, handle(job, "the job")?) };
        // SAFETY: the caller's contract.
        unsafe { value_out(count, pool.0.count(&job.0)) }
    })
}

/// A new, empty set of matches for [`classad_pool_matches`] to fill.
/// Free it with [`classad_matches_free`].
#[no_mangle]
pub extern "C" fn classad_matches_new() -> *mut ClassadMatches {
    Box::into_raw(Box::new(ClassadMatches { found: Vec::new(), out: Vec::new() }))
}

/// Frees a set of matches. NULL is allowed.
///
/// # Safety
/// `matches` is NULL or made by [`classad_matches_new`], freed once.
#[no_mangle]
pub unsafe extern "C" fn classad_matches_free(matches: *mut ClassadMatches) {
    // SAFETY: the caller's contract.
    unsafe { free_handle(matches) }
}

/// The number of matches (0 when `matches` is NULL).
///
/// # Safety
/// `matches` is NULL or a live set of matches.
#[no_mangle]
pub unsafe extern "C" fn classad_matches_len(matches: *const ClassadMatches) -> usize {
    // SAFETY: the caller's contract.
    unsafe { matches.as_ref() }.map_or(0, |m| m.out.len())
}

/// The matches as an array of `classad_matches_len` elements, borrowed:
/// valid until `matches` is filled again or freed. NULL when there are
/// none.
///
/// # Safety
/// `matches` is NULL or a live set of matches.
#[no_mangle]
pub unsafe extern "C" fn classad_matches_data(matches: *const ClassadMatches) -> *const ClassadMatch {
    // SAFETY: the caller's contract.
    match unsafe { matches.as_ref() } {
        Some(m) if !m.out.is_empty() => m.out.as_ptr(),
        _ => std::ptr::null(),
    }
}
