//! Concurrency limits: pool-wide counters of licenses, database
//! connections or anything else jobs declare they use.
//!
//! A job says what it uses in `ConcurrencyLimits`, a list of
//! `name[:units]` items (`"matlab, db:2, lic.fluent"`), names
//! case-insensitive, units 1 when missing or not positive. A name with a
//! dot is a member of a set (`lic.fluent` is in `lic`). Each name's
//! capacity is the configuration's `<NAME>_LIMIT`, else for a set member
//! `CONCURRENCY_LIMIT_DEFAULT_<SET>`, else `CONCURRENCY_LIMIT_DEFAULT`
//! (2,308,032). What is in use is counted from the slots' ads each cycle
//! (`ConcurrencyLimits` and `PreemptingConcurrencyLimits` of the jobs
//! they run) and grows with the cycle's own matches; a match that would
//! take a limit past its capacity is refused.
//!
//! ```
//! use matchmaker::concurrency::{ConcurrencyLimits, Capacities};
//! use matchmaker::config::Config;
//!
//! let config = Config::parse_str("MATLAB_LIMIT = 2\nCONCURRENCY_LIMIT_DEFAULT_LIC = 1\n", "limits.conf")?;
//! let mut limits = ConcurrencyLimits::new(Capacities::from_config(&config));
//! limits.add("matlab, lic.fluent");
//! assert_eq!(limits.rejected("MATLAB"), None);            // 1 + 1 <= 2
//! assert_eq!(limits.rejected("lic.fluent").as_deref(), Some("lic.fluent")); // 1 + 1 > 1
//! limits.add("matlab");
//! assert_eq!(limits.rejected("matlab:1, db").as_deref(), Some("matlab"));
//! # Ok::<(), matchmaker::config::ConfigError>(())
//! ```

use rustc_hash::FxHashMap;
use std::borrow::Borrow;

use crate::config::Config;

/// HTCondor's default capacity of a limit nobody configured.
pub const DEFAULT_CAPACITY: f64 = 2_308_032.0;

/// One item of a `ConcurrencyLimits` list: a lower-case name and the
/// units it takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The limit's name, lower case (`lic.fluent`).
    pub name: String,
    /// How many units one job takes (1 unless `:units` says more).
    pub units: f64,
}

/// The items of a `ConcurrencyLimits` list (comma- or space-separated),
/// lower-cased; items whose name is not a valid attribute name (or
/// `set.member` of two) are left out, as HTCondor ignores them.
///
/// ```
/// use matchmaker::concurrency::items;
/// let parsed = items("Matlab:2, db lic.x:0 bad-name");
/// let names: Vec<(&str, f64)> = parsed.iter().map(|i| (i.name.as_str(), i.units)).collect();
/// assert_eq!(names, [("matlab", 2.0), ("db", 1.0), ("lic.x", 1.0)]);
/// ```
pub fn items(list: &str) -> Vec<Item> {
    list.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .filter_map(|item| {
            let item = item.to_ascii_lowercase();
            let (name, units) = match item.split_once(':') {
                Some((name, units)) => (name.to_string(), leading_number(units)),
                None => (item, 1.0),
            };
            let units = if units > 0.0 { units } else { 1.0 };
            let valid = match name.split_once('.') {
                Some((set, member)) => is_attr_name(set) && is_attr_name(member),
                None => is_attr_name(&name),
            };
            valid.then_some(Item { name, units })
        })
        .collect()
}

/// The number at the start of `text`, as C's `strtod` reads it (0 when
/// there is none).
fn leading_number(text: &str) -> f64 {
    let text = text.trim_start();
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || ((c == '-' || c == '+') && i == 0)))
        .map_or(text.len(), |(i, _)| i);
    text[..end].parse().unwrap_or(0.0)
}

/// Whether `name` is a valid ClassAd attribute name (a letter or `_`, then
/// letters, digits and `_`).
fn is_attr_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Each limit's capacity, from the configuration.
#[derive(Debug, Clone)]
pub struct Capacities {
    /// `<NAME>_LIMIT` values, by lower-case name.
    named: FxHashMap<String, f64>,
    /// `CONCURRENCY_LIMIT_DEFAULT_<SET>` values, by lower-case set.
    sets: FxHashMap<String, f64>,
    /// `CONCURRENCY_LIMIT_DEFAULT`.
    default: f64,
}

impl Default for Capacities {
    /// HTCondor's default capacity for every limit.
    fn default() -> Capacities {
        Capacities { named: FxHashMap::default(), sets: FxHashMap::default(), default: DEFAULT_CAPACITY }
    }
}

impl Capacities {
    /// The capacities an HTCondor configuration sets.
    pub fn from_config(config: &Config) -> Capacities {
        let mut capacities = Capacities::default();
        let number = |name: &str| config.get_real(name).ok();
        if let Some(d) = number("CONCURRENCY_LIMIT_DEFAULT") {
            capacities.default = d;
        }
        for name in config.names() {
            let lower = name.to_ascii_lowercase();
            if let Some(set) = lower.strip_prefix("concurrency_limit_default_") {
                if let Some(v) = number(&name) {
                    capacities.sets.insert(set.to_string(), v);
                }
            } else if let Some(limit) = lower.strip_suffix("_limit") {
                if let Some(v) = number(&name) {
                    capacities.named.insert(limit.to_string(), v);
                }
            }
        }
        capacities
    }

    /// The capacity of limit `name` (lower case).
    pub fn of(&self, name: &str) -> f64 {
        if let Some(&v) = self.named.get(name) {
            return v;
        }
        match name.rsplit_once('.') {
            Some((set, _)) => self.sets.get(set).copied().unwrap_or(self.default),
            None => self.default,
        }
    }
}

/// What is in use of every limit, against the capacities.
#[derive(Debug, Clone, Default)]
pub struct ConcurrencyLimits {
    capacities: Capacities,
    in_use: FxHashMap<String, f64>,
}

impl ConcurrencyLimits {
    /// Nothing in use yet.
    pub fn new(capacities: Capacities) -> ConcurrencyLimits {
        ConcurrencyLimits { capacities, in_use: FxHashMap::default() }
    }

    /// Counts a job's (or a match's) `ConcurrencyLimits` as in use.
    pub fn add(&mut self, list: &str) {
        for item in items(list) {
            *self.in_use.entry(item.name).or_insert(0.0) += item.units;
        }
    }

    /// Counts what the slots' jobs use: each slot's `ConcurrencyLimits` and
    /// `PreemptingConcurrencyLimits`.
    pub fn add_slots<A: Borrow<classad::ClassAd>>(&mut self, slots: &[A]) {
        let attrs = [classad::Name::new("ConcurrencyLimits"), classad::Name::new("PreemptingConcurrencyLimits")];
        for slot in slots {
            let slot: &classad::ClassAd = slot.borrow();
            for attr in attrs {
                if let Some(classad::Literal::Str(list)) = slot.lookup(attr).and_then(classad::Expr::as_literal) {
                    self.add(list.as_str());
                }
            }
        }
    }

    /// What limit `name` (any case) has in use.
    pub fn in_use(&self, name: &str) -> f64 {
        self.in_use.get(&name.to_ascii_lowercase()).copied().unwrap_or(0.0)
    }

    /// The capacity of limit `name` (any case).
    pub fn capacity(&self, name: &str) -> f64 {
        self.capacities.of(&name.to_ascii_lowercase())
    }

    /// The first limit of `list` that one more job would take past its
    /// capacity, or `None` when the job fits every one.
    pub fn rejected(&self, list: &str) -> Option<String> {
        items(list).into_iter().find_map(|item| {
            let used = self.in_use.get(&item.name).copied().unwrap_or(0.0);
            (used < 0.0 || used + item.units > self.capacities.of(&item.name)).then_some(item.name)
        })
    }

    /// Every limit in use, by name, sorted.
    pub fn usage(&self) -> Vec<(String, f64)> {
        let mut all: Vec<(String, f64)> = self.in_use.iter().map(|(k, v)| (k.clone(), *v)).collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacities_by_name_set_and_default() {
        let config = Config::parse_str(
            "SW_A_LIMIT = 10\nCONCURRENCY_LIMIT_DEFAULT = 5\nCONCURRENCY_LIMIT_DEFAULT_LIC = 3\nLIC.SPECIAL_LIMIT = 7\n",
            "limits.conf",
        )
        .expect("config");
        let c = Capacities::from_config(&config);
        assert_eq!(c.of("sw_a"), 10.0);
        assert_eq!(c.of("sw_b"), 5.0);
        assert_eq!(c.of("lic.x"), 3.0);
        assert_eq!(c.of("lic.special"), 7.0);
        assert_eq!(Capacities::from_config(&Config::default()).of("anything"), DEFAULT_CAPACITY);
    }

    #[test]
    fn units_and_bad_items() {
        assert_eq!(items("a:2.5").first().map(|i| i.units), Some(2.5));
        assert_eq!(items("a:-3").first().map(|i| i.units), Some(1.0));
        assert_eq!(items("a:x").first().map(|i| i.units), Some(1.0));
        assert!(items("1abc, a.b.c").is_empty());
        assert_eq!(items(""), []);
    }

    #[test]
    fn slots_count_running_jobs() {
        let slots: Vec<classad::ClassAd> =
            [r#"[ ConcurrencyLimits = "DB:2" ]"#, r#"[ ConcurrencyLimits = "db"; PreemptingConcurrencyLimits = "x" ]"#]
                .iter()
                .map(|t| t.parse().expect("ad"))
                .collect();
        let mut limits = ConcurrencyLimits::new(Capacities::default());
        limits.add_slots(&slots);
        assert_eq!((limits.in_use("db"), limits.in_use("X")), (3.0, 1.0));
        assert_eq!(limits.usage(), [("db".to_string(), 3.0), ("x".to_string(), 1.0)]);
    }
}
