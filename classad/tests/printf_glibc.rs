//! `classad::printf` against the C library's own `snprintf`, on edge values
//! and on seeded random values and conversion specifications.
//!
//! Every case builds one specification twice: the text `classad::printf`
//! parses (with a random length modifier, which it ignores) and the text
//! given to `snprintf` (`ll` for integers, so that the C library reads the
//! same 64-bit value). The outputs must be byte for byte the same.

// Calling the C library's variadic `snprintf` needs `unsafe`; it is the
// oracle of this test and is used nowhere else.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, CString};

use classad::printf::{Conversion, Spec};

/// A small deterministic generator (splitmix64), so that every run checks
/// the same cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// What C's snprintf writes for `format` and one argument.
enum CArg<'a> {
    Int(i64),
    Real(f64),
    Str(&'a CString),
    Char(c_int),
    None,
}

fn c_format(format: &str, arg: &CArg<'_>) -> String {
    let format = CString::new(format).expect("no NUL in a format");
    let mut buf = vec![0u8; 512];
    loop {
        let ptr = buf.as_mut_ptr().cast::<c_char>();
        // SAFETY: `buf` is writable for `buf.len()` bytes, `format` is a
        // NUL-terminated string with exactly one conversion, and the
        // argument has the type that conversion reads (`ll` for integers).
        let n = unsafe {
            match arg {
                CArg::Int(i) => libc::snprintf(ptr, buf.len(), format.as_ptr(), *i),
                CArg::Real(x) => libc::snprintf(ptr, buf.len(), format.as_ptr(), *x),
                CArg::Str(s) => libc::snprintf(ptr, buf.len(), format.as_ptr(), s.as_ptr()),
                CArg::Char(c) => libc::snprintf(ptr, buf.len(), format.as_ptr(), *c),
                CArg::None => libc::snprintf(ptr, buf.len(), format.as_ptr()),
            }
        };
        let n = usize::try_from(n).expect("snprintf failed");
        if n < buf.len() {
            buf.truncate(n);
            return String::from_utf8(buf).expect("ASCII output");
        }
        buf = vec![0u8; n + 1];
    }
}

/// One specification: its parts, and its text for Rust and for C.
struct Case {
    flags: String,
    width: Option<usize>,
    precision: Option<usize>,
    conversion: char,
}

impl Case {
    fn body(&self) -> String {
        let mut s = format!("%{}", self.flags);
        if let Some(w) = self.width {
            s += &w.to_string();
        }
        if let Some(p) = self.precision {
            s += &format!(".{p}");
        }
        s
    }

    fn rust_text(&self, length: &str) -> String {
        format!("{}{length}{}", self.body(), self.conversion)
    }

    fn c_text(&self) -> String {
        let length = if "diuoxX".contains(self.conversion) { "ll" } else { "" };
        format!("{}{length}{}", self.body(), self.conversion)
    }
}

fn random_case(rng: &mut Rng, conversion: char) -> Case {
    let mut flags = String::new();
    for flag in ['-', '+', ' ', '#', '0'] {
        if rng.chance(30) {
            flags.push(flag);
        }
    }
    // Repeated and reordered flags are part of the grammar too.
    if rng.chance(5) {
        flags.push(rng.pick(&['-', '+', ' ', '#', '0']));
    }
    let width = match rng.below(10) {
        0..=3 => None,
        4..=8 => Some(rng.below(31) as usize),
        _ => Some(rng.below(80) as usize),
    };
    let precision = match rng.below(20) {
        0..=4 => None,
        5..=16 => Some(rng.below(21) as usize),
        17 | 18 => Some(rng.below(60) as usize),
        _ => Some(rng.below(400) as usize),
    };
    Case { flags, width, precision, conversion }
}

/// Checks one case; returns a description of a mismatch.
fn check(case: &Case, length: &str, arg: &CArg<'_>, rust: impl Fn(&Spec) -> String) -> Result<(), String> {
    let text = case.rust_text(length);
    let spec = Spec::parse(&text).map_err(|e| format!("{text}: {e}"))?;
    if spec.conversion().to_char() != case.conversion
        || spec.width() != case.width.unwrap_or(0)
        || spec.precision() != case.precision
    {
        return Err(format!("{text}: parsed as {spec:?}"));
    }
    let ours = rust(&spec);
    let theirs = c_format(&case.c_text(), arg);
    if ours != theirs {
        return Err(format!("{text}: ours {ours:?}, snprintf {theirs:?}"));
    }
    Ok(())
}

const REAL_CONVERSIONS: [char; 6] = ['e', 'E', 'f', 'F', 'g', 'G'];
const INT_CONVERSIONS: [char; 6] = ['d', 'i', 'u', 'o', 'x', 'X'];

/// Reals where printf's choices are delicate.
fn edge_reals() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::MIN_POSITIVE / 2.0,
        f64::from_bits(1),
        f64::from_bits(0x000F_FFFF_FFFF_FFFF),
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        999999.5,
        999999.7,
        9.9999996e-05,
        9.99995e-05,
        0.000099999949,
        99999.95,
        0.5,
        1.5,
        2.5,
        0.125,
        0.375,
        1e15,
        1e16,
        1e17,
        1e21,
        1e22,
        1e23,
        123456789.0,
        1.0 / 3.0,
        2.0 / 3.0,
        std::f64::consts::PI,
        9007199254740993.0,
        4503599627370495.5,
    ];
    // Powers of ten, the doubles beside them, and the values that round up
    // across them (9.95, 99.5, 9.9999995e-5, ...) at each precision.
    for e in (-325..=-300).chain(-30..=30).chain(290..=308) {
        let p = format!("1e{e}").parse::<f64>().unwrap_or(0.0);
        v.extend([p, -p, next_up(p), next_down(p)]);
    }
    for digits in 1..=17 {
        let nines = "9".repeat(digits);
        for e in [-310, -5, -4, -3, 0, 5, 6, 15, 20, 300] {
            for tail in ["5", "49", "50000001"] {
                if let Ok(x) = format!("{nines}{tail}e{e}").parse::<f64>() {
                    v.push(x);
                }
            }
        }
    }
    v
}

fn next_up(x: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        f64::from_bits(x.to_bits() + 1)
    } else {
        x
    }
}

fn next_down(x: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        f64::from_bits(x.to_bits() - 1)
    } else {
        x
    }
}

/// A random real: any bit pattern, or a short decimal at some scale (the
/// values people print), or something near an integer.
fn random_real(rng: &mut Rng) -> f64 {
    match rng.below(4) {
        0 => f64::from_bits(rng.next()),
        1 => {
            let digits = rng.below(10_000_000) as f64;
            let exponent = rng.below(60) as i32 - 30;
            let x = digits * 10f64.powi(exponent);
            if rng.chance(50) {
                -x
            } else {
                x
            }
        }
        2 => (rng.next() >> rng.below(64)) as f64 + rng.pick(&[0.0, 0.5, 0.25, 0.1, 0.9999999]),
        _ => {
            let exponent = rng.below(2046) + 1;
            f64::from_bits((exponent << 52) | (rng.next() >> 12))
        }
    }
}

fn edge_ints() -> Vec<i64> {
    let mut v = vec![0, 1, -1, 7, 8, -8, 9, 10, 15, 16, 255, 256, i64::MAX, i64::MIN, i64::MIN + 1, i64::MAX - 1];
    for shift in 0..64 {
        let p = 1i64.wrapping_shl(shift);
        v.extend([p, p.wrapping_sub(1), p.wrapping_neg()]);
    }
    let mut p: i64 = 1;
    while let Some(next) = p.checked_mul(10) {
        v.extend([p, p - 1, -p, 1 - p]);
        p = next;
    }
    v
}

/// Counts a case; keeps the first 40 mismatches and counts the others.
fn run(label: &str, failures: &mut Vec<String>, checked: &mut usize, result: Result<(), String>) {
    *checked += 1;
    if let Err(e) = result {
        failures.push(if failures.len() < 40 { format!("{label}: {e}") } else { String::new() });
    }
}

#[test]
fn printf_matches_the_c_library() {
    let mut rng = Rng(0x00C0_FFEE_2026_0035);
    let mut failures = Vec::new();
    let mut checked = 0;
    let lengths_int = ["", "", "", "hh", "h", "l", "ll", "j", "z", "t", "q"];
    let lengths_real = ["", "", "", "l"];

    // Every edge real at every precision 0..=20 and 30 for every real
    // conversion, plain or with `#`; then with random specifications.
    let reals = edge_reals();
    for &x in &reals {
        for conversion in REAL_CONVERSIONS {
            for precision in (0..=20).chain([30]) {
                let flags = rng.pick(&["", "#"]);
                let case = Case { flags: flags.into(), width: None, precision: Some(precision), conversion };
                run("edge real", &mut failures, &mut checked, check(&case, "", &CArg::Real(x), |s| s.format_f64(x)));
            }
            for _ in 0..4 {
                let case = random_case(&mut rng, conversion);
                let length = rng.pick(&lengths_real);
                run(
                    "edge real",
                    &mut failures,
                    &mut checked,
                    check(&case, length, &CArg::Real(x), |s| s.format_f64(x)),
                );
            }
        }
    }
    // Random reals with random specifications.
    for _ in 0..100_000 {
        let x = if rng.chance(5) { rng.pick(&reals) } else { random_real(&mut rng) };
        let conversion = rng.pick(&REAL_CONVERSIONS);
        let case = random_case(&mut rng, conversion);
        let length = rng.pick(&lengths_real);
        run("real", &mut failures, &mut checked, check(&case, length, &CArg::Real(x), |s| s.format_f64(x)));
    }

    // Integers: every edge with every conversion and random specifications,
    // then random values; signed and unsigned arguments.
    let ints = edge_ints();
    for &i in &ints {
        for conversion in INT_CONVERSIONS {
            for _ in 0..6 {
                let case = random_case(&mut rng, conversion);
                let length = rng.pick(&lengths_int);
                run("edge int", &mut failures, &mut checked, check(&case, length, &CArg::Int(i), |s| s.format_i64(i)));
                let u = i as u64;
                run("edge u64", &mut failures, &mut checked, check(&case, length, &CArg::Int(i), |s| s.format_u64(u)));
            }
        }
    }
    for _ in 0..50_000 {
        let i = if rng.chance(10) { rng.pick(&ints) } else { (rng.next() >> rng.below(64)) as i64 };
        let i = if rng.chance(30) { i.wrapping_neg() } else { i };
        let conversion = rng.pick(&INT_CONVERSIONS);
        let case = random_case(&mut rng, conversion);
        let length = rng.pick(&lengths_int);
        run("int", &mut failures, &mut checked, check(&case, length, &CArg::Int(i), |s| s.format_i64(i)));
    }

    // A `long long` given to a format with another length modifier, as C
    // programs pass one to a user's format: glibc reads the type the
    // modifier names (the low bits, on x86-64).
    if cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        for _ in 0..20_000 {
            let i = if rng.chance(10) { rng.pick(&ints) } else { (rng.next() >> rng.below(64)) as i64 };
            let i = if rng.chance(30) { i.wrapping_neg() } else { i };
            let conversion = rng.pick(&INT_CONVERSIONS);
            let case = random_case(&mut rng, conversion);
            let length = rng.pick(&["", "", "hh", "h", "l", "ll", "j", "z", "t", "q", "L"]);
            let text = case.rust_text(length);
            let result = match Spec::parse(&text) {
                Ok(spec) => {
                    let (ours, theirs) = (spec.format_long_long(i), c_format(&text, &CArg::Int(i)));
                    if ours == theirs {
                        Ok(())
                    } else {
                        Err(format!("{text} of {i}: ours {ours:?}, snprintf {theirs:?}"))
                    }
                }
                Err(e) => Err(format!("{text}: {e}")),
            };
            run("long long", &mut failures, &mut checked, result);
        }
    }

    // Strings, characters and `%%`.
    for _ in 0..10_000 {
        let len = rng.below(25) as usize;
        let text: String = (0..len).map(|_| char::from(rng.pick(b" abcdefXYZ0123456789.-_%"))).collect();
        let c_text = CString::new(text.clone()).expect("no NUL");
        let case = random_case(&mut rng, 's');
        run("str", &mut failures, &mut checked, check(&case, "", &CArg::Str(&c_text), |s| s.format_str(&text)));
        let c = char::from(rng.below(126) as u8 + 1);
        let case = random_case(&mut rng, 'c');
        run(
            "char",
            &mut failures,
            &mut checked,
            check(&case, "", &CArg::Char(c_int::from(c as u8)), |s| s.format_char(c)),
        );
    }
    for _ in 0..100 {
        let case = random_case(&mut rng, '%');
        run("percent", &mut failures, &mut checked, check(&case, "", &CArg::None, |s| s.format_str("")));
    }

    eprintln!("{checked} cases checked against snprintf");
    assert!(checked >= 100_000, "only {checked} cases");
    assert!(
        failures.is_empty(),
        "{} of {checked} cases differ:\n{}",
        failures.len(),
        failures[..failures.len().min(40)].join("\n")
    );
    // The parser agrees with itself on the conversion of each character.
    assert_eq!(Conversion::from_char('G'), Some(Conversion::GeneralUpper));
}
