//! The accountant's records, as its log stores them: one per submitter or
//! group (`Customer.<name>`), one per claimed slot (`Resource.<slot>`) and
//! the accountant's own (`Accountant.`).
//!
//! Each attribute HTCondor's accountant knows is a typed field, `None` when
//! the record does not have it (HTCondor treats a missing attribute and one
//! that is not a number the same way); any other attribute is kept as text so
//! that compaction writes it back unchanged.

/// Prefix of submitter and group records' keys.
pub const CUSTOMER_PREFIX: &str = "Customer.";
/// Prefix of claimed slots' records' keys.
pub const RESOURCE_PREFIX: &str = "Resource.";
/// Key of the accountant's own record.
pub const ACCOUNTANT_KEY: &str = "Accountant.";

/// A submitter's or a group's record (`Customer.<name>`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CustomerRecord {
    /// The submitter (`user@domain`, `group.user@domain`) or group name.
    pub name: String,
    /// Real user priority (RUP), `Priority`.
    pub priority: Option<f64>,
    /// `PriorityFactor`; set explicitly or written with the default on first use.
    pub priority_factor: Option<f64>,
    /// `Ceiling`: most weighted resources the submitter may use (-1: none).
    pub ceiling: Option<i64>,
    /// `Floor`: weighted resources the submitter is served first (0: none).
    pub floor: Option<i64>,
    /// `ResourcesUsed`: claimed slots.
    pub resources_used: Option<i64>,
    /// `WeightedResourcesUsed`: claimed slots' summed weights.
    pub weighted_resources_used: Option<f64>,
    /// `HierWeightedResourcesUsed`: a group's usage including its subgroups'.
    pub hier_weighted_resources_used: Option<f64>,
    /// `UnchargedTime`: slot-seconds to add to (or take from) the next update.
    pub uncharged_time: Option<i64>,
    /// `WeightedUnchargedTime`: the same, weighted.
    pub weighted_uncharged_time: Option<f64>,
    /// `AccumulatedUsage`: slot-seconds used since the usage was last reset.
    pub accumulated_usage: Option<f64>,
    /// `WeightedAccumulatedUsage`: the same, weighted.
    pub weighted_accumulated_usage: Option<f64>,
    /// `BeginUsageTime`: when usage was first recorded (epoch seconds).
    pub begin_usage_time: Option<i64>,
    /// `LastUsageTime`: the last update that saw usage (epoch seconds).
    pub last_usage_time: Option<i64>,
    /// Any other attribute, as expression text.
    pub other: Vec<(String, String)>,
}

/// A claimed slot's record (`Resource.<slot name>@<startd address>`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceRecord {
    /// `<Name>@<StartdIpAddr>` of the slot.
    pub name: String,
    /// `RemoteUser`: the submitter (or group) charged for the slot.
    pub remote_user: Option<String>,
    /// `SlotWeight` charged.
    pub slot_weight: Option<f64>,
    /// `StartTime`: when the match was recorded (epoch seconds).
    pub start_time: Option<i64>,
    /// `MatchedConcurrencyLimits` of the match.
    pub matched_concurrency_limits: Option<String>,
    /// `NumCpMatches`: matches made this cycle on a partitionable slot with a
    /// consumption policy.
    pub num_cp_matches: Option<i64>,
    /// Any other attribute, as expression text.
    pub other: Vec<(String, String)>,
}

/// A typed attribute's value, as read from or written to the log.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Number {
    Int(i64),
    Real(f64),
}

impl Number {
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Real(r) => r,
        }
    }
    pub(crate) fn as_i64(self) -> i64 {
        match self {
            Number::Int(i) => i,
            // Out-of-range and NaN values saturate, as a cast does.
            Number::Real(r) => r as i64,
        }
    }
}

/// The value a real reads back as after the log writes it (six decimals):
/// whole numbers unchanged, anything else rounded as its text is.
pub(crate) fn logged_real(value: f64) -> Number {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return Number::Real(value);
    }
    Number::Real(crate::classad_log::read_back(value))
}

/// Reads a number from expression text: a literal quickly, anything else by
/// evaluating the expression (in an empty ad).
pub(crate) fn parse_number(text: &str) -> Option<Number> {
    let t = text.trim_ascii();
    let bytes = t.as_bytes();
    // The common case, in one pass: `-?digits` (an integer) or
    // `-?digits.digits` (a real, read with correct rounding).
    let digits = bytes.strip_prefix(b"-").unwrap_or(bytes);
    let mut value: i64 = 0;
    let mut i = 0;
    while i < digits.len() && digits[i].is_ascii_digit() && i < 18 {
        value = value * 10 + i64::from(digits[i] - b'0');
        i += 1;
    }
    if i > 0 && i == digits.len() {
        return Some(Number::Int(if digits.len() < bytes.len() { -value } else { value }));
    }
    if i == 18 {
        if let Ok(long) = t.parse::<i64>() {
            return Some(Number::Int(long));
        }
    }
    // `digits.digits` with at most 15 digits in all: the digits as an
    // integer divided by a power of ten, both exact in a double, is the
    // correctly rounded value (one IEEE division).
    if i > 0 && i < digits.len() && digits[i] == b'.' {
        let frac = &digits[i + 1..];
        if !frac.is_empty() && i + frac.len() <= 15 && frac.iter().all(u8::is_ascii_digit) {
            let mut m = value;
            for &d in frac {
                m = m * 10 + i64::from(d - b'0');
            }
            const POW10: [f64; 16] =
                [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
            let r = m as f64 / POW10[frac.len()];
            return Some(Number::Real(if digits.len() < bytes.len() { -r } else { r }));
        }
    }
    if i > 0 && crate::classad_log::is_plain_number(t) {
        return t.parse::<f64>().ok().map(Number::Real);
    }
    let expr: classad::Expr = t.parse().ok()?;
    let ad = classad::ClassAd::new();
    let opts = classad::EvalOptions::new();
    match classad::EvalContext::new(&opts).my(&ad).eval(&expr) {
        classad::Value::Int(i) => Some(Number::Int(i)),
        classad::Value::Real(r) => Some(Number::Real(r)),
        _ => None,
    }
}

/// Reads a string literal (`"..."`) from expression text.
pub(crate) fn parse_string(text: &str) -> Option<String> {
    let t = text.trim();
    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') && !t[1..t.len() - 1].contains(['"', '\\']) {
        return Some(t[1..t.len() - 1].to_string());
    }
    let expr: classad::Expr = t.parse().ok()?;
    let ad = classad::ClassAd::new();
    let opts = classad::EvalOptions::new();
    match classad::EvalContext::new(&opts).my(&ad).eval(&expr) {
        classad::Value::Str(s) => Some(s.as_str().to_string()),
        _ => None,
    }
}

/// Writes a real as HTCondor's accountant does (`%f`).
pub(crate) fn format_real(value: f64) -> String {
    // Whole numbers (slot weights, counts) are most of what is written:
    // printed as integers, without the exact decimal expansion.
    if value.fract() == 0.0 && value.abs() < 1e15 {
        let whole = value as i64;
        return if whole == 0 && value.is_sign_negative() {
            "-0.000000".to_string()
        } else {
            format!("{whole}.000000")
        };
    }
    if value.is_finite() {
        format!("{value:.6}")
    } else {
        // `%f` would print `inf`/`nan`, which no reader takes for a number;
        // a real that large is out of the accountant's range anyway.
        format!(
            "{:.6}",
            if value > 0.0 {
                f64::MAX
            } else if value < 0.0 {
                f64::MIN
            } else {
                0.0
            }
        )
    }
}

#[cfg(test)]
mod format_tests {
    use super::format_real;

    #[test]
    fn whole_numbers_print_as_percent_f_does() {
        for v in [0.0, -0.0, 1.0, -3.0, 4096.0, 123456789012345.0, -999999999999999.0, 0.5, 1e15, 2.5e-7] {
            assert_eq!(format_real(v), format!("{v:.6}"), "{v}");
        }
    }
}

/// Writes a string literal.
pub(crate) fn format_string(value: &str) -> String {
    classad::Value::Str(value.into()).to_string()
}

/// The lower-case spellings of customer records' typed attributes, with
/// the spelling HTCondor writes.
const CUSTOMER_ATTRS: &[(&str, &str)] = &[
    ("Priority", "priority"),
    ("PriorityFactor", "priorityfactor"),
    ("Ceiling", "ceiling"),
    ("Floor", "floor"),
    ("ResourcesUsed", "resourcesused"),
    ("WeightedResourcesUsed", "weightedresourcesused"),
    ("HierWeightedResourcesUsed", "hierweightedresourcesused"),
    ("UnchargedTime", "unchargedtime"),
    ("WeightedUnchargedTime", "weightedunchargedtime"),
    ("AccumulatedUsage", "accumulatedusage"),
    ("WeightedAccumulatedUsage", "weightedaccumulatedusage"),
    ("BeginUsageTime", "beginusagetime"),
    ("LastUsageTime", "lastusagetime"),
];

/// A customer record's typed attribute (a field of [`CustomerRecord`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CustomerAttr {
    Priority,
    PriorityFactor,
    Ceiling,
    Floor,
    ResourcesUsed,
    WeightedResourcesUsed,
    HierWeightedResourcesUsed,
    UnchargedTime,
    WeightedUnchargedTime,
    AccumulatedUsage,
    WeightedAccumulatedUsage,
    BeginUsageTime,
    LastUsageTime,
}

impl CustomerAttr {
    /// The name as HTCondor writes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CustomerAttr::Priority => "Priority",
            CustomerAttr::PriorityFactor => "PriorityFactor",
            CustomerAttr::Ceiling => "Ceiling",
            CustomerAttr::Floor => "Floor",
            CustomerAttr::ResourcesUsed => "ResourcesUsed",
            CustomerAttr::WeightedResourcesUsed => "WeightedResourcesUsed",
            CustomerAttr::HierWeightedResourcesUsed => "HierWeightedResourcesUsed",
            CustomerAttr::UnchargedTime => "UnchargedTime",
            CustomerAttr::WeightedUnchargedTime => "WeightedUnchargedTime",
            CustomerAttr::AccumulatedUsage => "AccumulatedUsage",
            CustomerAttr::WeightedAccumulatedUsage => "WeightedAccumulatedUsage",
            CustomerAttr::BeginUsageTime => "BeginUsageTime",
            CustomerAttr::LastUsageTime => "LastUsageTime",
        }
    }
}

const RESOURCE_ATTRS: &[(&str, &str)] = &[
    ("RemoteUser", "remoteuser"),
    ("MatchedConcurrencyLimits", "matchedconcurrencylimits"),
    ("SlotWeight", "slotweight"),
    ("StartTime", "starttime"),
    ("NumCpMatches", "numcpmatches"),
];

/// The lower-case name of a typed attribute (any spelling), or `""` for
/// another attribute; no allocation. The spellings HTCondor writes are
/// recognised with one comparison.
fn canonical(name: &str, table: &[(&str, &'static str)]) -> &'static str {
    let exact = match name {
        "Priority" => "priority",
        "PriorityFactor" => "priorityfactor",
        "ResourcesUsed" => "resourcesused",
        "WeightedResourcesUsed" => "weightedresourcesused",
        "UnchargedTime" => "unchargedtime",
        "WeightedUnchargedTime" => "weightedunchargedtime",
        "AccumulatedUsage" => "accumulatedusage",
        "WeightedAccumulatedUsage" => "weightedaccumulatedusage",
        "BeginUsageTime" => "beginusagetime",
        "LastUsageTime" => "lastusagetime",
        "RemoteUser" => "remoteuser",
        "SlotWeight" => "slotweight",
        "StartTime" => "starttime",
        _ => "",
    };
    if !exact.is_empty() && table.iter().any(|(_, lower)| *lower == exact) {
        return exact;
    }
    table.iter().find(|(written, _)| written.eq_ignore_ascii_case(name)).map_or("", |(_, lower)| lower)
}

/// Sets `slot` from `text` when it holds a number; otherwise the text is
/// kept among the other attributes (the typed field becomes `None`).
fn set_num<T>(
    slot: &mut Option<T>,
    other: &mut Vec<(String, String)>,
    name: &str,
    text: &str,
    conv: impl Fn(Number) -> T,
) {
    if !other.is_empty() {
        other.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    }
    match parse_number(text) {
        Some(n) => *slot = Some(conv(n)),
        None => {
            *slot = None;
            other.push((name.to_string(), text.to_string()));
        }
    }
}

fn set_other(other: &mut Vec<(String, String)>, name: &str, text: &str) {
    match other.iter_mut().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        Some(entry) => entry.1 = text.to_string(),
        None => other.push((name.to_string(), text.to_string())),
    }
}

impl CustomerRecord {
    /// A record with no attributes.
    pub fn new(name: &str) -> Self {
        CustomerRecord { name: name.to_string(), ..Default::default() }
    }

    /// Sets an attribute from its log text.
    pub(crate) fn set_text(&mut self, name: &str, text: &str) {
        let o = &mut self.other;
        match canonical(name, CUSTOMER_ATTRS) {
            "priority" => set_num(&mut self.priority, o, name, text, Number::as_f64),
            "priorityfactor" => set_num(&mut self.priority_factor, o, name, text, Number::as_f64),
            "ceiling" => set_num(&mut self.ceiling, o, name, text, Number::as_i64),
            "floor" => set_num(&mut self.floor, o, name, text, Number::as_i64),
            "resourcesused" => set_num(&mut self.resources_used, o, name, text, Number::as_i64),
            "weightedresourcesused" => set_num(&mut self.weighted_resources_used, o, name, text, Number::as_f64),
            "hierweightedresourcesused" => {
                set_num(&mut self.hier_weighted_resources_used, o, name, text, Number::as_f64)
            }
            "unchargedtime" => set_num(&mut self.uncharged_time, o, name, text, Number::as_i64),
            "weightedunchargedtime" => set_num(&mut self.weighted_uncharged_time, o, name, text, Number::as_f64),
            "accumulatedusage" => set_num(&mut self.accumulated_usage, o, name, text, Number::as_f64),
            "weightedaccumulatedusage" => set_num(&mut self.weighted_accumulated_usage, o, name, text, Number::as_f64),
            "beginusagetime" => set_num(&mut self.begin_usage_time, o, name, text, Number::as_i64),
            "lastusagetime" => set_num(&mut self.last_usage_time, o, name, text, Number::as_i64),
            _ => set_other(o, name, text),
        }
    }

    /// Sets a typed attribute from the number its log text reads as (what
    /// [`set_text`](Self::set_text) would store).
    pub(crate) fn set_number(&mut self, attr: CustomerAttr, n: Number) {
        if !self.other.is_empty() {
            self.other.retain(|(o, _)| !o.eq_ignore_ascii_case(attr.name()));
        }
        match attr {
            CustomerAttr::Priority => self.priority = Some(n.as_f64()),
            CustomerAttr::PriorityFactor => self.priority_factor = Some(n.as_f64()),
            CustomerAttr::Ceiling => self.ceiling = Some(n.as_i64()),
            CustomerAttr::Floor => self.floor = Some(n.as_i64()),
            CustomerAttr::ResourcesUsed => self.resources_used = Some(n.as_i64()),
            CustomerAttr::WeightedResourcesUsed => self.weighted_resources_used = Some(n.as_f64()),
            CustomerAttr::HierWeightedResourcesUsed => self.hier_weighted_resources_used = Some(n.as_f64()),
            CustomerAttr::UnchargedTime => self.uncharged_time = Some(n.as_i64()),
            CustomerAttr::WeightedUnchargedTime => self.weighted_uncharged_time = Some(n.as_f64()),
            CustomerAttr::AccumulatedUsage => self.accumulated_usage = Some(n.as_f64()),
            CustomerAttr::WeightedAccumulatedUsage => self.weighted_accumulated_usage = Some(n.as_f64()),
            CustomerAttr::BeginUsageTime => self.begin_usage_time = Some(n.as_i64()),
            CustomerAttr::LastUsageTime => self.last_usage_time = Some(n.as_i64()),
        }
    }

    /// Removes an attribute.
    pub(crate) fn delete(&mut self, name: &str) {
        self.other.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        match canonical(name, CUSTOMER_ATTRS) {
            "priority" => self.priority = None,
            "priorityfactor" => self.priority_factor = None,
            "ceiling" => self.ceiling = None,
            "floor" => self.floor = None,
            "resourcesused" => self.resources_used = None,
            "weightedresourcesused" => self.weighted_resources_used = None,
            "hierweightedresourcesused" => self.hier_weighted_resources_used = None,
            "unchargedtime" => self.uncharged_time = None,
            "weightedunchargedtime" => self.weighted_uncharged_time = None,
            "accumulatedusage" => self.accumulated_usage = None,
            "weightedaccumulatedusage" => self.weighted_accumulated_usage = None,
            "beginusagetime" => self.begin_usage_time = None,
            "lastusagetime" => self.last_usage_time = None,
            _ => {}
        }
    }

    /// Every attribute as `(name, expression text)`, in a fixed order.
    pub fn attributes(&self) -> Vec<(&str, String)> {
        let mut out = Vec::with_capacity(14 + self.other.len());
        let real = |out: &mut Vec<(&str, String)>, name, v: Option<f64>| {
            if let Some(v) = v {
                out.push((name, format_real(v)));
            }
        };
        let int = |out: &mut Vec<(&str, String)>, name, v: Option<i64>| {
            if let Some(v) = v {
                out.push((name, v.to_string()));
            }
        };
        real(&mut out, "Priority", self.priority);
        real(&mut out, "PriorityFactor", self.priority_factor);
        int(&mut out, "Ceiling", self.ceiling);
        int(&mut out, "Floor", self.floor);
        int(&mut out, "ResourcesUsed", self.resources_used);
        real(&mut out, "WeightedResourcesUsed", self.weighted_resources_used);
        real(&mut out, "HierWeightedResourcesUsed", self.hier_weighted_resources_used);
        int(&mut out, "UnchargedTime", self.uncharged_time);
        real(&mut out, "WeightedUnchargedTime", self.weighted_uncharged_time);
        real(&mut out, "AccumulatedUsage", self.accumulated_usage);
        real(&mut out, "WeightedAccumulatedUsage", self.weighted_accumulated_usage);
        int(&mut out, "BeginUsageTime", self.begin_usage_time);
        int(&mut out, "LastUsageTime", self.last_usage_time);
        for (n, v) in &self.other {
            out.push((n.as_str(), v.clone()));
        }
        out
    }
}

impl ResourceRecord {
    /// A record with no attributes.
    pub fn new(name: &str) -> Self {
        ResourceRecord { name: name.to_string(), ..Default::default() }
    }

    /// Sets an attribute from its log text.
    pub(crate) fn set_text(&mut self, name: &str, text: &str) {
        let o = &mut self.other;
        match canonical(name, RESOURCE_ATTRS) {
            "remoteuser" => {
                o.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                self.remote_user = parse_string(text);
                if self.remote_user.is_none() {
                    o.push((name.to_string(), text.to_string()));
                }
            }
            "matchedconcurrencylimits" => {
                o.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                self.matched_concurrency_limits = parse_string(text);
                if self.matched_concurrency_limits.is_none() {
                    o.push((name.to_string(), text.to_string()));
                }
            }
            "slotweight" => set_num(&mut self.slot_weight, o, name, text, Number::as_f64),
            "starttime" => set_num(&mut self.start_time, o, name, text, Number::as_i64),
            "numcpmatches" => set_num(&mut self.num_cp_matches, o, name, text, Number::as_i64),
            _ => set_other(o, name, text),
        }
    }

    /// Removes an attribute.
    pub(crate) fn delete(&mut self, name: &str) {
        self.other.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        match canonical(name, RESOURCE_ATTRS) {
            "remoteuser" => self.remote_user = None,
            "matchedconcurrencylimits" => self.matched_concurrency_limits = None,
            "slotweight" => self.slot_weight = None,
            "starttime" => self.start_time = None,
            "numcpmatches" => self.num_cp_matches = None,
            _ => {}
        }
    }

    /// Every attribute as `(name, expression text)`, in a fixed order.
    pub fn attributes(&self) -> Vec<(&str, String)> {
        let mut out = Vec::with_capacity(6 + self.other.len());
        if let Some(u) = &self.remote_user {
            out.push(("RemoteUser", format_string(u)));
        }
        if let Some(w) = self.slot_weight {
            out.push(("SlotWeight", format_real(w)));
        }
        if let Some(t) = self.start_time {
            out.push(("StartTime", t.to_string()));
        }
        if let Some(l) = &self.matched_concurrency_limits {
            out.push(("MatchedConcurrencyLimits", format_string(l)));
        }
        if let Some(n) = self.num_cp_matches {
            out.push(("NumCpMatches", n.to_string()));
        }
        for (n, v) in &self.other {
            out.push((n.as_str(), v.clone()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_strings_from_log_text() {
        assert_eq!(parse_number("12"), Some(Number::Int(12)));
        assert_eq!(parse_number("-0.500000"), Some(Number::Real(-0.5)));
        assert_eq!(parse_number("1.5e3"), Some(Number::Real(1500.0)));
        // The short path gives exactly what a correctly rounded parse gives.
        for text in ["0.1", "2.872445", "123456789.123456", "-0.000001", "7413.451000", "99999999.999999"] {
            assert_eq!(parse_number(text), Some(Number::Real(text.parse().expect("real"))), "{text}");
        }
        assert_eq!(parse_number("(2 + 3)"), Some(Number::Int(5)));
        assert_eq!(parse_number("\"x\""), None);
        assert_eq!(parse_number("inf"), None);
        assert_eq!(parse_string("\"a@b\""), Some("a@b".into()));
        assert_eq!(parse_string("\"a\\\"b\""), Some("a\"b".into()));
        assert_eq!(format_real(0.5), "0.500000");
        assert_eq!(format_real(-1234.0), "-1234.000000");
        assert_eq!(format_string("x\"y"), "\"x\\\"y\"");
    }

    #[test]
    fn non_numbers_are_kept_as_text_and_typed_sets_replace_them() {
        let mut c = CustomerRecord::new("a@b");
        c.set_text("Priority", "\"high\"");
        assert_eq!(c.priority, None);
        assert_eq!(c.other, vec![("Priority".to_string(), "\"high\"".to_string())]);
        c.set_text("priority", "2.0");
        assert_eq!(c.priority, Some(2.0));
        assert!(c.other.is_empty());
        c.set_text("Custom", "true");
        c.delete("CUSTOM");
        assert!(c.other.is_empty());
    }
}
