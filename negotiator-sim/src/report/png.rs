//! Charts as PNG images, drawn by plotters into memory and encoded by the
//! `png` crate.
//!
//! Text is set in DejaVu Sans, which the program carries inside it (the
//! `dejavu` crate's copy of DejaVu Sans 2.37): no font is looked up on
//! the system, so a chart's pixels are the same on every machine, and the
//! PNG holds no time stamp, so its bytes are too.
//!
//! ```
//! use negotiator_sim::report::chart::{Chart, Series};
//!
//! let mut c = Chart::new("demo", "Demo", "x", "y");
//! c.series.push(Series::line("up", vec![(0.0, 0.0), (10.0, 10.0)]));
//! c.fit();
//! let png = negotiator_sim::report::png::render(&c)?;
//! assert_eq!(&png[1..4], b"PNG");
//! # Ok::<(), negotiator_sim::report::ReportError>(())
//! ```

use std::sync::Once;

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use super::chart::{legend_split, tick_label, tick_step, Chart, Style};
use super::svg::shorten;
use super::ReportError;

/// The image's width in pixels.
pub const WIDTH: u32 = 760;
/// The image's height in pixels.
pub const HEIGHT: u32 = 400;
const FONT: &str = "sans-serif";

static FONT_ONCE: Once = Once::new();

fn register() {
    FONT_ONCE.call_once(|| {
        // The bytes are a valid TrueType font; should they not be, text
        // drawing reports an error below.
        let _ = register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
    });
}

/// A `#rrggbb` colour (black for anything else).
fn rgb(hex: &str) -> RGBColor {
    let h = hex.trim_start_matches('#');
    let byte = |i: usize| h.get(i..i + 2).and_then(|s| u8::from_str_radix(s, 16).ok()).unwrap_or(0);
    RGBColor(byte(0), byte(2), byte(4))
}

fn draw_error<E: std::fmt::Debug>(e: E) -> ReportError {
    ReportError::Png(format!("{e:?}"))
}

/// The chart as PNG bytes.
pub fn render(chart: &Chart) -> Result<Vec<u8>, ReportError> {
    register();
    let mut pixels = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let (plot, legend) = root.split_horizontally(590);
        let (x0, x1) = chart.x_range;
        let (y0, y1) = chart.y_range;
        let mut ctx = ChartBuilder::on(&plot)
            .caption(&chart.title, (FONT, 17))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(draw_error)?;
        let xstep = tick_step(x1 - x0);
        let ystep = tick_step(y1 - y0);
        let xfmt = |x: &f64| tick_label(*x, xstep);
        let yfmt = |y: &f64| tick_label(*y, ystep);
        ctx.configure_mesh()
            .x_desc(chart.x_label.as_str())
            .y_desc(chart.y_label.as_str())
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 13))
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(221, 221, 221))
            .draw()
            .map_err(draw_error)?;
        let clamp = |(x, y): (f64, f64)| (x, y.clamp(y0, y1));
        for series in &chart.series {
            let colour = rgb(&series.colour);
            let pts: Vec<(f64, f64)> =
                series.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).map(clamp).collect();
            match &series.style {
                Style::Line => {
                    ctx.draw_series(std::iter::once(PathElement::new(pts, colour.stroke_width(2))))
                        .map_err(draw_error)?;
                }
                Style::Dashed => {
                    ctx.draw_series(std::iter::once(DashedPathElement::new(pts, 6, 4, colour.stroke_width(2))))
                        .map_err(draw_error)?;
                }
                Style::Area { lower } => {
                    let back = series.points.iter().zip(lower).rev().map(|(&(x, _), &l)| clamp((x, l)));
                    let outline: Vec<(f64, f64)> = pts.iter().copied().chain(back).collect();
                    ctx.draw_series(std::iter::once(Polygon::new(outline, colour.mix(0.85).filled())))
                        .map_err(draw_error)?;
                }
                Style::Bars { width } => {
                    let bars = pts.iter().map(|&(x, y)| {
                        Rectangle::new(
                            [(x - width / 2.0, y0.max(0.0)), (x + width / 2.0, y)],
                            colour.mix(0.85).filled(),
                        )
                    });
                    ctx.draw_series(bars).map_err(draw_error)?;
                }
            }
        }
        let (named, more) = legend_split(chart.series.len());
        for (i, series) in chart.series.iter().take(named).enumerate() {
            let y = 48 + 18 * i as i32;
            let colour = rgb(&series.colour);
            match series.style {
                Style::Line => legend
                    .draw(&PathElement::new(vec![(12, y), (30, y)], colour.stroke_width(2)))
                    .map_err(draw_error)?,
                Style::Dashed => legend
                    .draw(&DashedPathElement::new(vec![(12, y), (30, y)], 4, 3, colour.stroke_width(2)))
                    .map_err(draw_error)?,
                Style::Area { .. } | Style::Bars { .. } => {
                    legend.draw(&Rectangle::new([(12, y - 5), (30, y + 5)], colour.filled())).map_err(draw_error)?
                }
            }
            legend
                .draw(&Text::new(shorten(&series.name, 24), (36, y - 7), (FONT, 12).into_font().color(&BLACK)))
                .map_err(draw_error)?;
        }
        if more > 0 {
            let y = 48 + 18 * named as i32;
            legend
                .draw(&Text::new(format!("and {more} more"), (36, y - 7), (FONT, 12).into_font().color(&BLACK)))
                .map_err(draw_error)?;
        }
        root.present().map_err(draw_error)?;
    }
    encode(&pixels, WIDTH, HEIGHT)
}

/// RGB pixels as a PNG file's bytes.
fn encode(pixels: &[u8], width: u32, height: u32) -> Result<Vec<u8>, ReportError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(draw_error)?;
    writer.write_image_data(pixels).map_err(draw_error)?;
    writer.finish().map_err(draw_error)?;
    Ok(out)
}
