//! Streaming readers: errors name the ad and the line, bad ads can be
//! skipped, malformed input of every kind gives an error (never a panic or
//! a hang), and memory stays bounded by the largest ad even for a 100 MB
//! line (a peak-tracking allocator in this test binary checks it).

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{BufReader, Read};
use std::sync::atomic::{AtomicUsize, Ordering};

use classad::format::{self, Format, FormatError, ReadLimits, Reader};
use classad::ClassAd;
use proptest::prelude::*;

struct PeakTracking;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    let now = CURRENT.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

#[allow(unsafe_code)]
// SAFETY: forwards every call unchanged to the system allocator; it only
// keeps count of the bytes in use.
unsafe impl GlobalAlloc for PeakTracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        grew(new_size);
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: PeakTracking = PeakTracking;

/// Held by the tests that measure the peak, which is process-wide, and by
/// the other tests of this file that allocate much: run at the same time,
/// a measuring test counted the others' allocations (a 20 MB peak).
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn measuring() -> std::sync::MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn read_all(text: &str, format: Option<Format>, skip: bool) -> Vec<Result<ClassAd, FormatError>> {
    Reader::new(text.as_bytes(), format).skip_bad_ads(skip).collect()
}

fn error_of(text: &str, format: Option<Format>) -> FormatError {
    read_all(text, format, false).into_iter().find_map(Result::err).unwrap_or_else(|| panic!("no error for {text:?}"))
}

#[test]
fn errors_name_the_ad_and_the_line() {
    let _measuring = measuring();
    let err = error_of("A = 1\n\nB = 2\nC = (3\n", None);
    assert_eq!((err.ad, err.line, err.column), (2, 4, 7), "{err}");

    let json = "[\n{\n  \"a\": 1\n}\n,\n{\n  \"a\": 2,\n  \"b\": tru\n}\n]\n";
    let err = error_of(json, None);
    assert_eq!((err.ad, err.line), (2, 8), "{err}");

    let new = "[ a = 1 ]\n[ a = 2 ]\n[ a = 3;\n  b = 4 +\n]\n";
    let err = error_of(new, None);
    assert_eq!((err.ad, err.line), (3, 5), "{err}");

    let xml = "<classads>\n<c>\n  <a n=\"a\"><i>1</i></a>\n</c>\n<c>\n  <a n=\"a\"><i>x</i></a>\n</c>\n</classads>\n";
    let err = error_of(xml, None);
    assert_eq!((err.ad, err.line), (2, 6), "{err}");
    assert!(err.message.contains("not an integer"), "{err}");
}

#[test]
fn bad_ads_can_be_skipped() {
    let _measuring = measuring();
    let cases = [
        (Format::Old, "A = 1\n\nB = )\n\nC = 3\n"),
        (Format::New, "[ a = 1 ]\n[ b = ) ]\n[ c = 3 ]\n"),
        (Format::Json, "[{\"a\": 1}, {\"b\": tru}, {\"c\": 3}]"),
        (Format::Xml, "<classads><c><a n=\"a\"><i>1</i></a></c><c><a n=\"b\"><q/></a></c><c><a n=\"c\"><i>3</i></a></c></classads>"),
    ];
    for (format, text) in cases {
        let all = read_all(text, Some(format), true);
        assert_eq!(all.len(), 3, "{format}");
        assert!(all[0].is_ok() && all[1].is_err() && all[2].is_ok(), "{format}: {all:?}");
        assert_eq!(all[1].as_ref().err().map(|e| e.ad), Some(2));
        // Without skipping, the reader stops at the bad ad.
        let stopped = read_all(text, Some(format), false);
        assert_eq!(stopped.len(), 2, "{format}");
    }
}

#[test]
fn malformed_input_is_an_error() {
    let _measuring = measuring();
    let cases: &[(Option<Format>, &[u8])] = &[
        (Some(Format::Old), b"A = \"unterminated\n"),
        (Some(Format::Old), b"A = 1\nB\n"),
        (Some(Format::Old), b"A = \xff\xfe\n"),
        (Some(Format::Old), b"= 1\n"),
        (Some(Format::New), b"[ a = 1; b = \"open ]"),
        (Some(Format::New), b"[ a = 1"),
        (Some(Format::New), b"[ a = \"\xc3\" ]"),
        (Some(Format::New), b"x = 1"),
        (Some(Format::Json), b"{\"a\": 1"),
        (Some(Format::Json), b"[{\"a\": 1},"),
        (Some(Format::Json), b"{\"a\": \"\\ud800\"}"),
        (Some(Format::Json), b"{\"a\": \"\xff\"}"),
        (Some(Format::Json), b"{\"a\": 1}}"),
        (Some(Format::Xml), b"<c><a n=\"a\"><i>1</i></a>"),
        (Some(Format::Xml), b"<c><a n=\"a\"><s>&bad;</s></a></c>"),
        (Some(Format::Xml), b"<c><a n=\"a\"><i>1</i></a></c><x/>"),
        (None, b"<c"),
        (None, b"{"),
        (None, b"["),
    ];
    for (format, bytes) in cases {
        let results: Vec<_> = Reader::new(*bytes, *format).collect();
        assert!(results.iter().any(Result::is_err), "{format:?} {:?}: {results:?}", String::from_utf8_lossy(bytes));
        for error in results.iter().filter_map(|r| r.as_ref().err()) {
            assert!(error.line >= 1 && !error.message.is_empty(), "{error}");
        }
    }
}

#[test]
fn deep_nesting_is_an_error() {
    let _measuring = measuring();
    let depth = 200_000;
    let new = format!("[ a = {}1{} ]", "{".repeat(depth), "}".repeat(depth));
    let json = format!("{{\"a\": {}1{}}}", "[".repeat(depth), "]".repeat(depth));
    let xml = format!("<c><a n=\"a\">{}<i>1</i>{}</a></c>", "<l>".repeat(depth), "</l>".repeat(depth));
    let old = format!("A = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
    for (format, text) in [(Format::New, new), (Format::Json, json), (Format::Xml, xml), (Format::Old, old)] {
        let err = error_of(&text, Some(format));
        assert!(err.message.contains("deep") || err.message.contains("nest"), "{format}: {err}");
    }
}

/// `len` bytes of `byte`, produced as they are read (never held whole).
struct Repeat {
    byte: u8,
    left: usize,
}

impl Read for Repeat {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.left);
        buf[..n].fill(self.byte);
        self.left -= n;
        Ok(n)
    }
}

#[test]
fn a_100_mb_line_is_an_error_in_bounded_memory() {
    let _measuring = measuring();
    let limits = ReadLimits { max_ad_bytes: 1 << 20, ..ReadLimits::default() };
    for format in [Format::Old, Format::New, Format::Json, Format::Xml] {
        let (start, end) = match format {
            Format::Old => ("A = 1\n\nB = \"", "\"\n\nC = 3\n"),
            Format::New => ("[ a = 1 ]\n[ b = \"", "\" ]\n[ c = 3 ]\n"),
            Format::Json => ("{\"a\": 1}\n{\"b\": \"", "\"}\n{\"c\": 3}\n"),
            Format::Xml => {
                ("<c><a n=\"a\"><i>1</i></a></c><c><a n=\"b\"><s>", "</s></a></c><c><a n=\"c\"><i>3</i></a></c>")
            }
        };
        let input = start.as_bytes().chain(Repeat { byte: b'x', left: 100 << 20 }).chain(end.as_bytes());
        let before = CURRENT.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let results: Vec<_> =
            Reader::new(BufReader::new(input), Some(format)).limits(limits).skip_bad_ads(true).collect();
        let peak = PEAK.load(Ordering::Relaxed) - before;
        assert_eq!(results.len(), 3, "{format}: {results:?}");
        assert!(results[0].is_ok() && results[2].is_ok(), "{format}");
        let error = results[1].as_ref().err().map(|e| e.message.clone()).unwrap_or_default();
        assert!(error.contains("larger than the limit"), "{format}: {error}");
        assert!(peak < 8 << 20, "{format}: {peak} bytes at the peak");
    }
}

#[test]
fn memory_is_bounded_by_the_largest_ad() {
    let _measuring = measuring();
    // 20,000 ads of ~1 KB in each format, read one at a time.
    let ad: ClassAd = classad::parse_ad(
        r#"[ Name = "slot1@wn001.example.org"; Cpus = 8; Memory = 32768; Start = KeyboardIdle > 15 * 60;
             Rank = TARGET.Owner == "alice"; Offline = false; LoadAvg = 0.25 ]"#,
    )
    .expect("ad");
    for format in [Format::Old, Format::New, Format::Json, Format::Xml] {
        let one = format::to_string([&ad], format);
        let text = format::to_string(std::iter::repeat_n(&ad, 20_000), format);
        assert!(text.len() > 20_000 * (one.len() / 2));
        let before = CURRENT.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let mut count = 0;
        for result in Reader::new(text.as_bytes(), Some(format)) {
            assert!(result.expect("reads").same_as(&ad));
            count += 1;
        }
        let peak = PEAK.load(Ordering::Relaxed) - before;
        assert_eq!(count, 20_000);
        assert!(peak < 256 << 10, "{format}: {peak} bytes at the peak for a {}-byte input", text.len());
    }
}

fn any_format() -> impl Strategy<Value = Option<Format>> {
    prop::sample::select(vec![None, Some(Format::Old), Some(Format::New), Some(Format::Json), Some(Format::Xml)])
}

/// Fragments of every format, to splice into plausible garbage.
const PIECES: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    "<c>",
    "</c>",
    "<a n=\"x\">",
    "</a>",
    "<i>",
    "</i>",
    "<s>",
    "</s>",
    "<l>",
    "</l>",
    "<classads>",
    "\"",
    "\\",
    "'",
    "=",
    ";",
    ",",
    ":",
    "\n",
    "\n\n",
    " ",
    "A = 1",
    "\"a\": 1",
    "x",
    "1",
    "-",
    ".",
    "&amp;",
    "&",
    "\\u00e9",
    "\\ud800",
    "/*",
    "//",
    "***",
    "#",
    "é",
    "\u{0}",
    "\r\n",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300), format in any_format()) {
        for result in Reader::new(bytes.as_slice(), format).skip_bad_ads(true) {
            if let Err(e) = result {
                prop_assert!(e.ad >= 1 && e.line >= 1);
            }
        }
    }

    #[test]
    fn spliced_fragments_never_panic(pieces in prop::collection::vec(prop::sample::select(PIECES), 0..40), format in any_format()) {
        let text = pieces.concat();
        let results: Vec<_> = Reader::new(text.as_bytes(), format).skip_bad_ads(true).collect();
        prop_assert!(results.len() <= text.len() + 1);
    }
}
