//! Persistence: the accountant loaded from its log (HTCondor's
//! `Accountantnew.log`) or a log's text, its changes committed to the log,
//! the log compacted, and a log replayed into it.

use std::path::Path;

use super::record::{self, CustomerRecord, ResourceRecord, ACCOUNTANT_KEY, CUSTOMER_PREFIX, RESOURCE_PREFIX};
use super::{name_hash, Accountant, AccountantConfig, AccountantError};
use crate::classad_log::{self, LoadReport, LogError, LogTable, LogWriter, Records};

impl Accountant {
    /// Loads the accountant's log at `path` (HTCondor's `Accountantnew.log`,
    /// or one written here) and keeps appending to it. A missing file starts
    /// a new log. A torn tail (a crash in the middle of a write) is ignored
    /// with a warning in the report, and the log is compacted at once so that
    /// new records never follow it; `now` dates a new log's header.
    ///
    /// As HTCondor's negotiator does when it starts, a record is made for
    /// every configured group (and `<none>`) that has none.
    ///
    /// The log's lock ([`classad_log::LogLock`]) is taken before the log is
    /// read and held until the accountant is dropped (or
    /// [`Accountant::close_log`]): a second writer of the same log waits up
    /// to [`AccountantConfig::lock_timeout`] and then fails with
    /// [`LogError::Locked`]. A file that is not an accountant log is refused
    /// ([`LogError::NotALog`]) and left as it is; when a torn or garbage
    /// tail is cleaned, the old file is kept as `<log>.corrupt-<n>` (said in
    /// the report's warnings).
    pub fn open(config: AccountantConfig, path: &Path, now: i64) -> Result<(Self, LoadReport), AccountantError> {
        let lock = classad_log::LogLock::acquire(path, config.lock_timeout)?;
        let (mut acct, mut report) = Self::load(config, path)?;
        let log = LogWriter::open(lock, path, &mut report, now, || acct.snapshot())?;
        acct.log = Some(log);
        acct.ensure_group_records()?;
        Ok((acct, report))
    }

    /// Stops writing to the log and releases its lock; later changes stay
    /// in memory.
    pub fn close_log(&mut self) {
        self.log = None;
    }

    /// Reads the log at `path` without writing to it (a missing file is an
    /// empty accountant). Changes made afterwards stay in memory.
    pub fn load(config: AccountantConfig, path: &Path) -> Result<(Self, LoadReport), AccountantError> {
        let mut acct = Self::new(config);
        acct.reserve_for(std::fs::metadata(path).map_or(0, |m| m.len() as usize));
        let report = classad_log::read_log(path, &mut acct)?;
        Ok((acct, report))
    }

    /// Reads a log from its text, without a file (see [`Accountant::load`]).
    pub fn from_log_text(config: AccountantConfig, text: &str) -> Result<(Self, LoadReport), AccountantError> {
        let mut acct = Self::new(config);
        acct.reserve_for(text.len());
        let report = classad_log::read_log_str(text, &mut acct)?;
        Ok((acct, report))
    }

    /// Room for the records of a log of `bytes` bytes (a compacted record
    /// takes some 700 bytes), so that loading does not rehash.
    fn reserve_for(&mut self, bytes: usize) {
        let records = bytes / 1024;
        self.customers.reserve(records);
        let customers = &self.customers;
        self.customer_index.reserve(records, |&i| name_hash(&customers[i].name));
    }

    /// Writes the pending transaction to the log (if there is one).
    pub(super) fn commit(&mut self, durable: bool) -> Result<(), AccountantError> {
        if let Some(log) = &mut self.log {
            log.commit(&self.pending, durable)?;
        }
        self.pending.clear();
        Ok(())
    }

    /// Compacts the log when it has grown past the size limit; the limit then
    /// becomes at least twice the compacted size.
    pub(super) fn maybe_compact(&mut self) {
        let Some(size) = self.log.as_ref().map(|l| l.size()) else {
            return;
        };
        if size <= self.max_log_size {
            return;
        }
        if let Err(e) = self.compact() {
            self.warnings.push(format!("compacting the accountant's log failed: {e}"));
            return;
        }
        let size = self.log.as_ref().map_or(0, |l| l.size());
        if size * 2 > self.max_log_size {
            self.max_log_size = size * 2;
        }
    }

    /// Rewrites the log as one generation holding the current records only.
    /// Records appended to the log by a process that does not take its lock
    /// are read in first, so that compacting keeps them.
    pub fn compact(&mut self) -> Result<(), AccountantError> {
        let Some(mut log) = self.log.take() else {
            return Ok(());
        };
        let result = self.compact_into(&mut log);
        self.log = Some(log);
        result
    }

    fn compact_into(&mut self, log: &mut LogWriter) -> Result<(), AccountantError> {
        if let Some(tail) = log.unseen_tail()? {
            let report = classad_log::read_log_str(&tail, self)?;
            self.warnings.push(format!(
                "{}: {} bytes appended by a process that does not hold the log's lock were read in",
                log.path().display(),
                tail.len()
            ));
            self.warnings.extend(report.warnings);
        }
        let state = self.snapshot()?;
        log.compact(&state)?;
        Ok(())
    }

    /// Every record as log records (what a compacted log holds).
    pub fn snapshot(&self) -> Result<Records, LogError> {
        let mut out = Records::default();
        if self.has_accountant_record {
            out.new_ad(ACCOUNTANT_KEY, "*")?;
            if self.last_update != 0 {
                out.set(ACCOUNTANT_KEY, "LastUpdateTime", &self.last_update.to_string())?;
            }
            for (n, v) in &self.accountant_other {
                out.set(ACCOUNTANT_KEY, n, v)?;
            }
        }
        for c in &self.customers {
            let key = format!("{CUSTOMER_PREFIX}{}", c.name);
            out.new_ad(&key, "*")?;
            for (n, v) in c.attributes() {
                out.set(&key, n, &v)?;
            }
        }
        for r in &self.resources {
            let key = format!("{RESOURCE_PREFIX}{}", r.name);
            out.new_ad(&key, "*")?;
            for (n, v) in r.attributes() {
                out.set(&key, n, &v)?;
            }
        }
        for (key, my_type, attrs) in &self.others {
            out.new_ad(key, my_type)?;
            for (n, v) in attrs {
                out.set(key, n, v)?;
            }
        }
        Ok(out)
    }
}

/// Replaying a log into the accountant.
impl LogTable for Accountant {
    fn new_ad(&mut self, key: &str, my_type: &str) {
        if let Some(name) = key.strip_prefix(CUSTOMER_PREFIX) {
            match self.customer_at(name) {
                Some(i) => self.customers[i] = CustomerRecord::new(name),
                None => {
                    self.insert_customer(CustomerRecord::new(name));
                }
            }
        } else if let Some(name) = key.strip_prefix(RESOURCE_PREFIX) {
            match self.resource_at(name) {
                Some(i) => self.resources[i] = ResourceRecord::new(name),
                None => {
                    self.insert_resource(ResourceRecord::new(name));
                }
            }
        } else if key == ACCOUNTANT_KEY {
            self.has_accountant_record = true;
            self.last_update = 0;
            self.accountant_other.clear();
        } else {
            self.others.retain(|(k, _, _)| k != key);
            self.others.push((key.to_string(), my_type.to_string(), Vec::new()));
        }
    }

    fn destroy_ad(&mut self, key: &str) {
        if let Some(name) = key.strip_prefix(CUSTOMER_PREFIX) {
            if let Some(i) = self.customer_at(name) {
                self.remove_customer_at(i);
            }
        } else if let Some(name) = key.strip_prefix(RESOURCE_PREFIX) {
            self.forget_resource(name);
        } else if key == ACCOUNTANT_KEY {
            self.has_accountant_record = false;
            self.last_update = 0;
            self.accountant_other.clear();
        } else {
            self.others.retain(|(k, _, _)| k != key);
        }
    }

    fn set_attribute(&mut self, key: &str, name: &str, value: &str) {
        if let Some(customer) = key.strip_prefix(CUSTOMER_PREFIX) {
            // A log sets a record's attributes one after another: try the
            // record set last before hashing the name.
            let i = match self.last_set.filter(|&i| self.customers.get(i).is_some_and(|c| c.name == customer)) {
                Some(i) => Some(i),
                None => self.customer_at(customer),
            };
            if let Some(i) = i {
                self.last_set = Some(i);
                self.customers[i].set_text(name, value);
            }
        } else if let Some(resource) = key.strip_prefix(RESOURCE_PREFIX) {
            if let Some(i) = self.resource_at(resource) {
                self.resources[i].set_text(name, value);
            }
        } else if key == ACCOUNTANT_KEY {
            if !self.has_accountant_record {
                return;
            }
            if name.eq_ignore_ascii_case("LastUpdateTime") {
                self.last_update = record::parse_number(value).map_or(0, |n| n.as_i64());
            } else {
                self.accountant_other.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                self.accountant_other.push((name.to_string(), value.to_string()));
            }
        } else if let Some((_, _, attrs)) = self.others.iter_mut().find(|(k, _, _)| k == key) {
            attrs.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            attrs.push((name.to_string(), value.to_string()));
        }
    }

    fn delete_attribute(&mut self, key: &str, name: &str) {
        if let Some(customer) = key.strip_prefix(CUSTOMER_PREFIX) {
            if let Some(i) = self.customer_at(customer) {
                self.customers[i].delete(name);
            }
        } else if let Some(resource) = key.strip_prefix(RESOURCE_PREFIX) {
            if let Some(i) = self.resource_at(resource) {
                self.resources[i].delete(name);
            }
        } else if key == ACCOUNTANT_KEY {
            if name.eq_ignore_ascii_case("LastUpdateTime") {
                self.last_update = 0;
            } else {
                self.accountant_other.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            }
        } else if let Some((_, _, attrs)) = self.others.iter_mut().find(|(k, _, _)| k == key) {
            attrs.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        }
    }
}
