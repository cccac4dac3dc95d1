//! Quoting input in error messages, bounded: an error names where the
//! input went wrong and shows a few hundred bytes of it, never the whole
//! line (a one-gigabyte line would make a two-gigabyte message).

use std::borrow::Cow;

/// Most bytes of input an error message quotes.
pub const MAX_QUOTED: usize = 240;

/// `text` as an error message quotes it: whole when it has at most
/// [`MAX_QUOTED`] bytes, else its start (cut on a character boundary)
/// followed by `... (N bytes)`.
///
/// ```
/// use classad::excerpt::{quote, MAX_QUOTED};
/// assert_eq!(quote("Cpus > 4"), "Cpus > 4");
/// let long = "x".repeat(1 << 20);
/// let quoted = quote(&long);
/// assert!(quoted.len() < MAX_QUOTED + 40);
/// assert!(quoted.ends_with("... (1048576 bytes)"));
/// ```
pub fn quote(text: &str) -> Cow<'_, str> {
    if text.len() <= MAX_QUOTED {
        return Cow::Borrowed(text);
    }
    let end = floor_boundary(text, MAX_QUOTED);
    Cow::Owned(format!("{}... ({} bytes)", &text[..end], text.len()))
}

/// The part of `line` around byte `at`, at most [`MAX_QUOTED`] bytes of
/// it, with `...` where the line was cut on either side: what an error at
/// column `at + 1` of a long line shows.
///
/// ```
/// use classad::excerpt::around;
/// assert_eq!(around("a = 1", 4), "a = 1");
/// let line = format!("{}BAD{}", "a".repeat(10_000), "b".repeat(10_000));
/// let shown = around(&line, 10_000);
/// assert!(shown.starts_with("...") && shown.ends_with("..."));
/// assert!(shown.contains("BAD"));
/// assert!(shown.len() <= 250);
/// ```
pub fn around(line: &str, at: usize) -> Cow<'_, str> {
    if line.len() <= MAX_QUOTED {
        return Cow::Borrowed(line);
    }
    let at = at.min(line.len());
    let start = floor_boundary(line, at.saturating_sub(MAX_QUOTED / 2));
    let end = floor_boundary(line, start.saturating_add(MAX_QUOTED).min(line.len()));
    let before = if start > 0 { "..." } else { "" };
    let after = if end < line.len() { "..." } else { "" };
    Cow::Owned(format!("{before}{}{after}", &line[start..end]))
}

/// The largest character boundary of `text` at or before `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_on_character_boundaries() {
        let text = "é".repeat(MAX_QUOTED);
        let quoted = quote(&text);
        assert!(quoted.starts_with('é'));
        assert!(quoted.len() <= MAX_QUOTED + 30);
        let shown = around(&text, 301);
        assert!(shown.trim_matches('.').chars().all(|c| c == 'é'));
    }

    #[test]
    fn short_text_is_quoted_whole() {
        assert_eq!(quote(""), "");
        assert_eq!(around("", 5), "");
        let line = "x".repeat(MAX_QUOTED);
        assert_eq!(quote(&line), line);
    }

    #[test]
    fn the_ends_of_a_long_line_are_shown_without_dots_on_their_side() {
        let line = format!("START{}END", "-".repeat(1000));
        let head = around(&line, 0);
        assert!(head.starts_with("START") && head.ends_with("..."));
        let tail = around(&line, line.len());
        assert!(tail.starts_with("...") && tail.ends_with("END"));
    }
}
