//! What a negotiator remembers of the slot ads and the requests of its
//! last cycle.
//!
//! A caller that keeps its slot ads behind [`Arc`] and hands the next
//! cycle the same `Arc` for a slot that did not change (as a simulator, or
//! a negotiator fed by a collector's updates, does) spares that slot the
//! cycle's per-slot preparation: its prepared `Requirements` and `Rank`,
//! its names, and the copy carrying `NEGOTIATOR_MATCH_EXPRS`. Only what
//! depends on the ad alone is remembered; what a cycle writes into the ad
//! from the accountant (`RemoteUserPrio` and the like, under preemption)
//! makes that slot's ad new every cycle, and it is prepared every cycle.
//! Of a request's ad (its `Arc` in the
//! [`ResourceRequest`](crate::autocluster::ResourceRequest)) it remembers
//! what reading its expressions told: the slot attributes its
//! `Requirements` compares, and which of its conditions and rank read
//! only attributes that slots alike share.
//!
//! An ad is known by its address. An entry holds its `Arc`, so that no
//! other ad can have that address while it is remembered. Slot ads not
//! seen by a cycle are forgotten by it. A request's ad not seen is kept
//! for up to [`REQUEST_UNSEEN_CYCLES`] cycles while the caller still holds
//! it (a submitter whose idle jobs all matched often has more a few
//! cycles later); so the memory is never larger than the last cycle's
//! pool and the requests of its last few cycles.

use std::sync::{Arc, Mutex};

use classad::eval::PrepareCache;
use classad::ClassAd;
use rustc_hash::FxHashMap;

use super::rank_cache::{KeyTable, ShapeNumbers};
use crate::matching::PreparedSlot;

/// The slot ads a negotiator prepared in its last cycle, and what it
/// learnt of its requests, kept for the next (see
/// [`Negotiator::cycle_shared`](super::Negotiator::cycle_shared)).
///
/// A clone starts empty.
///
/// ```
/// use matchmaker::negotiator::CycleMemory;
///
/// let memory = CycleMemory::default();
/// assert_eq!(memory.len(), 0);
/// memory.clear();
/// ```
#[derive(Default)]
pub struct CycleMemory(Mutex<Remembered>);

impl CycleMemory {
    /// How many slot ads are remembered.
    pub fn len(&self) -> usize {
        self.0.lock().map(|r| r.entries.len()).unwrap_or(0)
    }

    /// How many request ads are remembered (see the module's doc for how
    /// long).
    ///
    /// ```
    /// use matchmaker::negotiator::CycleMemory;
    ///
    /// assert_eq!(CycleMemory::default().requests(), 0);
    /// ```
    pub fn requests(&self) -> usize {
        self.0.lock().map(|r| r.requests.len()).unwrap_or(0)
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every slot ad and request.
    pub fn clear(&self) {
        if let Ok(mut r) = self.0.lock() {
            *r = Remembered::default();
        }
    }

    /// Takes the memory out for a cycle whose match expressions are
    /// `fingerprint`: empty if they differ from those it was made with.
    pub(super) fn take(&self, fingerprint: &str) -> Remembered {
        let taken = self.0.lock().map(|mut r| std::mem::take(&mut *r)).unwrap_or_default();
        if taken.fingerprint == fingerprint {
            taken
        } else {
            Remembered { fingerprint: fingerprint.to_string(), ..Remembered::default() }
        }
    }

    /// Puts the memory back after a cycle.
    pub(super) fn put(&self, remembered: Remembered) {
        if let Ok(mut r) = self.0.lock() {
            *r = remembered;
        }
    }
}

impl Clone for CycleMemory {
    fn clone(&self) -> CycleMemory {
        CycleMemory::default()
    }
}

impl std::fmt::Debug for CycleMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CycleMemory").field("slots", &self.len()).finish()
    }
}

/// The entries, and the match expressions they were made with.
#[derive(Default)]
pub(super) struct Remembered {
    /// `NEGOTIATOR_MATCH_EXPRS` as text (they are in every entry's `ad`).
    fingerprint: String,
    /// (Boxed: a lookup probes keys only, not whole entries.)
    pub(super) entries: FxHashMap<usize, Box<Entry>>,
    /// What the entries' weights were read with (see
    /// `Accountant::slot_weight_basis`).
    pub(super) weight_basis: String,
    /// What was learnt of the requests' ads, by their keys.
    pub(super) requests: FxHashMap<usize, RequestEntry>,
    /// The slots' keys for the negotiator's pre- and post-job ranks and
    /// the requests' comparisons, numbered (see `Entry::shape_numbers`).
    pub(super) key_tables: [KeyTable; 3],
    /// The slots' prepared `Requirements` and `Rank`, by what they read of
    /// their slot: a slot ad new to the cycle whose expressions read the
    /// same as an earlier one's takes its preparation.
    pub(super) prepared: PrepareCache,
}

/// The text the memory of a negotiator with `match_exprs` is made for.
pub(super) fn fingerprint(match_exprs: &[(String, classad::Expr)]) -> String {
    match_exprs.iter().map(|(name, expr)| format!("{name} = {expr}\n")).collect()
}

/// The key of `ad` in [`Remembered::entries`].
pub(super) fn key(ad: &Arc<ClassAd>) -> usize {
    Arc::as_ptr(ad) as usize
}

/// One slot ad, as the cycle prepared it.
pub(super) struct Entry {
    /// The ad as the caller gave it (held: see the module's doc).
    pub(super) input: Arc<ClassAd>,
    /// The ad the cycle matches: `input` with the match expressions.
    pub(super) ad: Arc<ClassAd>,
    /// `ad`'s prepared side (`None` while a cycle's pool has it).
    pub(super) prepared: Option<PreparedSlot>,
    /// Its `Name`.
    pub(super) name: Arc<str>,
    /// Its accountant record's name.
    pub(super) resource: Arc<str>,
    /// Who runs on it.
    pub(super) running: Option<Arc<str>>,
    /// Its slot weight and `GhostMultiplier`.
    pub(super) weights: (f64, f64),
    /// For a partitionable slot with a consumption policy, `ad`.
    pub(super) current: Option<ClassAd>,
    /// What `key_tables` numbered `ad`'s keys.
    pub(super) shape_numbers: ShapeNumbers,
}

/// How many cycles a request's ad is remembered without being seen, while
/// its caller holds it.
pub(super) const REQUEST_UNSEEN_CYCLES: u32 = 64;

/// What the cycle learnt of a request's ad by reading its expressions.
pub(super) struct RequestEntry {
    /// Cycles since a cycle's queues last had it.
    pub(super) unseen: u32,
    /// The ad (held, as [`Entry::input`] is).
    pub(super) ad: Arc<ClassAd>,
    /// What its `Requirements` compares of a slot (see
    /// [`request_compared`](super::ranges::request_compared)).
    pub(super) compared: Vec<(String, classad::Name)>,
    /// What its range tests and rank read, by the attributes the cycle
    /// writes into the ad it matches with (see [`Keyed`]).
    pub(super) keyed: Vec<Keyed>,
}

/// A request's range tests and the key names its rank reads, for key
/// names `key_names`, when the ad it is matched as has `own` attributes
/// of its own (the cycle's `Submitter*` attributes, chained to the
/// request's ad: which of them it writes depends on the groups only, and
/// how many tells which).
pub(super) struct Keyed {
    pub(super) own: usize,
    pub(super) key_names: Vec<classad::Name>,
    pub(super) tests: (Vec<classad::Expr>, Vec<usize>),
    /// [`RangeRank::reads`](super::ranges::RangeRank::reads).
    pub(super) rank: Option<Vec<usize>>,
    /// Whether it was learnt in a cycle whose slots all rank every job
    /// the same (see `RangeRank::reads`).
    pub(super) uniform_slot_rank: bool,
}
