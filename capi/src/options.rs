//! The choices callers pass: the format of ads in text, and the
//! semantics of evaluation. They are integer types with named constants
//! (not C enums) because C lets any integer through an enum parameter and
//! a Rust enum must never hold an unlisted value: each function checks
//! the number it is given.

use classad::format::Format;
use classad::{EvalOptions, Semantics};

use crate::error::Failure;

/// The text form of ads: one of the `CLASSAD_FORMAT_*` constants.
pub type ClassadFormat = u32;

/// Reading: detected from the first bytes (`[` new, `{`/`[{` JSON, `<`
/// XML, otherwise old). Writing: the new syntax.
pub const CLASSAD_FORMAT_AUTO: ClassadFormat = 0;
/// The new syntax: `[ Name = value; ... ]`.
pub const CLASSAD_FORMAT_NEW: ClassadFormat = 1;
/// The old ("long") syntax: one `Name = value` per line, ads separated by
/// blank lines (`condor_status -long`).
pub const CLASSAD_FORMAT_OLD: ClassadFormat = 2;
/// JSON, as `condor_status -json` writes it.
pub const CLASSAD_FORMAT_JSON: ClassadFormat = 3;
/// XML, as `condor_status -xml` writes it.
pub const CLASSAD_FORMAT_XML: ClassadFormat = 4;

/// How names without a scope are looked up when evaluating: one of the
/// `CLASSAD_SEMANTICS_*` constants.
pub type ClassadSemantics = u32;

/// libclassad's default: a name is looked up in MY (and its parents) only.
pub const CLASSAD_SEMANTICS_NEW: ClassadSemantics = 0;
/// HTCondor's daemons and tools: a name missing from MY is looked up in
/// TARGET (what `Requirements` in a real pool relies on).
pub const CLASSAD_SEMANTICS_OLD: ClassadSemantics = 1;

/// The format to read with (`None`: detect).
pub(crate) fn read_format(format: ClassadFormat) -> Result<Option<Format>, Failure> {
    Ok(match format {
        CLASSAD_FORMAT_AUTO => None,
        CLASSAD_FORMAT_NEW => Some(Format::New),
        CLASSAD_FORMAT_OLD => Some(Format::Old),
        CLASSAD_FORMAT_JSON => Some(Format::Json),
        CLASSAD_FORMAT_XML => Some(Format::Xml),
        _ => return Err(Failure::argument(format!("{format} is not a CLASSAD_FORMAT_* value"))),
    })
}

/// The format to write in.
pub(crate) fn write_format(format: ClassadFormat) -> Result<Format, Failure> {
    Ok(read_format(format)?.unwrap_or(Format::New))
}

/// The semantics, as Rust's.
pub(crate) fn semantics(semantics: ClassadSemantics) -> Result<Semantics, Failure> {
    match semantics {
        CLASSAD_SEMANTICS_NEW => Ok(Semantics::New),
        CLASSAD_SEMANTICS_OLD => Ok(Semantics::Old),
        _ => Err(Failure::argument(format!("{semantics} is not a CLASSAD_SEMANTICS_* value"))),
    }
}

/// Evaluation options with these semantics.
pub(crate) fn eval_options(s: ClassadSemantics) -> Result<EvalOptions, Failure> {
    Ok(EvalOptions::new().semantics(semantics(s)?))
}
