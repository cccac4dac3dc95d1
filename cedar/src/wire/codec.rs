//! The primitive encodings of `stream.cpp`: integers, strings, doubles and
//! raw bytes inside a message.
//!
//! * every integer is 8 bytes, big-endian, sign-extended (a C++ `int` is
//!   padded with 0x00 or 0xFF, and the padding is checked on read);
//! * a string is its bytes and a NUL while the stream is unencrypted; once
//!   encrypted, an 8-byte length (counting the NUL) comes first; a NULL
//!   string is the single byte 0xFF (with a length of 1 when encrypted);
//! * a double is `frexp`'s mantissa times 2147483647, truncated to a C++
//!   `int`, then the exponent, both as integers;
//! * raw bytes carry no length.
//!
//! ```
//! use cedar::wire::{Decoder, Encoder};
//! let mut enc = Encoder::new(false);
//! enc.put_int(60010);
//! enc.put_str("MyType = \"Query\"")?;
//! enc.put_double(0.75);
//! let bytes = enc.into_bytes();
//! assert_eq!(&bytes[..8], &[0, 0, 0, 0, 0, 0, 0xea, 0x6a]);
//!
//! let mut dec = Decoder::new(&bytes, false);
//! assert_eq!(dec.get_int()?, 60010);
//! assert_eq!(dec.get_string()?, "MyType = \"Query\"");
//! assert!((dec.get_double()? - 0.75).abs() < 1e-9); // 31 bits of mantissa
//! dec.finish()?;
//! # Ok::<(), cedar::Error>(())
//! ```

use crate::error::{Error, ErrorKind, Result};

/// `FRAC_CONST` of `stream.cpp`: the scale of a double's mantissa.
const FRAC_CONST: f64 = 2147483647.0;

/// The byte C++ sends for a NULL string.
pub const NULL_STRING: u8 = 0xFF;

/// The default bound on one string: 1 MiB.
pub const DEFAULT_MAX_STRING: usize = 1 << 20;

/// Writes primitives into a message payload.
#[derive(Clone, Default)]
pub struct Encoder {
    buf: Vec<u8>,
    encrypted: bool,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder").field("len", &self.buf.len()).field("encrypted", &self.encrypted).finish()
    }
}

impl Encoder {
    /// An empty payload for a stream that is (or is not) encrypted.
    pub fn new(encrypted: bool) -> Encoder {
        Encoder { buf: Vec::new(), encrypted }
    }

    /// Whether strings get the encrypted stream's length prefix.
    pub fn is_encrypted(&self) -> bool {
        self.encrypted
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The payload.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// How many bytes were written.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// An integer (any of C++'s `int`, `long`, `int64_t`): 8 bytes.
    pub fn put_int(&mut self, value: i64) {
        self.buf.extend_from_slice(&value.to_be_bytes());
    }

    /// An unsigned integer: 8 bytes, zero-extended.
    pub fn put_uint(&mut self, value: u64) {
        self.buf.extend_from_slice(&value.to_be_bytes());
    }

    /// A string. C++ strings end at their first NUL, so a string holding one
    /// is refused.
    pub fn put_str(&mut self, s: &str) -> Result<()> {
        self.put_string_bytes(s.as_bytes())
    }

    /// A string given as bytes (no NUL inside).
    pub fn put_string_bytes(&mut self, s: &[u8]) -> Result<()> {
        if memchr::memchr(0, s).is_some() {
            return Err(Error::new(ErrorKind::Protocol, "a string on the wire cannot hold a NUL byte"));
        }
        if self.encrypted {
            self.put_int(s.len() as i64 + 1);
        }
        self.buf.extend_from_slice(s);
        self.buf.push(0);
        Ok(())
    }

    /// A string written by `write`, straight into the payload (no
    /// intermediate `String`): `write` appends the string's bytes to the
    /// buffer it is given. As with [`put_str`](Encoder::put_str), a string
    /// holding a NUL is refused, and then nothing is written.
    ///
    /// ```
    /// use cedar::wire::{Decoder, Encoder};
    /// let mut enc = Encoder::new(true);
    /// enc.put_string_with(|buf| {
    ///     buf.extend_from_slice(b"Cpus = ");
    ///     buf.extend_from_slice(8.to_string().as_bytes());
    /// })?;
    /// assert!(enc.put_string_with(|buf| buf.push(0)).is_err());
    /// let bytes = enc.into_bytes();
    /// assert_eq!(Decoder::new(&bytes, true).get_string()?, "Cpus = 8");
    /// # Ok::<(), cedar::Error>(())
    /// ```
    pub fn put_string_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> Result<()> {
        self.put_string_checked_with(|buf, body| {
            write(buf);
            has_nul(&buf[body..])
        })
    }

    /// [`put_string_with`](Encoder::put_string_with) where `write` itself
    /// says whether what it wrote holds a NUL (given the buffer and where
    /// the string starts in it): an attribute's writer knows that a number
    /// holds none.
    pub(crate) fn put_string_checked_with(&mut self, write: impl FnOnce(&mut Vec<u8>, usize) -> bool) -> Result<()> {
        let start = self.buf.len();
        if self.encrypted {
            self.buf.extend_from_slice(&[0; 8]);
        }
        let body = self.buf.len();
        if write(&mut self.buf, body) {
            self.buf.truncate(start);
            return Err(Error::new(ErrorKind::Protocol, "a string on the wire cannot hold a NUL byte"));
        }
        if self.encrypted {
            let len = (self.buf.len() - body + 1) as i64;
            self.buf[start..body].copy_from_slice(&len.to_be_bytes());
        }
        self.buf.push(0);
        Ok(())
    }

    /// Writes a placeholder integer, to be set with
    /// [`set_int`](Encoder::set_int) once its value is known; returns where
    /// it is.
    pub(crate) fn put_int_later(&mut self) -> usize {
        let at = self.buf.len();
        self.put_int(0);
        at
    }

    /// Sets the integer [`put_int_later`](Encoder::put_int_later) wrote at
    /// `at`.
    pub(crate) fn set_int(&mut self, at: usize, value: i64) {
        self.buf[at..at + 8].copy_from_slice(&value.to_be_bytes());
    }

    /// `n` empty strings (as `put_str("")` writes each).
    pub(crate) fn put_empty_strings(&mut self, n: usize) {
        for _ in 0..n {
            if self.encrypted {
                self.put_int(1);
            }
            self.buf.push(0);
        }
    }

    /// A NULL string (`put_nullstr(NULL)`): 0xFF.
    pub fn put_null_string(&mut self) {
        if self.encrypted {
            self.put_int(1);
        }
        self.buf.push(NULL_STRING);
    }

    /// A double, as `frexp` mantissa × 2147483647 and exponent.
    pub fn put_double(&mut self, value: f64) {
        let (mantissa, exponent) = frexp(value);
        // C++ converts to int; for NaN and the infinities (which frexp
        // returns unchanged) that is INT_MIN on x86-64. Finite mantissas
        // are below 1 in magnitude, so the product fits.
        let frac = if value.is_finite() { (mantissa * FRAC_CONST) as i64 } else { i64::from(i32::MIN) };
        self.put_int(frac);
        self.put_int(i64::from(exponent));
    }

    /// Raw bytes, with no length.
    pub fn put_bytes(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Drops what was written after the first `len` bytes (to take back a
    /// value that failed half-way).
    ///
    /// ```
    /// let mut enc = cedar::wire::Encoder::new(false);
    /// enc.put_int(1);
    /// let at = enc.len();
    /// enc.put_int(2);
    /// enc.truncate(at);
    /// assert_eq!(enc.len(), 8);
    /// ```
    pub fn truncate(&mut self, len: usize) {
        self.buf.truncate(len);
    }

    /// Drops the first `len` bytes (those already framed and sent) and
    /// keeps the rest and the buffer: a long message written a part at a
    /// time in one buffer. A value must not be split: call it between
    /// values.
    ///
    /// ```
    /// let mut enc = cedar::wire::Encoder::new(false);
    /// enc.put_int(1);
    /// enc.put_int(2);
    /// enc.drain_front(8);
    /// assert_eq!(enc.as_bytes(), [0, 0, 0, 0, 0, 0, 0, 2]);
    /// ```
    pub fn drain_front(&mut self, len: usize) {
        self.buf.drain(..len.min(self.buf.len()));
    }
}

/// Whether `bytes` holds a NUL. Most strings on the wire are a few dozen
/// bytes, for which a branch-free pass beats a call to `memchr`.
#[inline]
pub(crate) fn has_nul(bytes: &[u8]) -> bool {
    if bytes.len() > 64 {
        return memchr::memchr(0, bytes).is_some();
    }
    // A word has a zero byte when subtracting 1 from every byte borrows
    // into a byte whose top bit was clear. Eight bytes at a time, the last
    // word overlapping the one before; below eight bytes, two overlapping
    // halves, or the first, middle and last byte.
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_in = |w: u64| w.wrapping_sub(LOW) & !w & HIGH;
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let n = bytes.len();
    if n >= 8 {
        let mut found = zero_in(word(n - 8));
        let mut at = 0;
        while at + 8 < n {
            found |= zero_in(word(at));
            at += 8;
        }
        found != 0
    } else if n >= 4 {
        let half = |at: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(&bytes[at..at + 4]);
            u64::from(u32::from_le_bytes(w)) | 0xFFFF_FFFF_0000_0000
        };
        (zero_in(half(0)) | zero_in(half(n - 4))) != 0
    } else {
        n > 0 && (bytes[0] == 0 || bytes[n / 2] == 0 || bytes[n - 1] == 0)
    }
}

/// `frexp`: `value = mantissa × 2^exponent` with `0.5 <= |mantissa| < 1`
/// (0, infinities and NaN give themselves and 0).
pub fn frexp(value: f64) -> (f64, i32) {
    if value == 0.0 || !value.is_finite() {
        return (value, 0);
    }
    let bits = value.to_bits();
    let raw_exp = ((bits >> 52) & 0x7ff) as i32;
    if raw_exp == 0 {
        // Subnormal: scale up first.
        let (m, e) = frexp(value * 2f64.powi(64));
        return (m, e - 64);
    }
    let exponent = raw_exp - 1022;
    let mantissa = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (mantissa, exponent)
}

/// `ldexp`: `mantissa × 2^exponent`, without overflow in the steps.
pub fn ldexp(mantissa: f64, exponent: i64) -> f64 {
    let mut value = mantissa;
    let mut e = exponent.clamp(-4000, 4000) as i32;
    while e > 1000 {
        value *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        value *= 2f64.powi(-1000);
        e += 1000;
    }
    value * 2f64.powi(e)
}

/// Reads primitives from a message payload; every read is bounded by what
/// the payload holds, and strings by a maximum length.
#[derive(Clone)]
pub struct Decoder<'a> {
    data: &'a [u8],
    pos: usize,
    encrypted: bool,
    max_string: usize,
}

impl std::fmt::Debug for Decoder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder").field("len", &self.data.len()).field("pos", &self.pos).finish()
    }
}

fn truncated(what: &str) -> Error {
    Error::new(ErrorKind::Malformed, format!("message ends inside {what}"))
}

impl<'a> Decoder<'a> {
    /// A decoder over `data`, from a stream that was (or was not) encrypted.
    pub fn new(data: &'a [u8], encrypted: bool) -> Decoder<'a> {
        Decoder { data, pos: 0, encrypted, max_string: DEFAULT_MAX_STRING }
    }

    /// The same decoder with strings bounded to `max` bytes.
    pub fn with_max_string(mut self, max: usize) -> Decoder<'a> {
        self.max_string = max;
        self
    }

    /// Whether strings carry the encrypted stream's length prefix.
    pub fn is_encrypted(&self) -> bool {
        self.encrypted
    }

    /// The bound on one string.
    pub fn max_string(&self) -> usize {
        self.max_string
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// True when everything was read.
    pub fn is_empty(&self) -> bool {
        self.pos == self.data.len()
    }

    /// Checks that the message was read to its end (`end_of_message` in
    /// decode mode fails on untouched bytes).
    pub fn finish(&self) -> Result<()> {
        match self.data.len() - self.pos {
            0 => Ok(()),
            n => Err(Error::new(ErrorKind::Protocol, format!("{n} unread bytes at the end of a message"))),
        }
    }

    /// Raw bytes, exactly `n` of them.
    pub fn get_bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.data.len() - self.pos < n {
            return Err(truncated("raw bytes"));
        }
        let bytes = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    fn get8(&mut self, what: &str) -> Result<[u8; 8]> {
        let b = self.get_bytes(8).map_err(|_| truncated(what))?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(a)
    }

    /// An 8-byte integer (C++ `long`, `int64_t`).
    pub fn get_int(&mut self) -> Result<i64> {
        Ok(i64::from_be_bytes(self.get8("an integer")?))
    }

    /// An 8-byte integer that must fit a C++ `int`: the padding must be the
    /// sign extension, as `Stream::get(int&)` checks.
    pub fn get_i32(&mut self) -> Result<i32> {
        let v = self.get_int()?;
        i32::try_from(v).map_err(|_| Error::new(ErrorKind::Malformed, format!("integer {v} does not fit 32 bits")))
    }

    /// An 8-byte unsigned integer.
    pub fn get_uint(&mut self) -> Result<u64> {
        Ok(u64::from_be_bytes(self.get8("an integer")?))
    }

    /// A double (two integers: mantissa × 2147483647 and exponent).
    pub fn get_double(&mut self) -> Result<f64> {
        let frac = self.get_i32()?;
        let exp = self.get_i32()?;
        Ok(ldexp(f64::from(frac) / FRAC_CONST, i64::from(exp)))
    }

    /// A string's bytes, `None` for a NULL string.
    pub fn get_string_bytes(&mut self) -> Result<Option<&'a [u8]>> {
        if self.encrypted {
            let len = self.get_int()?;
            if len < 1 {
                return Err(Error::new(ErrorKind::Malformed, format!("string length {len}")));
            }
            let len = len as u64;
            if len > (self.max_string as u64).saturating_add(1) {
                return Err(Error::new(
                    ErrorKind::LimitExceeded,
                    format!("string of {len} bytes (limit {})", self.max_string),
                ));
            }
            let bytes = self.get_bytes(len as usize).map_err(|_| truncated("a string"))?;
            if bytes[0] == NULL_STRING {
                return Ok(None);
            }
            // C++ takes the string up to its first NUL.
            let end = memchr::memchr(0, bytes).unwrap_or(bytes.len());
            return Ok(Some(&bytes[..end]));
        }
        let rest = self.remaining();
        match rest.first() {
            None => Err(truncated("a string")),
            Some(&NULL_STRING) => {
                self.pos += 1;
                Ok(None)
            }
            Some(_) => {
                let window = &rest[..rest.len().min(self.max_string.saturating_add(1))];
                match memchr::memchr(0, window) {
                    Some(end) => {
                        self.pos += end + 1;
                        Ok(Some(&rest[..end]))
                    }
                    None if window.len() < rest.len() => Err(Error::new(
                        ErrorKind::LimitExceeded,
                        format!("string longer than the limit of {} bytes", self.max_string),
                    )),
                    None => Err(Error::new(ErrorKind::Malformed, "string without its NUL at the end of a message")),
                }
            }
        }
    }

    /// A string, NULL or not (a NULL string is `None`); bytes that are not
    /// UTF-8 are an error.
    pub fn get_optional_string(&mut self) -> Result<Option<String>> {
        match self.get_string_bytes()? {
            None => Ok(None),
            Some(b) => std::str::from_utf8(b)
                .map(|s| Some(s.to_owned()))
                .map_err(|_| Error::new(ErrorKind::Malformed, "string is not UTF-8")),
        }
    }

    /// A string; a NULL string reads as empty, as `Stream::get(std::string&)`
    /// gives.
    pub fn get_string(&mut self) -> Result<String> {
        Ok(self.get_optional_string()?.unwrap_or_default())
    }
}

#[cfg(test)]
mod nul_tests {
    use super::has_nul;

    #[test]
    fn finds_a_nul_wherever_it_is() {
        for len in 0..80 {
            let clean: Vec<u8> = (0..len).map(|i| (i % 255 + 1) as u8).collect();
            assert!(!has_nul(&clean), "{len}");
            for at in 0..len {
                let mut with = clean.clone();
                with[at] = 0;
                assert!(has_nul(&with), "{len} {at}");
            }
        }
        assert!(!has_nul(&[0x80, 0x81, 0xff, 0x01, 0x7f, 0x80, 0x80, 0x80, 0x80]));
        // No false alarms: short strings of bytes that are not NUL.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in 0..20 {
            for _ in 0..2000 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        [0x01, 0x02, 0x7f, 0x80, 0x81, 0xfe, 0xff, b'a'][(state % 8) as usize]
                    })
                    .collect();
                assert!(!has_nul(&bytes), "{bytes:?}");
            }
        }
    }
}
