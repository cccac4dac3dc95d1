//! Per-daemon update statistics, as the C++ collector keeps them
//! (`collector_stats.cpp`, `COLLECTOR_DAEMON_STATS`): every stored ad
//! carries `UpdatesTotal`, `UpdatesSequenced`, `UpdatesLost` and
//! `UpdatesHistory`, counted from its daemon's `UpdateSequenceNumber` and
//! `DaemonStartTime`.

use std::collections::HashMap;

use classad::ClassAd;

use crate::key::{int_attr, string_attr};

/// `COLLECTOR_DAEMON_HISTORY_SIZE`'s default: updates in the history.
pub const DEFAULT_HISTORY_SIZE: usize = 128;

const WORD_BITS: usize = 32;

/// One daemon's counters (`CollectorBaseStats`).
#[derive(Debug, Clone)]
pub struct UpdateCounters {
    total: i64,
    sequenced: i64,
    dropped: i64,
    history: Vec<u32>,
    size: usize,
    max_bit: usize,
    bit: usize,
}

impl UpdateCounters {
    /// Counters with a history of `size` updates.
    pub fn new(size: usize) -> UpdateCounters {
        let words = size.div_ceil(WORD_BITS);
        UpdateCounters {
            total: 0,
            sequenced: 0,
            dropped: 0,
            history: vec![0; words],
            size,
            max_bit: (WORD_BITS * words).saturating_sub(1),
            bit: 0,
        }
    }

    /// One update: `sequenced` when an earlier ad of the daemon was held,
    /// with `dropped` updates detected missing (`storeStats`).
    pub fn record(&mut self, sequenced: bool, dropped: i64) {
        self.total += 1;
        self.sequenced += dropped + i64::from(sequenced);
        self.dropped += dropped;
        // A set bit per lost update, then a clear one for this update.
        self.set_lost_bits(dropped);
        self.set_bit(false);
    }

    /// `n` set bits, as `n` calls of [`set_bit`](Self::set_bit) leave the
    /// ring, without looping past one turn of it.
    fn set_lost_bits(&mut self, n: i64) {
        let n = n.max(0) as u64;
        let ring = self.max_bit as u64;
        if ring == 0 || self.history.is_empty() {
            return;
        }
        if n < ring {
            for _ in 0..n {
                self.set_bit(true);
            }
            return;
        }
        // A whole turn or more: every bit the ring uses is set, and the
        // index ends where `n` steps would leave it.
        for b in 0..self.max_bit {
            self.history[b / WORD_BITS] |= 1 << (b % WORD_BITS);
        }
        self.bit = ((self.bit as u64 + n) % ring) as usize;
    }

    fn set_bit(&mut self, lost: bool) {
        if self.history.is_empty() {
            return;
        }
        let (word, bit) = (self.bit / WORD_BITS, self.bit % WORD_BITS);
        if lost {
            self.history[word] |= 1 << bit;
        } else {
            self.history[word] &= !(1 << bit);
        }
        // As the C++: the index wraps at the last bit, which is never
        // written.
        self.bit += 1;
        if self.bit >= self.max_bit {
            self.bit = 0;
        }
    }

    /// The history as hex digits, the latest update first
    /// (`getHistoryString`): a set bit is a lost update.
    pub fn history_string(&self) -> String {
        if self.history.is_empty() || self.size == 0 {
            return String::new();
        }
        let words = self.history.len();
        let offset = if self.bit == 0 { self.max_bit } else { self.bit - 1 };
        let (mut word, mut bit) = (offset / WORD_BITS, (offset % WORD_BITS) as i64);
        let mut out = String::with_capacity(self.size.div_ceil(4));
        let (mut nibble, mut filled) = (0u32, 0u32);
        for _ in 0..self.size {
            if self.history[word] & (1 << bit) != 0 {
                nibble |= 0x8 >> filled;
            }
            bit -= 1;
            if bit < 0 {
                bit = WORD_BITS as i64 - 1;
                word = if word == 0 { words - 1 } else { word - 1 };
            }
            filled += 1;
            if filled == 4 {
                out.push(char::from_digit(nibble, 16).unwrap_or('0'));
                (nibble, filled) = (0, 0);
            }
        }
        if filled > 0 {
            out.push(char::from_digit(nibble, 16).unwrap_or('0'));
        }
        out
    }

    /// Writes the four attributes into `ad`.
    pub fn publish(&self, ad: &mut ClassAd) {
        ad.insert("UpdatesTotal", self.total);
        ad.insert("UpdatesSequenced", self.sequenced);
        ad.insert("UpdatesLost", self.dropped);
        if self.size > 0 {
            ad.insert("UpdatesHistory", self.history_string());
        }
    }
}

/// Whether `new` follows `old` in its daemon's sequence, and how many
/// updates between them were lost (`CollectorStats::update`): both must
/// carry `UpdateSequenceNumber` and `DaemonStartTime`; a restarted daemon
/// (another start time) loses nothing.
///
/// ```
/// let old: classad::ClassAd = "[ UpdateSequenceNumber = 4; DaemonStartTime = 100 ]".parse()?;
/// let new: classad::ClassAd = "[ UpdateSequenceNumber = 7; DaemonStartTime = 100 ]".parse()?;
/// assert_eq!(collector::update_stats::sequencing(Some(&old), &new), (true, 2));
/// assert_eq!(collector::update_stats::sequencing(None, &new), (false, 0));
/// # Ok::<(), classad::ParseError>(())
/// ```
pub fn sequencing(old: Option<&ClassAd>, new: &ClassAd) -> (bool, i64) {
    let Some(old) = old else { return (false, 0) };
    let (Some(new_seq), Some(old_seq), Some(new_start), Some(old_start)) = (
        int_attr(new, "UpdateSequenceNumber"),
        int_attr(old, "UpdateSequenceNumber"),
        int_attr(new, "DaemonStartTime"),
        int_attr(old, "DaemonStartTime"),
    ) else {
        return (false, 0);
    };
    // The C++ reads them as `int`.
    let (new_seq, old_seq) = (new_seq as i32 as i64, old_seq as i32 as i64);
    let expected = old_seq + 1;
    let dropped = if new_start as i32 == old_start as i32 && expected != new_seq {
        if new_seq < expected {
            1
        } else {
            new_seq - expected
        }
    } else {
        0
    };
    (true, dropped)
}

/// The key a daemon's counters are kept under (`hashKey`): its ad type,
/// `Name` (else `Machine` and `:SlotID`) and the host of `MyAddress`;
/// `None` for an ad without them (which gets no statistics).
pub fn daemon_key(label: &str, ad: &ClassAd) -> Option<(String, String, String)> {
    let name = match string_attr(ad, "Name") {
        Some(n) => n,
        None => {
            let machine = string_attr(ad, "Machine")?;
            match int_attr(ad, "SlotID") {
                Some(slot) => format!("{machine}:{slot}"),
                None => machine,
            }
        }
    };
    let address = string_attr(ad, "MyAddress")?;
    let host = address.trim_start_matches('<').split(['>', '?']).next().unwrap_or("");
    let host = host.rsplit_once(':').map_or(host, |(h, _)| h).to_owned();
    Some((label.to_owned(), name, host))
}

/// Every daemon's counters. They outlive the ads (as the C++ keeps them
/// until its garbage collection), so a daemon whose ad expired and came
/// back goes on counting.
#[derive(Debug, Default)]
pub struct DaemonStats {
    counters: HashMap<(String, String, String), UpdateCounters>,
}

/// The most daemons counted; past it, new daemons' ads carry no counters.
pub const MAX_DAEMONS: usize = 1_000_000;

impl DaemonStats {
    /// Counts an update of `new` (replacing `old`, if any) and writes the
    /// daemon's counters into `new`.
    pub fn update(&mut self, label: &str, old: Option<&ClassAd>, new: &mut ClassAd) {
        let Some(key) = daemon_key(label, new) else { return };
        let (sequenced, dropped) = sequencing(old, new);
        if !self.counters.contains_key(&key) && self.counters.len() >= MAX_DAEMONS {
            return;
        }
        let counters = self.counters.entry(key).or_insert_with(|| UpdateCounters::new(DEFAULT_HISTORY_SIZE));
        counters.record(sequenced, dropped);
        counters.publish(new);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counters HTCondor 23.9.6's collector recorded for a sequence
    /// of updates (`tests/data/update-stats/capture.sh`).
    #[test]
    fn the_counters_follow_htcondors_on_a_captured_sequence() {
        let text = include_str!("../tests/data/update-stats/sequence.txt");
        let mut stats = DaemonStats::default();
        let mut old: Option<ClassAd> = None;
        let mut checked = 0;
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let mut ad: ClassAd = format!(
                r#"[ MyType = "Machine"; Name = "slot1@seq.test"; MyAddress = "<10.1.2.3:9618?noUDP>"; UpdateSequenceNumber = {}; DaemonStartTime = {} ]"#,
                f[0], f[1]
            )
            .parse()
            .expect("ad");
            stats.update("Machine", old.as_ref(), &mut ad);
            let got = ["UpdatesTotal", "UpdatesSequenced", "UpdatesLost"].map(|a| ad.lookup(a).map(|e| e.to_string()));
            assert_eq!(got, [Some(f[2].to_owned()), Some(f[3].to_owned()), Some(f[4].to_owned())], "{line}");
            assert_eq!(ad.eval_attr("UpdatesHistory").as_str(), Some(f[5]), "{line}");
            old = Some(ad);
            checked += 1;
        }
        assert_eq!(checked, 11);
    }

    #[test]
    fn a_first_update_has_a_clean_history() {
        let mut c = UpdateCounters::new(DEFAULT_HISTORY_SIZE);
        c.record(false, 0);
        assert_eq!(c.history_string(), "0".repeat(32));
        assert_eq!((c.total, c.sequenced, c.dropped), (1, 0, 0));
    }

    #[test]
    fn lost_updates_show_as_set_bits_behind_the_latest() {
        let mut c = UpdateCounters::new(DEFAULT_HISTORY_SIZE);
        c.record(false, 0);
        c.record(true, 2);
        // Latest first: this update (0), then the two lost (1, 1), then
        // the first (0): 0110 → "6".
        assert!(c.history_string().starts_with('6'), "{}", c.history_string());
        assert_eq!((c.total, c.sequenced, c.dropped), (2, 3, 2));
        for _ in 0..200 {
            c.record(true, 0);
        }
        assert_eq!(c.history_string(), "0".repeat(32));
    }

    #[test]
    fn a_restarted_daemon_loses_nothing_and_an_old_number_counts_one() {
        let old: ClassAd = "[ UpdateSequenceNumber = 9; DaemonStartTime = 100 ]".parse().expect("ad");
        let restarted: ClassAd = "[ UpdateSequenceNumber = 1; DaemonStartTime = 200 ]".parse().expect("ad");
        assert_eq!(sequencing(Some(&old), &restarted), (true, 0));
        let back: ClassAd = "[ UpdateSequenceNumber = 3; DaemonStartTime = 100 ]".parse().expect("ad");
        assert_eq!(sequencing(Some(&old), &back), (true, 1));
        let next: ClassAd = "[ UpdateSequenceNumber = 10; DaemonStartTime = 100 ]".parse().expect("ad");
        assert_eq!(sequencing(Some(&old), &next), (true, 0));
    }

    #[test]
    fn an_ad_without_an_address_gets_no_counters() {
        let mut stats = DaemonStats::default();
        let mut ad: ClassAd = r#"[ Name = "x" ]"#.parse().expect("ad");
        stats.update("Start", None, &mut ad);
        assert!(ad.lookup("UpdatesTotal").is_none());
        let mut ad: ClassAd =
            r#"[ Machine = "h"; SlotID = 2; MyAddress = "<10.0.0.1:9618?noUDP>" ]"#.parse().expect("ad");
        stats.update("Start", None, &mut ad);
        assert_eq!(daemon_key("Start", &ad), Some(("Start".into(), "h:2".into(), "10.0.0.1".into())));
        assert!(ad.lookup("UpdatesHistory").is_some());
    }
}
