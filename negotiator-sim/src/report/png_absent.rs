//! PNG charts in a `negotiator-sim` built without its `png` feature (the
//! quick build the README's first command makes): rendering one is an
//! error that says so; the report's page and its SVG charts are made as
//! always.

use super::chart::Chart;
use super::ReportError;

/// The image's width in pixels.
pub const WIDTH: u32 = 760;
/// The image's height in pixels.
pub const HEIGHT: u32 = 400;

/// Fails: this build draws no PNG.
pub fn render(_chart: &Chart) -> Result<Vec<u8>, ReportError> {
    Err(ReportError::Png(
        "this negotiator-sim was built without PNG charts (the `png` feature, on by default): \
         give --no-png, or build it with its default features"
            .to_string(),
    ))
}
