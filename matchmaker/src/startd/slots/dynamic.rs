//! Dynamic slots: carving a slot for one job out of a partitionable slot,
//! and giving its resources back when the claim ends.
//!
//! What the startd does with a request (HTCondor 23.9):
//! 1. It rounds the job's `RequestCpus`, `RequestMemory` and `RequestDisk`
//!    with `MODIFY_REQUEST_EXPR_REQUESTCPUS` (default
//!    `quantize(RequestCpus, {1})`), `..._REQUESTMEMORY`
//!    (`quantize(RequestMemory, {128})`) and `..._REQUESTDISK`
//!    (`quantize(RequestDisk, {1024})`), evaluated with the job as MY and
//!    the slot as TARGET; an expression that does not give an integer
//!    leaves the request as it was.
//! 2. The partitionable slot's `Requirements` must accept the rounded job;
//!    if they do not, the unrounded job is tried (unless
//!    `MUST_MODIFY_REQUEST_EXPRS` is true).
//! 3. With a consumption policy, the slot's `Consumption<Res>` expressions
//!    (see [`crate::consumption`]) give what the job takes; otherwise the
//!    requests do (`_condor_Request<Res>` first): CPUs default to 1, a
//!    job without a memory or disk request is refused, custom resources
//!    default to 0.
//! 4. Disk is taken as a fraction of the machine's disk with a little
//!    slack: `(request + max(1024, total / 2^20)) / total`.
//! 5. The dynamic slot gets the lowest free `DSlotId` of its parent and the
//!    parent's first free device ids.
//!
//! `CLAIM_PARTITIONABLE_LEFTOVERS` (default true) hands what is left of the
//! partitionable slot back to the claiming schedd;
//! [`DynamicClaim::leftovers`] is that slot's ad when it is on.

use std::borrow::Cow;
use std::sync::LazyLock;

use classad::{AttrKey, ClassAd, EvalContext, EvalOptions, Name, Semantics, Value};

use super::children::DynamicSlot;
use super::naming::Naming;
use super::slot_config::TypeKnobs;
use super::{MachineTotals, SlotError, SlotKind, SlotResources};
use crate::consumption;

/// The outcome of a claim on a partitionable slot.
#[derive(Debug, Clone)]
pub struct DynamicClaim {
    /// The new dynamic slot's name (`slot1_1@host`).
    pub name: String,
    /// The job as the startd kept it (requests rounded).
    pub job: ClassAd,
    /// The partitionable slot's ad after the split, when
    /// `CLAIM_PARTITIONABLE_LEFTOVERS` gives it to the schedd.
    pub leftovers: Option<ClassAd>,
}

fn options() -> EvalOptions {
    EvalOptions::new().semantics(Semantics::Old)
}

/// The names of the requests a claim reads: `[_condor_Request<Res>,
/// Request<Res>]`, interned once.
struct Requests {
    cpus: [Name; 2],
    memory: [Name; 2],
    disk: [Name; 2],
    virtual_memory: [Name; 2],
}

static REQUESTS: LazyLock<Requests> = LazyLock::new(|| {
    let both = |attr: &str| [Name::new(&format!("_condor_{attr}")), Name::new(attr)];
    Requests {
        cpus: both("RequestCpus"),
        memory: both("RequestMemory"),
        disk: both("RequestDisk"),
        virtual_memory: both("RequestVirtualMemory"),
    }
});

impl Requests {
    /// All the names, each request's two.
    fn all(&self) -> impl Iterator<Item = Name> + '_ {
        [self.cpus, self.memory, self.disk, self.virtual_memory].into_iter().flatten()
    }
}

/// Whether `ad` has an attribute a claim reads as a request of CPUs,
/// memory, disk or virtual memory.
pub(crate) fn has_requests(ad: &ClassAd) -> bool {
    REQUESTS.all().any(|name| ad.lookup(name).is_some())
}

fn eval_number(ctx: &EvalContext<'_>, attr: impl AttrKey) -> Option<f64> {
    match ctx.eval_attr(attr) {
        Value::Int(i) => Some(i as f64),
        Value::Real(r) => Some(r),
        Value::Bool(b) => Some(f64::from(u8::from(b))),
        _ => None,
    }
}

/// Functions whose value is their arguments' alone (no clock, no
/// randomness, no evaluation of text), which a rounding may call and
/// still be done ahead.
const PLAIN_FUNCTIONS: &[&str] = &[
    "quantize",
    "ifThenElse",
    "min",
    "max",
    "int",
    "real",
    "floor",
    "ceiling",
    "round",
    "pow",
    "isUndefined",
    "isError",
    "isInteger",
    "isReal",
    "isBoolean",
    "isString",
];

/// Whether `expr` calls no function but plain ones (see
/// [`PLAIN_FUNCTIONS`]) and holds no nested ad.
fn plain(expr: &classad::Expr) -> bool {
    let Some(node) = expr.as_node() else { return true };
    match node {
        classad::Node::Record(_) => false,
        classad::Node::Call(call) => {
            let name = call.name().as_str();
            PLAIN_FUNCTIONS.iter().any(|f| f.eq_ignore_ascii_case(name)) && call.args().iter().all(plain)
        }
        _ => node.children().all(plain),
    }
}

/// The attributes of a partitionable slot's ad its `Requirements` may read
/// and still be judged by its resources alone (see
/// [`Startd::judged_by_resources`](super::Startd::judged_by_resources)):
/// the policy's, whose text is the configuration's, and the three
/// resources.
const RESOURCE_ATTRS: &[&str] = &["Start", "Requirements", "WithinResourceLimits", "Cpus", "Memory", "Disk"];

/// Whether `expr`, evaluated in `ad`, reads nothing outside `ad`, and
/// neither it nor the attributes of `ad` it reads call a function that is
/// not plain arithmetic (see [`PLAIN_FUNCTIONS`]) or hold a nested ad.
fn reads_only(opts: &EvalOptions, ad: &ClassAd, expr: &classad::Expr) -> bool {
    use classad::references::{external, internal};
    let (Ok(external), Ok(internal)) = (external(opts, ad, expr), internal(opts, ad, expr)) else {
        return false;
    };
    external.is_empty()
        && plain(expr)
        && internal.iter().all(|name| {
            // an internal reference is a name of `ad`, or a path into one
            // (refused: only plain attributes are followed here)
            !name.contains(['.', '[']) && ad.lookup(name.as_str()).is_none_or(plain)
        })
}

/// Whether the `Requirements` of `slot_ad`, the ad of a partitionable
/// slot, accept `job`, as a claim judges it (see [`Startd::accepts`](super::Startd::accepts)).
pub(crate) fn accepts(slot_ad: &ClassAd, job: &ClassAd) -> bool {
    requirements_accept(&options(), slot_ad, job)
}

/// Whether the `Requirements` of `slot_ad` judge `job` by the slot's
/// resources alone (see
/// [`Startd::judged_by_resources`](super::Startd::judged_by_resources)).
pub(crate) fn judged_by_resources(slot_ad: &ClassAd, job: &ClassAd) -> bool {
    use classad::references::{external, internal, trim, Side};
    let opts = options();
    let Some(requirements) = slot_ad.lookup("Requirements") else { return false };
    let (Ok(internal), Ok(external)) = (internal(&opts, slot_ad, requirements), external(&opts, slot_ad, requirements))
    else {
        return false;
    };
    let own = |name: &str| RESOURCE_ATTRS.iter().any(|a| a.eq_ignore_ascii_case(name));
    plain(requirements)
        && internal.iter().all(|name| own(name) && slot_ad.lookup(name.as_str()).is_none_or(plain))
        && external.iter().all(|name| {
            let attr = trim(name, Side::External);
            !attr.is_empty() && !own(attr) && job.lookup(attr).is_none_or(|e| e.as_literal().is_some())
        })
}

fn requirements_accept(opts: &EvalOptions, slot_ad: &ClassAd, job: &ClassAd) -> bool {
    static REQUIREMENTS: LazyLock<Name> = LazyLock::new(|| Name::new("Requirements"));
    matches!(EvalContext::new(opts).my(slot_ad).target(job).eval_attr(*REQUIREMENTS), Value::Bool(true))
}

/// `job` with its requests rounded by the claim knobs `knobs` of a
/// partitionable slot, when the rounding reads nothing but the job (see
/// [`Startd::rounding`](super::Startd::rounding)).
pub(crate) fn rounding(knobs: &TypeKnobs, job: &ClassAd) -> Option<ClassAd> {
    let opts = options();
    let mut modified = job.clone();
    for (attr, expr) in &knobs.modify {
        if !reads_only(&opts, &modified, expr) {
            return None;
        }
        if let Value::Int(v) = EvalContext::new(&opts).my(&modified).eval(expr) {
            modified.insert(*attr, v);
        }
    }
    Some(modified)
}

/// A partitionable slot a claim carves a dynamic slot from, and what the
/// carving reads of its startd.
#[derive(Clone, Copy)]
pub(crate) struct Parent<'a> {
    /// The slot, in the layout.
    pub slot: &'a SlotResources,
    /// Its ad now.
    pub ad: &'a ClassAd,
    /// The claim knobs of its type.
    pub knobs: &'a TypeKnobs,
    /// Whether it has a consumption policy.
    pub consumption_policy: bool,
    /// The machine's totals.
    pub totals: &'a MachineTotals,
    /// The startd's dynamic slots (of every partitionable slot).
    pub dynamic: &'a [DynamicSlot],
    /// Whether some ad of the layout's slots has an attribute a claim
    /// reads as a request (unless it has, they are not looked for there).
    pub requests_in_slot_ads: bool,
    /// The slots' names (for the errors).
    pub naming: Naming<'a>,
}

/// A dynamic slot carved for a job, not yet taken from its parent.
pub(crate) struct Carved<'j> {
    /// Its resources, sub-id and device ids.
    pub slot: SlotResources,
    /// The job as the startd keeps it (its requests rounded, unless the
    /// parent accepts only the job as it was).
    pub request: Cow<'j, ClassAd>,
    /// Whether `request` is the rounded job.
    pub takes_modified: bool,
}

/// Carves a dynamic slot of `from` for `job` (steps 1 to 5 of the module's
/// description). `rounded`: the job as [`rounding`] rounded it, when
/// known; `accepted`: the verdict of the slot's `Requirements` on
/// `rounded`, when known.
pub(crate) fn carve<'j>(
    from: &Parent<'_>,
    job: &'j ClassAd,
    rounded: Option<&'j ClassAd>,
    accepted: Option<bool>,
) -> Result<Carved<'j>, SlotError> {
    let Parent {
        slot: parent,
        ad: parent_ad,
        knobs,
        consumption_policy,
        totals,
        dynamic,
        requests_in_slot_ads,
        naming,
    } = *from;
    let does_not_fit = |reason: String| SlotError::RequestDoesNotFit { slot: naming.slot_name(parent), reason };

    // 1-2: round the requests; keep the rounding only if it still matches.
    let opts = options();
    let modified = match rounded {
        Some(rounded) => Cow::Borrowed(rounded),
        None => {
            let mut modified = job.clone();
            for (attr, expr) in &knobs.modify {
                let value = EvalContext::new(&opts).my(&modified).target(parent_ad).eval(expr);
                if let Value::Int(v) = value {
                    modified.insert(*attr, v);
                }
            }
            Cow::Owned(modified)
        }
    };
    let takes_modified = accepted.unwrap_or_else(|| requirements_accept(&opts, parent_ad, &modified));
    let request = if takes_modified {
        modified
    } else {
        let must_modify = knobs
            .must_modify
            .as_ref()
            .map(|e| EvalContext::new(&opts).my(&modified).target(parent_ad).eval(e))
            .is_some_and(|v| matches!(v, Value::Bool(true)));
        if !must_modify && requirements_accept(&opts, parent_ad, job) {
            Cow::Borrowed(job)
        } else {
            return Err(does_not_fit("the partitionable slot's Requirements do not accept the job".into()));
        }
    };

    // 3: what the job takes.
    let total_disk = totals.disk as f64;
    let disk_slop = (total_disk / (1024.0 * 1024.0)).max(1024.0);
    let mut cpus: f64;
    let mut memory: i64;
    let disk_fraction: f64;
    // no swap unless the job asks for some
    let mut swap_fraction: Option<f64> = Some(0.0);
    let mut custom: std::collections::BTreeMap<String, f64> = std::collections::BTreeMap::new();
    let mut fractional = false;
    if consumption_policy && consumption::has_policy(parent_ad) {
        let taken = consumption::of(&request, parent_ad);
        cpus = 0.0;
        memory = 0;
        let mut disk = 0.0;
        for (res, amount) in taken {
            if amount < 0.0 {
                return Err(does_not_fit(format!("Consumption{res} is not a non-negative number")));
            }
            if res.eq_ignore_ascii_case("cpus") {
                cpus = amount.max(1.0 / 128.0);
                fractional = cpus < 1.0;
            } else if res.eq_ignore_ascii_case("memory") {
                memory = amount as i64;
            } else if res.eq_ignore_ascii_case("disk") {
                disk = amount;
            } else if let Some(c) = totals.custom.iter().find(|c| c.name.eq_ignore_ascii_case(&res)) {
                custom.insert(c.name.clone(), amount);
            }
        }
        disk_fraction = (disk + disk_slop).max(0.0) / total_disk;
    } else {
        let ctx = EvalContext::new(&opts).my(&request).target(parent_ad);
        let r = &*REQUESTS;
        let in_slot_ad = |attr: Name| requests_in_slot_ads && parent_ad.lookup(attr).is_some();
        // (a request written as a number is read as it is, and one
        // neither ad has is not there: no evaluation for either)
        let number = |attr: Name| match request.lookup(attr).map(classad::Expr::as_literal) {
            Some(Some(classad::Literal::Int(i))) => Some(*i as f64),
            Some(Some(classad::Literal::Real(r))) => Some(*r),
            Some(Some(classad::Literal::Bool(b))) => Some(f64::from(u8::from(*b))),
            None if !in_slot_ad(attr) => None,
            _ => eval_number(&ctx, attr),
        };
        // the schedd's `_condor_Request<Res>` first
        let int = |[condor, plain]: [Name; 2]| number(condor).or_else(|| number(plain)).map(|v| v.trunc());
        cpus = int(r.cpus).unwrap_or(1.0);
        memory = int(r.memory).ok_or_else(|| does_not_fit("the job has no memory request".into()))? as i64;
        let disk = int(r.disk).ok_or_else(|| does_not_fit("the job has no disk request".into()))?;
        disk_fraction = (disk + disk_slop).max(0.0) / total_disk;
        match int(r.virtual_memory) {
            Some(swap) if totals.swap > 0 => swap_fraction = Some(swap / totals.swap as f64),
            Some(_) => {}
            None if knobs.proportional_swap => {
                // the same part of the swap as of the memory
                swap_fraction = Some(memory as f64 / totals.memory as f64);
            }
            None => {}
        }
        for c in &totals.custom {
            let v = eval_number(&ctx, &format!("Request{}", c.name)).unwrap_or(0.0);
            custom.insert(c.name.clone(), v);
        }
    }
    if cpus <= 0.0 {
        return Err(does_not_fit("the job requests no CPUs".into()));
    }
    if !fractional {
        cpus = cpus.max(1.0);
        memory = memory.max(1);
    }

    // Does it fit what is left?
    let mut short = Vec::new();
    if cpus > parent.cpus + 1e-9 {
        short.push(format!("Cpus: {} requested, {} left", cpus, parent.cpus));
    }
    if memory > parent.memory {
        short.push(format!("Memory: {} requested, {} left", memory, parent.memory));
    }
    if disk_fraction > parent.disk_fraction + 1e-12 {
        short.push(format!(
            "Disk: {} requested, {} left",
            (disk_fraction * total_disk).ceil() as i64,
            parent.disk(totals.disk)
        ));
    }
    for (name, want) in &custom {
        let have = parent.custom.get(name).copied().unwrap_or(0.0);
        if *want > have + 1e-9 {
            short.push(format!("{name}: {want} requested, {have} left"));
        }
    }
    if !short.is_empty() {
        return Err(does_not_fit(short.join("; ")));
    }

    // 5: ids and sub-id.
    // The partitionable slot keeps advertising all its ids; the ids its
    // dynamic slots hold are not free.
    let mut ids = std::collections::BTreeMap::new();
    for (name, all) in &parent.ids {
        let want = custom.get(name).copied().unwrap_or(0.0).ceil() as usize;
        let held: Vec<&String> =
            dynamic.iter().filter(|d| d.slot.id == parent.id).filter_map(|d| d.slot.ids.get(name)).flatten().collect();
        let taken: Vec<String> = all.iter().filter(|id| !held.contains(id)).take(want).cloned().collect();
        ids.insert(name.clone(), taken);
    }
    let mut sub_id = 1;
    while dynamic.iter().any(|d| d.slot.id == parent.id && d.slot.sub_id == sub_id) {
        sub_id += 1;
    }
    let disk_kb = (total_disk * disk_fraction).ceil() as i64;
    let dslot = SlotResources {
        id: parent.id,
        sub_id,
        type_id: parent.type_id,
        kind: SlotKind::Dynamic,
        cpus,
        total_cpus: cpus,
        fractional_cpus: fractional,
        memory,
        total_memory: memory,
        disk_fraction,
        total_disk: disk_kb,
        swap_fraction,
        custom_total: custom.clone(),
        custom,
        ids,
    };
    Ok(Carved { slot: dslot, request, takes_modified })
}

/// `Expr` of a number, integer when whole (for tests).
#[cfg(test)]
fn n(v: i64) -> classad::Expr {
    classad::Expr::from(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::startd::slots::{Machine, Startd};
    use std::sync::Arc;

    fn startd(text: &str) -> Result<Startd, SlotError> {
        let machine = Machine { name: "h".into(), cpus: 8, memory: 16384, disk: 8_000_000, ..Machine::default() };
        Startd::new(machine, &Config::parse_str(text, "t.conf")?)
    }

    #[test]
    fn requests_are_quantized_and_disk_gets_slack() -> Result<(), Box<dyn std::error::Error>> {
        let mut s = startd("STARTD_DETECT_GPUS = false\n")?;
        let job: ClassAd = "[ RequestCpus = 3; RequestMemory = 1000; RequestDisk = 100000 ]".parse()?;
        let c = s.claim("slot1", &job)?;
        assert_eq!(c.job.lookup("RequestMemory").map(|e| e.same_as(&n(1024))), Some(true));
        let d = s.ad("slot1_1@h").ok_or("no d-slot")?;
        assert_eq!(d.eval_attr("Disk"), Value::Int(100352 + 1024));
        assert_eq!(d.eval_attr("Cpus"), Value::Int(3));
        let p = s.ad("slot1@h").ok_or("no p-slot")?;
        assert_eq!(p.eval_attr("Memory"), Value::Int(16384 - 1024));
        assert_eq!(p.eval_attr("NumDynamicSlots"), Value::Int(1));
        assert!(c.leftovers.is_some());
        Ok(())
    }

    #[test]
    fn a_claim_given_the_current_ad_is_the_claim_that_builds_it() -> Result<(), Box<dyn std::error::Error>> {
        let text = "STARTD_DETECT_GPUS = false\nSTART = TARGET.RequestMemory < 6000 && MY.NumDynamicSlots < 3\n\
                    STARTD_ATTRS = Team\nTeam = \"blue\"\n";
        let (mut a, mut b) = (startd(text)?, startd(text)?);
        let job: ClassAd = "[ RequestCpus = 2; RequestMemory = 2000; RequestDisk = 1000; User = \"u@d\" ]".parse()?;
        for _ in 0..4 {
            let current = b.ad("slot1@h").ok_or("no p-slot")?;
            let (x, y) = (a.claim("slot1", &job), b.claim_with_ad("slot1", &job, &current));
            assert_eq!(x.is_ok(), y.is_ok());
            if let (Ok(x), Ok(y)) = (x, y) {
                assert_eq!(x.name, y.name);
                assert_eq!(x.job.to_string(), y.job.to_string());
            }
            let (ads_a, ads_b) = (a.ads(), b.ads());
            assert_eq!(
                ads_a.iter().map(|ad| ad.to_string()).collect::<Vec<_>>(),
                ads_b.iter().map(|ad| ad.to_string()).collect::<Vec<_>>()
            );
        }
        // START refuses a fourth dynamic slot: three claims, then none.
        assert_eq!(a.dynamic_slots().len(), 3);
        let p = a.ad("slot1@h").ok_or("no p-slot")?;
        assert_eq!(p.eval_attr("Team"), Value::Str("blue".into()));
        assert_eq!(p.eval_attr("Cpus"), Value::Int(2));
        Ok(())
    }

    #[test]
    fn a_request_the_slot_ad_defines_is_read_there() -> Result<(), Box<dyn std::error::Error>> {
        let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 1000; RequestDisk = 1000 ]".parse()?;
        let mut plain = startd("STARTD_DETECT_GPUS = false\n")?;
        assert!(!plain.requests_in_slot_ads);
        let name = plain.claim("slot1", &job)?.name;
        assert_eq!(plain.ad(&name).map(|d| d.eval_attr("Disk")), Some(Value::Int(1024 + 1024)));
        // the slot's ad has the schedd's request, which comes first (also
        // on a startd made like it)
        let text = "STARTD_DETECT_GPUS = false\nSTARTD_ATTRS = _condor_RequestDisk\n_condor_RequestDisk = 50000\n";
        let first = startd(text)?;
        assert!(first.requests_in_slot_ads);
        let mut like = first.like("other").ok_or("no claim yet")?;
        for s in [&mut startd(text)?, &mut like] {
            let name = s.claim("slot1", &job)?.name;
            assert_eq!(s.ad(&name).map(|d| d.eval_attr("Disk")), Some(Value::Int(50000 + 1024)));
        }
        Ok(())
    }

    #[test]
    fn a_rounded_job_given_is_kept_shared() -> Result<(), Box<dyn std::error::Error>> {
        let mut s = startd("STARTD_DETECT_GPUS = false\nSTART = TARGET.RequestMemory < 2000\n")?;
        let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 1000; RequestDisk = 1 ]".parse()?;
        let rounded = Arc::new(s.rounding("slot1", &job).ok_or("a rounding ahead")?);
        s.claim_at(0, &job, Some(&rounded), None, None)?;
        assert!(s.dynamic_slots().last().is_some_and(|d| Arc::ptr_eq(&d.job, &rounded)));
        // a rounding START refuses: the job as it came is kept instead
        let big: ClassAd = "[ RequestCpus = 1; RequestMemory = 1999; RequestDisk = 1 ]".parse()?;
        let rounded = Arc::new(s.rounding("slot1", &big).ok_or("a rounding ahead")?);
        assert_eq!(rounded.eval_attr("RequestMemory"), Value::Int(2048));
        s.claim_at(0, &big, Some(&rounded), None, None)?;
        let kept = s.dynamic_slots().last().ok_or("a dynamic slot")?;
        assert!(!Arc::ptr_eq(&kept.job, &rounded));
        assert_eq!(kept.job.to_string(), big.to_string());
        Ok(())
    }

    #[test]
    fn ads_built_again_are_the_same_and_keep_their_warnings() -> Result<(), Box<dyn std::error::Error>> {
        let mut s = startd("STARTD_DETECT_GPUS = false\nSTARTD_ATTRS = Broken, Gone\nBroken = 1 +\nGone =\n")?;
        let first: Vec<String> = s.ads().iter().map(|ad| ad.to_string()).collect();
        let warnings = s.warnings().to_vec();
        assert!(warnings.iter().any(|w| w.contains("Broken")), "{warnings:?}");
        let again: Vec<String> = s.ads().iter().map(|ad| ad.to_string()).collect();
        assert_eq!(first, again);
        assert_eq!(s.warnings(), warnings.as_slice());
        let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 100; RequestDisk = 1 ]".parse()?;
        let c = s.claim("slot1", &job)?;
        let d = s.ad(&c.name).ok_or("no d-slot")?;
        assert!(d.lookup("Broken").is_none() && d.lookup("Gone").is_none());
        assert_eq!(d.eval_attr("DynamicSlot"), Value::Bool(true));
        Ok(())
    }

    #[test]
    fn roundings_done_ahead_are_those_of_the_claim() -> Result<(), Box<dyn std::error::Error>> {
        let default = "STARTD_DETECT_GPUS = false\n";
        let reads_slot =
            "STARTD_DETECT_GPUS = false\nMODIFY_REQUEST_EXPR_REQUESTMEMORY = min({RequestMemory * 2, TARGET.Memory})\n";
        let random = "STARTD_DETECT_GPUS = false\nMODIFY_REQUEST_EXPR_REQUESTCPUS = random(3) + 1\n";
        let plain_job = "[ RequestCpus = 1; RequestMemory = 1000; RequestDisk = 1000; User = \"u@d\" ]";
        let job_reads_slot = "[ RequestCpus = 1; RequestMemory = Memory / 4; RequestDisk = 1000 ]";
        for (config, job, ahead) in [
            (default, plain_job, true),
            (default, job_reads_slot, false),
            (reads_slot, plain_job, false),
            (random, plain_job, false),
        ] {
            let job: ClassAd = job.parse()?;
            let (mut a, mut b) = (startd(config)?, startd(config)?);
            let rounded = b.rounding("slot1", &job);
            assert_eq!(rounded.is_some(), ahead, "{config} {job}");
            let Some(rounded) = rounded else { continue };
            for _ in 0..3 {
                let (x, y) = (a.claim("slot1", &job)?, b.claim_rounded("slot1", &job, &rounded, None)?);
                assert_eq!((x.name, x.job.to_string()), (y.name, y.job.to_string()));
            }
            let ads = |s: &mut Startd| s.ads().iter().map(|ad| ad.to_string()).collect::<Vec<_>>();
            assert_eq!(ads(&mut a), ads(&mut b));
            assert_eq!(b.ad("slot1_3@h").map(|d| d.eval_attr("Memory")), Some(Value::Int(1024)));
        }
        Ok(())
    }

    const CLAIM_CONFIGS: &[&str] = &[
        "STARTD_DETECT_GPUS = false\n",
        "SLOT_TYPE_1 = cpus=50%\nSLOT_TYPE_1_PARTITIONABLE = true\nNUM_SLOTS_TYPE_1 = 2\nSTARTD_DETECT_GPUS = false\n",
        "MACHINE_RESOURCE_GPUs = g0, g1, g2\nSTART = TARGET.RequestMemory < 6000\n",
        "STARTD_DETECT_GPUS = false\nMODIFY_REQUEST_EXPR_REQUESTMEMORY = min({RequestMemory * 2, TARGET.Memory})\n",
        "STARTD_DETECT_GPUS = false\nMUST_MODIFY_REQUEST_EXPRS = true\nSTART = TARGET.RequestMemory < 3000\n",
        "STARTD_DETECT_GPUS = false\nCONSUMPTION_POLICY = true\n",
        "STARTD_DETECT_GPUS = false\nSTARTD_JOB_HAS_REQUEST_ATTRS = true\n",
        "SLOT_TYPE_1 = cpus=2\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_2 = auto\nSLOT_TYPE_2_PARTITIONABLE = true\nNUM_SLOTS_TYPE_2 = 1\n",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// A claim by the slot's place in the layout is the claim by its
        /// name: the same dynamic slots, jobs and ads, the same refusals,
        /// given a rounding and the current ad or not.
        #[test]
        fn claims_by_place_are_claims_by_name(
            config in 0..CLAIM_CONFIGS.len(),
            steps in proptest::collection::vec(
                (0u8..5, 0usize..3, 1i64..5, 1i64..9000, proptest::option::of(1i64..4), 0u8..4),
                1..20,
            ),
        ) {
            let (mut a, mut b) = (startd(CLAIM_CONFIGS[config]).expect("startd"), startd(CLAIM_CONFIGS[config]).expect("startd"));
            for (action, index, cpus, memory, condor_cpus, how) in steps {
                if action == 0 && !a.dynamic.is_empty() {
                    let k = (memory as usize) % a.dynamic.len();
                    let name = a.slot_name(&a.dynamic[k].slot);
                    proptest::prop_assert!(a.release(&name).is_ok() && b.release(&name).is_ok());
                    continue;
                }
                let mut job = ClassAd::new();
                job.insert("RequestCpus", cpus);
                job.insert("RequestMemory", memory);
                job.insert("RequestDisk", memory * 10);
                job.insert("RequestGPUs", cpus % 2);
                job.insert("User", "u@d");
                if let Some(c) = condor_cpus {
                    job.insert("_condor_RequestCpus", c);
                }
                let name = match a.layout.slots.get(index) {
                    Some(slot) => a.slot_name(slot),
                    None => format!("slot{}@h", index + 1),
                };
                let rounded = if how & 1 == 1 { a.rounding(&name, &job) } else { None };
                let current = if how & 2 == 2 { a.ad(&name) } else { None };
                let x = match (&rounded, &current) {
                    (Some(r), _) => a.claim_rounded(&name, &job, r, current.as_ref()),
                    (None, Some(c)) => a.claim_with_ad(&name, &job, c),
                    (None, None) => a.claim(&name, &job),
                };
                let shared = rounded.clone().map(Arc::new);
                let y = b.claim_at(index, &job, shared.as_ref(), current.as_ref(), None);
                match (x, y) {
                    (Ok(x), Ok(y)) => {
                        proptest::prop_assert_eq!(&x.name, &y);
                        let kept = b.dynamic.last().map(|d| d.job.to_string());
                        proptest::prop_assert_eq!(Some(x.job.to_string()), kept);
                    }
                    (Err(x), Err(y)) => {
                        // the same refusal, but for how a missing slot is named
                        if !matches!(x, SlotError::NoSuchSlot(_)) {
                            proptest::prop_assert_eq!(x.to_string(), y.to_string());
                        }
                    }
                    (x, y) => proptest::prop_assert!(false, "{:?} vs {:?}", x.map(|c| c.name), y),
                }
                let ads = |s: &mut Startd| s.ads().iter().map(|ad| ad.to_string()).collect::<Vec<_>>();
                proptest::prop_assert_eq!(ads(&mut a), ads(&mut b));
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// Slots whose Requirements judge a job by their resources judge it
        /// alike when their resources are alike, whatever else differs
        /// (their dynamic slots, their host's name); and a claim told the
        /// verdict is the claim that works it out.
        #[test]
        fn verdicts_by_resources_are_alike(
            config in 0..CLAIM_CONFIGS.len(),
            first in proptest::collection::vec((1i64..4, 1i64..9000), 0..6),
            second in proptest::collection::vec((1i64..4, 1i64..9000), 0..6),
            probe in (1i64..6, 1i64..20000, proptest::bool::ANY),
        ) {
            let job = |cpus: i64, memory: i64, user: bool| {
                let mut job = ClassAd::new();
                job.insert("RequestCpus", cpus);
                job.insert("RequestMemory", memory);
                job.insert("RequestDisk", 1000);
                if user {
                    job.insert("User", "u@d");
                }
                job
            };
            let a = startd(CLAIM_CONFIGS[config]).expect("startd");
            let mut b = a.like("other").expect("no claim yet");
            let mut a = a;
            for (cpus, memory) in first {
                let _ = a.claim_at(0, &job(cpus, memory, true), None, None, None);
            }
            for (cpus, memory) in second {
                let _ = b.claim_at(0, &job(cpus, memory, false), None, None, None);
            }
            let probe = job(probe.0, probe.1, probe.2);
            let (Some(rounded), Some(ad_a)) = (a.rounding("1", &probe), a.ad("1")) else { return Ok(()) };
            let ad_b = b.ad("1").expect("the slot");
            let resources = |s: &Startd| {
                let p = &s.layout.slots[0];
                (p.advertised_cpus().to_bits(), p.memory.max(0), p.disk(s.layout.totals.disk))
            };
            if Startd::judged_by_resources(&ad_a, &rounded) && resources(&a) == resources(&b) {
                proptest::prop_assert_eq!(Startd::accepts(&ad_a, &rounded), Startd::accepts(&ad_b, &rounded));
            }
            // told or not, the same claim
            let mut told = a.clone();
            let verdict = Startd::accepts(&ad_a, &rounded);
            let rounded = Arc::new(rounded);
            let x = a.claim_at(0, &probe, Some(&rounded), None, None);
            let y = told.claim_at(0, &probe, Some(&rounded), None, Some(verdict));
            proptest::prop_assert_eq!(x.map_err(|e| e.to_string()), y.map_err(|e| e.to_string()));
            let ads = |s: &mut Startd| s.ads().iter().map(|ad| ad.to_string()).collect::<Vec<_>>();
            proptest::prop_assert_eq!(ads(&mut a), ads(&mut told));
        }
    }

    #[test]
    fn requirements_that_read_more_than_resources_are_not_judged_by_them() -> Result<(), Box<dyn std::error::Error>> {
        let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 1024; RequestDisk = 1000 ]".parse()?;
        for (config, by_resources) in [
            ("STARTD_DETECT_GPUS = false\n", true),
            ("STARTD_DETECT_GPUS = false\nSTARTD_JOB_HAS_REQUEST_ATTRS = true\n", true),
            ("STARTD_DETECT_GPUS = false\nSTART = TARGET.RequestMemory < 6000\n", true),
            ("STARTD_DETECT_GPUS = false\nSTART = MY.NumDynamicSlots < 3\n", false),
            ("STARTD_DETECT_GPUS = false\nSTART = Machine == \"h\"\n", false),
            ("STARTD_DETECT_GPUS = false\nSTART = random(2) == 0\n", false),
            ("STARTD_DETECT_GPUS = false\nSTART = TARGET.Owner =!= \"bad\"\n", true),
        ] {
            let s = startd(config)?;
            let ad = s.ad("slot1").ok_or("no p-slot")?;
            assert_eq!(Startd::judged_by_resources(&ad, &job), by_resources, "{config}");
        }
        let s = startd("STARTD_DETECT_GPUS = false\n")?;
        let ad = s.ad("slot1").ok_or("no p-slot")?;
        let reads_slot: ClassAd = "[ RequestCpus = 1; RequestMemory = Memory / 2; RequestDisk = 1000 ]".parse()?;
        assert!(!Startd::judged_by_resources(&ad, &reads_slot));
        Ok(())
    }

    #[test]
    fn proportional_swap() -> Result<(), Box<dyn std::error::Error>> {
        let machine = Machine { name: "h".into(), cpus: 8, memory: 16384, swap: 1_600_000, ..Machine::default() };
        let config = Config::parse_str("STARTD_DETECT_GPUS = false\nPROPORTIONAL_SWAP_ASSIGNMENT = true\n", "t.conf")?;
        let mut s = Startd::new(machine, &config)?;
        let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 4096; RequestDisk = 1 ]".parse()?;
        let c = s.claim("slot1", &job)?;
        assert_eq!(s.ad(&c.name).map(|d| d.eval_attr("VirtualMemory")), Some(Value::Int(400_000)));
        Ok(())
    }

    #[test]
    fn refusals_are_errors() -> Result<(), Box<dyn std::error::Error>> {
        let mut s = startd("STARTD_DETECT_GPUS = false\n")?;
        let big: ClassAd = "[ RequestCpus = 9; RequestMemory = 1; RequestDisk = 1 ]".parse()?;
        assert!(matches!(s.claim("slot1", &big), Err(SlotError::RequestDoesNotFit { .. })));
        assert!(matches!(s.claim("slot7", &big), Err(SlotError::NoSuchSlot(_))));
        let mut st = startd("SLOT_TYPE_1 = auto\nNUM_SLOTS_TYPE_1 = 2\n")?;
        assert!(matches!(st.claim("slot1", &big), Err(SlotError::NotPartitionable(_))));
        assert!(matches!(s.release("slot1_9@h"), Err(SlotError::NoSuchSlot(_))));
        Ok(())
    }

    #[test]
    fn sub_ids_and_device_ids_are_reused() -> Result<(), Box<dyn std::error::Error>> {
        let mut s = startd("MACHINE_RESOURCE_GPUs = g0, g1, g2\n")?;
        let job: ClassAd = "[ RequestCpus = 1; RequestMemory = 128; RequestDisk = 1; RequestGPUs = 1 ]".parse()?;
        let a = s.claim("slot1", &job)?;
        let b = s.claim("slot1", &job)?;
        assert_eq!((a.name.as_str(), b.name.as_str()), ("slot1_1@h", "slot1_2@h"));
        assert_eq!(s.ad(&b.name).map(|d| d.eval_attr("AssignedGPUs")), Some(Value::Str("g1".into())));
        s.release(&a.name)?;
        let c = s.claim("slot1", &job)?;
        assert_eq!(c.name, "slot1_1@h");
        assert_eq!(s.ad(&c.name).map(|d| d.eval_attr("AssignedGPUs")), Some(Value::Str("g0".into())));
        assert_eq!(s.ad("slot1@h").map(|p| p.eval_attr("GPUs")), Some(Value::Int(1)));
        // the partitionable slot still lists all its devices
        assert_eq!(s.ad("slot1@h").map(|p| p.eval_attr("AssignedGPUs")), Some(Value::Str("g0,g1,g2".into())));
        Ok(())
    }

    #[test]
    fn consumption_policy_decides_what_is_taken() -> Result<(), Box<dyn std::error::Error>> {
        let mut s = startd(
            "STARTD_DETECT_GPUS = false\nCONSUMPTION_POLICY = true\nCONSUMPTION_MEMORY = quantize(target.RequestMemory, {1000})\n",
        )?;
        let p = s.ad("slot1@h").ok_or("no p-slot")?;
        assert!(p.lookup("ConsumptionCpus").is_some());
        assert_eq!(p.eval_attr("NumClaims"), Value::Int(8));
        let job: ClassAd = "[ RequestCpus = 2; RequestMemory = 1500; RequestDisk = 1000 ]".parse()?;
        let c = s.claim("slot1", &job)?;
        assert_eq!(s.ad(&c.name).map(|d| d.eval_attr("Memory")), Some(Value::Int(2000)));
        Ok(())
    }
}
