//! The schedd's job transforms and submit requirements
//! (`matchmaker::schedd`): `JobTransforms` and `SubmitRequirements`, read
//! from HTCondor configuration text or files. classad2 has neither.

use classad::ClassAd;
use matchmaker::config::{Config, Loader};
use matchmaker::schedd::{self, JobTransforms, Macros, SubmitRequirements, Transform, Verdict};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::error;
use crate::objects::PyClassAd;
use crate::repr::{repr, Repr};

/// A configuration from `config` (its text) or `config_file` (a top file,
/// followed as HTCondor follows it), read as tools read it; HTCondor's
/// defaults alone when neither is given.
fn load(config: Option<&str>, config_file: Option<&str>) -> PyResult<Config> {
    let loader = Loader::new().subsystem("TOOL");
    match (config, config_file) {
        (Some(_), Some(_)) => Err(error("give config or config_file, not both".to_string())),
        (Some(text), None) => loader.parse_str(text, "<config>").map_err(|e| error(e.to_string())),
        (None, Some(file)) => loader.load_file(file).map_err(|e| error(e.to_string())),
        (None, None) => Ok(loader.defaults()),
    }
}

fn transform_error(e: &schedd::TransformError) -> PyErr {
    error(e.to_string())
}

/// The job transforms of a configuration, as the schedd applies them at
/// submit time and `condor_transform_ads` applies them to ads.
///
/// `JobTransforms(config=None, config_file=None, names=None)`: the
/// transforms `JOB_TRANSFORM_NAMES` lists, or those of `names` (as
/// `condor_transform_ads -jobtransforms`). `add_rules(text, name)` adds a
/// transform written in the transform language (a rules file's text).
#[pyclass(name = "JobTransforms", module = "classad_rs")]
pub(crate) struct PyJobTransforms {
    transforms: JobTransforms,
    config: Config,
}

#[pymethods]
impl PyJobTransforms {
    #[new]
    #[pyo3(signature = (config=None, config_file=None, names=None))]
    fn new(config: Option<&str>, config_file: Option<&str>, names: Option<&str>) -> PyResult<PyJobTransforms> {
        let config = load(config, config_file)?;
        let transforms = match names {
            Some(names) => {
                let mut t = JobTransforms::new();
                t.add_from_config(&config, names);
                t
            }
            None => JobTransforms::from_config(&config),
        };
        Ok(PyJobTransforms { transforms, config })
    }

    /// Adds a transform from rules text, applied after the others; raises
    /// `ClassAdException` for a line that does not read.
    #[pyo3(signature = (text, name="rules"))]
    fn add_rules(&mut self, text: &str, name: &str) -> PyResult<()> {
        let t = Transform::parse(name, text, name).map_err(|e| transform_error(&e))?;
        t.validate().map_err(|e| transform_error(&e))?;
        self.transforms.push(t);
        Ok(())
    }

    /// The transforms' names, in order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.transforms.transforms().iter().map(|t| t.name().to_string()).collect()
    }

    /// What reading skipped (transforms not defined, empty or malformed).
    #[getter]
    fn messages(&self) -> Vec<String> {
        self.transforms.messages().to_vec()
    }

    /// Transforms a copy of `job` as the schedd does; returns the new ad
    /// and the names of the transforms that applied.
    fn transform_job(&self, py: Python<'_>, job: PyRef<'_, PyClassAd>) -> PyResult<(PyClassAd, Vec<String>)> {
        let mut ad = job.ad.clone();
        let applied = py
            .detach(|| self.transforms.transform_job(&mut ad, Some(&self.config)))
            .map_err(|e| transform_error(&e))?;
        Ok((PyClassAd { ad }, applied.names))
    }

    /// Transforms `ad` as `condor_transform_ads` does, with `args`
    /// (`{"KEY": "value"}`) set first; a `TRANSFORM` iteration makes
    /// several ads.
    #[pyo3(signature = (ad, args=None))]
    fn transform_ads(
        &self,
        py: Python<'_>,
        ad: PyRef<'_, PyClassAd>,
        args: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Vec<PyClassAd>> {
        let mut vars = Macros::new();
        if let Some(args) = args {
            for (k, v) in args.iter() {
                vars.set(&k.str()?.to_cow()?, &v.str()?.to_cow()?);
            }
        }
        let input: ClassAd = ad.ad.clone();
        let made = py
            .detach(|| self.transforms.transform_ads(&input, &vars, Some(&self.config)))
            .map_err(|e| transform_error(&e))?;
        Ok(made.into_iter().map(|(ad, _)| PyClassAd { ad }).collect())
    }

    fn __len__(&self) -> usize {
        self.transforms.transforms().len()
    }

    fn __repr__(&self) -> String {
        Repr::new("JobTransforms").text(&repr(&self.names())).finish()
    }
}

/// The submit requirements of a configuration (`SUBMIT_REQUIREMENT_NAMES`).
///
/// `check(job, schedd=None)` gives a `SubmitVerdict`: whether the job is
/// accepted, the refusing requirement's name and reason, and the warnings.
#[pyclass(name = "SubmitRequirements", module = "classad_rs", frozen)]
pub(crate) struct PySubmitRequirements {
    requirements: SubmitRequirements,
}

/// What the submit requirements say of a job.
#[pyclass(name = "SubmitVerdict", module = "classad_rs", frozen, get_all)]
pub(crate) struct PySubmitVerdict {
    /// Whether the schedd accepts the job.
    accepted: bool,
    /// The requirement that refused it, if one did.
    name: Option<String>,
    /// The reason given for the refusal, if refused.
    reason: Option<String>,
    /// The warnings of warning-only requirements the job does not meet.
    warnings: Vec<String>,
}

#[pymethods]
impl PySubmitVerdict {
    fn __bool__(&self) -> bool {
        self.accepted
    }

    fn __repr__(&self) -> String {
        Repr::new("SubmitVerdict")
            .field("accepted", &self.accepted)
            .field("name", &self.name)
            .field("reason", &self.reason)
            .field("warnings", &self.warnings)
            .finish()
    }
}

#[pymethods]
impl PySubmitRequirements {
    #[new]
    #[pyo3(signature = (config=None, config_file=None))]
    fn new(config: Option<&str>, config_file: Option<&str>) -> PyResult<PySubmitRequirements> {
        let config = load(config, config_file)?;
        Ok(PySubmitRequirements { requirements: SubmitRequirements::from_config(&config) })
    }

    /// The requirements' names, in order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.requirements.requirements().iter().map(|r| r.name.clone()).collect()
    }

    /// What reading skipped.
    #[getter]
    fn messages(&self) -> Vec<String> {
        self.requirements.messages().to_vec()
    }

    /// Checks `job` (after the transforms), with `schedd` as the schedd's
    /// ad.
    #[pyo3(signature = (job, schedd=None))]
    fn check(&self, job: PyRef<'_, PyClassAd>, schedd: Option<PyRef<'_, PyClassAd>>) -> PySubmitVerdict {
        let verdict = self.requirements.check(&job.ad, schedd.as_ref().map(|s| &s.ad));
        match verdict {
            Verdict::Accepted { warnings } => PySubmitVerdict { accepted: true, name: None, reason: None, warnings },
            Verdict::Refused { name, reason, warnings } => {
                PySubmitVerdict { accepted: false, name: Some(name), reason: Some(reason), warnings }
            }
        }
    }
}
