//! The tables of ads, as HTCondor's `CollectorEngine` keeps them: one per
//! ad type, keyed by [`make_key`], each ad stamped with `LastHeardFrom`,
//! dropped by [`Store::housekeep`] once past its lifetime.
//!
//! Readers never wait for a whole reply's worth of work: each table keeps
//! a snapshot (a shared slice of shared records), rebuilt after a write by
//! the first reader that wants it; a query walks the snapshot with no lock
//! held, while updates go on.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use classad::{ClassAd, EvalContext, EvalOptions, Expr, Semantics};
use parking_lot::Mutex;

use crate::key::{int_attr, make_key, string_attr};
use crate::record::StoredAd;
use crate::update_stats::DaemonStats;
use crate::Table;

/// The default `CLASSAD_LIFETIME`: 900 seconds.
pub const DEFAULT_CLASSAD_LIFETIME: i64 = 900;

/// What an update command stores (the `UPDATE_*` commands; see
/// [`UpdateCommand::from_command`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UpdateCommand {
    /// `UPDATE_STARTD_AD` and `UPDATE_STARTD_AD_WITH_ACK`: a slot ad (with
    /// its private ad) or a startd daemon ad.
    Startd,
    /// `MERGE_STARTD_AD`: attributes merged into a stored slot ad.
    MergeStartd,
    /// `UPDATE_SCHEDD_AD`.
    Schedd,
    /// `UPDATE_SUBMITTOR_AD` (and `UPDATE_OWN_SUBMITTOR_AD`).
    Submitter,
    /// `UPDATE_MASTER_AD`.
    Master,
    /// `UPDATE_NEGOTIATOR_AD`.
    Negotiator,
    /// `UPDATE_COLLECTOR_AD`.
    Collector,
    /// `UPDATE_ACCOUNTING_AD`.
    Accounting,
    /// `UPDATE_HAD_AD`.
    Had,
    /// `UPDATE_LICENSE_AD`.
    License,
    /// `UPDATE_STORAGE_AD`.
    Storage,
    /// `UPDATE_CKPT_SRVR_AD`.
    CkptSrvr,
    /// `UPDATE_GRID_AD`.
    Grid,
    /// `UPDATE_AD_GENERIC`: a table per `MyType`.
    Generic,
}

impl UpdateCommand {
    /// The update a command number asks for.
    ///
    /// ```
    /// use collector::UpdateCommand;
    /// assert_eq!(UpdateCommand::from_command(cedar::command::UPDATE_STARTD_AD_WITH_ACK), Some(UpdateCommand::Startd));
    /// assert_eq!(UpdateCommand::from_command(cedar::command::QUERY_STARTD_ADS), None);
    /// ```
    pub fn from_command(command: i32) -> Option<UpdateCommand> {
        use cedar::command as c;
        Some(match command {
            c::UPDATE_STARTD_AD | c::UPDATE_STARTD_AD_WITH_ACK => UpdateCommand::Startd,
            c::MERGE_STARTD_AD => UpdateCommand::MergeStartd,
            c::UPDATE_SCHEDD_AD => UpdateCommand::Schedd,
            c::UPDATE_SUBMITTOR_AD | c::UPDATE_OWN_SUBMITTOR_AD => UpdateCommand::Submitter,
            c::UPDATE_MASTER_AD => UpdateCommand::Master,
            c::UPDATE_NEGOTIATOR_AD => UpdateCommand::Negotiator,
            c::UPDATE_COLLECTOR_AD => UpdateCommand::Collector,
            c::UPDATE_ACCOUNTING_AD => UpdateCommand::Accounting,
            c::UPDATE_HAD_AD => UpdateCommand::Had,
            c::UPDATE_LICENSE_AD => UpdateCommand::License,
            c::UPDATE_STORAGE_AD => UpdateCommand::Storage,
            c::UPDATE_CKPT_SRVR_AD => UpdateCommand::CkptSrvr,
            c::UPDATE_GRID_AD => UpdateCommand::Grid,
            c::UPDATE_AD_GENERIC => UpdateCommand::Generic,
            _ => return None,
        })
    }

    fn fixed_table(&self) -> Option<Table> {
        Some(match self {
            UpdateCommand::Schedd => Table::Schedd,
            UpdateCommand::Submitter => Table::Submitter,
            UpdateCommand::Master => Table::Master,
            UpdateCommand::Negotiator => Table::Negotiator,
            UpdateCommand::Collector => Table::Collector,
            UpdateCommand::Accounting => Table::Accounting,
            UpdateCommand::Had => Table::Had,
            UpdateCommand::License => Table::License,
            UpdateCommand::Storage => Table::Storage,
            UpdateCommand::CkptSrvr => Table::CkptSrvr,
            UpdateCommand::Grid => Table::Grid,
            _ => return None,
        })
    }
}

/// Why an update was not stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UpdateError {
    /// The ad lacks the attributes its table's key needs (`Name`, an
    /// address, …): HTCondor's "Could not make hashkey --- ignoring ad".
    #[error("the {0} ad has no key (it lacks the attributes its table is keyed on)")]
    NoKey(String),
    /// An `UPDATE_AD_GENERIC` ad without a string `MyType`.
    #[error("a generic ad without MyType")]
    NoType,
    /// A `MERGE_STARTD_AD` for a slot that is not stored.
    #[error("no stored slot ad {0:?} to merge into")]
    NoMatch(String),
    /// Refused by `COLLECTOR_REQUIREMENTS` or the owner check of
    /// `UPDATE_OWN_SUBMITTOR_AD` (see [`crate::validate`]).
    #[error("{0}")]
    Refused(#[from] crate::validate::Refusal),
}

/// What an update did.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Updated {
    /// The stored record (the public ad's).
    pub record: Arc<StoredAd>,
    /// True when the key was new to its table.
    pub inserted: bool,
}

#[derive(Debug, Default)]
struct TableData {
    ads: Vec<Arc<StoredAd>>,
    index: HashMap<String, usize>,
    snapshot: Option<Arc<[Arc<StoredAd>]>>,
    /// The type as the first generic ad spelled it.
    name: Option<Table>,
}

impl TableData {
    fn get(&self, key: &str) -> Option<&Arc<StoredAd>> {
        self.index.get(key).map(|&i| &self.ads[i])
    }

    /// Stores `rec`, replacing the record of the same key; true when new.
    fn put(&mut self, rec: Arc<StoredAd>) -> bool {
        self.snapshot = None;
        match self.index.get(rec.key()) {
            Some(&i) => {
                self.ads[i] = rec;
                false
            }
            None => {
                self.index.insert(rec.key().to_owned(), self.ads.len());
                self.ads.push(rec);
                true
            }
        }
    }

    fn remove(&mut self, key: &str) -> Option<Arc<StoredAd>> {
        let i = self.index.remove(key)?;
        self.snapshot = None;
        let rec = self.ads.swap_remove(i);
        if let Some(moved) = self.ads.get(i) {
            self.index.insert(moved.key().to_owned(), i);
        }
        Some(rec)
    }

    fn retain(&mut self, mut keep: impl FnMut(&StoredAd) -> bool) -> Vec<Arc<StoredAd>> {
        let before = self.ads.len();
        let mut removed = Vec::new();
        self.ads.retain(|r| {
            let k = keep(r);
            if !k {
                removed.push(r.clone());
            }
            k
        });
        if self.ads.len() != before {
            self.snapshot = None;
            self.index = self.ads.iter().enumerate().map(|(i, r)| (r.key().to_owned(), i)).collect();
        }
        removed
    }

    fn snapshot(&mut self) -> Arc<[Arc<StoredAd>]> {
        if let Some(s) = &self.snapshot {
            return s.clone();
        }
        let s: Arc<[Arc<StoredAd>]> = self.ads.iter().cloned().collect();
        self.snapshot = Some(s.clone());
        s
    }
}

/// The collector's ads.
///
/// Every method takes `&self`; share a store between threads with an
/// `Arc`. Writers lock one table for the time it takes to swap a record
/// in; readers take a [`snapshot`](Store::snapshot) and walk it unlocked.
///
/// ```
/// use collector::{Store, Table, UpdateCommand};
/// let store = Store::new(900);
/// let ad: classad::ClassAd = r#"[ MyType = "DaemonMaster"; Name = "master@h"; ClassAdLifetime = 60 ]"#.parse()?;
/// store.update(UpdateCommand::Master, ad, None, 1000)?;
/// assert_eq!(store.count(&Table::Master), 1);
/// assert!(store.get(&Table::Master, "master@h").is_some());
/// assert_eq!(store.housekeep(1060).expired, 0); // 60 s old: not yet past its lifetime
/// assert_eq!(store.housekeep(1061).expired, 1);
/// assert_eq!(store.count(&Table::Master), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Store {
    tables: Mutex<Vec<(Table, Arc<Mutex<TableData>>)>>,
    lifetime: AtomicI64,
    daemon_stats: Mutex<DaemonStats>,
}

/// What [`Store::housekeep`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Housekeeping {
    /// How many ads were past their lifetime (all tables).
    pub expired: usize,
    /// How many per table, for the tables that lost any.
    pub by_table: Vec<(Table, usize)>,
}

impl Store {
    /// An empty store whose ads live `classad_lifetime` seconds unless they
    /// say otherwise (`CLASSAD_LIFETIME`).
    pub fn new(classad_lifetime: i64) -> Store {
        let tables = Table::FIXED
            .iter()
            .chain(std::iter::once(&Table::StartdPrivate))
            .map(|t| (t.clone(), Arc::new(Mutex::new(TableData::default()))))
            .collect();
        Store {
            tables: Mutex::new(tables),
            lifetime: AtomicI64::new(classad_lifetime),
            daemon_stats: Mutex::new(DaemonStats::default()),
        }
    }

    /// The default lifetime in seconds.
    pub fn classad_lifetime(&self) -> i64 {
        self.lifetime.load(Ordering::Relaxed)
    }

    /// Changes the default lifetime (a reconfiguration).
    pub fn set_classad_lifetime(&self, seconds: i64) {
        self.lifetime.store(seconds, Ordering::Relaxed);
    }

    /// Counts an update of the ad of `key` in `table` and writes its
    /// daemon's `Updates*` counters into it (see [`crate::update_stats`]).
    fn count_update(&self, table: &Table, key: &str, ad: &mut ClassAd) {
        let old = self.get(table, key);
        self.daemon_stats.lock().update(table.label(), old.as_ref().map(|r| r.public()), ad);
    }

    fn table(&self, table: &Table) -> Option<Arc<Mutex<TableData>>> {
        let folded = table.folded();
        self.tables.lock().iter().find(|(t, _)| *t == folded).map(|(_, d)| d.clone())
    }

    fn table_or_create(&self, table: &Table) -> Arc<Mutex<TableData>> {
        let folded = table.folded();
        let mut tables = self.tables.lock();
        if let Some((_, d)) = tables.iter().find(|(t, _)| *t == folded) {
            return d.clone();
        }
        let data = Arc::new(Mutex::new(TableData { name: Some(table.clone()), ..TableData::default() }));
        tables.push((folded, data.clone()));
        data
    }

    /// Every table, generic ones after the fixed ones (in the order they
    /// were created), each under the name its first ad gave it.
    pub fn tables(&self) -> Vec<Table> {
        let tables: Vec<_> = self.tables.lock().iter().map(|(t, d)| (t.clone(), d.clone())).collect();
        tables.into_iter().map(|(t, d)| d.lock().name.clone().unwrap_or(t)).collect()
    }

    /// The generic table for `my_type`, if any ad of that type was stored.
    pub fn generic_table(&self, my_type: &str) -> Option<Table> {
        let t = Table::Generic(my_type.to_owned());
        self.table(&t).map(|d| d.lock().name.clone().unwrap_or(t))
    }

    /// The ads of `table` as they are now: a shared slice that later
    /// updates do not change. Cheap when nothing was written since the
    /// last snapshot; one pass over the table's pointers otherwise.
    pub fn snapshot(&self, table: &Table) -> Arc<[Arc<StoredAd>]> {
        match self.table(table) {
            Some(d) => d.lock().snapshot(),
            None => Arc::from(Vec::new()),
        }
    }

    /// The ads of `table` that `constraint` selects (evaluated with the ad
    /// as MY and no TARGET, old ClassAd semantics, as the C++ collector
    /// does; `None` selects all), at most `limit` of them.
    ///
    /// ```
    /// use collector::{Store, Table, UpdateCommand};
    /// let store = Store::new(900);
    /// for (name, cpus) in [("slot1@h", 1), ("slot2@h", 8)] {
    ///     let ad: classad::ClassAd = format!(r#"[ MyType = "Machine"; Name = "{name}"; Cpus = {cpus} ]"#).parse()?;
    ///     store.update(UpdateCommand::Startd, ad, None, 1000)?;
    /// }
    /// let big: classad::Expr = "Cpus > 4".parse()?;
    /// let found = store.select(&Table::Slot, Some(&big), usize::MAX);
    /// assert_eq!(found.len(), 1);
    /// assert_eq!(found[0].key(), "slot2@h");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn select(&self, table: &Table, constraint: Option<&Expr>, limit: usize) -> Vec<Arc<StoredAd>> {
        let snap = self.snapshot(table);
        let opts = EvalOptions::new().semantics(Semantics::Old);
        snap.iter()
            .filter(|r| constraint.is_none_or(|c| EvalContext::new(&opts).my(r.public()).is_true(c)))
            .take(limit)
            .cloned()
            .collect()
    }

    /// The ad stored under `key` in `table`.
    pub fn get(&self, table: &Table, key: &str) -> Option<Arc<StoredAd>> {
        self.table(table)?.lock().get(key).cloned()
    }

    /// How many ads `table` holds.
    pub fn count(&self, table: &Table) -> usize {
        self.table(table).map(|d| d.lock().ads.len()).unwrap_or(0)
    }

    /// How many ads each table holds (every table, empty ones included).
    pub fn counts(&self) -> Vec<(Table, usize)> {
        let tables: Vec<_> = self.tables.lock().iter().map(|(t, d)| (t.clone(), d.clone())).collect();
        tables
            .into_iter()
            .map(|(t, d)| {
                let d = d.lock();
                (d.name.clone().unwrap_or(t), d.ads.len())
            })
            .collect()
    }

    fn put(&self, table: &Table, rec: StoredAd) -> Updated {
        rec.prime();
        let rec = Arc::new(rec);
        let inserted = self.table_or_create(table).lock().put(rec.clone());
        Updated { record: rec, inserted }
    }

    /// Stores an ad as the update `command` does (`CollectorEngine::collect`
    /// and `updateClassAd`):
    ///
    /// * `LastHeardFrom = now` unless the ad has one;
    /// * private attributes are split out beside the public ad;
    /// * for [`UpdateCommand::Startd`], a `MyType = "StartD"` ad goes to the
    ///   daemon table; any other to the slot table, with `private` (the
    ///   startd's private ad, which gets `MyType`, `MyAddress` and `Name`
    ///   from the public ad) in the private table; an old-style slot ad
    ///   (no `HasStartDaemonAd`) of slot 1 also makes a StartD daemon ad;
    /// * [`UpdateCommand::MergeStartd`] merges into a stored slot ad
    ///   (`AuthenticatedIdentity`, `MyType`, `TargetType` excepted);
    /// * [`UpdateCommand::Generic`] stores into the table of its `MyType`.
    ///
    /// Identity attributes (`AuthenticatedIdentity`) are the caller's
    /// business: see [`crate::update`].
    pub fn update(
        &self,
        command: UpdateCommand,
        mut ad: ClassAd,
        private: Option<ClassAd>,
        now: i64,
    ) -> Result<Updated, UpdateError> {
        if command != UpdateCommand::MergeStartd && ad.lookup("LastHeardFrom").is_none() {
            ad.insert("LastHeardFrom", now);
        }
        match command {
            UpdateCommand::Startd => self.update_startd(ad, private, now),
            UpdateCommand::MergeStartd => self.merge_startd(ad),
            UpdateCommand::Generic => {
                let my_type = string_attr(&ad, "MyType").ok_or(UpdateError::NoType)?;
                let table = Table::Generic(my_type.clone());
                let key = make_key(&table, &ad).ok_or(UpdateError::NoKey(my_type))?;
                self.count_update(&table, &key, &mut ad);
                Ok(self.put(&table, StoredAd::new(table.clone(), key, ad)))
            }
            other => {
                let table = other.fixed_table().ok_or_else(|| UpdateError::NoKey(format!("{other:?}")))?;
                let key = make_key(&table, &ad).ok_or_else(|| UpdateError::NoKey(table.to_string()))?;
                self.count_update(&table, &key, &mut ad);
                Ok(self.put(&table, StoredAd::new(table.clone(), key, ad)))
            }
        }
    }

    fn update_startd(&self, mut ad: ClassAd, private: Option<ClassAd>, now: i64) -> Result<Updated, UpdateError> {
        let key = make_key(&Table::Slot, &ad).ok_or_else(|| UpdateError::NoKey("Machine".into()))?;
        let kind = startd_kind(&ad);
        if kind == StartdKind::Daemon {
            self.count_update(&Table::StartdDaemon, &key, &mut ad);
            return Ok(self.put(&Table::StartdDaemon, StoredAd::new(Table::StartdDaemon, key, ad)));
        }
        let daemon = (kind == StartdKind::Old && is_primary_slot(&ad)).then(|| synthesize_daemon_ad(&ad));
        self.count_update(&Table::Slot, &key, &mut ad);
        let updated = self.put(&Table::Slot, StoredAd::new(Table::Slot, key.clone(), ad));
        if let Some(mut d) = daemon {
            // The copy carries the slot ad's private attributes; the
            // record splits them out as it does for the slot ad.
            if d.lookup("LastHeardFrom").is_none() {
                d.insert("LastHeardFrom", now);
            }
            self.count_update(&Table::StartdDaemon, &key, &mut d);
            self.put(&Table::StartdDaemon, StoredAd::new(Table::StartdDaemon, key.clone(), d));
        }
        if let Some(mut pvt) = private {
            let public = updated.record.public();
            for name in ["MyType", "MyAddress", "Name"] {
                match public.lookup(name) {
                    Some(e) => pvt.insert(name, e.clone()),
                    None => pvt.remove(name),
                };
            }
            if pvt.lookup("LastHeardFrom").is_none() {
                pvt.insert("LastHeardFrom", now);
            }
            self.put(&Table::StartdPrivate, StoredAd::new(Table::StartdPrivate, key, pvt));
        }
        Ok(updated)
    }

    fn merge_startd(&self, ad: ClassAd) -> Result<Updated, UpdateError> {
        let key = make_key(&Table::Slot, &ad).ok_or_else(|| UpdateError::NoKey("Machine".into()))?;
        let data = self.table_or_create(&Table::Slot);
        let mut data = data.lock();
        let old = data.get(&key).cloned().ok_or_else(|| UpdateError::NoMatch(key.clone()))?;
        let mut public = old.public().clone();
        let mut private_attrs = ClassAd::new();
        for (name, expr) in old.with_private().iter() {
            private_attrs.insert(name, expr.clone());
        }
        for (name, expr) in ad.iter() {
            let n = name.as_str();
            if ["AuthenticatedIdentity", "MyType", "TargetType"].iter().any(|x| x.eq_ignore_ascii_case(n)) {
                continue;
            }
            if cedar::wire::ad::is_private(n) {
                private_attrs.insert(name, expr.clone());
            } else {
                public.insert(name, expr.clone());
            }
        }
        let rec = StoredAd::with_private_attrs(Table::Slot, key, public, &private_attrs);
        rec.prime();
        let rec = Arc::new(rec);
        data.put(rec.clone());
        Ok(Updated { record: rec, inserted: false })
    }

    /// Removes the ad of `key` from `table`. Removing an old-style slot 1
    /// ad from the slot table also removes the StartD ad made from it, and
    /// the slot's private ad (`CollectorEngine::remove`). Returns how many
    /// public ads went (0 or 1).
    pub fn remove(&self, table: &Table, key: &str) -> usize {
        self.remove_key(table, key, true)
    }

    /// Expires the ad of `key` in `table` at once, as `CollectorEngine::expire`
    /// does for `EXPIRE_INVALIDATED_ADS`: as [`remove`](Store::remove)
    /// (the slot's private ad goes too), except that the StartD ad made
    /// from an old-style slot 1 ad stays.
    pub fn expire(&self, table: &Table, key: &str) -> usize {
        self.remove_key(table, key, false)
    }

    fn remove_key(&self, table: &Table, key: &str, with_synthesized: bool) -> usize {
        let Some(data) = self.table(table) else { return 0 };
        let Some(rec) = data.lock().remove(key) else { return 0 };
        if *table == Table::Slot {
            if let Some(pvt) = self.table(&Table::StartdPrivate) {
                pvt.lock().remove(key);
            }
            if with_synthesized && startd_kind(rec.public()) == StartdKind::Old && is_primary_slot(rec.public()) {
                if let Some(d) = self.table(&Table::StartdDaemon) {
                    d.lock().remove(key);
                }
            }
        }
        1
    }

    /// Removes every ad of `table` (`purgeHashTable`); returns how many
    /// went.
    pub fn purge(&self, table: &Table) -> usize {
        match self.table(table) {
            Some(data) => data.lock().retain(|_| false).len(),
            None => 0,
        }
    }

    /// Removes every ad of `table` that `constraint` selects (evaluated as
    /// in [`select`](Store::select)); for the slot table, the private ads
    /// it selects too. Returns how many public ads went.
    pub fn remove_matching(&self, table: &Table, constraint: &Expr) -> usize {
        let opts = EvalOptions::new().semantics(Semantics::Old);
        let mut removed = 0;
        if let Some(data) = self.table(table) {
            removed = data.lock().retain(|r| !EvalContext::new(&opts).my(r.public()).is_true(constraint)).len();
        }
        if *table == Table::Slot {
            if let Some(pvt) = self.table(&Table::StartdPrivate) {
                pvt.lock().retain(|r| !EvalContext::new(&opts).my(r.public()).is_true(constraint));
            }
        }
        removed
    }

    /// Drops every ad past its lifetime at `now` (seconds since the epoch):
    /// HTCondor's housekeeper, which the server runs on a timer.
    pub fn housekeep(&self, now: i64) -> Housekeeping {
        let lifetime = self.classad_lifetime();
        let tables: Vec<_> = self.tables.lock().iter().map(|(t, d)| (t.clone(), d.clone())).collect();
        let mut out = Housekeeping::default();
        for (table, data) in tables {
            let n = data.lock().retain(|r| !r.expired(now, lifetime)).len();
            if n > 0 {
                if table != Table::StartdPrivate {
                    out.expired += n;
                }
                out.by_table.push((table, n));
            }
        }
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StartdKind {
    /// `MyType = "StartD"`.
    Daemon,
    /// A slot ad of a startd that also sends daemon ads.
    Slot,
    /// A slot ad of an older startd.
    Old,
}

/// `get_real_startd_adtype`.
fn startd_kind(ad: &ClassAd) -> StartdKind {
    match string_attr(ad, "MyType") {
        Some(t) if t.eq_ignore_ascii_case("StartD") => StartdKind::Daemon,
        Some(t) if t.eq_ignore_ascii_case("Slot") => StartdKind::Slot,
        _ if ad.lookup("HasStartDaemonAd").is_some() => StartdKind::Slot,
        _ => StartdKind::Old,
    }
}

/// Slot 1, not dynamic (`is_primary_slot_ad`).
fn is_primary_slot(ad: &ClassAd) -> bool {
    int_attr(ad, "SlotID") == Some(1) && ad.lookup("SlotDynamic").is_none()
}

/// `synthesize_startd_daemon_ad`: the slot ad as a StartD ad, less what
/// only matchmaking uses.
fn synthesize_daemon_ad(slot: &ClassAd) -> ClassAd {
    let mut d = slot.clone();
    d.insert("MyType", "StartD");
    for name in ["Requirements", "Rank", "Start", "State", "Activity", "SlotID", "SlotType", "SlotTypeID"] {
        d.remove(name);
    }
    d
}
