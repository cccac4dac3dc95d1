//! A buffered byte source that knows which line it is on, for the streaming
//! readers of every format.

use std::io::{self, BufRead};

/// What reading one line gave.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A line (without its `\n` and any `\r` before it) is in the buffer.
    Read,
    /// The line was longer than the limit; it was consumed but not kept.
    TooLong,
    /// The input ended before any byte of a line.
    End,
}

/// Wraps a [`BufRead`], counting the lines it consumes.
pub(crate) struct Source<R> {
    inner: R,
    /// 1-based number of the line the next byte is on.
    line: usize,
    /// 1-based column (in bytes) of the next byte.
    column: usize,
}

impl<R: BufRead> Source<R> {
    pub(crate) fn new(inner: R) -> Source<R> {
        Source { inner, line: 1, column: 1 }
    }

    /// The wrapped reader.
    pub(crate) fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The line the next byte is on.
    pub(crate) fn line(&self) -> usize {
        self.line
    }

    /// The column (in bytes, from 1) of the next byte.
    pub(crate) fn column(&self) -> usize {
        self.column
    }

    /// The buffered bytes (refilled when empty; empty at the end).
    pub(crate) fn fill(&mut self) -> io::Result<&[u8]> {
        loop {
            match self.inner.fill_buf() {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
                Ok(_) => break,
            }
        }
        self.inner.fill_buf()
    }

    /// Consumes `n` buffered bytes.
    pub(crate) fn consume(&mut self, n: usize) {
        if let Ok(buffered) = self.inner.fill_buf() {
            let n = n.min(buffered.len());
            let consumed = &buffered[..n];
            match memchr::memrchr(b'\n', consumed) {
                Some(last) => {
                    self.line += memchr::memchr_iter(b'\n', consumed).count();
                    self.column = n - last;
                }
                None => self.column += n,
            }
            self.inner.consume(n);
        }
    }

    /// Skips ASCII white space; returns the next byte (not consumed).
    pub(crate) fn skip_space(&mut self) -> io::Result<Option<u8>> {
        loop {
            let buffered = self.fill()?;
            let Some(at) = buffered.iter().position(|b| !b.is_ascii_whitespace()) else {
                if buffered.is_empty() {
                    return Ok(None);
                }
                let n = buffered.len();
                self.consume(n);
                continue;
            };
            let next = buffered[at];
            self.consume(at);
            return Ok(Some(next));
        }
    }

    /// Skips white space and `//` and `/* */` comments; returns the next
    /// byte (not consumed). An unterminated `/*` runs to the end.
    pub(crate) fn skip_space_and_comments(&mut self) -> io::Result<Option<u8>> {
        loop {
            let Some(next) = self.skip_space()? else {
                return Ok(None);
            };
            let buffered = self.fill()?;
            if next != b'/' || buffered.len() < 2 {
                return Ok(Some(next));
            }
            match buffered[1] {
                b'/' => {
                    let mut ignored = Vec::new();
                    self.read_line(&mut ignored, 0)?;
                }
                b'*' => {
                    self.consume(2);
                    let mut star = false;
                    self.read_frame(&mut Vec::new(), 0, |b| {
                        let end = star && b == b'/';
                        star = b == b'*';
                        !end
                    })?;
                }
                _ => return Ok(Some(next)),
            }
        }
    }

    /// Reads one line and hands it to `f`, without its `\n` and a `\r`
    /// before that: straight from the read buffer when the whole line is in
    /// it, else gathered in `scratch`. `None` at the end of the input;
    /// `Some(None)` for a line longer than `limit` (consumed, not passed on).
    pub(crate) fn with_line<T>(
        &mut self,
        scratch: &mut Vec<u8>,
        limit: usize,
        f: impl FnOnce(&[u8]) -> T,
    ) -> io::Result<Option<Option<T>>> {
        let buffered = self.fill()?;
        if buffered.is_empty() {
            return Ok(None);
        }
        if let Some(end) = memchr::memchr(b'\n', buffered) {
            if end <= limit {
                let line = &buffered[..end];
                let result = f(line.strip_suffix(b"\r").unwrap_or(line));
                self.inner.consume(end + 1);
                self.line += 1;
                self.column = 1;
                return Ok(Some(Some(result)));
            }
        }
        Ok(match self.read_line(scratch, limit)? {
            Line::End => None,
            Line::TooLong => Some(None),
            Line::Read => Some(Some(f(scratch))),
        })
    }

    /// Reads one line into `buf` (cleared first), keeping at most `limit`
    /// bytes; the `\n` and a `\r` before it are dropped.
    pub(crate) fn read_line(&mut self, buf: &mut Vec<u8>, limit: usize) -> io::Result<Line> {
        buf.clear();
        let mut any = false;
        let mut too_long = false;
        loop {
            let buffered = self.fill()?;
            if buffered.is_empty() {
                break;
            }
            any = true;
            let (take, done) = match memchr::memchr(b'\n', buffered) {
                Some(at) => (at, true),
                None => (buffered.len(), false),
            };
            if !too_long {
                if buf.len() + take > limit {
                    too_long = true;
                    buf.clear();
                } else {
                    buf.extend_from_slice(&buffered[..take]);
                }
            }
            self.consume(take + usize::from(done));
            if done {
                break;
            }
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        Ok(match (any, too_long) {
            (false, _) => Line::End,
            (true, true) => Line::TooLong,
            (true, false) => Line::Read,
        })
    }

    /// Copies bytes into `buf` while `step` says so: `step` sees each byte
    /// and returns whether the frame goes on after it. Stops after the byte
    /// that ends the frame or at the end of the input. A frame longer than
    /// `limit` is read to its end but not kept.
    pub(crate) fn read_frame(
        &mut self,
        buf: &mut Vec<u8>,
        limit: usize,
        mut step: impl FnMut(u8) -> bool,
    ) -> io::Result<Frame> {
        let mut too_long = false;
        loop {
            let buffered = self.fill()?;
            if buffered.is_empty() {
                return Ok(if too_long { Frame::TooLong } else { Frame::End });
            }
            let mut ended = None;
            for (i, &b) in buffered.iter().enumerate() {
                if !step(b) {
                    ended = Some(i + 1);
                    break;
                }
            }
            let take = ended.unwrap_or(buffered.len());
            if !too_long && buf.len() + take > limit {
                too_long = true;
                buf.clear();
            }
            if !too_long {
                buf.extend_from_slice(&buffered[..take]);
            }
            self.consume(take);
            if ended.is_some() {
                return Ok(if too_long { Frame::TooLong } else { Frame::Complete });
            }
        }
    }
}

/// What [`Source::read_frame`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Frame {
    /// The frame ended.
    Complete,
    /// The input ended inside the frame.
    End,
    /// The frame is longer than the limit (it was read to its end, or to
    /// the end of the input, and dropped).
    TooLong,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_limits() {
        let mut source = Source::new(&b"ab\r\ncdef\n\nlast"[..]);
        let mut buf = Vec::new();
        assert_eq!(source.read_line(&mut buf, 10).ok(), Some(Line::Read));
        assert_eq!(buf, b"ab");
        assert_eq!(source.line(), 2);
        assert_eq!(source.read_line(&mut buf, 3).ok(), Some(Line::TooLong));
        assert_eq!(source.read_line(&mut buf, 3).ok(), Some(Line::Read));
        assert!(buf.is_empty());
        assert_eq!(source.read_line(&mut buf, 10).ok(), Some(Line::Read));
        assert_eq!(buf, b"last");
        assert_eq!(source.line(), 4);
        assert_eq!(source.read_line(&mut buf, 10).ok(), Some(Line::End));
    }

    #[test]
    fn lines_in_place_and_gathered() {
        // A reader with a tiny buffer, so that lines straddle refills.
        let text = b"first\r\nsecond line\nthird";
        for capacity in [1, 4, 64] {
            let mut source = Source::new(io::BufReader::with_capacity(capacity, &text[..]));
            let mut scratch = Vec::new();
            let mut lines = Vec::new();
            while let Some(line) = source.with_line(&mut scratch, 100, |l| l.to_vec()).ok().flatten() {
                lines.push(line.map(|l| String::from_utf8(l).unwrap_or_default()));
            }
            assert_eq!(lines, [Some("first".into()), Some("second line".into()), Some("third".into())], "{capacity}");
            assert_eq!(source.line(), 3);
        }
        let mut source = Source::new(&b"0123456789\nok\n"[..]);
        assert_eq!(source.with_line(&mut Vec::new(), 5, |l| l.len()).ok(), Some(Some(None)));
        assert_eq!(source.with_line(&mut Vec::new(), 5, |l| l.len()).ok(), Some(Some(Some(2))));
    }

    #[test]
    fn frames() {
        let mut source = Source::new(&b"  \n [a] [b"[..]);
        assert_eq!(source.skip_space().ok(), Some(Some(b'[')));
        assert_eq!(source.line(), 2);
        let mut buf = Vec::new();
        assert_eq!(source.read_frame(&mut buf, 100, |b| b != b']').ok(), Some(Frame::Complete));
        assert_eq!(buf, b"[a]");
        assert_eq!(source.skip_space().ok(), Some(Some(b'[')));
        buf.clear();
        assert_eq!(source.read_frame(&mut buf, 100, |b| b != b']').ok(), Some(Frame::End));
        let mut source = Source::new(&b"[aaaaaaa]"[..]);
        assert_eq!(source.read_frame(&mut Vec::new(), 4, |b| b != b']').ok(), Some(Frame::TooLong));
    }
}
