//! Submit requirements: which jobs the schedd refuses, and which it only
//! warns about.
//!
//! `SUBMIT_REQUIREMENT_NAMES` lists the requirements, checked in that
//! order after the job transforms. `SUBMIT_REQUIREMENT_<name>` is an
//! expression evaluated with the schedd's ad as `MY` (also `SCHEDD`) and
//! the job as `TARGET` (also `JOB`): an attribute without a prefix is
//! looked up in the schedd's ad first, then in the job. When it is false
//! (or zero) the job is refused with the string
//! `SUBMIT_REQUIREMENT_<name>_REASON` evaluates to, or with
//! `Submit requirement <name> not met.`; when
//! `SUBMIT_REQUIREMENT_<name>_IS_WARNING` is true the job is accepted and
//! the reason is a warning. A requirement that evaluates to neither a
//! boolean nor a number refuses the job
//! (`Submit requirement <name> evaluated to non-boolean.`), warning or not.
//! Requirements that are not defined or do not parse are skipped, with a
//! message in [`SubmitRequirements::messages`].

use classad::{ClassAd, EvalContext, Expr, Value};

use super::scopes::rename_scopes;
use crate::config::Config;

/// One `SUBMIT_REQUIREMENT_<name>`.
#[derive(Debug, Clone)]
pub struct SubmitRequirement {
    /// The name as listed in `SUBMIT_REQUIREMENT_NAMES`.
    pub name: String,
    /// The requirement.
    pub expr: Expr,
    /// `SUBMIT_REQUIREMENT_<name>_REASON`, if set and valid.
    pub reason: Option<Expr>,
    /// `SUBMIT_REQUIREMENT_<name>_IS_WARNING`.
    pub is_warning: bool,
}

/// The schedd's submit requirements.
///
/// ```
/// use matchmaker::config::Config;
/// use matchmaker::schedd::{SubmitRequirements, Verdict};
/// let config = Config::parse_str(
///     "SUBMIT_REQUIREMENT_NAMES = MinMemory HasProject\n\
///      SUBMIT_REQUIREMENT_MinMemory = RequestMemory >= 128\n\
///      SUBMIT_REQUIREMENT_MinMemory_REASON = strcat(\"too little memory: \", RequestMemory)\n\
///      SUBMIT_REQUIREMENT_HasProject = ProjectName isnt undefined\n\
///      SUBMIT_REQUIREMENT_HasProject_IS_WARNING = true\n",
///     "schedd.conf",
/// )?;
/// let reqs = SubmitRequirements::from_config(&config);
/// let small: classad::ClassAd = "[ RequestMemory = 64 ]".parse()?;
/// assert_eq!(reqs.check(&small, None), Verdict::Refused {
///     name: "MinMemory".into(),
///     reason: "too little memory: 64".into(),
///     warnings: vec![],
/// });
/// let big: classad::ClassAd = "[ RequestMemory = 4096 ]".parse()?;
/// assert_eq!(reqs.check(&big, None), Verdict::Accepted {
///     warnings: vec!["Submit requirement HasProject not met.".into()],
/// });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct SubmitRequirements {
    requirements: Vec<SubmitRequirement>,
    messages: Vec<String>,
}

/// What the submit requirements say of a job.
///
/// Not `#[non_exhaustive]`, on purpose: the schedd accepts a job or
/// refuses it, and a caller must handle both; a third answer would change
/// what every caller does, and should make its `match` fail to compile.
/// (Nor are the variants: callers build and destructure them.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The job is accepted; `warnings` are the reasons of the warning-only
    /// requirements it does not meet, in order.
    Accepted {
        /// The warnings.
        warnings: Vec<String>,
    },
    /// The job is refused by the requirement `name` (the first one that
    /// refuses it) with `reason`, after the `warnings` of earlier
    /// warning-only requirements.
    Refused {
        /// The requirement.
        name: String,
        /// The text the schedd sends back to `condor_submit`.
        reason: String,
        /// Warnings before the refusal.
        warnings: Vec<String>,
    },
}

impl SubmitRequirements {
    /// No requirements.
    pub fn new() -> SubmitRequirements {
        SubmitRequirements::default()
    }

    /// The requirements `SUBMIT_REQUIREMENT_NAMES` lists, as the schedd
    /// reads them.
    pub fn from_config(config: &Config) -> SubmitRequirements {
        let mut out = SubmitRequirements::new();
        let names = config.lookup("SUBMIT_REQUIREMENT_NAMES").map(|l| l.value).unwrap_or_default();
        for name in names.split([',', ' ', '\t', '\r', '\n']).filter(|n| !n.is_empty()) {
            if name == "NAMES" {
                continue;
            }
            let Some(text) = config.lookup(&format!("SUBMIT_REQUIREMENT_{name}")).map(|l| l.value) else {
                out.messages.push(format!("Submit requirement {name} not defined, ignoring."));
                continue;
            };
            let Ok(expr) = classad::parse_expr(&text) else {
                out.messages.push(format!("Unable to parse submit requirement {name}, ignoring."));
                continue;
            };
            let reason = config.lookup(&format!("SUBMIT_REQUIREMENT_{name}_REASON")).and_then(|l| {
                let parsed = classad::parse_expr(&l.value).ok();
                if parsed.is_none() {
                    out.messages.push(format!("Unable to parse submit requirement reason {name}, ignoring."));
                }
                parsed
            });
            let is_warning = config.get_bool(&format!("SUBMIT_REQUIREMENT_{name}_IS_WARNING")).unwrap_or(false);
            out.push(SubmitRequirement { name: name.to_string(), expr, reason, is_warning });
        }
        out
    }

    /// Adds a requirement, checked after the others.
    pub fn push(&mut self, requirement: SubmitRequirement) {
        self.requirements.push(requirement);
    }

    /// The requirements, in order.
    pub fn requirements(&self) -> &[SubmitRequirement] {
        &self.requirements
    }

    /// What reading the configuration skipped, as the schedd logs it.
    pub fn messages(&self) -> &[String] {
        &self.messages
    }

    /// Checks `job` (after the transforms) against the requirements, with
    /// `schedd` as the schedd's ad (an empty ad if `None`).
    pub fn check(&self, job: &ClassAd, schedd: Option<&ClassAd>) -> Verdict {
        let empty = ClassAd::new();
        let schedd = schedd.unwrap_or(&empty);
        let options = super::macros::options();
        let ctx = EvalContext::new(&options).my(schedd).target(job);
        let aliases = [("SCHEDD", "MY"), ("JOB", "TARGET")];
        let mut warnings = Vec::new();
        for r in &self.requirements {
            let met = match ctx.eval(&rename_scopes(&r.expr, &aliases)) {
                Value::Bool(b) => b,
                Value::Int(i) => i != 0,
                Value::Real(x) => x != 0.0,
                _ => {
                    let reason = format!("Submit requirement {} evaluated to non-boolean.", r.name);
                    return Verdict::Refused { name: r.name.clone(), reason, warnings };
                }
            };
            if met {
                continue;
            }
            let reason = r
                .reason
                .as_ref()
                .and_then(|e| match ctx.eval(&rename_scopes(e, &aliases)) {
                    Value::Str(s) => Some(s.to_string()),
                    _ => None,
                })
                .unwrap_or_else(|| format!("Submit requirement {} not met.", r.name));
            if r.is_warning {
                warnings.push(reason);
            } else {
                return Verdict::Refused { name: r.name.clone(), reason, warnings };
            }
        }
        Verdict::Accepted { warnings }
    }
}

impl SubmitRequirements {
    /// Checks the jobs of one submission (a cluster): as the schedd
    /// commits a cluster whole, the first job refused refuses them all;
    /// otherwise the warnings of every job, in order.
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// use matchmaker::schedd::{SubmitRequirements, Verdict};
    /// let config = Config::parse_str(
    ///     "SUBMIT_REQUIREMENT_NAMES = Small\nSUBMIT_REQUIREMENT_Small = RequestCpus <= 4\n",
    ///     "schedd.conf",
    /// )?;
    /// let reqs = SubmitRequirements::from_config(&config);
    /// let jobs: Vec<classad::ClassAd> = vec!["[ RequestCpus = 1 ]".parse()?, "[ RequestCpus = 8 ]".parse()?];
    /// assert!(matches!(reqs.check_cluster(&jobs, None), Verdict::Refused { .. }));
    /// assert_eq!(reqs.check_cluster(&jobs[..1], None), Verdict::Accepted { warnings: vec![] });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_cluster(&self, jobs: &[ClassAd], schedd: Option<&ClassAd>) -> Verdict {
        let mut all = Vec::new();
        for job in jobs {
            match self.check(job, schedd) {
                Verdict::Accepted { warnings } => all.extend(warnings),
                Verdict::Refused { name, reason, warnings } => {
                    all.extend(warnings);
                    return Verdict::Refused { name, reason, warnings: all };
                }
            }
        }
        Verdict::Accepted { warnings: all }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reqs(text: &str) -> SubmitRequirements {
        SubmitRequirements::from_config(&Config::parse_str(text, "t.conf").expect("config"))
    }

    #[test]
    fn schedd_ad_is_my_and_job_is_target() {
        let r = reqs(
            "SUBMIT_REQUIREMENT_NAMES = Limit\n\
             SUBMIT_REQUIREMENT_Limit = JOB.RequestCpus <= SCHEDD.MaxCpus && RequestCpus <= MaxCpus\n",
        );
        let schedd: ClassAd = "[ MaxCpus = 4 ]".parse().unwrap();
        let ok: ClassAd = "[ RequestCpus = 2 ]".parse().unwrap();
        let big: ClassAd = "[ RequestCpus = 8 ]".parse().unwrap();
        assert_eq!(r.check(&ok, Some(&schedd)), Verdict::Accepted { warnings: vec![] });
        assert!(matches!(r.check(&big, Some(&schedd)), Verdict::Refused { ref reason, .. }
            if reason == "Submit requirement Limit not met."));
    }

    #[test]
    fn non_boolean_refuses_even_a_warning() {
        let r = reqs(
            "SUBMIT_REQUIREMENT_NAMES = W NAMES Missing\n\
             SUBMIT_REQUIREMENT_W = Undefined_Attr\n\
             SUBMIT_REQUIREMENT_W_IS_WARNING = true\n",
        );
        assert_eq!(r.requirements().len(), 1);
        assert_eq!(r.messages(), ["Submit requirement Missing not defined, ignoring."]);
        assert!(matches!(r.check(&ClassAd::new(), None), Verdict::Refused { ref reason, .. }
            if reason == "Submit requirement W evaluated to non-boolean."));
    }

    #[test]
    fn reason_that_is_not_a_string_gives_the_default_text() {
        let r = reqs("SUBMIT_REQUIREMENT_NAMES = A\nSUBMIT_REQUIREMENT_A = false\nSUBMIT_REQUIREMENT_A_REASON = 42\n");
        assert!(matches!(r.check(&ClassAd::new(), None), Verdict::Refused { ref reason, .. }
            if reason == "Submit requirement A not met."));
    }
}
