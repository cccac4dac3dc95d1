//! Why a job does not match: the analysis behind `condor_q -analyze`, and
//! behind `classad analyze`.
//!
//! [`analyze`] puts one job next to a set of machine ads and reports:
//!
//! * how many machines there are, how many the job's `Requirements`
//!   rejects, how many reject the job by their own `Requirements`, and how
//!   many match: three disjoint counts that add up to the machines, as
//!   `condor_q -analyze` gives them;
//! * each condition of the job's `Requirements` (its top-level `&&`
//!   operands, nested `&&` included), also flattened with the job's own
//!   attributes, with the number of machines that satisfy it, most
//!   restrictive first;
//! * the attributes that are missing from the job although its own
//!   `Requirements` or the machines' refer to them (not those they test
//!   for UNDEFINED: `x =?= undefined`, `isUndefined(x)`, `x ?: 0`, `x isnt
//!   true` are written for jobs without `x`);
//! * the machine side, as `condor_q -better-analyze:reverse` shows it:
//!   for the machines that reject the job by their own `Requirements`,
//!   which conditions of those `Requirements` reject it, and on how many
//!   machines ([`Analysis::machine_conditions`]; the conditions of one
//!   machine with their values: [`machine_conditions`]);
//! * suggestions: for each condition that alone keeps some machines from
//!   matching, how many more would match without it and, for a comparison
//!   with a constant, the constant that would let them match.
//!
//! Every count is an evaluation in the match context (the job as MY, each
//! machine as TARGET, and the other way round for the machines'
//! `Requirements`), with the caller's semantics. A condition counts as
//! satisfied only when it is `true` (or a non-zero number): UNDEFINED and
//! ERROR reject, as they do in the whole `Requirements`. Because `&&` is
//! true exactly when every operand is, a machine passes the job's
//! `Requirements` exactly when it satisfies every condition.
//!
//! When a stream mixes ad types, only the ads whose `MyType` is `Machine`
//! are machines; when no ad has a `MyType`, every ad is one.
//!
//! ```
//! use classad::{ClassAd, EvalOptions, Semantics};
//! use classad::analysis::analyze;
//!
//! let job: ClassAd = r#"[ RequestMemory = 4096;
//!     Requirements = TARGET.OpSys == "LINUX" && TARGET.Memory >= RequestMemory ]"#.parse()?;
//! let machines: Vec<ClassAd> = [("LINUX", 2048), ("LINUX", 8192), ("WINDOWS", 8192), ("LINUX", 1024)]
//!     .iter()
//!     .map(|(os, memory)| format!(r#"[ MyType = "Machine"; OpSys = "{os}"; Memory = {memory};
//!         Requirements = true ]"#).parse())
//!     .collect::<Result<_, _>>()?;
//!
//! let opts = EvalOptions::new().semantics(Semantics::Old);
//! let report = analyze(&opts, &job, &machines);
//! assert_eq!((report.machines, report.rejected_by_job, report.rejected_by_machine, report.matching), (4, 3, 0, 1));
//! // Most restrictive condition first.
//! assert_eq!(report.conditions[0].expr.to_string(), "TARGET.Memory >= RequestMemory");
//! assert_eq!(report.conditions[0].flattened.to_string(), "TARGET.Memory >= 4096");
//! assert_eq!(report.conditions[0].satisfied, 2);
//! // Two machines fail only on memory; asking for 1024 would let them match.
//! let hint = &report.suggestions[0];
//! assert_eq!(hint.replacement.as_ref().map(|e| e.to_string()).as_deref(), Some("TARGET.Memory >= 1024"));
//! assert_eq!(hint.more_matches, 2);
//! # Ok::<(), classad::ParseError>(())
//! ```

use std::collections::BTreeMap;

use std::collections::HashSet;

use crate::lint::guarded_names;
use crate::matching::{MatchAd, REQUIREMENTS};
use crate::references::{external, internal};
use crate::{BinaryOp, ClassAd, EvalContext, EvalOptions, Expr, Name, Node, Value};

/// What [`analyze`] found.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The machine ads considered.
    pub machines: usize,
    /// Machines the job's `Requirements` rejects.
    pub rejected_by_job: usize,
    /// Machines the job accepts but whose own `Requirements` rejects the
    /// job.
    pub rejected_by_machine: usize,
    /// Machines that match the job both ways.
    pub matching: usize,
    /// The job's `Requirements` (`None` when it has none: then it rejects
    /// every machine).
    pub requirements: Option<Expr>,
    /// The conditions of the job's `Requirements`, the ones the fewest
    /// machines satisfy first (ties in the order written).
    pub conditions: Vec<Condition>,
    /// Attributes the job does not define, though its `Requirements` or the
    /// machines' refer to them, in name order.
    pub missing_from_job: Vec<MissingAttribute>,
    /// Ways to match more machines, the most rewarding first.
    pub suggestions: Vec<Suggestion>,
    /// The conditions of the machines' `Requirements` that reject the job
    /// on the machines the job accepts but that reject it
    /// ([`rejected_by_machine`](Analysis::rejected_by_machine) of them),
    /// the most rejecting first (ties in text order). A condition is as
    /// written, after the machine's attributes it names alone (`START`,
    /// `WithinResourceLimits`) were replaced by their own conditions; the
    /// same text on several machines is one entry.
    pub machine_conditions: Vec<MachineCondition>,
}

/// A condition of machines' `Requirements` that rejects the job.
#[derive(Clone, Debug)]
pub struct MachineCondition {
    /// The condition as written in the machines' ads.
    pub expr: Expr,
    /// On how many of the machines that reject the job it is not true.
    pub rejecting: usize,
}

/// One condition of the job's `Requirements`.
#[derive(Clone, Debug)]
pub struct Condition {
    /// Its position among the conditions as written (from 0).
    pub position: usize,
    /// The condition as written in the `Requirements`.
    pub expr: Expr,
    /// The condition with what the job determines computed
    /// ([`flatten`](crate::flatten::flatten) in the job's scope):
    /// `TARGET.Disk >= 100000` for `TARGET.Disk >= DiskUsage`. As
    /// `condor_q -analyze` shows it.
    pub flattened: Expr,
    /// Machines for which it is true.
    pub satisfied: usize,
}

/// An attribute missing from the job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingAttribute {
    /// The name, as first written.
    pub name: String,
    /// Whether the job's own `Requirements` refers to it.
    pub by_job: bool,
    /// How many machines' `Requirements` refer to it as `TARGET.name` (or
    /// `other.name`).
    pub by_machines: usize,
}

/// A change to one condition that would let more machines match.
#[derive(Clone, Debug)]
pub struct Suggestion {
    /// The condition's position (see [`Condition::position`]).
    pub position: usize,
    /// The condition as written.
    pub condition: Expr,
    /// The relaxed condition, when the condition compares a machine
    /// attribute with a constant; `None` means dropping the condition.
    pub replacement: Option<Expr>,
    /// How many more machines would match (both ways) with the change.
    pub more_matches: usize,
}

impl Analysis {
    /// True when no machine matches.
    pub fn no_match(&self) -> bool {
        self.matching == 0
    }

    /// The report for a person, laid out after `condor_q -analyze`: the
    /// counts, the conditions with the machines each one matches and a
    /// suggestion, the attributes missing from the job, and the
    /// suggestions. `job` is the ad analysed (its `ClusterId` and `ProcId`
    /// name it).
    ///
    /// ```
    /// use classad::{ClassAd, EvalOptions};
    /// use classad::analysis::analyze;
    ///
    /// let job: ClassAd = "[ Requirements = TARGET.Memory >= 4096 ]".parse()?;
    /// let machines: Vec<ClassAd> = vec!["[ Memory = 2048; Requirements = true ]".parse()?];
    /// let text = analyze(&EvalOptions::new(), &job, &machines).report(&job);
    /// assert!(text.starts_with("The job: run analysis summary. Of 1 machine,\n"));
    /// assert!(text.contains("Changing TARGET.Memory >= 4096 to TARGET.Memory >= 2048 would let 1 more machine match."));
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn report(&self, job: &ClassAd) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let id = match (job.eval_attr("ClusterId").as_f64(), job.eval_attr("ProcId").as_f64()) {
            (Some(c), Some(p)) => format!("Job {c}.{p:03}"),
            _ => "The job".to_owned(),
        };
        let _ = writeln!(out, "{id}: run analysis summary. Of {},", count(self.machines, "machine"));
        let width = self.machines.to_string().len();
        let _ = writeln!(out, "  {:>width$} are rejected by your job's requirements", self.rejected_by_job);
        let _ =
            writeln!(out, "  {:>width$} reject your job because of their own requirements", self.rejected_by_machine);
        let _ = writeln!(out, "  {:>width$} match and are available to run your job", self.matching);
        match &self.requirements {
            None => {
                let _ = writeln!(out, "\nThe job has no Requirements expression, so no machine can match it.");
            }
            Some(requirements) => {
                let _ = writeln!(out, "\nThe Requirements expression for your job is:\n\n    {requirements}\n");
                let shown: Vec<String> = self.conditions.iter().map(|c| c.flattened.to_string()).collect();
                let cond_width = shown.iter().map(String::len).max().unwrap_or(0).max("Condition".len());
                let _ = writeln!(out, "    {:<cond_width$}  Machines Matched  Suggestion", "Condition");
                let _ = writeln!(out, "    {:<cond_width$}  ----------------  ----------", "---------");
                for (i, (condition, text)) in self.conditions.iter().zip(&shown).enumerate() {
                    let suggestion = self
                        .suggestions
                        .iter()
                        .find(|s| s.position == condition.position)
                        .map(|s| match &s.replacement {
                            Some(replacement) => format!("MODIFY TO {replacement}"),
                            None => "REMOVE".to_owned(),
                        })
                        .unwrap_or_default();
                    let _ =
                        writeln!(out, "{:<3} {text:<cond_width$}  {:>16}  {suggestion}", i + 1, condition.satisfied);
                }
            }
        }
        if !self.machine_conditions.is_empty() {
            let _ = if self.rejected_by_machine == 1 {
                writeln!(out, "\nThe machine that rejects your job by its own requirements does so on:\n")
            } else {
                writeln!(
                    out,
                    "\nThe {} machines that reject your job by their own requirements do so on:\n",
                    self.rejected_by_machine
                )
            };
            let _ = writeln!(out, "    Machines Rejecting  Condition");
            let _ = writeln!(out, "    ------------------  ---------");
            for condition in &self.machine_conditions {
                let _ = writeln!(out, "    {:>18}  {}", condition.rejecting, condition.expr);
            }
        }
        if !self.missing_from_job.is_empty() {
            let _ = writeln!(out, "\nThe following attributes are missing from the job ClassAd:\n");
            let mut missing: Vec<_> = self.missing_from_job.iter().collect();
            missing.sort_by_key(|m| (!m.by_job, std::cmp::Reverse(m.by_machines)));
            for missing in missing {
                let mut by = Vec::new();
                if missing.by_job {
                    by.push("the job's Requirements".to_owned());
                }
                if missing.by_machines > 0 {
                    by.push(format!("the Requirements of {}", count(missing.by_machines, "machine")));
                }
                let _ = writeln!(out, "    {} (referred to by {})", missing.name, by.join(" and "));
            }
        }
        if !self.suggestions.is_empty() {
            let _ = writeln!(out, "\nSuggestions:\n");
            for s in &self.suggestions {
                let more = count(s.more_matches, "more machine");
                let _ = match &s.replacement {
                    Some(replacement) => {
                        writeln!(out, "    Changing {} to {replacement} would let {more} match.", s.condition)
                    }
                    None => writeln!(out, "    Removing {} would let {more} match.", s.condition),
                };
            }
        }
        out
    }
}

/// `n thing` or `n things`.
fn count(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// The machine ads of `ads`: those whose `MyType` is `Machine`, or all of
/// them when no ad has a `MyType`.
fn machine_ads<'a>(ads: &'a [ClassAd], options: &EvalOptions) -> Vec<&'a ClassAd> {
    let my_type = |ad: &ClassAd| EvalContext::new(options).my(ad).eval_attr("MyType");
    if ads.iter().all(|ad| my_type(ad).is_undefined()) {
        return ads.iter().collect();
    }
    ads.iter().filter(|ad| my_type(ad).as_str().is_some_and(|t| t.eq_ignore_ascii_case("Machine"))).collect()
}

/// Analyses `job` against the machine ads among `ads`.
pub fn analyze(options: &EvalOptions, job: &ClassAd, ads: &[ClassAd]) -> Analysis {
    let machines = machine_ads(ads, options);
    let requirements = job.lookup(REQUIREMENTS).cloned();
    let conditions_written: Vec<Expr> = requirements.as_ref().map(conditions_of).unwrap_or_default();

    // One row per machine: does it satisfy each condition, does the job
    // accept it, does it accept the job.
    let mut satisfied = vec![0usize; conditions_written.len()];
    let mut rows = Vec::with_capacity(machines.len());
    let (mut rejected_by_job, mut rejected_by_machine, mut matching) = (0, 0, 0);
    let mut rejecting: BTreeMap<String, (Expr, usize)> = BTreeMap::new();
    for machine in &machines {
        let pair = MatchAd::new(options, job, machine);
        let context = pair.left_context();
        let passes: Vec<bool> = conditions_written.iter().map(|c| context.is_true(c)).collect();
        for (count, pass) in satisfied.iter_mut().zip(&passes) {
            *count += usize::from(*pass);
        }
        let job_accepts = pair.left_matches_right();
        let machine_accepts = pair.right_matches_left();
        match (job_accepts, machine_accepts) {
            (false, _) => rejected_by_job += 1,
            (true, false) => {
                rejected_by_machine += 1;
                let mut seen: Vec<String> = Vec::new();
                for (condition, value) in machine_conditions(options, job, machine) {
                    let text = condition.to_string();
                    if is_true(&value) || seen.contains(&text) {
                        continue;
                    }
                    let entry = rejecting.entry(text.clone()).or_insert((condition, 0));
                    entry.1 += 1;
                    seen.push(text);
                }
            }
            (true, true) => matching += 1,
        }
        rows.push((passes, machine_accepts));
    }
    let mut machine_conditions: Vec<MachineCondition> =
        rejecting.into_values().map(|(expr, rejecting)| MachineCondition { expr, rejecting }).collect();
    machine_conditions
        .sort_by(|a, b| b.rejecting.cmp(&a.rejecting).then_with(|| a.expr.to_string().cmp(&b.expr.to_string())));

    let mut conditions: Vec<Condition> = conditions_written
        .iter()
        .enumerate()
        .map(|(position, expr)| Condition {
            position,
            expr: expr.clone(),
            flattened: crate::flatten::flatten(options, job, expr).map_or_else(|_| expr.clone(), |f| f.into_expr()),
            satisfied: satisfied[position],
        })
        .collect();
    conditions.sort_by_key(|c| (c.satisfied, c.position));

    let mut suggestions = Vec::new();
    for (position, condition) in conditions_written.iter().enumerate() {
        // The machines this condition alone keeps from matching.
        let blocked: Vec<usize> = rows
            .iter()
            .enumerate()
            .filter(|(_, (passes, machine_accepts))| {
                *machine_accepts && !passes[position] && passes.iter().enumerate().all(|(i, p)| i == position || *p)
            })
            .map(|(m, _)| m)
            .collect();
        if blocked.is_empty() {
            continue;
        }
        let relaxed = relax(options, condition, blocked.iter().map(|&m| machines[m]));
        let more_matches = match &relaxed {
            Some(replacement) => blocked
                .iter()
                .filter(|&&m| MatchAd::new(options, job, machines[m]).left_context().is_true(replacement))
                .count(),
            None => blocked.len(),
        };
        if more_matches > 0 {
            suggestions.push(Suggestion { position, condition: condition.clone(), replacement: relaxed, more_matches });
        }
    }
    suggestions.sort_by_key(|s| (std::cmp::Reverse(s.more_matches), s.position));

    Analysis {
        machines: machines.len(),
        rejected_by_job,
        rejected_by_machine,
        matching,
        missing_from_job: missing_from_job(options, job, requirements.as_ref(), &machines),
        requirements,
        conditions,
        suggestions,
        machine_conditions,
    }
}

/// Whether a condition's value lets the match go on: `true` or a non-zero
/// number, as in `Requirements`.
fn is_true(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Real(r) => *r != 0.0,
        _ => false,
    }
}

/// The conditions of `machine`'s `Requirements` and their values in the
/// match with `job` (the machine as MY, the job as TARGET), in the order
/// written: the operands of its top-level `&&`, looking through
/// parentheses, with each operand that names an attribute of the machine
/// (`START`, `MY.WithinResourceLimits`) whose expression is not a literal
/// replaced by that expression's conditions, as `condor_q
/// -better-analyze:reverse` unfolds them. Empty when the machine has no
/// `Requirements`.
///
/// ```
/// use classad::{ClassAd, EvalOptions, Semantics, Value};
/// use classad::analysis::machine_conditions;
///
/// let machine: ClassAd = r#"[ Cpus = 4; Memory = 2048; START = KeyboardIdle > 600 && (TARGET.Owner != "bob");
///     WithinLimits = TARGET.RequestCpus <= Cpus && TARGET.RequestMemory <= Memory;
///     KeyboardIdle = 900; Requirements = START && (WithinLimits) ]"#.parse()?;
/// let job: ClassAd = r#"[ Owner = "bob"; RequestCpus = 1; RequestMemory = 4096 ]"#.parse()?;
/// let options = EvalOptions::new().semantics(Semantics::Old);
/// let found: Vec<(String, Value)> = machine_conditions(&options, &job, &machine)
///     .into_iter().map(|(c, v)| (c.to_string(), v)).collect();
/// assert_eq!(found, [
///     ("KeyboardIdle > 600".to_owned(), Value::Bool(true)),
///     (r#"(TARGET.Owner != "bob")"#.to_owned(), Value::Bool(false)),
///     ("TARGET.RequestCpus <= Cpus".to_owned(), Value::Bool(true)),
///     ("TARGET.RequestMemory <= Memory".to_owned(), Value::Bool(false)),
/// ]);
/// # Ok::<(), classad::ParseError>(())
/// ```
pub fn machine_conditions(options: &EvalOptions, job: &ClassAd, machine: &ClassAd) -> Vec<(Expr, Value)> {
    let Some(requirements) = machine.lookup(REQUIREMENTS) else {
        return Vec::new();
    };
    let pair = MatchAd::new(options, job, machine);
    let context = pair.right_context();
    unfold(machine, requirements).into_iter().map(|c| (c.clone(), context.eval(&c))).collect()
}

/// The `&&` operands of `expr`, with the machine's attributes named alone
/// unfolded (each at most once on a path, so cycles end; an explicit stack,
/// so depth costs no call stack).
fn unfold(machine: &ClassAd, expr: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    // (expression, the attributes unfolded on the way to it)
    let mut stack: Vec<(&Expr, Vec<Name>)> = vec![(expr, Vec::new())];
    while let Some((expr, path)) = stack.pop() {
        let mut inner = expr;
        while let Some(Node::Paren(e)) = inner.as_node() {
            inner = e;
        }
        match inner.as_node() {
            Some(Node::Binary(BinaryOp::And, a, b)) => {
                stack.push((b, path.clone()));
                stack.push((a, path));
            }
            Some(node @ (Node::Attr(_) | Node::Select(..))) => {
                let name = match node {
                    Node::Attr(name) => Some(*name),
                    Node::Select(base, name) => match base.as_node() {
                        Some(Node::Attr(scope)) if scope.is("MY") => Some(*name),
                        _ => None,
                    },
                    _ => None,
                };
                let found = name.and_then(|name| Some((name, machine.lookup(name)?)));
                match found {
                    Some((name, value))
                        if path.len() < 64
                            && !path.iter().any(|p| p.symbol() == name.symbol())
                            && strip_parens(value).as_literal().is_none() =>
                    {
                        let mut path = path;
                        path.push(name);
                        stack.push((value, path));
                    }
                    _ => out.push(expr.clone()),
                }
            }
            _ => out.push(expr.clone()),
        }
    }
    out
}

fn strip_parens(mut expr: &Expr) -> &Expr {
    while let Some(Node::Paren(e)) = expr.as_node() {
        expr = e;
    }
    expr
}

/// The conditions of a `Requirements`: its `&&` operands, looking through
/// parentheses and nested `&&`, in the order written. (An explicit stack:
/// generated expressions can be deeper than the call stack allows.)
fn conditions_of(expr: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    let mut stack = vec![expr];
    while let Some(expr) = stack.pop() {
        match expr.as_node() {
            Some(Node::Binary(BinaryOp::And, a, b)) => {
                stack.push(b);
                stack.push(a);
            }
            Some(Node::Paren(inner)) if matches!(inner.as_node(), Some(Node::Binary(BinaryOp::And, ..))) => {
                stack.push(inner);
            }
            _ => out.push(expr.clone()),
        }
    }
    out
}

/// `condition` rewritten to admit `blocked`, when it compares a machine
/// attribute (`TARGET.x`) with anything else:
/// `>=`/`>` takes the smallest value the blocked machines have, `<=`/`<`
/// the largest, `==` the most common one. `None` for other shapes.
fn relax<'a>(options: &EvalOptions, condition: &Expr, blocked: impl Iterator<Item = &'a ClassAd>) -> Option<Expr> {
    let mut inner = condition;
    while let Some(Node::Paren(e)) = inner.as_node() {
        inner = e;
    }
    let Some(Node::Binary(op, a, b)) = inner.as_node() else {
        return None;
    };
    // Which side is the machine's attribute; the other must be known from
    // the job alone.
    let (attr, op) = if target_attribute(a).is_some() {
        (a, *op)
    } else if target_attribute(b).is_some() {
        (b, mirror(*op)?)
    } else {
        return None;
    };
    let name = target_attribute(attr)?;
    let values: Vec<Value> = blocked.map(|machine| EvalContext::new(options).my(machine).eval_attr(name)).collect();
    let value = match op {
        BinaryOp::Ge | BinaryOp::Gt => numbers(&values).reduce(f64::min).map(number)?,
        BinaryOp::Le | BinaryOp::Lt => numbers(&values).reduce(f64::max).map(number)?,
        BinaryOp::Eq | BinaryOp::Is => most_common(&values)?,
        _ => return None,
    };
    let op = match op {
        BinaryOp::Gt => BinaryOp::Ge,
        BinaryOp::Lt => BinaryOp::Le,
        op => op,
    };
    Some(Expr::binary(op, attr.clone(), value))
}

/// The machine attribute `expr` names: `TARGET.x` or `other.x`.
fn target_attribute(expr: &Expr) -> Option<&str> {
    match expr.as_node()? {
        Node::Select(base, name) => match base.as_node()? {
            Node::Attr(scope) if scope.as_str().eq_ignore_ascii_case("TARGET") => Some(name.as_str()),
            Node::Attr(scope) if scope.as_str().eq_ignore_ascii_case("other") => Some(name.as_str()),
            _ => None,
        },
        Node::Paren(inner) => target_attribute(inner),
        _ => None,
    }
}

/// The operator with its operands swapped (`a < b` is `b > a`).
fn mirror(op: BinaryOp) -> Option<BinaryOp> {
    Some(match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        BinaryOp::Eq | BinaryOp::Is => op,
        _ => return None,
    })
}

/// The values that are numbers.
fn numbers(values: &[Value]) -> impl Iterator<Item = f64> + '_ {
    values.iter().filter_map(Value::as_f64)
}

/// A number as the literal to write: an integer when it is one.
fn number(x: f64) -> Expr {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::Int(x as i64).to_expr()
    } else {
        Value::Real(x).to_expr()
    }
}

/// The most common value that is a number, string or boolean (the first seen on
/// a tie).
fn most_common(values: &[Value]) -> Option<Expr> {
    let mut counts: Vec<(Expr, usize)> = Vec::new();
    for value in values {
        if !matches!(value, Value::Int(_) | Value::Real(_) | Value::Str(_) | Value::Bool(_)) {
            continue;
        }
        let expr = value.to_expr();
        match counts.iter_mut().find(|(e, _)| e.same_as(&expr)) {
            Some((_, n)) => *n += 1,
            None => counts.push((expr, 1)),
        }
    }
    let best = counts.iter().map(|(_, n)| *n).max()?;
    counts.into_iter().find(|(_, n)| *n == best).map(|(e, _)| e)
}

/// Attributes the job lacks that its `Requirements` or the machines'
/// refer to.
fn missing_from_job(
    options: &EvalOptions,
    job: &ClassAd,
    requirements: Option<&Expr>,
    machines: &[&ClassAd],
) -> Vec<MissingAttribute> {
    let mut found: BTreeMap<String, MissingAttribute> = BTreeMap::new();
    let mut note = |name: &str, by_job: bool| {
        if job.contains(name) {
            return;
        }
        let entry = found.entry(name.to_ascii_lowercase()).or_insert_with(|| MissingAttribute {
            name: name.to_owned(),
            by_job: false,
            by_machines: 0,
        });
        if by_job {
            entry.by_job = true;
        } else {
            entry.by_machines += 1;
        }
    };
    if let Some(requirements) = requirements {
        let guarded = guarded_symbols(options, job, requirements);
        for name in external(options, job, requirements).unwrap_or_default() {
            // Scoped references (`TARGET.x`) are the machine's business.
            if !name.contains('.') && !guarded.contains(&Name::new(&name).symbol()) {
                note(&name, true);
            }
        }
    }
    for machine in machines {
        let Some(theirs) = machine.lookup(REQUIREMENTS) else {
            continue;
        };
        let mut seen: Vec<String> = Vec::new();
        let guarded = guarded_symbols(options, machine, theirs);
        for name in external(options, machine, theirs).unwrap_or_default() {
            let attr = match name.split_once('.') {
                Some((scope, attr)) if scope.eq_ignore_ascii_case("TARGET") || scope.eq_ignore_ascii_case("other") => {
                    attr.to_owned()
                }
                // Other scopes, and names the machine lacks: under old
                // semantics those would be looked up in the job, but they
                // are mostly optional machine settings (`DESIRED_Sites`),
                // too noisy to report.
                _ => continue,
            };
            // Tested for UNDEFINED: written for jobs without it.
            if guarded.contains(&Name::new(&attr).symbol()) {
                continue;
            }
            if !seen.iter().any(|s| s.eq_ignore_ascii_case(&attr)) {
                note(&attr, false);
                seen.push(attr);
            }
        }
    }
    found.into_values().collect()
}

/// The symbols of the names `expr` (an attribute of `ad`) and the
/// attributes of `ad` it uses test for UNDEFINED somewhere (`x =?=
/// undefined`, `isUndefined(x)`, `x ?: 0`, `x isnt true`): references
/// that are written for ads without them.
fn guarded_symbols(options: &EvalOptions, ad: &ClassAd, expr: &Expr) -> HashSet<u32> {
    let mut guarded: HashSet<u32> = guarded_names(expr).into_iter().map(Name::symbol).collect();
    for name in internal(options, ad, expr).unwrap_or_default() {
        if let Some(used) = ad.lookup(name.as_str()) {
            guarded.extend(guarded_names(used).into_iter().map(Name::symbol));
        }
    }
    guarded
}
