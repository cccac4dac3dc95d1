//! ClassAds on the wire (`putClassAd` / `getClassAd` of
//! `classad_oldnew.cpp`).
//!
//! An ad is an integer N, then N strings `Name = <old-syntax expression>`,
//! then two trailing strings (historically MyType and TargetType; C++ sends
//! them empty and ignores them on read). [`PutOptions`] carries C++'s
//! options: dropping the trailing strings (`PUT_CLASSAD_NO_TYPES`), dropping
//! private attributes (`PUT_CLASSAD_NO_PRIVATE`), the projection
//! (whitelist) and the peer's version, which decides whether V2 private
//! attributes (`_condor_priv*`) may go out at all.
//!
//! ```
//! use cedar::wire::{ad, Decoder, Encoder};
//! let sent: classad::ClassAd = r#"[ MyType = "Machine"; Name = "slot1@h"; Cpus = 4; Big = Cpus > 2 ]"#.parse()?;
//! let mut enc = Encoder::new(false);
//! ad::put_classad(&mut enc, &sent, &ad::PutOptions::default())?;
//! let bytes = enc.into_bytes();
//! let got = ad::get_classad(&mut Decoder::new(&bytes, false), &ad::AdLimits::default())?;
//! assert!(got.same_as(&sent));
//!
//! // A projection keeps what the listed attributes use.
//! let opts = ad::PutOptions::new().projection(Some(vec!["Big".into()]));
//! let mut enc = Encoder::new(false);
//! ad::put_classad(&mut enc, &sent, &opts)?;
//! let bytes = enc.into_bytes();
//! let got = ad::get_classad(&mut Decoder::new(&bytes, false), &ad::AdLimits::default())?;
//! assert_eq!(got.names().map(|n| n.as_str()).collect::<Vec<_>>(), ["Big", "Cpus"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::cell::Cell;
use std::collections::BTreeMap;

use classad::references::{internal, trim, Side};
use classad::{
    AttributeError, AttributeParser, ClassAd, EvalOptions, Expr, Literal, Name, ParseLimits, Semantics, Syntax,
};

use super::codec::{has_nul, Decoder, Encoder};
use crate::error::{Error, ErrorKind, Result};
use crate::version::Version;

/// The value C++ sends in place of a private attribute whose real
/// `Name = value` string follows encrypted (`SECRET_MARKER`).
pub const SECRET_MARKER: &str = "ZKM";

/// The V1 private attributes (`ClassAdPrivateAttrs`, `compat_classad.cpp`
/// 55), compared without case.
pub const PRIVATE_V1: [&str; 6] = ["Capability", "ChildClaimIds", "ClaimId", "ClaimIdList", "ClaimIds", "TransferKey"];

/// The lengths of the [`PRIVATE_V1`] names, one bit each.
const PRIVATE_V1_LENGTHS: u32 = {
    let mut bits = 0;
    let mut i = 0;
    while i < PRIVATE_V1.len() {
        bits |= 1 << PRIVATE_V1[i].len();
        i += 1;
    }
    bits
};

/// The prefix of V2 private attributes, compared without case.
pub const PRIVATE_V2_PREFIX: &str = "_condor_priv";

/// Whether `name` is a V1 private attribute.
///
/// ```
/// assert!(cedar::wire::ad::is_private_v1("claimid"));
/// assert!(!cedar::wire::ad::is_private_v1("ClaimIdX"));
/// ```
pub fn is_private_v1(name: &str) -> bool {
    // Each starts with C or T and has one of a few lengths: most names
    // are out at the first byte or at the length.
    matches!(name.as_bytes().first(), Some(b'c' | b'C' | b't' | b'T'))
        && name.len() < 32
        && PRIVATE_V1_LENGTHS & (1 << name.len()) != 0
        && PRIVATE_V1.iter().any(|p| p.eq_ignore_ascii_case(name))
}

/// Whether `name` is a V2 private attribute (`_condor_priv` prefix).
///
/// ```
/// assert!(cedar::wire::ad::is_private_v2("_CONDOR_PRIV_Key"));
/// ```
pub fn is_private_v2(name: &str) -> bool {
    name.as_bytes().first() == Some(&b'_')
        && name.len() >= PRIVATE_V2_PREFIX.len()
        && name.as_bytes()[..PRIVATE_V2_PREFIX.len()].eq_ignore_ascii_case(PRIVATE_V2_PREFIX.as_bytes())
}

/// Whether `name` is private in either way.
pub fn is_private(name: &str) -> bool {
    is_private_v1(name) || is_private_v2(name)
}

/// The oldest peer version that may receive V2 private attributes.
pub const PRIVATE_V2_SINCE: (u32, u32, u32) = (9, 9, 0);

/// Bounds on an ad read from the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AdLimits {
    /// The most attributes an ad may declare: 100,000.
    pub max_attributes: usize,
    /// The longest `Name = value` string: 1 MiB (a packet's size).
    pub max_line: usize,
    /// The deepest expression: 1,000 (the classad crate's default).
    pub max_depth: u32,
}

impl AdLimits {
    /// The same limits with another bound on the attribute count.
    pub fn max_attributes(mut self, n: usize) -> AdLimits {
        self.max_attributes = n;
        self
    }

    /// The same limits with another bound on expression depth.
    pub fn max_depth(mut self, n: u32) -> AdLimits {
        self.max_depth = n;
        self
    }

    /// The same limits with another bound on one attribute's string.
    pub fn max_line(mut self, n: usize) -> AdLimits {
        self.max_line = n;
        self
    }
}

impl Default for AdLimits {
    fn default() -> Self {
        AdLimits { max_attributes: 100_000, max_line: 1 << 20, max_depth: 1000 }
    }
}

/// How to send an ad.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PutOptions {
    /// Leave out the two trailing strings (`PUT_CLASSAD_NO_TYPES`).
    pub no_types: bool,
    /// Leave out every private attribute (`PUT_CLASSAD_NO_PRIVATE`).
    pub exclude_private: bool,
    /// The peer's version. V2 private attributes go only to a peer known to
    /// be at least 9.9.0; `None` (unknown, as with raw commands) drops them.
    pub peer_version: Option<Version>,
    /// Send only these attributes and those their values use (see
    /// [`expand_projection`]).
    pub projection: Option<Vec<String>>,
    /// Add `ServerTime = <this>` (`PUT_CLASSAD_SERVER_TIME`).
    pub server_time: Option<i64>,
}

impl PutOptions {
    /// C++'s defaults: everything, with the trailing strings, to a peer of
    /// unknown version.
    pub fn new() -> PutOptions {
        PutOptions::default()
    }

    /// Sets [`no_types`](PutOptions::no_types).
    pub fn no_types(mut self, yes: bool) -> PutOptions {
        self.no_types = yes;
        self
    }

    /// Sets [`exclude_private`](PutOptions::exclude_private).
    pub fn exclude_private(mut self, yes: bool) -> PutOptions {
        self.exclude_private = yes;
        self
    }

    /// Sets [`peer_version`](PutOptions::peer_version).
    pub fn peer_version(mut self, version: Option<Version>) -> PutOptions {
        self.peer_version = version;
        self
    }

    /// Sets [`projection`](PutOptions::projection).
    pub fn projection(mut self, names: Option<Vec<String>>) -> PutOptions {
        self.projection = names;
        self
    }

    /// Sets [`server_time`](PutOptions::server_time).
    pub fn server_time(mut self, time: Option<i64>) -> PutOptions {
        self.server_time = time;
        self
    }

    fn exclude_private_v2(&self) -> bool {
        let (a, b, c) = PRIVATE_V2_SINCE;
        self.exclude_private || !self.peer_version.as_ref().is_some_and(|v| v.built_since(a, b, c))
    }

    fn excluded(&self, name: &str) -> bool {
        (self.exclude_private && is_private_v1(name)) || (self.exclude_private_v2() && is_private_v2(name))
    }
}

/// A projection expanded as `putClassAd` does: every listed attribute the ad
/// has (its chained parent included), plus, for each whose value is not a
/// literal, the ad's attributes that value uses (followed through them,
/// `MY.` references included, `TARGET.` ones not). Names the ad lacks are
/// dropped. The result is in C++'s order: sorted
/// without case, one per name whatever its case.
///
/// ```
/// let ad: classad::ClassAd = "[ A = B + 1; B = C; C = 3; D = 4 ]".parse()?;
/// let names = cedar::wire::ad::expand_projection(&ad, &["a", "D", "Missing"]);
/// assert_eq!(names, ["a", "B", "C", "D"]);
/// # Ok::<(), classad::ParseError>(())
/// ```
pub fn expand_projection<S: AsRef<str>>(ad: &ClassAd, names: &[S]) -> Vec<String> {
    // Old semantics, as HTCondor's daemons evaluate (STRICT_CLASSAD_EVALUATION
    // is false): `MY.B` is a reference to the ad's own `B`.
    let opts = EvalOptions::new().semantics(Semantics::Old);
    let mut set: BTreeMap<String, String> = BTreeMap::new();
    for name in names {
        let name = name.as_ref();
        let Some(expr) = ad.lookup(name) else { continue };
        set.entry(name.to_ascii_lowercase()).or_insert_with(|| name.to_owned());
        if expr.as_literal().is_none() {
            // libclassad's GetInternalReferences; on failure (a cycle) C++
            // goes on with what it has, which here is nothing more.
            if let Ok(refs) = internal(&opts, ad, expr) {
                for r in refs {
                    let plain = trim(&r, Side::Internal).to_owned();
                    if ad.lookup(plain.as_str()).is_some() {
                        set.entry(plain.to_ascii_lowercase()).or_insert(plain);
                    }
                }
            }
        }
    }
    set.into_values().collect()
}

/// `Name = <value>`, printed straight into the payload.
#[inline]
fn put_attribute(enc: &mut Encoder, name: &str, expr: &Expr) -> Result<()> {
    enc.put_string_checked_with(|buf, body| {
        buf.reserve(name.len() + 3 + 24);
        buf.extend_from_slice(name.as_bytes());
        buf.extend_from_slice(b" = ");
        expr.write_into(Syntax::Old, buf);
        // Numbers and the like hold no NUL: only the name is looked at
        // then; otherwise the whole line, in one pass.
        let text = !matches!(
            expr.as_literal(),
            Some(Literal::Int(_) | Literal::Real(_) | Literal::Bool(_) | Literal::Undefined | Literal::Error)
        );
        if text {
            has_nul(&buf[body..])
        } else {
            has_nul(name.as_bytes())
        }
    })
}

/// `Name = <value>` with `prefix` (`Name = `, checked for NUL by the
/// caller) already made.
#[inline]
fn put_prefixed(enc: &mut Encoder, prefix: &[u8], expr: &Expr) -> Result<()> {
    enc.put_string_checked_with(|buf, _| {
        buf.reserve(prefix.len() + 24);
        buf.extend_from_slice(prefix);
        let value = buf.len();
        expr.write_into(Syntax::Old, buf);
        let text = !matches!(
            expr.as_literal(),
            Some(Literal::Int(_) | Literal::Real(_) | Literal::Bool(_) | Literal::Undefined | Literal::Error)
        );
        text && has_nul(&buf[value..])
    })
}

/// Writes `ad` with `opts`. Attributes of a chained parent go first, as C++
/// sends them (the ad's own values then win on read).
///
/// Private attributes that are not excluded go in the clear: this crate's
/// streams are either fully encrypted or have no key, the two cases where
/// C++ does the same (it sends `ZKM` and an encrypted string only when a
/// key exists but the stream is not encrypted).
pub fn put_classad(enc: &mut Encoder, ad: &ClassAd, opts: &PutOptions) -> Result<()> {
    if let Some(list) = &opts.projection {
        return put_classad_projected(enc, ad, list, opts);
    }
    // One pass: the count is set once the attributes are out.
    let at = enc.put_int_later();
    let mut count = usize::from(opts.server_time.is_some());
    let all = ad.chained_parent().map(|p| p.iter()).into_iter().flatten().chain(ad.iter());
    for (name, expr) in all {
        let name = name.as_str();
        if !opts.excluded(name) {
            put_attribute(enc, name, expr)?;
            count += 1;
        }
    }
    enc.set_int(at, count as i64);
    put_trailer(enc, opts)
}

/// What follows an ad's attributes: `ServerTime` when asked for, then the
/// two type strings unless `no_types`.
fn put_trailer(enc: &mut Encoder, opts: &PutOptions) -> Result<()> {
    if let Some(t) = opts.server_time {
        enc.put_string_with(|buf| {
            buf.extend_from_slice(b"ServerTime = ");
            Expr::from(t).write_into(Syntax::Old, buf);
        })?;
    }
    if !opts.no_types {
        // Two empty strings: nothing to search for a NUL.
        enc.put_empty_strings(2);
    }
    Ok(())
}

/// As [`put_classad`] with `opts`' projection replaced by `names` (which
/// the caller keeps: a server sends many ads with one projection). When
/// every listed value the ad holds is a literal, nothing needs expanding
/// and the attributes go out without an allocation per ad.
///
/// ```
/// use cedar::wire::ad::{get_classad, put_classad_projected, PutOptions};
/// let ad: classad::ClassAd = "[ Name = \"slot1@h\"; Cpus = 4; Memory = 1024 ]".parse().unwrap();
/// let mut enc = cedar::wire::Encoder::new(false);
/// put_classad_projected(&mut enc, &ad, &["Name", "Cpus"], &PutOptions::default())?;
/// let back = get_classad(&mut cedar::wire::Decoder::new(enc.as_bytes(), false), &Default::default())?;
/// assert_eq!(back.len(), 2);
/// # Ok::<(), cedar::Error>(())
/// ```
pub fn put_classad_projected<S: AsRef<str>>(
    enc: &mut Encoder,
    ad: &ClassAd,
    names: &[S],
    opts: &PutOptions,
) -> Result<()> {
    let all_literal =
        names.len() <= 32 && names.iter().all(|n| ad.lookup(n.as_ref()).is_none_or(|e| e.as_literal().is_some()));
    let mut lines: Vec<(std::borrow::Cow<'_, str>, &Expr)> = Vec::with_capacity(names.len());
    if all_literal {
        // The order expand_projection gives (by lower-cased name, each
        // name once, its first spelling), without its allocations.
        for name in names {
            let name = name.as_ref();
            if lines.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                continue;
            }
            if let Some(expr) = ad.lookup(name) {
                lines.push((name.into(), expr));
            }
        }
        lines.sort_by(|(a, _), (b, _)| {
            a.bytes().map(|c| c.to_ascii_lowercase()).cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
        });
    } else {
        for name in expand_projection(ad, names) {
            if let Some(expr) = ad.lookup(name.as_str()) {
                lines.push((name.into(), expr));
            }
        }
    }
    lines.retain(|(name, _)| !opts.excluded(name));
    enc.put_int((lines.len() + usize::from(opts.server_time.is_some())) as i64);
    for (name, expr) in &lines {
        put_attribute(enc, name, expr)?;
    }
    put_trailer(enc, opts)
}

/// A projection prepared once for the many ads of a reply: the bytes of
/// [`put_classad_projected`] with the same names and options, for each ad,
/// with the per-ad work that does not depend on the ad done once.
///
/// Made once, it holds the listed names in C++'s order (each name once, its
/// first spelling, sorted without case), each already resolved to its
/// interned [`Name`] and already judged private or not for `opts`. For an
/// ad whose listed values are all literals (what `condor_status -af` asks
/// for: `Name`, `State`, ...) [`put`](Self::put) is then one lookup by
/// symbol per name and the attributes written, with no allocation; an ad
/// with a listed value that is not a literal goes the way of
/// [`put_classad_projected`] (the references it uses are added).
///
/// A listed name that no ad had when the plan was made is taken as absent
/// from every ad: make the plan after the ads it writes (a name is interned
/// when an ad holding it is read, and never forgotten).
///
/// ```
/// use cedar::wire::ad::{put_classad_projected, ProjectionPlan, PutOptions};
/// use cedar::wire::Encoder;
/// let ad: classad::ClassAd = "[ Name = \"slot1@h\"; State = \"Unclaimed\"; Cpus = 4; Big = Cpus > 2 ]".parse().unwrap();
/// for names in [&["State", "Name", "name"][..], &["Big", "Missing"][..]] {
///     let plan = ProjectionPlan::new(names, &PutOptions::default());
///     let (mut planned, mut direct) = (Encoder::new(false), Encoder::new(false));
///     plan.put(&mut planned, &ad)?;
///     put_classad_projected(&mut direct, &ad, names, &PutOptions::default())?;
///     assert_eq!(planned.as_bytes(), direct.as_bytes());
/// }
/// # Ok::<(), cedar::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ProjectionPlan {
    /// The names as listed, for the ads that need expanding.
    listed: Vec<String>,
    /// Each listed name once, in the order the attributes go out.
    sorted: Vec<Planned>,
    /// The options, projection left out.
    opts: PutOptions,
}

#[derive(Debug, Clone)]
struct Planned {
    /// The first spelling listed: what is written.
    spelling: String,
    /// `spelling = `, what each attribute's string starts with.
    prefix: Vec<u8>,
    /// The spelling holds a NUL: the ad cannot be sent with it.
    nul: bool,
    /// `None`: no ad has this name.
    name: Option<Name>,
    /// Private and excluded by the options: looked up (its value decides
    /// whether the ad needs expanding) but not written.
    excluded: bool,
}

impl ProjectionPlan {
    /// The plan of `names` (as [`put_classad_projected`] takes them) with
    /// `opts` (whose own projection is ignored).
    pub fn new<S: AsRef<str>>(names: &[S], opts: &PutOptions) -> ProjectionPlan {
        let mut sorted: Vec<Planned> = Vec::with_capacity(names.len());
        for name in names {
            let name = name.as_ref();
            if sorted.iter().any(|p| p.spelling.eq_ignore_ascii_case(name)) {
                continue;
            }
            sorted.push(Planned {
                spelling: name.to_owned(),
                prefix: [name.as_bytes(), b" = "].concat(),
                nul: has_nul(name.as_bytes()),
                name: Name::find(name),
                excluded: opts.excluded(name),
            });
        }
        // As expand_projection's map orders them: by the lower-cased bytes.
        sorted.sort_by(|a, b| {
            a.spelling.bytes().map(|c| c.to_ascii_lowercase()).cmp(b.spelling.bytes().map(|c| c.to_ascii_lowercase()))
        });
        let mut opts = opts.clone();
        opts.projection = None;
        ProjectionPlan { listed: names.iter().map(|n| n.as_ref().to_owned()).collect(), sorted, opts }
    }

    /// The names as listed.
    pub fn names(&self) -> &[String] {
        &self.listed
    }

    /// Asks the processor to load the parts of `ad`'s table that
    /// [`put`](Self::put) will read (a writer of many ads calls it a few
    /// ads ahead).
    #[inline]
    pub fn prefetch(&self, ad: &ClassAd) {
        for planned in &self.sorted {
            if let Some(name) = planned.name {
                ad.prefetch(name);
            }
        }
    }

    /// Writes `ad` projected: the bytes [`put_classad_projected`] writes
    /// for it with this plan's names and options. On an error (a NUL in a
    /// name) what was written of the ad is left for the caller to take back,
    /// as there.
    pub fn put(&self, enc: &mut Encoder, ad: &ClassAd) -> Result<()> {
        let start = enc.len();
        // One pass: the count is set once the attributes are out.
        let at = enc.put_int_later();
        let mut count = usize::from(self.opts.server_time.is_some());
        for planned in &self.sorted {
            let Some(expr) = planned.name.and_then(|name| ad.lookup(name)) else { continue };
            if expr.as_literal().is_none() {
                // Its references are sent too: the general way.
                enc.truncate(start);
                return put_classad_projected(enc, ad, &self.listed, &self.opts);
            }
            if !planned.excluded {
                if planned.nul {
                    // As put_attribute refuses it.
                    return Err(Error::new(ErrorKind::Protocol, "a string on the wire cannot hold a NUL byte"));
                }
                put_prefixed(enc, &planned.prefix, expr)?;
                count += 1;
            }
        }
        enc.set_int(at, count as i64);
        put_trailer(enc, &self.opts)
    }
}

/// Splits `Name = value` as `SplitLongFormAttrValue` does: leading
/// whitespace skipped, the name is what precedes the first `=` less its
/// trailing spaces, the value what follows less its leading spaces.
pub fn split_attribute(line: &str) -> Option<(&str, &str)> {
    let line = line.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let eq = line.find('=')?;
    let name = line[..eq].trim_end_matches(' ');
    let value = line[eq + 1..].trim_start_matches(' ');
    (!name.is_empty()).then_some((name, value))
}

/// Reads ads one after another with one [`AttributeParser`], whose caches
/// of names and values then serve every ad: what a reader of a reply of
/// many ads holds (the values of a pool's slot ads repeat from ad to ad).
///
/// ```
/// use cedar::wire::{ad, Decoder, Encoder};
/// let slot: classad::ClassAd = r#"[ Name = "slot1@h"; Start = KeyboardIdle > 15 * 60 ]"#.parse()?;
/// let mut enc = Encoder::new(false);
/// for _ in 0..3 {
///     ad::put_classad(&mut enc, &slot, &ad::PutOptions::default())?;
/// }
/// let bytes = enc.into_bytes();
/// let mut dec = Decoder::new(&bytes, false);
/// let mut reader = ad::AdReader::new(ad::AdLimits::default());
/// let ads = (0..3).map(|_| reader.read(&mut dec)).collect::<Result<Vec<_>, _>>()?;
/// assert!(ads.iter().all(|a| a.same_as(&slot)));
/// // The three `Start` values are one expression.
/// assert!(ads[0].lookup("Start").unwrap().same_as(ads[2].lookup("Start").unwrap()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct AdReader {
    limits: AdLimits,
    parser: AttributeParser,
}

impl AdReader {
    /// A reader of ads within `limits`.
    pub fn new(limits: AdLimits) -> AdReader {
        AdReader { limits, parser: AttributeParser::new(parse_limits(&limits)) }
    }

    /// The limits in force.
    pub fn limits(&self) -> &AdLimits {
        &self.limits
    }

    /// The parser, to change its cache's bounds
    /// ([`AttributeParser::cache_limits`]).
    pub fn parser_mut(&mut self) -> &mut AttributeParser {
        &mut self.parser
    }

    /// [`get_classad`] with this reader's caches.
    pub fn read(&mut self, dec: &mut Decoder<'_>) -> Result<ClassAd> {
        read_ad(dec, &self.limits, &mut self.parser, true, false)
    }

    /// [`get_classad_no_types`] with this reader's caches.
    pub fn read_no_types(&mut self, dec: &mut Decoder<'_>) -> Result<ClassAd> {
        read_ad(dec, &self.limits, &mut self.parser, false, false)
    }

    /// [`get_classad_keyed`] with this reader's caches.
    pub fn read_keyed(&mut self, dec: &mut Decoder<'_>) -> Result<ClassAd> {
        read_ad(dec, &self.limits, &mut self.parser, true, true)
    }
}

fn parse_limits(limits: &AdLimits) -> ParseLimits {
    ParseLimits { max_depth: limits.max_depth, max_input: limits.max_line }
}

thread_local! {
    /// The reader behind [`get_classad`] and its kin, kept between calls
    /// so that the ads a thread reads one by one share its caches.
    static READER: Cell<Option<AdReader>> = const { Cell::new(None) };
}

/// Runs `read` with this thread's reader for `limits` (a new one if the
/// thread has none, or one for other limits).
fn with_thread_reader(limits: &AdLimits, read: impl FnOnce(&mut AdReader) -> Result<ClassAd>) -> Result<ClassAd> {
    let mut reader = READER.with(Cell::take).filter(|r| r.limits == *limits).unwrap_or_else(|| AdReader::new(*limits));
    let ad = read(&mut reader);
    // At thread exit the slot may be gone; the reader is then dropped.
    let _ = READER.try_with(|cell| cell.set(Some(reader)));
    ad
}

/// Reads one ad with its two trailing strings (`getClassAd`) from a stream
/// that has no session key.
///
/// A private attribute may come as the string `ZKM` followed by the real
/// `Name = value` string (C++'s `put_secret`); on a stream with no key that
/// string is plaintext, and is read as such.
///
/// Each thread keeps an [`AdReader`] for these functions, so ads read one
/// after another share their values; a reader of many ads can hold its own.
pub fn get_classad(dec: &mut Decoder<'_>, limits: &AdLimits) -> Result<ClassAd> {
    with_thread_reader(limits, |r| r.read(dec))
}

/// Reads one ad sent without the trailing strings (`PUT_CLASSAD_NO_TYPES`).
pub fn get_classad_no_types(dec: &mut Decoder<'_>, limits: &AdLimits) -> Result<ClassAd> {
    with_thread_reader(limits, |r| r.read_no_types(dec))
}

/// [`get_classad`] on a stream that has a session key: a `ZKM` secret on an
/// unencrypted message would then be in an encrypted packet, which is an
/// [`ErrorKind::Protocol`] error for now (this crate's keyed streams are
/// encrypted throughout, so its peers have no reason to send one).
pub fn get_classad_keyed(dec: &mut Decoder<'_>, limits: &AdLimits) -> Result<ClassAd> {
    with_thread_reader(limits, |r| r.read_keyed(dec))
}

fn read_ad(
    dec: &mut Decoder<'_>,
    limits: &AdLimits,
    parser: &mut AttributeParser,
    types: bool,
    stream_has_key: bool,
) -> Result<ClassAd> {
    let count = dec.get_int()?;
    if count < 0 {
        return Err(Error::new(ErrorKind::Malformed, format!("ClassAd with {count} attributes")));
    }
    if count as u64 > limits.max_attributes as u64 {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!("ClassAd with {count} attributes (limit {})", limits.max_attributes),
        ));
    }
    let saved = dec.max_string();
    let mut dec_lines = dec.clone().with_max_string(limits.max_line);
    // Each attribute takes at least 3 bytes ("a=" and its NUL), so a count
    // larger than the message allows reserves no more than it could hold.
    let mut ad = ClassAd::with_capacity((count as usize).min(dec.remaining().len() / 3));
    for i in 0..count {
        let bytes = dec_lines
            .get_string_bytes()?
            .ok_or_else(|| Error::new(ErrorKind::Malformed, format!("attribute {i} of a ClassAd is a NULL string")))?;
        let mut line = bytes;
        if line == SECRET_MARKER.as_bytes() {
            // `get_secret`: the real string follows. It is encrypted only
            // when the stream has a key but is not encrypted; with no key
            // (or already encrypted) it is an ordinary string. C++ sends
            // ZKM whenever it checks attributes one by one, e.g. to a peer
            // of unknown version, key or no key.
            if stream_has_key && !dec_lines.is_encrypted() {
                return Err(Error::new(
                    ErrorKind::Protocol,
                    "a private attribute came as a secret in an encrypted packet, which this reader does not support yet",
                ));
            }
            line = dec_lines.get_string_bytes()?.ok_or_else(|| {
                Error::new(ErrorKind::Malformed, format!("the secret of attribute {i} of a ClassAd is a NULL string"))
            })?;
        }
        let (name, expr) = parser.attribute_at(i as usize, line).map_err(|e| match e {
            AttributeError::TooManyNames(e) => Error::new(ErrorKind::LimitExceeded, e.to_string()),
            AttributeError::Value { name, error } => {
                Error::new(ErrorKind::Malformed, format!("ClassAd attribute {name}: {error}"))
            }
            _ => Error::new(ErrorKind::Malformed, format!("ClassAd attribute {i} is not `Name = value`")),
        })?;
        ad.insert(name, expr);
    }
    if types {
        dec_lines.get_string_bytes()?;
        dec_lines.get_string_bytes()?;
    }
    *dec = dec_lines.with_max_string(saved);
    Ok(ad)
}
