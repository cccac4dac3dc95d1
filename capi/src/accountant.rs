//! `ClassadAccountant`: the submitters' priorities and usage, which a
//! cycle reads and charges.
//!
//! Thread safety: an accountant is used by one thread at a time (a cycle
//! changes it); the reading functions may run from many threads while no
//! cycle runs on it.

use std::ffi::c_char;

use matchmaker::accountant::{Accountant, AccountantConfig};

use crate::error::{guard, ClassadError, ClassadStatus, Failure};
use crate::handles::{free_handle, handle, handle_out, value_out};
use crate::negotiator::ClassadNegotiator;
use crate::strings::{path_in, string_out, text_in, ClassadString};

/// Priorities and usage. Made by `classad_accountant_new` (nobody has a
/// history) or `classad_accountant_load` (from an accountant log), freed
/// with `classad_accountant_free`.
pub struct ClassadAccountant(pub(crate) Accountant);

/// One submitter's priority.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassadPriority {
    /// The real priority (decayed usage; 0.5 is the lowest).
    pub real_priority: f64,
    /// The priority factor.
    pub priority_factor: f64,
    /// The effective priority: real × factor (smaller is better).
    pub effective_priority: f64,
}

fn accountant_config(negotiator: &ClassadNegotiator) -> Result<AccountantConfig, Failure> {
    Ok(AccountantConfig::from_config(&negotiator.config)?)
}

/// A new accountant with the settings of `negotiator`'s configuration
/// (half-life, default factors, groups) and no history: every submitter
/// at the lowest priority. Stored in `*out`; the caller frees it with
/// [`classad_accountant_free`].
///
/// # Safety
/// `negotiator` is a live negotiator; `out` a valid place for a pointer;
/// `error` NULL or one.
#[no_mangle]
pub unsafe extern "C" fn classad_accountant_new(
    negotiator: *const ClassadNegotiator,
    out: *mut *mut ClassadAccountant,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let negotiator = unsafe { handle(negotiator, "the negotiator") }?;
        let acct = Accountant::new(accountant_config(negotiator)?);
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, ClassadAccountant(acct)) }
    })
}

/// Reads the accountant log `path` (`Accountantnew.log` of the central
/// manager's spool; `path_len` bytes of UTF-8) with the settings of
/// `negotiator`'s configuration, without writing to it: changes stay in
/// memory. A missing file or one that is not a log is
/// `CLASSAD_STATUS_IO`; a torn last record is left out, as HTCondor
/// leaves it. Stored in `*out`; the caller frees it with
/// [`classad_accountant_free`].
///
/// # Safety
/// `negotiator` is a live negotiator; `path` points to `path_len` bytes;
/// `out` is a valid place for a pointer; `error` NULL or one.
#[no_mangle]
pub unsafe extern "C" fn classad_accountant_load(
    negotiator: *const ClassadNegotiator,
    path: *const c_char,
    path_len: usize,
    out: *mut *mut ClassadAccountant,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (negotiator, path) = unsafe {
            (
                handle(negotiator, "the negotiator")?,
                path_in(path, path_len, "the log's file name")?.ok_or_else(|| Failure::null("path"))?,
            )
        };
        let (acct, _report) = matchmaker::snapshot::read_accountant_log(accountant_config(negotiator)?, &path)?;
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, ClassadAccountant(acct)) }
    })
}

/// Frees an accountant. NULL is allowed.
///
/// # Safety
/// `accountant` is NULL or made by this library, freed once.
#[no_mangle]
pub unsafe extern "C" fn classad_accountant_free(accountant: *mut ClassadAccountant) {
    // SAFETY: the caller's contract.
    unsafe { free_handle(accountant) }
}

/// When the priorities were last updated (seconds since 1970; 0: never).
/// 0 when `accountant` is NULL.
///
/// # Safety
/// `accountant` is NULL or a live accountant.
#[no_mangle]
pub unsafe extern "C" fn classad_accountant_last_update(accountant: *const ClassadAccountant) -> i64 {
    // SAFETY: the caller's contract.
    unsafe { accountant.as_ref() }.map_or(0, |a| a.0.last_update())
}

/// The priority of `submitter` (`name@domain`, `name_len` bytes), in
/// `*out`; a submitter without a record has the lowest priority and the
/// default factor.
///
/// # Safety
/// `accountant` is a live accountant; `name` points to `name_len` bytes;
/// `out` a valid place for a [`ClassadPriority`]; `error` NULL or a valid
/// place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_accountant_priority(
    accountant: *const ClassadAccountant,
    name: *const c_char,
    name_len: usize,
    out: *mut ClassadPriority,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let (acct, name) = unsafe { (handle(accountant, "the accountant")?, text_in(name, name_len, "the name")?) };
        let priority = ClassadPriority {
            real_priority: acct.0.real_priority(name),
            priority_factor: acct.0.priority_factor(name),
            effective_priority: acct.0.effective_priority(name),
        };
        // SAFETY: the caller's contract.
        unsafe { value_out(out, priority) }
    })
}

/// Every submitter's and group's priority as `condor_userprio -allusers
/// -long` prints them (one ad in the old syntax: `Name1`, `Priority1`,
/// ...), in `*out`, which the caller frees with `classad_string_free`.
///
/// # Safety
/// `accountant` is a live accountant; `out` a valid place for a
/// [`ClassadString`]; `error` NULL or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_accountant_userprio(
    accountant: *const ClassadAccountant,
    out: *mut ClassadString,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let acct = unsafe { handle(accountant, "the accountant") }?;
        let text = matchmaker::userprio_ad::long_form(&acct.0.priority_rows(), acct.0.last_update());
        // SAFETY: the caller's contract.
        unsafe { string_out(out, &text) }
    })
}
