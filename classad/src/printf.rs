//! C's `printf` conversions, written as glibc writes them.
//!
//! One conversion specification, `%[flags][width][.precision][length]conversion`,
//! is parsed once into a [`Spec`] and then formats any number of values:
//!
//! * flags `-` (left-align), `+` (always a sign), space (a space for the
//!   plus sign), `#` (the alternate form) and `0` (pad with zeros);
//! * a decimal width and precision (`*` is not supported: the caller gives
//!   no argument list; it is a [`SpecErrorKind::Star`] error);
//! * the length modifiers `hh h l ll L q j z t`: the `format_*` functions
//!   ignore them and format integers at 64 bits, as `%lld` / `%llu` format
//!   a `long long`; [`Spec::format_long_long`] applies them as a C program
//!   passing a `long long` to a user's format does;
//! * the conversions `d i u o x X e E f F g G s c %`.
//!
//! The digits of reals come from Rust's own correctly rounded formatting
//! (`{:.N}` and `{:.Ne}` give exact decimal expansions, ties to even, as
//! glibc does), so `%.17g`, `%.30f` or `%.0e` print exactly what glibc
//! prints, subnormals and `f64::MAX` included. Widths count bytes, as C's
//! do; a precision that would cut a `%s` string inside a UTF-8 character
//! stops before that character (C would cut the character's bytes).
//!
//! ```
//! use classad::printf::{format_g, Spec};
//!
//! let spec = Spec::parse("%+08.2f")?;
//! assert_eq!(spec.format_f64(-3.14159), "-0003.14");
//! assert_eq!(spec.format_f64(2.5), "+0002.50");
//!
//! assert_eq!(Spec::parse("%#x")?.format_i64(255), "0xff");
//! assert_eq!(Spec::parse("%-6s")?.format_str("ab"), "ab    ");
//! assert_eq!(format_g(999999.7, 6), "1e+06");
//! assert_eq!(format_g(9.9999996e-05, 6), "0.0001");
//! # Ok::<(), classad::printf::SpecError>(())
//! ```
//!
//! This module is a leaf: it uses nothing else from the crate.

use std::fmt;

/// The longest width or precision a [`Spec`] accepts.
pub const MAX_COUNT: usize = 10_000;

/// What a conversion character asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Conversion {
    /// `%d`: a signed decimal integer.
    Decimal,
    /// `%i`: the same as `%d`.
    Integer,
    /// `%u`: an unsigned decimal integer.
    Unsigned,
    /// `%o`: an unsigned octal integer.
    Octal,
    /// `%x`: an unsigned hexadecimal integer, lower case.
    Hex,
    /// `%X`: an unsigned hexadecimal integer, upper case.
    HexUpper,
    /// `%e`: a real as `d.ddde+XX`.
    Exp,
    /// `%E`: a real as `d.dddE+XX`.
    ExpUpper,
    /// `%f`: a real as `ddd.ddd`.
    Fixed,
    /// `%F`: `%f` with `INF` and `NAN` in upper case.
    FixedUpper,
    /// `%g`: `%e` or `%f`, whichever C's rule picks, trailing zeros removed.
    General,
    /// `%G`: `%g` with `E`, `INF` and `NAN` in upper case.
    GeneralUpper,
    /// `%s`: a string.
    Str,
    /// `%c`: one character.
    Char,
    /// `%%`: a percent sign (flags, width and precision are ignored).
    Percent,
}

/// The kind of argument a [`Conversion`] takes in C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Argument {
    /// `d i u o x X`.
    Int,
    /// `e E f F g G`.
    Real,
    /// `s`.
    Str,
    /// `c`.
    Char,
    /// `%`: none.
    None,
}

/// A length modifier: the C type an integer conversion reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Length {
    /// None: `int` (`unsigned int`), 32 bits.
    #[default]
    Int,
    /// `hh`: `char`, 8 bits.
    Char,
    /// `h`: `short`, 16 bits.
    Short,
    /// `l`: `long`, 64 bits.
    Long,
    /// `ll`: `long long`, 64 bits.
    LongLong,
    /// `q`: `long long` (BSD), 64 bits.
    Quad,
    /// `j`: `intmax_t`, 64 bits.
    IntMax,
    /// `z`: `size_t`, 64 bits.
    Size,
    /// `t`: `ptrdiff_t`, 64 bits.
    PtrDiff,
    /// `L`: `long double` for real conversions (64 bits for integers).
    LongDouble,
}

impl Length {
    /// The width in bits of the integer an integer conversion reads.
    pub fn bits(self) -> u32 {
        match self {
            Length::Char => 8,
            Length::Short => 16,
            Length::Int => 32,
            _ => 64,
        }
    }
}

impl Conversion {
    /// The conversion of a C conversion character, if it is one this
    /// module formats.
    pub fn from_char(c: char) -> Option<Conversion> {
        Some(match c {
            'd' => Conversion::Decimal,
            'i' => Conversion::Integer,
            'u' => Conversion::Unsigned,
            'o' => Conversion::Octal,
            'x' => Conversion::Hex,
            'X' => Conversion::HexUpper,
            'e' => Conversion::Exp,
            'E' => Conversion::ExpUpper,
            'f' => Conversion::Fixed,
            'F' => Conversion::FixedUpper,
            'g' => Conversion::General,
            'G' => Conversion::GeneralUpper,
            's' => Conversion::Str,
            'c' => Conversion::Char,
            '%' => Conversion::Percent,
            _ => return None,
        })
    }

    /// The conversion character: `Conversion::Hex.to_char() == 'x'`.
    pub fn to_char(self) -> char {
        match self {
            Conversion::Decimal => 'd',
            Conversion::Integer => 'i',
            Conversion::Unsigned => 'u',
            Conversion::Octal => 'o',
            Conversion::Hex => 'x',
            Conversion::HexUpper => 'X',
            Conversion::Exp => 'e',
            Conversion::ExpUpper => 'E',
            Conversion::Fixed => 'f',
            Conversion::FixedUpper => 'F',
            Conversion::General => 'g',
            Conversion::GeneralUpper => 'G',
            Conversion::Str => 's',
            Conversion::Char => 'c',
            Conversion::Percent => '%',
        }
    }

    /// The kind of argument C passes for this conversion.
    pub fn argument(self) -> Argument {
        match self {
            Conversion::Decimal
            | Conversion::Integer
            | Conversion::Unsigned
            | Conversion::Octal
            | Conversion::Hex
            | Conversion::HexUpper => Argument::Int,
            Conversion::Exp
            | Conversion::ExpUpper
            | Conversion::Fixed
            | Conversion::FixedUpper
            | Conversion::General
            | Conversion::GeneralUpper => Argument::Real,
            Conversion::Str => Argument::Str,
            Conversion::Char => Argument::Char,
            Conversion::Percent => Argument::None,
        }
    }

    fn is_upper(self) -> bool {
        self.to_char().is_ascii_uppercase()
    }
}

/// Why a conversion specification cannot be parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SpecErrorKind {
    /// The text does not start with `%`.
    NoPercent,
    /// The text ends inside the specification.
    Unterminated,
    /// The character in the place of the conversion is not one of
    /// `d i u o x X e E f F g G s c %` (e.g. `%y`, `%n`, `%p`).
    UnknownConversion(char),
    /// A `*` width or precision (this module takes no argument list).
    Star,
    /// A width or precision above [`MAX_COUNT`].
    TooLarge,
    /// [`Spec::parse`]: text after the conversion.
    TrailingText,
}

impl fmt::Display for SpecErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecErrorKind::NoPercent => f.write_str("a conversion starts with %"),
            SpecErrorKind::Unterminated => f.write_str("the text ends inside a conversion"),
            SpecErrorKind::UnknownConversion(c) => write!(f, "unknown conversion `%{c}`"),
            SpecErrorKind::Star => f.write_str("a `*` width or precision is not supported"),
            SpecErrorKind::TooLarge => write!(f, "a width or precision above {MAX_COUNT}"),
            SpecErrorKind::TrailingText => f.write_str("text after the conversion"),
        }
    }
}

/// A conversion specification that cannot be parsed: its
/// [`kind`](SpecError::kind) and the byte [`offset`](SpecError::offset) in
/// the text where parsing stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{kind} (at byte {offset})")]
pub struct SpecError {
    kind: SpecErrorKind,
    offset: usize,
}

impl SpecError {
    /// What is wrong.
    pub fn kind(&self) -> SpecErrorKind {
        self.kind
    }

    /// The byte offset in the parsed text of the character that stopped
    /// parsing (for [`SpecErrorKind::UnknownConversion`], that character).
    pub fn offset(&self) -> usize {
        self.offset
    }
}

/// One parsed conversion specification, `%[flags][width][.precision][length]C`.
///
/// ```
/// use classad::printf::{Conversion, Spec};
///
/// let (spec, len) = Spec::parse_prefix("%-10.3lld items")?;
/// assert_eq!(len, 9);
/// assert_eq!(spec.conversion(), Conversion::Decimal);
/// assert_eq!((spec.left(), spec.width(), spec.precision()), (true, 10, Some(3)));
/// assert_eq!(spec.format_i64(7), "007       ");
/// assert_eq!(spec.format_i64(i64::MIN), "-9223372036854775808");
/// # Ok::<(), classad::printf::SpecError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alternate: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    length: Length,
    conversion: Conversion,
}

impl Spec {
    /// A specification with no flags, width or precision: `%d` is
    /// `Spec::new(Conversion::Decimal)`.
    pub fn new(conversion: Conversion) -> Spec {
        Spec {
            left: false,
            plus: false,
            space: false,
            alternate: false,
            zero: false,
            width: 0,
            precision: None,
            length: Length::Int,
            conversion,
        }
    }

    /// This specification with `precision` (`None`: the conversion's default).
    pub fn with_precision(mut self, precision: Option<usize>) -> Spec {
        self.precision = precision;
        self
    }

    /// This specification with `width`.
    pub fn with_width(mut self, width: usize) -> Spec {
        self.width = width;
        self
    }

    /// Parses `text`, which must be exactly one specification (`"%5.2f"`).
    ///
    /// ```
    /// use classad::printf::{Spec, SpecErrorKind};
    ///
    /// assert_eq!(Spec::parse("%y").map_err(|e| e.kind()), Err(SpecErrorKind::UnknownConversion('y')));
    /// assert_eq!(Spec::parse("%q").map_err(|e| e.kind()), Err(SpecErrorKind::Unterminated));
    /// assert_eq!(Spec::parse("%d!").map_err(|e| e.kind()), Err(SpecErrorKind::TrailingText));
    /// ```
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let (spec, len) = Spec::parse_prefix(text)?;
        if len != text.len() {
            return Err(SpecError { kind: SpecErrorKind::TrailingText, offset: len });
        }
        Ok(spec)
    }

    /// Parses the specification at the start of `text` (which starts with
    /// `%`) and returns it with its length in bytes; the rest of `text` is
    /// not looked at.
    pub fn parse_prefix(text: &str) -> Result<(Spec, usize), SpecError> {
        let b = text.as_bytes();
        let error = |kind, offset| SpecError { kind, offset };
        if b.first() != Some(&b'%') {
            return Err(error(SpecErrorKind::NoPercent, 0));
        }
        let mut spec = Spec::new(Conversion::Percent);
        let mut i = 1;
        while let Some(&c) = b.get(i) {
            match c {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alternate = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        let count = |i: &mut usize| -> Result<usize, SpecError> {
            if b.get(*i) == Some(&b'*') {
                return Err(error(SpecErrorKind::Star, *i));
            }
            let start = *i;
            let mut n: usize = 0;
            while let Some(d) = b.get(*i).filter(|d| d.is_ascii_digit()) {
                n = n * 10 + usize::from(d - b'0');
                if n > MAX_COUNT {
                    return Err(error(SpecErrorKind::TooLarge, start));
                }
                *i += 1;
            }
            Ok(n)
        };
        spec.width = count(&mut i)?;
        if b.get(i) == Some(&b'.') {
            i += 1;
            spec.precision = Some(count(&mut i)?);
        }
        // Length modifiers: hh h l ll L q j z t.
        let (length, len) = match (b.get(i), b.get(i + 1)) {
            (Some(b'h'), Some(b'h')) => (Length::Char, 2),
            (Some(b'h'), _) => (Length::Short, 1),
            (Some(b'l'), Some(b'l')) => (Length::LongLong, 2),
            (Some(b'l'), _) => (Length::Long, 1),
            (Some(b'L'), _) => (Length::LongDouble, 1),
            (Some(b'q'), _) => (Length::Quad, 1),
            (Some(b'j'), _) => (Length::IntMax, 1),
            (Some(b'z'), _) => (Length::Size, 1),
            (Some(b't'), _) => (Length::PtrDiff, 1),
            _ => (Length::Int, 0),
        };
        spec.length = length;
        i += len;
        let Some(c) = text[i..].chars().next() else {
            return Err(error(SpecErrorKind::Unterminated, i));
        };
        spec.conversion = Conversion::from_char(c).ok_or(error(SpecErrorKind::UnknownConversion(c), i))?;
        Ok((spec, i + 1))
    }

    /// The length modifier (`Length::Int` when there is none). The
    /// `format_*` functions ignore it; [`format_long_long`](Spec::format_long_long)
    /// applies it.
    pub fn length(&self) -> Length {
        self.length
    }

    /// What glibc on x86-64 prints when this conversion is given a
    /// `long long` argument, as `printf(user_format, (long long)value)`
    /// does in C programs: an integer conversion reads the type its length
    /// modifier names, i.e. the low [`bits`](Length::bits) of the value
    /// (`%d` of 2^32 + 5 is `5`, `%x` of -1 is `ffffffff`, `%lld` and `%lx`
    /// see all 64 bits). `%c` prints the low byte (`%c` of 300 is `,`), as
    /// its Latin-1 character above 0x7F (where C writes the byte itself,
    /// which alone is not UTF-8). Other conversions as
    /// [`format_i64`](Spec::format_i64).
    ///
    /// ```
    /// use classad::printf::Spec;
    /// assert_eq!(Spec::parse("%d")?.format_long_long(5_000_000_000), "705032704");
    /// assert_eq!(Spec::parse("%x")?.format_long_long(-1), "ffffffff");
    /// assert_eq!(Spec::parse("%hhd")?.format_long_long(255), "-1");
    /// assert_eq!(Spec::parse("%ld")?.format_long_long(5_000_000_000), "5000000000");
    /// assert_eq!(Spec::parse("%c")?.format_long_long(300), ",");
    /// # Ok::<(), classad::printf::SpecError>(())
    /// ```
    pub fn format_long_long(&self, value: i64) -> String {
        if self.conversion == Conversion::Char {
            return self.format_char(char::from(value as u8));
        }
        if self.conversion.argument() != Argument::Int {
            return self.format_i64(value);
        }
        let signed = matches!(self.conversion, Conversion::Decimal | Conversion::Integer);
        let narrowed = match (self.length.bits(), signed) {
            (8, true) => i64::from(value as i8),
            (8, false) => i64::from(value as u8),
            (16, true) => i64::from(value as i16),
            (16, false) => i64::from(value as u16),
            (32, true) => i64::from(value as i32),
            (32, false) => i64::from(value as u32),
            _ => value,
        };
        self.format_i64(narrowed)
    }

    /// The conversion.
    pub fn conversion(&self) -> Conversion {
        self.conversion
    }

    /// The `-` flag: left-aligned in the width.
    pub fn left(&self) -> bool {
        self.left
    }

    /// The `+` flag: a sign on non-negative numbers too.
    pub fn plus(&self) -> bool {
        self.plus
    }

    /// The space flag: a space where `+` would put the plus sign.
    pub fn space(&self) -> bool {
        self.space
    }

    /// The `#` flag: the alternate form.
    pub fn alternate(&self) -> bool {
        self.alternate
    }

    /// The `0` flag: padded with zeros after the sign.
    pub fn zero(&self) -> bool {
        self.zero
    }

    /// The minimum width in bytes (0 when none is given).
    pub fn width(&self) -> usize {
        self.width
    }

    /// The precision, if one is given (`%.f` is `Some(0)`).
    pub fn precision(&self) -> Option<usize> {
        self.precision
    }

    /// `value` as C's `printf` with this specification and a `long long`
    /// (`%llu`, `%llx`: its two's complement) writes it. A real conversion
    /// formats the value as an `f64`; `%s` formats its decimal text; `%c`
    /// the character of that code point (U+FFFD if there is none).
    ///
    /// ```
    /// use classad::printf::Spec;
    /// assert_eq!(Spec::parse("%x")?.format_i64(-1), "ffffffffffffffff");
    /// assert_eq!(Spec::parse("%+.3d")?.format_i64(5), "+005");
    /// # Ok::<(), classad::printf::SpecError>(())
    /// ```
    pub fn format_i64(&self, value: i64) -> String {
        match self.conversion.argument() {
            Argument::Int => {
                if matches!(self.conversion, Conversion::Decimal | Conversion::Integer) {
                    self.integer(value < 0, value.unsigned_abs())
                } else {
                    self.integer(false, value as u64)
                }
            }
            Argument::Real => self.format_f64(value as f64),
            Argument::Str => self.format_str(&value.to_string()),
            Argument::Char => {
                self.format_char(u32::try_from(value).ok().and_then(char::from_u32).unwrap_or('\u{FFFD}'))
            }
            Argument::None => "%".to_string(),
        }
    }

    /// `value` as C's `printf` with this specification and an
    /// `unsigned long long` writes it (`%d` sees its two's complement).
    /// Other conversions as in [`format_i64`](Spec::format_i64).
    pub fn format_u64(&self, value: u64) -> String {
        match self.conversion {
            Conversion::Decimal | Conversion::Integer => self.format_i64(value as i64),
            _ if self.conversion.argument() == Argument::Int => self.integer(false, value),
            Conversion::Str => self.format_str(&value.to_string()),
            _ if self.conversion.argument() == Argument::Real => self.format_f64(value as f64),
            _ => self.format_i64(i64::try_from(value).unwrap_or(-1)),
        }
    }

    /// `value` as C's `printf` with this specification and a `double`
    /// writes it. An integer conversion formats the value truncated to an
    /// `i64` (saturating; NaN is 0); `%s` formats it as `%g` would.
    ///
    /// ```
    /// use classad::printf::Spec;
    /// assert_eq!(Spec::parse("%.3e")?.format_f64(1234.5), "1.234e+03");
    /// assert_eq!(Spec::parse("%G")?.format_f64(1e-10), "1E-10");
    /// assert_eq!(Spec::parse("%5.1f")?.format_f64(f64::NAN), "  nan");
    /// assert_eq!(Spec::parse("%#.3g")?.format_f64(1.0), "1.00");
    /// # Ok::<(), classad::printf::SpecError>(())
    /// ```
    pub fn format_f64(&self, value: f64) -> String {
        match self.conversion.argument() {
            Argument::Real => self.real(value),
            Argument::Int => self.format_i64(value as i64),
            Argument::Str => self.format_str(&format_g(value, 6)),
            Argument::Char => self.format_i64(value as i64),
            Argument::None => "%".to_string(),
        }
    }

    /// `text` as C's `%s` with this specification writes it: at most
    /// `precision` bytes of it (never cutting a UTF-8 character), padded to
    /// the width with spaces (the `0` flag is ignored, as glibc ignores it).
    /// A numeric or `%c` conversion pads the text in the same way.
    ///
    /// ```
    /// use classad::printf::Spec;
    /// assert_eq!(Spec::parse("%-7.3s")?.format_str("LINUX"), "LIN    ");
    /// # Ok::<(), classad::printf::SpecError>(())
    /// ```
    pub fn format_str(&self, text: &str) -> String {
        if self.conversion == Conversion::Percent {
            return "%".to_string();
        }
        let mut end = match self.precision {
            Some(p) if self.conversion == Conversion::Str && p < text.len() => p,
            _ => text.len(),
        };
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.pad("", &text[..end], false)
    }

    /// `c` as `%c` writes it (precision ignored, padded with spaces).
    pub fn format_char(&self, c: char) -> String {
        if self.conversion == Conversion::Percent {
            return "%".to_string();
        }
        let mut buf = [0; 4];
        self.pad("", c.encode_utf8(&mut buf), false)
    }

    /// `prefix` (sign, `0x`) and `body` padded to the width: spaces on the
    /// left, on the right with `-`, or zeros between them with `0` when
    /// `zeros` allows.
    fn pad(&self, prefix: &str, body: &str, zeros: bool) -> String {
        let len = prefix.len() + body.len();
        let mut out = String::with_capacity(len.max(self.width));
        let fill = self.width.saturating_sub(len);
        if self.left {
            out.push_str(prefix);
            out.push_str(body);
            out.extend(std::iter::repeat_n(' ', fill));
        } else if self.zero && zeros {
            out.push_str(prefix);
            out.extend(std::iter::repeat_n('0', fill));
            out.push_str(body);
        } else {
            out.extend(std::iter::repeat_n(' ', fill));
            out.push_str(prefix);
            out.push_str(body);
        }
        out
    }

    fn sign(&self, negative: bool) -> &'static str {
        if negative {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        }
    }

    /// An integer conversion of `magnitude` (negative only for `%d`/`%i`).
    fn integer(&self, negative: bool, magnitude: u64) -> String {
        let mut digits = match self.conversion {
            Conversion::Octal => format!("{magnitude:o}"),
            Conversion::Hex => format!("{magnitude:x}"),
            Conversion::HexUpper => format!("{magnitude:X}"),
            _ => magnitude.to_string(),
        };
        match self.precision {
            Some(0) if magnitude == 0 => digits.clear(),
            Some(p) if digits.len() < p => digits.insert_str(0, &"0".repeat(p - digits.len())),
            _ => {}
        }
        let prefix = match self.conversion {
            Conversion::Decimal | Conversion::Integer => self.sign(negative),
            Conversion::Octal if self.alternate && !digits.starts_with('0') => "0",
            Conversion::Hex if self.alternate && magnitude != 0 => "0x",
            Conversion::HexUpper if self.alternate && magnitude != 0 => "0X",
            _ => "",
        };
        self.pad(prefix, &digits, self.precision.is_none())
    }

    /// A real conversion.
    fn real(&self, value: f64) -> String {
        let upper = self.conversion.is_upper();
        let sign = self.sign(value.is_sign_negative());
        if !value.is_finite() {
            let word = match (value.is_nan(), upper) {
                (true, false) => "nan",
                (true, true) => "NAN",
                (false, false) => "inf",
                (false, true) => "INF",
            };
            return self.pad(sign, word, false);
        }
        let x = value.abs();
        let precision = self.precision.unwrap_or(6);
        let mut body = match self.conversion {
            Conversion::Fixed | Conversion::FixedUpper => fixed(x, precision, self.alternate),
            Conversion::Exp | Conversion::ExpUpper => exponential(x, precision, self.alternate),
            _ => general(x, precision, self.alternate),
        };
        if upper {
            body.make_ascii_uppercase();
        }
        self.pad(sign, &body, true)
    }
}

/// `x` (finite, not negative) as `%.{precision}f`.
fn fixed(x: f64, precision: usize, alternate: bool) -> String {
    let mut text = format!("{x:.precision$}");
    if alternate && precision == 0 {
        text.push('.');
    }
    text
}

/// `x` (finite, not negative) as `%.{precision}e`: Rust's `1.5e3` with
/// C's exponent, `1.5e+03`.
fn exponential(x: f64, precision: usize, alternate: bool) -> String {
    let (mantissa, exponent) = split_exponent(&format!("{x:.precision$e}"));
    c_exponent(mantissa, exponent, alternate && precision == 0)
}

/// Rust's `{:e}` text split into its mantissa and exponent.
fn split_exponent(text: &str) -> (String, i32) {
    match text.split_once('e') {
        Some((mantissa, exponent)) => (mantissa.to_string(), exponent.parse().unwrap_or(0)),
        None => (text.to_string(), 0),
    }
}

fn c_exponent(mut mantissa: String, exponent: i32, point: bool) -> String {
    use fmt::Write as _;
    if point {
        mantissa.push('.');
    }
    let sign = if exponent < 0 { '-' } else { '+' };
    let _ = write!(mantissa, "e{sign}{:02}", exponent.unsigned_abs());
    mantissa
}

/// `x` (finite, not negative) as `%.{precision}g`: with P significant
/// digits (P = precision, or 1 for 0) and X the exponent `%e` would show
/// with P digits, `%f` when P > X >= -4, else `%e`; without `#`, trailing
/// zeros of the fraction and a trailing point are removed.
fn general(x: f64, precision: usize, alternate: bool) -> String {
    let p = precision.max(1);
    let (mantissa, exponent) = split_exponent(&format!("{x:.prec$e}", prec = p - 1));
    let p = i64::try_from(p).unwrap_or(i64::MAX);
    let exponent64 = i64::from(exponent);
    if exponent64 < p && exponent64 >= -4 {
        let decimals = usize::try_from(p - 1 - exponent64).unwrap_or(0);
        let text = format!("{x:.decimals$}");
        if alternate {
            if decimals == 0 {
                return text + ".";
            }
            text
        } else {
            strip_fraction_zeros(&text).to_string()
        }
    } else if alternate {
        if carried_out_of_fixed(x, &mantissa, exponent, p) {
            // glibc drops the zeros here: `%#.6g` of 999999.5 is `1.e+06`.
            return c_exponent("1.".to_string(), exponent, false);
        }
        c_exponent(mantissa, exponent, p == 1)
    } else {
        c_exponent(strip_fraction_zeros(&mantissa).to_string(), exponent, false)
    }
}

/// Whether rounding to `p` digits carried `x` up to a power of ten
/// (`mantissa` is `1.00...`, `exponent` one above `x`'s own) and across
/// `%g`'s switch from `%f` to `%e`: glibc decides on `%f` before rounding
/// and then writes the carried value with `#` as `1.e+XX`.
fn carried_out_of_fixed(x: f64, mantissa: &str, exponent: i32, p: i64) -> bool {
    let before = i64::from(exponent) - 1;
    if !(before >= -4 && before < p && mantissa.trim_end_matches('0') == "1.") {
        return false;
    }
    // Every double's exact decimal expansion has fewer than 800 digits,
    // so this exponent is the exact one, before any rounding.
    let (_, exact) = split_exponent(&format!("{x:.800e}"));
    i64::from(exact) == before
}

/// `2.500` to `2.5`, `2.000` to `2`; text without a point unchanged.
fn strip_fraction_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

/// C's `%.{precision}g` (`%g` is precision 6, precision 0 is taken as 1).
///
/// ```
/// use classad::printf::format_g;
/// assert_eq!(format_g(100000.0, 6), "100000");
/// assert_eq!(format_g(1000000.0, 6), "1e+06");
/// assert_eq!(format_g(0.1, 16), "0.1");
/// assert_eq!(format_g(f64::NAN, 6), "nan");
/// assert_eq!(format_g(-0.0, 6), "-0");
/// ```
pub fn format_g(value: f64, precision: usize) -> String {
    Spec::new(Conversion::General).with_precision(Some(precision)).real(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` (a conversion and plain text after it) with the value formatted.
    fn with(text: &str, format: impl Fn(&Spec) -> String) -> String {
        match Spec::parse_prefix(text) {
            Ok((spec, len)) => format(&spec) + &text[len..],
            Err(e) => e.to_string(),
        }
    }

    fn f(spec: &str, x: f64) -> String {
        with(spec, |s| s.format_f64(x))
    }

    fn i(spec: &str, x: i64) -> String {
        with(spec, |s| s.format_i64(x))
    }

    #[test]
    fn g_format() {
        for (value, text) in [
            (0.5, "0.5"),
            (1.25, "1.25"),
            (100000.0, "100000"),
            (1000000.0, "1e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123456789.0, "1.23457e+08"),
            (59.999999, "60"),
        ] {
            assert_eq!(format_g(value, 6), text, "{value}");
        }
        assert_eq!(format_g(0.1, 16), "0.1");
        assert_eq!(format_g(1e100, 16), "1e+100");
    }

    #[test]
    fn reals_as_glibc() {
        assert_eq!(f("%g", 999999.7), "1e+06");
        assert_eq!(f("%g", 9.9999996e-05), "0.0001");
        assert_eq!(f("%g", 0.00001), "1e-05");
        assert_eq!(f("%.0g", 0.5), "0.5");
        assert_eq!(f("%#.0g", 1.0), "1.");
        assert_eq!(f("%#g", 100000.0), "100000.");
        // glibc's %#g, when rounding carries into %e (C would keep the zeros).
        assert_eq!(f("%#.6g", 999999.5), "1.e+06");
        assert_eq!(f("%#07g", 999999.5), "01.e+06");
        assert_eq!(f("%#.6g", 9999995e6), "1.00000e+13");
        assert_eq!(f("%#.0e", 1.0), "1.e+00");
        assert_eq!(f("%#.0f", 1.0), "1.");
        assert_eq!(f("%.2f", 0.125), "0.12");
        assert_eq!(f("%e", 0.0), "0.000000e+00");
        assert_eq!(f("%e", 1e300), "1.000000e+300");
        assert_eq!(f("%g", 5e-324), "4.94066e-324");
        assert_eq!(f("%05f", f64::INFINITY), "  inf");
        assert_eq!(f("%F", f64::NEG_INFINITY), "-INF");
        assert_eq!(f("%+.1f", -0.0), "-0.0");
        assert_eq!(f("% 010.3f", 3.0), " 00003.000");
        assert_eq!(f("%-8.3G|", 1e-7), "1E-07   |");
    }

    #[test]
    fn integers_as_glibc() {
        assert_eq!(i("%05d", -42), "-0042");
        assert_eq!(i("%.0d|", 0), "|");
        assert_eq!(i("%#.0o|", 0), "0|");
        assert_eq!(i("%#o", 8), "010");
        assert_eq!(i("%#.3o", 8), "010");
        assert_eq!(i("%#x", 0), "0");
        assert_eq!(i("%#08X", 255), "0X0000FF");
        assert_eq!(i("%08.3d", 5), "     005");
        assert_eq!(i("%u", -1), "18446744073709551615");
        assert_eq!(i("%+u", 5), "5");
        assert_eq!(i("% d", 5), " 5");
        assert_eq!(with("%d", |s| s.format_u64(u64::MAX)), "-1");
    }

    #[test]
    fn strings_chars_and_percent() {
        let s = |spec: &str, t: &str| with(spec, |s| s.format_str(t));
        assert_eq!(s("%05s", "ab"), "   ab");
        assert_eq!(s("%.2s", "h\u{e9}llo"), "h");
        assert_eq!(s("%4s", "\u{e9}"), "  \u{e9}");
        assert_eq!(s("%5%", "x"), "%");
        assert_eq!(with("%-3c|", |s| s.format_char('x')), "x  |");
    }

    #[test]
    fn parse_errors_have_kinds() {
        let kind = |t: &str| Spec::parse(t).err().map(|e| (e.kind(), e.offset()));
        assert_eq!(kind("d"), Some((SpecErrorKind::NoPercent, 0)));
        assert_eq!(kind("%-5"), Some((SpecErrorKind::Unterminated, 3)));
        assert_eq!(kind("%*d"), Some((SpecErrorKind::Star, 1)));
        assert_eq!(kind("%.*d"), Some((SpecErrorKind::Star, 2)));
        assert_eq!(kind("%99999d"), Some((SpecErrorKind::TooLarge, 1)));
        assert_eq!(kind("%lllld"), Some((SpecErrorKind::UnknownConversion('l'), 3)));
        assert_eq!(kind("%v"), Some((SpecErrorKind::UnknownConversion('v'), 1)));
        assert_eq!(kind("%d "), Some((SpecErrorKind::TrailingText, 2)));
        assert_eq!(Spec::parse("%hhd").map(|s| s.conversion()), Ok(Conversion::Decimal));
        assert_eq!(Spec::parse("%10000d").map(|s| s.width()), Ok(10000));
    }
}
