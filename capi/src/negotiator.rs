//! `ClassadNegotiator`: the negotiator's knobs read from an HTCondor
//! configuration (its cycles are [`crate::cycle`]'s).
//!
//! Thread safety: many threads may run cycles with the same negotiator
//! at once, each with its own accountant; only
//! `classad_negotiator_set_resend_matched_jobs` changes a negotiator.

use std::ffi::c_char;

use matchmaker::config::{Config, Loader};
use matchmaker::negotiator::Negotiator;

use crate::error::{guard, ClassadError, ClassadStatus, Failure};
use crate::handles::{free_handle, handle_mut, handle_out};
use crate::strings::{path_in, text_in};

/// A negotiator: its settings (`NEGOTIATOR_*`, `PREEMPTION_*`, group
/// quotas, concurrency limits, ...) and policy expressions, parsed once.
/// Made by `classad_negotiator_new` or `classad_negotiator_load`, freed
/// with `classad_negotiator_free`.
pub struct ClassadNegotiator {
    pub(crate) negotiator: Negotiator,
    pub(crate) config: Config,
}

fn make(config: Config) -> Result<ClassadNegotiator, Failure> {
    let negotiator = Negotiator::from_config(&config)?;
    Ok(ClassadNegotiator { negotiator, config })
}

/// A negotiator configured by `config` (`len` bytes of UTF-8 in HTCondor's
/// configuration language, read as the negotiator reads its files; NULL:
/// HTCondor's defaults), stored in `*out`; the caller frees it with
/// [`classad_negotiator_free`]. A configuration that does not read, or a
/// knob of the wrong type, is `CLASSAD_STATUS_CONFIG` with the line.
///
/// # Safety
/// `config` is NULL or points to `len` bytes; `out` a valid place for a
/// pointer; `error` NULL or one.
#[no_mangle]
pub unsafe extern "C" fn classad_negotiator_new(
    config: *const c_char,
    len: usize,
    out: *mut *mut ClassadNegotiator,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        let loader = Loader::new().subsystem("NEGOTIATOR");
        let config = if config.is_null() {
            loader.defaults()
        } else {
            // SAFETY: the caller's contract.
            let text = unsafe { text_in(config, len, "the configuration") }?;
            loader.parse_str(text, "the configuration")?
        };
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, make(config)?) }
    })
}

/// A negotiator configured by the file `path` (`path_len` bytes of
/// UTF-8), with its includes, as `condor_config_val -negotiator` reads
/// it; a `condor_config_val -negotiator -dump` output is read alone.
/// Stored in `*out`; the caller frees it with [`classad_negotiator_free`].
///
/// # Safety
/// `path` points to `path_len` bytes; `out` a valid place for a pointer;
/// `error` NULL or one.
#[no_mangle]
pub unsafe extern "C" fn classad_negotiator_load(
    path: *const c_char,
    path_len: usize,
    out: *mut *mut ClassadNegotiator,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let path = unsafe { path_in(path, path_len, "the configuration's file name") }?
            .ok_or_else(|| Failure::null("path"))?;
        let config = Loader::new().subsystem("NEGOTIATOR").load_file(&path)?;
        // SAFETY: the caller's contract.
        unsafe { handle_out(out, make(config)?) }
    })
}

/// Frees a negotiator. NULL is allowed.
///
/// # Safety
/// `negotiator` is NULL or made by this library, freed once.
#[no_mangle]
pub unsafe extern "C" fn classad_negotiator_free(negotiator: *mut ClassadNegotiator) {
    // SAFETY: the caller's contract.
    unsafe { free_handle(negotiator) }
}

/// Makes the schedd's side of later cycles offer jobs matched in an
/// earlier spin again (`false`, the default: a matched job is not offered
/// twice), as a schedd whose matches are all declined does: pools of
/// advertised test slots (`negotiator-sim cycle --resend-matched-jobs`).
///
/// # Safety
/// `negotiator` is a live negotiator no other thread uses; `error` NULL
/// or a valid place for a pointer.
#[no_mangle]
pub unsafe extern "C" fn classad_negotiator_set_resend_matched_jobs(
    negotiator: *mut ClassadNegotiator,
    resend: bool,
    error: *mut *mut ClassadError,
) -> ClassadStatus {
    guard(error, || {
        // SAFETY: the caller's contract.
        let negotiator = unsafe { handle_mut(negotiator, "the negotiator") }?;
        negotiator.negotiator.settings.resend_matched_jobs = resend;
        Ok(())
    })
}
