//! Reading ads from text: `parseAds` and its helpers, `quote` and
//! `unquote`.

use classad::format::{self, Format};
use classad::{Expr, Literal};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::ad::PyClassAd;
use crate::errors::ClassAdException;

/// The ads of `text` in `format_name` (`"new"`, `"old"`, `"json"`,
/// `"xml"`, or `"auto"` to detect it), parsed without holding the GIL.
#[pyfunction]
#[pyo3(signature = (text, format_name))]
pub(crate) fn parse_ads(py: Python<'_>, text: &str, format_name: &Bound<'_, PyAny>) -> PyResult<Vec<PyClassAd>> {
    // classad2's `ParserType` members are integers.
    let format_name = match format_name.extract::<i64>() {
        Ok(-1 | 4) => "auto".to_owned(),
        Ok(0) => "old".to_owned(),
        Ok(1) => "xml".to_owned(),
        Ok(2) => "json".to_owned(),
        Ok(3) => "new".to_owned(),
        _ => format_name.extract::<String>()?,
    };
    let format = match format_name.to_ascii_lowercase().as_str() {
        "auto" => None,
        "new" => Some(Format::New),
        "old" | "long" => Some(Format::Old),
        "json" => Some(Format::Json),
        "xml" => Some(Format::Xml),
        other => return Err(PyValueError::new_err(format!("unknown format {other:?}"))),
    };
    let text = text.to_owned();
    let ads = py
        .detach(|| format::parse_ads(&text, format))
        .map_err(|e| ClassAdException::new_err(format!("Unable to parse input stream into a ClassAd: {e}")))?;
    Ok(ads.into_iter().map(|ad| PyClassAd { ad }).collect())
}

/// The string literal (new syntax, quotes and escapes) whose value is `text`.
#[pyfunction]
pub(crate) fn quote(text: &str) -> String {
    Expr::literal(Literal::Str(text.into())).to_string()
}

/// The value of the string literal `text`.
#[pyfunction]
pub(crate) fn unquote(text: &str) -> PyResult<String> {
    let Ok(expr) = classad::parse_expr(text) else {
        return Err(PyValueError::new_err("String does not parse to a ClassAd literal"));
    };
    match expr.as_literal() {
        Some(Literal::Str(s)) => Ok(s.to_string()),
        _ => Err(PyValueError::new_err("String does not parse to a ClassAd literal")),
    }
}
