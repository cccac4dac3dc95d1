//! Physical lines to statements: `\` continuations, comments inside
//! them, whitespace trimming and line numbers, as HTCondor's reader does.
//!
//! Each physical line is trimmed at both ends. A line ending in `\` goes
//! on with the next one (the `\` removed, the next line's leading
//! whitespace too). Inside a continuation a line starting with `#` counts
//! as its last character only (HTCondor keeps a trailing `\` so the
//! continuation goes on, and keeps the last character of other comment
//! lines, which ends it). A first line starting with `#` never continues.
//! A last line without a newline is kept as it is, untrimmed, and does not
//! count as a line.

/// Reads statements (logical lines) from a text.
pub(crate) struct LineReader<'a> {
    text: &'a str,
    pos: usize,
    line: u32,
    max_line: usize,
}

/// A statement too long for the limit, ending on `line`.
#[derive(Debug)]
pub(crate) struct LineTooLong {
    pub(crate) line: u32,
}

impl<'a> LineReader<'a> {
    pub(crate) fn new(text: &'a str, max_line: usize) -> Self {
        LineReader { text, pos: 0, line: 0, max_line }
    }

    /// The line number of the last physical line read.
    pub(crate) fn line(&self) -> u32 {
        self.line
    }

    /// The next statement, or `None` at the end of the text.
    pub(crate) fn next_line(&mut self) -> Result<Option<String>, LineTooLong> {
        if self.pos >= self.text.len() {
            return Ok(None);
        }
        let mut buf = String::new();
        let mut first = true;
        loop {
            if self.pos >= self.text.len() {
                return Ok(if buf.is_empty() { None } else { Some(buf) });
            }
            let rest = &self.text[self.pos..];
            let Some(nl) = rest.find('\n') else {
                // A last line without a newline: kept as it is.
                self.pos = self.text.len();
                if buf.len() + rest.len() > self.max_line {
                    return Err(LineTooLong { line: self.line + 1 });
                }
                buf.push_str(rest);
                return Ok(if buf.is_empty() { None } else { Some(buf) });
            };
            self.pos += nl + 1;
            self.line = self.line.saturating_add(1);
            let mut seg = rest[..nl].trim_matches(is_space);
            let mut in_comment = seg.starts_with('#');
            if in_comment && !first {
                // Inside a continuation a comment line counts as its last
                // character only.
                seg = seg.char_indices().last().map_or("", |(i, _)| &seg[i..]);
                in_comment = false;
            }
            if buf.len() + seg.len() > self.max_line {
                return Err(LineTooLong { line: self.line });
            }
            buf.push_str(seg);
            if buf.ends_with('\\') {
                buf.pop();
                if !in_comment {
                    first = false;
                    continue;
                }
            }
            return Ok(Some(buf));
        }
    }
}

/// C's `isspace` in the "C" locale.
pub(crate) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<(String, u32)> {
        let mut r = LineReader::new(text, 1 << 20);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().expect("short lines") {
            out.push((l, r.line()));
        }
        out
    }

    #[test]
    fn continuations_and_comments() {
        let got = all("A = 1 \\\n  2\n# c \\\nB = x \\\n# note \\\n y\nC = z \\\n # no\n");
        assert_eq!(
            got,
            vec![
                ("A = 1 2".to_string(), 2),
                ("# c ".to_string(), 3),
                ("B = x y".to_string(), 6),
                ("C = z o".to_string(), 8),
            ]
        );
    }

    #[test]
    fn last_line_without_newline_is_raw() {
        assert_eq!(all("A = 1\nB = 2  "), vec![("A = 1".to_string(), 1), ("B = 2  ".to_string(), 1)]);
    }

    #[test]
    fn long_line_is_refused() {
        let text = "A = ".to_string() + &"x".repeat(100) + "\n";
        let mut r = LineReader::new(&text, 50);
        assert_eq!(r.next_line().map_err(|e| e.line).err(), Some(1));
    }
}
