//! The negotiator's match list: one request's candidate slots in
//! HTCondor's order (best first on the five rank keys), kept for the
//! autocluster's next requests, and sorted only as far as it is read.

use std::cmp::Ordering;

use classad::ClassAd;

use crate::candidates::Ranks;

/// A candidate slot of one request, with what ranks it.
#[derive(Clone, Copy)]
pub(super) struct Candidate {
    pub(super) slot: usize,
    /// The slot's position in the cycle's input: equal candidates are
    /// taken in that order.
    pub(super) order: u32,
    pub(super) ranks: Ranks,
}

/// Rejection counters of one search (HTCondor's `rejFor*`).
#[derive(Clone, Copy, Default)]
pub(super) struct Diagnostics {
    pub(super) concurrency: bool,
    pub(super) preemption_policy: u32,
    pub(super) preemption_rank: u32,
    pub(super) submitter_limit: u32,
}

/// A sorted candidate list kept for an autocluster's next requests
/// (HTCondor's `MatchList`).
pub(super) struct MatchList {
    pub(super) submitter: usize,
    pub(super) autocluster: u32,
    pub(super) only_for_startd_rank: bool,
    /// The request ad and budget the list was made for: candidates are
    /// judged by them whenever they are examined, as if all had been at
    /// once.
    pub(super) request: ClassAd,
    pub(super) budget: Budget,
    pub(super) limits_with_match: bool,
    /// Candidates examined with the list (and kept for it); from `head`
    /// on, `entries[..sorted]` are in their final order (best first, equal
    /// ones in slot order), the rest are sorted as the list is used up.
    pub(super) entries: Vec<Candidate>,
    pub(super) sorted: usize,
    pub(super) head: usize,
    /// The next of the cycle's slot ranges (by pre-job rank) to examine.
    pub(super) next_range: usize,
    /// The candidates of the last group examined, from `group_head`;
    /// `group[..group_sorted]` in their final order, the rest sorted as
    /// they are needed.
    pub(super) group: Vec<Candidate>,
    pub(super) group_sorted: usize,
    pub(super) group_head: usize,
    pub(super) diagnostics: Diagnostics,
}

/// The limits a search works within.
#[derive(Clone, Copy)]
pub(super) struct Budget {
    pub(super) used: f64,
    pub(super) used_unclaimed: f64,
    pub(super) limit: f64,
    pub(super) limit_unclaimed: f64,
}

/// Puts at least the first `n` of `items` in their final order, given that
/// the first `*sorted` are: the next stretch is chosen with a selection
/// (linear) and only it is sorted, so that the whole is never sorted when
/// only its head is used, and the result is that of sorting everything.
pub(super) fn sort_prefix(items: &mut [Candidate], sorted: &mut usize, n: usize) {
    let len = items.len();
    if n <= *sorted || *sorted >= len {
        return;
    }
    let k = n.max(*sorted + 256).max(2 * *sorted).min(len);
    let tail = &mut items[*sorted..];
    if k - *sorted < tail.len() {
        tail.select_nth_unstable_by(k - *sorted - 1, best_first);
    }
    items[*sorted..k].sort_unstable_by(best_first);
    *sorted = k;
}

/// The order of a match list: best first, equal candidates in slot order.
pub(super) fn best_first(a: &Candidate, b: &Candidate) -> Ordering {
    b.ranks.cmp_best(&a.ranks).then(a.order.cmp(&b.order))
}

impl MatchList {
    /// Puts at least the first `n` candidates in their final order. A list
    /// is seldom used up (an autocluster takes a few hundred of tens of
    /// thousands of slots), so the rest is only partitioned: the result is
    /// that of sorting the whole list.
    pub(super) fn sort_up_to(&mut self, n: usize) {
        sort_prefix(&mut self.entries, &mut self.sorted, n);
    }

    /// Puts a carved partitionable slot back just above the head, then
    /// moves it down past every entry it ranks better than, exactly as
    /// HTCondor's `insert_candidate` does (which leaves a slot that got
    /// better after the deduction below the others).
    pub(super) fn reinsert(&mut self, entry: Candidate) {
        if self.head == 0 {
            return;
        }
        self.sort_up_to(self.entries.len());
        self.head -= 1;
        let mut at = self.head;
        while at + 1 < self.entries.len() && entry.ranks.cmp_best(&self.entries[at + 1].ranks) == Ordering::Greater {
            self.entries[at] = self.entries[at + 1];
            at += 1;
        }
        self.entries[at] = entry;
    }
}
