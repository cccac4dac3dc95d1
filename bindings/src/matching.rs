//! Matching many ads at once (`Pool`) and the why-not analysis
//! (`analyze`): the library's batch matching and analysis, with the GIL
//! released while they run. classad2 has neither.

use classad::ClassAd;
use matchmaker::analysis::{self, Analysis};
use matchmaker::matching;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;

use crate::ad::PyClassAd;
use crate::expr_tree::PyExprTree;
use crate::functions::checked;
use crate::semantics::{options, SemanticsArg};

/// Pools at least this large are matched on all cores.
const PARALLEL_FROM: usize = 2048;

/// The ads of a Python sequence of `ClassAd`s, copied.
fn ads_of(ads: &Bound<'_, PyAny>) -> PyResult<Vec<ClassAd>> {
    ads.try_iter()?.map(|ad| Ok(ad?.cast::<PyClassAd>()?.borrow().ad.clone())).collect()
}

/// A set of ads (the machines) to match requests (jobs) against, as a
/// negotiator does: each request's `Requirements` against every ad's
/// attributes, and each ad's `Requirements` against the request. The ads
/// are copied and prepared when the pool is made; the GIL is released
/// while matching.
#[pyclass(name = "Pool", module = "classad_rs", frozen)]
pub(crate) struct PyPool {
    /// The ads, each one's `Requirements` and `Rank` prepared, and the
    /// attribute columns requests build, reused by every request.
    pool: matching::Pool,
}

/// An ad of a `Pool` that matches a request.
#[pyclass(name = "Match", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyMatch {
    /// The ad's position in the pool.
    index: usize,
    /// The request's `Rank` of the ad (UNDEFINED, ERROR and non-numbers
    /// count as 0.0).
    rank: f64,
    /// The ad's `Rank` of the request.
    ad_rank: f64,
}

#[pymethods]
impl PyMatch {
    fn __repr__(&self) -> String {
        format!("Match(index={}, rank={}, ad_rank={})", self.index, self.rank, self.ad_rank)
    }
}

#[pymethods]
impl PyPool {
    /// A pool of `ads` (any iterable of `ClassAd`), evaluated in
    /// `semantics` (old by default).
    #[new]
    #[pyo3(signature = (ads, semantics=None))]
    fn new(py: Python<'_>, ads: &Bound<'_, PyAny>, semantics: Option<SemanticsArg>) -> PyResult<PyPool> {
        let (ads, options) = (ads_of(ads)?, options(semantics));
        let pool = py.detach(|| matching::Pool::new(options, ads));
        Ok(PyPool { pool: checked(pool)? })
    }

    /// The ads that match `request` both ways, in pool order, with both
    /// ranks.
    fn matches(&self, py: Python<'_>, request: PyRef<'_, PyClassAd>) -> PyResult<Vec<PyMatch>> {
        let request = &request.ad;
        let pool = &self.pool;
        let found =
            py.detach(|| if pool.len() >= PARALLEL_FROM { pool.par_matches(request) } else { pool.matches(request) });
        let found = checked(found)?;
        Ok(found.into_iter().map(|m| PyMatch { index: m.index, rank: m.left_rank, ad_rank: m.right_rank }).collect())
    }

    /// How many ads match `request` both ways.
    fn count(&self, py: Python<'_>, request: PyRef<'_, PyClassAd>) -> PyResult<usize> {
        let request = &request.ad;
        let pool = &self.pool;
        checked(py.detach(|| pool.count(request)))
    }

    fn __len__(&self) -> usize {
        self.pool.len()
    }

    /// The ad at `index` (a copy).
    fn __getitem__(&self, index: isize) -> PyResult<PyClassAd> {
        let ads = self.pool.ads();
        let len = ads.len() as isize;
        let index = if index < 0 { index + len } else { index };
        if !(0..len).contains(&index) {
            return Err(PyIndexError::new_err("Pool index out of range"));
        }
        Ok(PyClassAd { ad: ClassAd::clone(&ads[index as usize]) })
    }
}

/// Why `job` matches so few of `machines` (`condor_q -analyze`): see
/// `Analysis`. The GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (job, machines, semantics=None))]
pub(crate) fn analyze(
    py: Python<'_>,
    job: PyRef<'_, PyClassAd>,
    machines: &Bound<'_, PyAny>,
    semantics: Option<SemanticsArg>,
) -> PyResult<PyAnalysis> {
    let machines = ads_of(machines)?;
    let options = options(semantics);
    let job = job.ad.clone();
    let report = checked(py.detach(|| analysis::analyze(&options, &job, &machines)))?;
    let text = report.report(&job);
    Ok(PyAnalysis::new(report, text))
}

/// What `analyze` found. `str()` gives the report as `condor_q -analyze`
/// lays it out.
#[pyclass(name = "Analysis", module = "classad_rs", frozen, get_all)]
pub(crate) struct PyAnalysis {
    /// The machine ads considered (those with `MyType == "Machine"`, or
    /// all when none has a `MyType`).
    machines: usize,
    /// Machines the job's `Requirements` rejects.
    rejected_by_job: usize,
    /// Machines the job accepts whose own `Requirements` rejects it.
    rejected_by_machine: usize,
    /// Machines that match both ways.
    matching: usize,
    /// The conditions of the job's `Requirements`, most restrictive first:
    /// `(expression, flattened with the job's attributes, machines that
    /// satisfy it)`.
    conditions: Vec<(PyExprTree, PyExprTree, usize)>,
    /// Attributes the job lacks though it or the machines refer to them:
    /// `(name, referred to by the job's Requirements, by how many
    /// machines' Requirements)`.
    missing_from_job: Vec<(String, bool, usize)>,
    /// Changes that would let more machines match, the best first:
    /// `(condition, replacement or None to remove it, more matches)`.
    suggestions: Vec<(PyExprTree, Option<PyExprTree>, usize)>,
    /// The report as `condor_q -analyze` lays it out (also `str()`).
    report: String,
}

impl PyAnalysis {
    fn new(analysis: Analysis, report: String) -> PyAnalysis {
        let tree = |expr| PyExprTree { expr };
        PyAnalysis {
            machines: analysis.machines,
            rejected_by_job: analysis.rejected_by_job,
            rejected_by_machine: analysis.rejected_by_machine,
            matching: analysis.matching,
            conditions: analysis
                .conditions
                .into_iter()
                .map(|c| (tree(c.expr), tree(c.flattened), c.satisfied))
                .collect(),
            missing_from_job: analysis
                .missing_from_job
                .into_iter()
                .map(|m| (m.name, m.by_job, m.by_machines))
                .collect(),
            suggestions: analysis
                .suggestions
                .into_iter()
                .map(|s| (tree(s.condition), s.replacement.map(tree), s.more_matches))
                .collect(),
            report,
        }
    }
}

#[pymethods]
impl PyAnalysis {
    fn __str__(&self) -> String {
        self.report.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Analysis(machines={}, rejected_by_job={}, rejected_by_machine={}, matching={})",
            self.machines, self.rejected_by_job, self.rejected_by_machine, self.matching
        )
    }
}
