//! The schedd's job transforms (`JOB_TRANSFORM_NAMES`) and
//! `condor_transform_ads`' sequence of rules.

use classad::ClassAd;

use super::classad_form;
use super::error::TransformError;
use super::macros::{Expander, Macros};
use super::transform::{Origin, Transform};
use crate::config::Config;

/// An ordered list of transforms.
///
/// ```
/// use matchmaker::config::Config;
/// use matchmaker::schedd::JobTransforms;
/// let config = Config::parse_str(
///     "JOB_TRANSFORM_NAMES = Mem, Tag\n\
///      JOB_TRANSFORM_Mem @=end\n\
///        REQUIREMENTS RequestMemory < 1024\n\
///        SET RequestMemory 1024\n\
///      @end\n\
///      JOB_TRANSFORM_Tag = [ set_Site = \"east\"; copy_Owner = \"SubmittedBy\" ]\n",
///     "schedd.conf",
/// )?;
/// let transforms = JobTransforms::from_config(&config);
/// let mut job: classad::ClassAd = r#"[ Owner = "alice"; RequestMemory = 512 ]"#.parse()?;
/// let applied = transforms.transform_job(&mut job, Some(&config))?;
/// assert_eq!(applied.names, ["Mem", "Tag"]);
/// assert_eq!(job.to_string(),
///     r#"[ Owner = "alice"; RequestMemory = 1024; SubmittedBy = "alice"; Site = "east" ]"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct JobTransforms {
    transforms: Vec<Transform>,
    messages: Vec<String>,
    directory: Option<std::path::PathBuf>,
    /// Most ads an iterating transform makes of one ad (`None`: a million).
    max_ads: Option<u64>,
}

/// What applying the transforms to one ad did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Applied {
    /// The names of the transforms whose requirements held, in order.
    pub names: Vec<String>,
    /// Commands that failed without stopping their transform (see
    /// [`Transform::apply`]).
    pub messages: Vec<String>,
}

impl JobTransforms {
    /// No transforms.
    pub fn new() -> JobTransforms {
        JobTransforms::default()
    }

    /// The transforms `JOB_TRANSFORM_NAMES` lists, as the schedd reads
    /// them (see [`add_from_config`](Self::add_from_config)).
    pub fn from_config(config: &Config) -> JobTransforms {
        let mut out = JobTransforms::new();
        let names = config.lookup("JOB_TRANSFORM_NAMES").map(|l| l.value).unwrap_or_default();
        out.add_named(config, &names, false);
        out
    }

    /// Adds `JOB_TRANSFORM_<name>` for each name of `names` (separated by
    /// commas or white space), as `condor_transform_ads -jobtransforms`
    /// does. A value that starts with `[` is a ClassAd-form transform
    /// (read with its macros expanded); anything else is read unexpanded
    /// in the transform language. Names that are not defined, empty
    /// values and transforms that cannot be read are skipped, with a
    /// message in [`messages`](Self::messages), as the schedd skips them.
    /// As `condor_transform_ads` checks them (see
    /// [`Transform::validate`]), a transform with a line that does not read
    /// before any command that does is left out too.
    pub fn add_from_config(&mut self, config: &Config, names: &str) {
        self.add_named(config, names, true);
    }

    fn add_named(&mut self, config: &Config, names: &str, tool: bool) {
        for name in names.split([',', ' ', '\t', '\r', '\n']).filter(|n| !n.is_empty()) {
            if name.eq_ignore_ascii_case("NAMES") {
                continue;
            }
            let knob = format!("JOB_TRANSFORM_{name}");
            let Some(found) = config.lookup(&knob) else {
                self.messages.push(format!("{knob} not defined, ignoring."));
                continue;
            };
            let source = match &found.source {
                crate::config::Source::File { file, .. } => format!("{file}: {knob}"),
                other => format!("{other}: {knob}"),
            };
            let raw = found.raw.trim_start();
            if raw.is_empty() {
                self.messages.push(format!("{knob} definition is empty, ignoring."));
                continue;
            }
            let read = if raw.starts_with('[') {
                Self::read_classad_form(name, &found.value, &source)
            } else {
                Transform::read(name, raw, &source, Origin::Config)
            };
            match read {
                Ok(t) => {
                    if tool && !self.checked(&t, name, Some(config)) {
                        continue;
                    }
                    self.transforms.push(t);
                }
                Err(e) => self.messages.push(format!("{knob} malformed, ignoring: {e}")),
            }
        }
    }

    fn read_classad_form(name: &str, text: &str, source: &str) -> Result<Transform, TransformError> {
        let ad: ClassAd =
            text.trim().parse().map_err(|error| TransformError::ClassAd { source_name: source.to_string(), error })?;
        let mut name = name.to_string();
        let converted = classad_form::convert(&ad, &mut name);
        Transform::read(&name, &converted, source, Origin::Config)
    }

    /// Reads a ClassAd-form transform (`[ set_A = 1; ... ]`).
    ///
    /// ```
    /// use matchmaker::schedd::JobTransforms;
    /// let t = JobTransforms::classad_form("t", r#"[ Requirements = TARGET.x > 1; set_y = 2 ]"#, "t.ad")?;
    /// assert_eq!(t.requirements(), Some("x > 1"));
    /// # Ok::<(), matchmaker::schedd::TransformError>(())
    /// ```
    pub fn classad_form(name: &str, text: &str, source: &str) -> Result<Transform, TransformError> {
        Self::read_classad_form(name, text, source)
    }

    /// Reads `TRANSFORM ... from FILE` items files named by a relative
    /// path from `dir` (by default, from the current directory).
    pub fn set_directory(&mut self, dir: impl Into<std::path::PathBuf>) {
        self.directory = Some(dir.into());
    }

    /// Most ads an iterating transform (`TRANSFORM 10`, `TRANSFORM Q in
    /// ...`) may make of one ad: past it, transforming the ad is an error
    /// (a million unless set).
    ///
    /// ```
    /// use matchmaker::schedd::{JobTransforms, Macros, Transform};
    /// let mut t = JobTransforms::new();
    /// t.push(Transform::parse("many", "SET Copy $(Step)\nTRANSFORM 100\n", "many.xform")?);
    /// t.set_max_ads(10);
    /// let job = classad::parse_ad("[ Owner = \"amy\" ]")?;
    /// let refused = t.transform_ads(&job, &Macros::new(), None).unwrap_err();
    /// assert!(refused.to_string().contains("more than 10 ads"), "{refused}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_max_ads(&mut self, max: u64) {
        self.max_ads = Some(max);
    }

    /// Adds a transform, applied after the others.
    pub fn push(&mut self, transform: Transform) {
        self.transforms.push(transform);
    }

    /// Reads a rules file (as `condor_transform_ads -rules` does) and adds
    /// its transform. A line that does not read is reported in
    /// [`messages`](Self::messages) (and is an error when an ad reaches
    /// it); a file with no command before such a line, or none at all (a
    /// file of variables only), is left out, as `condor_transform_ads`
    /// leaves it out.
    pub fn add_rules_file(&mut self, path: &str) -> Result<(), TransformError> {
        use classad::bounded_file::{self, FileError};
        let text = bounded_file::read_to_string(std::path::Path::new(path)).map_err(|e| match e {
            FileError::Io { source, .. } => TransformError::Io { file: path.to_string(), source },
            other => TransformError::File(other),
        })?;
        let t = Transform::parse(path, &text, path)?;
        if self.checked(&t, path, None) {
            self.transforms.push(t);
        }
        Ok(())
    }

    /// `condor_transform_ads`' check of a transform it loads: a line that
    /// does not read is reported; a transform with no command before it
    /// (or none at all) is left out, except that a rules file's line that
    /// does not read stays, to fail each ad that reaches it, as
    /// condor_transform_ads 23.9.6 fails them. Whether it is kept.
    fn checked(&mut self, t: &Transform, name: &str, config: Option<&Config>) -> bool {
        let (commands, mut error) = t.check(config);
        // The TRANSFORM statement is read at load, wherever it is (in an
        // `if` branch not taken too): a bad one fails every ad. (One with
        // macros is read when the ads come, with their variables.)
        if let (None, Some(iteration)) = (&error, t.iteration().filter(|i| !i.args().contains('$'))) {
            let empty = ClassAd::new();
            let vars = Macros::new();
            let planned = Expander { vars: &vars, ad: &empty, config }
                .expand(iteration.args())
                .and_then(|expanded| iteration.plan(&expanded, &|_| Ok(String::new()), None, self.max_ads));
            if let Err(m) = planned {
                error = Some(TransformError::syntax(t.source(), iteration.line, m));
            }
        }
        let bad_file = error.is_some() && !t.is_from_config();
        if let Some(e) = error {
            self.messages.push(format!("Invalid rules file {name} : {e}"));
        }
        commands > 0 || bad_file
    }

    /// The transforms, in order.
    pub fn transforms(&self) -> &[Transform] {
        &self.transforms
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.transforms.is_empty()
    }

    /// What reading skipped.
    pub fn messages(&self) -> &[String] {
        &self.messages
    }

    /// Applies the transforms to a job as the schedd does at submit time:
    /// in order, each one whose requirements hold for the job as the
    /// earlier ones left it, with one set of variables for the whole job
    /// (a variable set by one transform is seen by the next). `TRANSFORM`
    /// iteration is ignored, as the schedd ignores it.
    pub fn transform_job(&self, job: &mut ClassAd, config: Option<&Config>) -> Result<Applied, TransformError> {
        let mut vars = Macros::new();
        self.apply_all(job, &mut vars, config)
    }

    fn apply_all(
        &self,
        ad: &mut ClassAd,
        vars: &mut Macros,
        config: Option<&Config>,
    ) -> Result<Applied, TransformError> {
        let mut applied = Applied::default();
        for t in &self.transforms {
            if !t.matches(ad) {
                continue;
            }
            applied.messages.extend(t.apply(ad, vars, config)?);
            applied.names.push(t.name().to_string());
        }
        Ok(applied)
    }

    /// Transforms one ad as `condor_transform_ads` does: like
    /// [`transform_job`](Self::transform_job), with `args` (`key=value`
    /// arguments) set first, and when the last transform has a
    /// `TRANSFORM` iteration, once per iteration step on a copy of `ad`
    /// (an iteration in another transform is an error, as in
    /// `condor_transform_ads`). Returns the ads made, each with what
    /// applying did.
    ///
    /// ```
    /// use matchmaker::schedd::{JobTransforms, Macros, Transform};
    /// let mut ts = JobTransforms::new();
    /// ts.push(Transform::parse("q", "SET Queue \"$(Item)\"\nTRANSFORM in (short, long)\n", "q.xform")?);
    /// let out = ts.transform_ads(&"[ Owner = \"a\" ]".parse()?, &Macros::new(), None)?;
    /// let queues: Vec<String> = out.iter().map(|(ad, _)| ad.eval_attr("Queue").to_string()).collect();
    /// assert_eq!(queues, ["\"short\"", "\"long\""]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn transform_ads(
        &self,
        ad: &ClassAd,
        args: &Macros,
        config: Option<&Config>,
    ) -> Result<Vec<(ClassAd, Applied)>, TransformError> {
        let n = self.transforms.len();
        // A rules file's TRANSFORM must be the last; a configuration's
        // before the last is ignored, as condor_transform_ads ignores it.
        let early = self.transforms.iter().take(n.saturating_sub(1));
        if let Some(t) = early.filter(|t| !t.is_from_config()).find(|t| t.iteration().is_some()) {
            let line = t.iteration().map_or(0, |i| i.line);
            return Err(TransformError::syntax(
                t.source(),
                line,
                "an iterating transform (TRANSFORM with items or a count) must be the last one",
            ));
        }
        let last = self.transforms.last();
        let Some(iteration) = last.and_then(Transform::iteration) else {
            let mut out = ad.clone();
            let mut vars = args.clone();
            let applied = self.apply_all(&mut out, &mut vars, config)?;
            return Ok(vec![(out, applied)]);
        };
        let last = last.map_or("", |t| t.source());
        let empty = ClassAd::new();
        let expanded = Expander { vars: args, ad: &empty, config }
            .expand(iteration.args())
            .map_err(|m| TransformError::expansion(last, iteration.line, m))?;
        let read_file = |f: &str| {
            let path = match &self.directory {
                Some(dir) => dir.join(f),
                None => std::path::PathBuf::from(f),
            };
            classad::bounded_file::read_to_string(&path).map_err(|e| format!("can't open file {e}"))
        };
        let plan = iteration
            .plan(&expanded, &read_file, self.directory.as_deref(), self.max_ads)
            .map_err(|m| TransformError::syntax(last, iteration.line, m))?;
        let items: Vec<Option<&str>> = match &plan.items {
            Some(items) => items.iter().map(|s| Some(s.as_str())).collect(),
            None => vec![None],
        };
        let mut out = Vec::new();
        let mut proc = 0u64;
        for (row, item) in items.iter().enumerate() {
            let mut vars = args.clone();
            vars.set("Iterating", "1");
            vars.set("Row", &row.to_string());
            vars.set("ItemIndex", &row.to_string());
            vars.set("RulesFile", last);
            if let Some(item) = item {
                for (k, v) in plan.assign(item) {
                    vars.set(&k, &v);
                }
            }
            for step in 0..plan.count {
                vars.set("Step", &step.to_string());
                vars.set("XFormId", &proc.to_string());
                proc += 1;
                let mut ad = ad.clone();
                let applied = self.apply_all(&mut ad, &mut vars, config)?;
                out.push((ad, applied));
            }
        }
        Ok(out)
    }
}
