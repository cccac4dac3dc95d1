//! The `__repr__` of the module's record classes, written the way Python
//! writes its own values: strings in quotes as `repr(str)` gives them
//! (`'M'`, `"it's"`), `None`, `True` and `False`, lists in brackets, floats
//! as `repr(float)` (`1.0`, `1e-05`, `inf`). Every class builds its repr
//! with [`Repr`], so that all of them read alike:
//! `SubmitVerdict(accepted=False, name='M', reason='too big', warnings=[])`.
//!
//! Nothing here needs the GIL: the values are Rust's, written as Python
//! would show the Python values they convert to.

use std::fmt::Write;

/// A value written as Python's `repr` writes the Python value it becomes.
pub(crate) trait PyRepr {
    /// Appends the value's Python repr to `out`.
    fn write_repr(&self, out: &mut String);
}

/// `name(field=value, ...)`, built field by field.
pub(crate) struct Repr {
    out: String,
    fields: usize,
}

impl Repr {
    /// The repr of an object of class `class`.
    pub(crate) fn new(class: &str) -> Repr {
        let mut out = String::with_capacity(64);
        out.push_str(class);
        out.push('(');
        Repr { out, fields: 0 }
    }

    /// Adds `name=value`.
    pub(crate) fn field(mut self, name: &str, value: &(impl PyRepr + ?Sized)) -> Repr {
        self.separate();
        self.out.push_str(name);
        self.out.push('=');
        value.write_repr(&mut self.out);
        self
    }

    /// Adds `text` as it is (a summary such as `3 matches`).
    pub(crate) fn text(mut self, text: &str) -> Repr {
        self.separate();
        self.out.push_str(text);
        self
    }

    fn separate(&mut self) {
        if self.fields > 0 {
            self.out.push_str(", ");
        }
        self.fields += 1;
    }

    /// The repr.
    pub(crate) fn finish(mut self) -> String {
        self.out.push(')');
        self.out
    }
}

impl PyRepr for str {
    fn write_repr(&self, out: &mut String) {
        // Python quotes with ' unless the text has a ' and no ".
        let quote = if self.contains('\'') && !self.contains('"') { '"' } else { '\'' };
        out.push(quote);
        for c in self.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if c == quote => {
                    out.push('\\');
                    out.push(c);
                }
                // Python's usual unprintable characters: the controls,
                // no-break space, soft hyphen (the rarer ones Python
                // escapes, format characters and unassigned code points
                // beyond these, are written as they are).
                c if (c as u32) < 0x20 || (0x7f..=0xa0).contains(&(c as u32)) || c == '\u{ad}' => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c if matches!(c as u32, 0x2028 | 0x2029 | 0xfeff) => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c => out.push(c),
            }
        }
        out.push(quote);
    }
}

impl PyRepr for String {
    fn write_repr(&self, out: &mut String) {
        self.as_str().write_repr(out);
    }
}

impl PyRepr for bool {
    fn write_repr(&self, out: &mut String) {
        out.push_str(if *self { "True" } else { "False" });
    }
}

macro_rules! int_repr {
    ($($t:ty),*) => {$(
        impl PyRepr for $t {
            fn write_repr(&self, out: &mut String) {
                let _ = write!(out, "{self}");
            }
        }
    )*};
}
int_repr!(i32, i64, u32, u64, usize);

impl PyRepr for f64 {
    /// As `repr(float)`: the shortest digits that read back to the same
    /// number, positional from 1e-4 up to 1e16, else with an exponent of
    /// at least two digits and its sign.
    fn write_repr(&self, out: &mut String) {
        let x = *self;
        if x.is_nan() {
            out.push_str("nan");
            return;
        }
        if x.is_infinite() {
            out.push_str(if x > 0.0 { "inf" } else { "-inf" });
            return;
        }
        if x.is_sign_negative() {
            out.push('-');
        }
        // Rust's `{:e}` gives the same shortest digits: `d[.ddd]eN`.
        let sci = format!("{:e}", x.abs());
        let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
        if (-4..16).contains(&exp) {
            if exp < 0 {
                out.push_str("0.");
                out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
                out.push_str(&digits);
            } else {
                let whole = exp as usize + 1;
                if digits.len() <= whole {
                    out.push_str(&digits);
                    out.extend(std::iter::repeat_n('0', whole - digits.len()));
                    out.push_str(".0");
                } else {
                    out.push_str(&digits[..whole]);
                    out.push('.');
                    out.push_str(&digits[whole..]);
                }
            }
        } else {
            out.push_str(mantissa);
            let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
        }
    }
}

impl<T: PyRepr> PyRepr for Option<T> {
    fn write_repr(&self, out: &mut String) {
        match self {
            Some(v) => v.write_repr(out),
            None => out.push_str("None"),
        }
    }
}

impl<T: PyRepr> PyRepr for [T] {
    fn write_repr(&self, out: &mut String) {
        out.push('[');
        for (i, v) in self.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            v.write_repr(out);
        }
        out.push(']');
    }
}

impl<T: PyRepr> PyRepr for Vec<T> {
    fn write_repr(&self, out: &mut String) {
        self.as_slice().write_repr(out);
    }
}

impl<T: PyRepr + ?Sized> PyRepr for &T {
    fn write_repr(&self, out: &mut String) {
        (**self).write_repr(out);
    }
}

/// `value` as Python's `repr` writes it.
pub(crate) fn repr(value: &(impl PyRepr + ?Sized)) -> String {
    let mut out = String::new();
    value.write_repr(&mut out);
    out
}
