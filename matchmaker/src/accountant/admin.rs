//! The admin operations (`condor_userprio`'s edits): priorities, factors,
//! ceilings, floors, usage and record times set, usage reset, records
//! deleted, with `condor_userprio`'s checks.

use super::record::{CustomerAttr, CUSTOMER_PREFIX};
use super::{Accountant, AccountantError, MIN_PRIORITY_FACTOR};

impl Accountant {
    /// `condor_userprio -setprio NAME VALUE`: sets the real priority.
    pub fn set_priority(&mut self, name: &str, priority: f64) -> Result<(), AccountantError> {
        check_submitter(name, "update the priority of")?;
        check_finite("priority", priority)?;
        self.set_customer_real(name, CustomerAttr::Priority, priority)?;
        self.commit(true)
    }

    /// `condor_userprio -setfactor NAME VALUE`: sets the priority factor (≥ 1).
    pub fn set_priority_factor(&mut self, name: &str, factor: f64) -> Result<(), AccountantError> {
        check_submitter(name, "update the priority of")?;
        check_finite("priority factor", factor)?;
        if factor < MIN_PRIORITY_FACTOR {
            return Err(AccountantError::Invalid("Priority factors must be greater than or equal to 1.".into()));
        }
        self.set_customer_real(name, CustomerAttr::PriorityFactor, factor)?;
        self.commit(true)
    }

    /// `condor_userprio -setceiling NAME VALUE`: most weighted resources the
    /// submitter may use (-1: no ceiling).
    pub fn set_ceiling(&mut self, name: &str, ceiling: i64) -> Result<(), AccountantError> {
        check_submitter(name, "update the ceiling of")?;
        if ceiling < -1 {
            return Err(AccountantError::Invalid("ceiling must be greater than or equal to -1.".into()));
        }
        self.set_customer_int(name, CustomerAttr::Ceiling, ceiling)?;
        self.commit(true)
    }

    /// `condor_userprio -setfloor NAME VALUE`: weighted resources the
    /// submitter is served first (0: no floor).
    pub fn set_floor(&mut self, name: &str, floor: i64) -> Result<(), AccountantError> {
        check_submitter(name, "update the floor of")?;
        if floor < 0 {
            return Err(AccountantError::Invalid("floor must be greater than or equal to 0.".into()));
        }
        self.set_customer_int(name, CustomerAttr::Floor, floor)?;
        self.commit(true)
    }

    /// `condor_userprio -setaccum NAME VALUE`: sets the weighted accumulated
    /// usage (seconds).
    pub fn set_accumulated_usage(&mut self, name: &str, usage: f64) -> Result<(), AccountantError> {
        check_submitter(name, "update the Accumulated usage of")?;
        check_finite("accumulated usage", usage)?;
        if usage < 0.0 {
            return Err(AccountantError::Invalid("Usage must be greater than 0 seconds".into()));
        }
        self.set_customer_real(name, CustomerAttr::WeightedAccumulatedUsage, usage)?;
        self.commit(true)
    }

    /// `condor_userprio -setbegin NAME EPOCH`: sets when usage began.
    pub fn set_begin_time(&mut self, name: &str, time: i64) -> Result<(), AccountantError> {
        check_submitter(name, "update the begin usage time of")?;
        if time < 0 {
            return Err(AccountantError::Invalid("Time must be greater than 0 seconds".into()));
        }
        self.set_customer_int(name, CustomerAttr::BeginUsageTime, time)?;
        self.commit(true)
    }

    /// `condor_userprio -setlast NAME EPOCH`: sets when usage was last seen.
    pub fn set_last_time(&mut self, name: &str, time: i64) -> Result<(), AccountantError> {
        check_submitter(name, "update the last usage time of")?;
        if time < 0 {
            return Err(AccountantError::Invalid("Time must be greater than 0 seconds".into()));
        }
        self.set_customer_int(name, CustomerAttr::LastUsageTime, time)?;
        self.commit(true)
    }

    /// `condor_userprio -resetusage NAME`: accumulated usage back to zero,
    /// usage beginning at `now`.
    pub fn reset_usage(&mut self, name: &str, now: i64) -> Result<(), AccountantError> {
        check_submitter(name, "update the priority of")?;
        self.reset_one(name, now)?;
        self.commit(true)
    }

    /// `condor_userprio -resetall`: every record's accumulated usage back to
    /// zero, usage beginning at `now`.
    pub fn reset_all_usage(&mut self, now: i64) -> Result<(), AccountantError> {
        let names: Vec<String> = self.customers.iter().map(|c| c.name.clone()).collect();
        for name in names {
            self.reset_one(&name, now)?;
            self.commit(true)?;
        }
        Ok(())
    }

    fn reset_one(&mut self, name: &str, now: i64) -> Result<(), AccountantError> {
        self.set_customer_real(name, CustomerAttr::AccumulatedUsage, 0.0)?;
        self.set_customer_real(name, CustomerAttr::WeightedAccumulatedUsage, 0.0)?;
        self.set_customer_int(name, CustomerAttr::BeginUsageTime, now)
    }

    /// `condor_userprio -delete NAME`: removes a record. Returns whether
    /// there was one.
    pub fn delete_record(&mut self, name: &str) -> Result<bool, AccountantError> {
        check_submitter(name, "delete")?;
        let Some(index) = self.customer_at(name) else {
            return Ok(false);
        };
        if self.log.is_some() {
            self.pending.destroy(&format!("{CUSTOMER_PREFIX}{name}"))?;
        }
        self.remove_customer_at(index);
        self.commit(true)?;
        Ok(true)
    }
}

/// The check `condor_userprio` makes before an edit: the name must be a
/// full submitter name (`user@domain`). The message is `condor_userprio`'s.
fn check_submitter(name: &str, what: &str) -> Result<(), AccountantError> {
    if !name.contains('@') {
        let message = match what {
            "delete" => "You must specify the full name of the record you wish\n\tto delete (user@uid.domain or user@full.host.name)".to_string(),
            "update the floor of" | "update the ceiling of" => format!(
                "You must specify the full name of the submittor you wish\n\tto {what} (user@uid.domain or user@full.host.name) (not {name})"
            ),
            _ => format!(
                "You must specify the full name of the submittor you wish\n\tto {what} (user@uid.domain or user@full.host.name)"
            ),
        };
        return Err(AccountantError::Invalid(message));
    }
    if name.contains(char::is_whitespace) {
        return Err(AccountantError::Invalid(format!("`{name}` holds blanks")));
    }
    Ok(())
}

/// A real set by an edit must be a number the log can hold and its readers
/// take back: not NaN and not infinite (HTCondor's `atof` lets both through,
/// and the negotiator then computes with them).
fn check_finite(what: &str, value: f64) -> Result<(), AccountantError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(AccountantError::Invalid(format!("the {what} must be a finite number, not {value}")))
    }
}
