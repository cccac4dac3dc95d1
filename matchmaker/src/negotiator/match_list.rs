//! The negotiator's match list: one request's candidate slots in
//! HTCondor's order (best first on the five rank keys), kept for the
//! autocluster's next requests, and sorted only as far as it is read.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

use classad::ClassAd;

use super::ranges::{RangeRank, RangeTests, ShapeRange};
use crate::candidates::Ranks;
use crate::matching::PreparedRequest;

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
    pub(super) request: Arc<ClassAd>,
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
    /// The ranges whose pre-job rank this job changes but which have one
    /// value on all their slots: `(value, range)`, best first, examined
    /// with the groups of the same value from `next_dependent` on.
    pub(super) dependent: Vec<(f64, usize)>,
    pub(super) next_dependent: usize,
    /// Per pre-job-rank and post-job-rank shape: whether the request leaves
    /// its value as for a job without attributes.
    pub(super) pre_independent: Vec<bool>,
    pub(super) post_independent: Vec<bool>,
    /// The candidates of the last group examined, from `group_head`;
    /// `group[..group_sorted]` in their final order, the rest sorted as
    /// they are needed.
    pub(super) group: Vec<Candidate>,
    pub(super) group_sorted: usize,
    pub(super) group_head: usize,
    /// The last group examined when it is read in order without ranking
    /// every slot (see [`Runs`]); `group` is then empty.
    pub(super) runs: Runs,
    /// Whether the request's `Rank` has one value on every slot of a
    /// range (it reads nothing of a slot but what the ranges are made by).
    pub(super) rank: Option<RangeRank>,
    /// The conjuncts of the request's `Requirements` with one value on all
    /// slots of a range: ranges where one is not true are not examined.
    pub(super) tests: RangeTests,
    /// The request prepared for matching against the cycle's pool.
    pub(super) prepared: PreparedRequest<'static>,
    pub(super) diagnostics: Diagnostics,
}

/// A group of slots read best first without ranking each: the slots of a
/// run (one range) rank the same up to slot order, so the group's order
/// is a merge of the runs by their ranks and their heads' slot order. A
/// run is scanned for matching slots only as far as it is read, and only
/// when it may hold the next slot: until scanned, a run stands in the
/// merge with its first unscanned slot's order, which no slot it may
/// still find comes before (a range's slots are in input order).
#[derive(Default)]
pub(super) struct Runs {
    runs: Vec<Run>,
    /// Every run with slots left, best head on top.
    heads: BinaryHeap<Head>,
    /// The candidate read and ranked but not yet taken.
    pub(super) pending: Option<Candidate>,
    /// Whether the current group is read through these runs.
    pub(super) active: bool,
}

/// One range of a group, scanned as it is read.
pub(super) struct Run {
    /// The first slot of the range not yet scanned, and the range's end.
    pub(super) cursor: usize,
    pub(super) end: usize,
    /// Matching slots scanned and not yet read, from `next` on.
    pub(super) found: Vec<usize>,
    pub(super) next: usize,
    /// The pre-job rank, job rank and post-job rank of every slot of the
    /// range.
    pub(super) pre: f64,
    pub(super) job: f64,
    pub(super) post: f64,
}

/// The next slot of a run, ordered so that the best is the greatest.
struct Head {
    job: f64,
    post: f64,
    /// The slot's order, or for a run to scan, the order of its first
    /// unscanned slot.
    order: u32,
    run: u32,
    /// The run must be scanned before it can be read.
    unscanned: bool,
}

impl Head {
    fn cmp_best(&self, other: &Head) -> Ordering {
        let by = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(Ordering::Equal);
        by(self.job, other.job).then(by(self.post, other.post)).then(other.order.cmp(&self.order))
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Head) -> bool {
        self.cmp_best(other) == Ordering::Equal
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Head) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Head) -> Ordering {
        self.cmp_best(other)
    }
}

impl Runs {
    /// Starts a new group.
    pub(super) fn clear(&mut self) {
        self.runs.clear();
        self.heads.clear();
        self.pending = None;
        self.active = false;
    }

    /// Sets the group's runs, none scanned yet; `order` gives each slot's
    /// position in the input. Ranks must be numbers (not NaN), so that
    /// they order like the candidates' ranks.
    pub(super) fn wait(&mut self, runs: Vec<Run>, order: &[u32]) {
        self.runs = runs;
        for id in 0..self.runs.len() {
            self.requeue(id, order);
        }
    }

    /// The run on top of the merge when it must be scanned before the next
    /// slot is known; the caller scans it and [`requeue`](Self::requeue)s it.
    pub(super) fn next_to_scan(&mut self) -> Option<usize> {
        if !self.heads.peek()?.unscanned {
            return None;
        }
        self.heads.pop().map(|head| head.run as usize)
    }

    /// The next slot in the group's order, with its pre-job, job and
    /// post-job ranks and its run. The run is out of the order until
    /// [`requeue`](Self::requeue)d (after a new scan if it has read all
    /// it found).
    pub(super) fn pop(&mut self) -> Option<(usize, (f64, f64, f64), usize)> {
        debug_assert!(self.heads.peek().is_none_or(|h| !h.unscanned), "the top run is scanned first");
        let head = self.heads.pop()?;
        let run = &mut self.runs[head.run as usize];
        let slot = run.found[run.next];
        run.next += 1;
        Some((slot, (run.pre, run.job, run.post), head.run as usize))
    }

    /// Run `id`, to scan further.
    pub(super) fn run_mut(&mut self, id: usize) -> &mut Run {
        &mut self.runs[id]
    }

    /// Puts run `id` back in the merge: by its next slot when it has one
    /// scanned, by its first unscanned slot when it has slots left.
    pub(super) fn requeue(&mut self, id: usize, order: &[u32]) {
        let run = &self.runs[id];
        let (slot, unscanned) = match run.found.get(run.next) {
            Some(&slot) => (slot, false),
            None if run.cursor < run.end => (run.cursor, true),
            None => return,
        };
        self.heads.push(Head { job: run.job, post: run.post, order: order[slot], run: id as u32, unscanned });
    }
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
    /// Whether `range` may hold a candidate for the list: a list made only
    /// for the startd's rank can preempt, so it needs a slot running a job.
    pub(super) fn could_hold(&self, range: &ShapeRange) -> bool {
        !self.only_for_startd_rank || !range.idle
    }

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
