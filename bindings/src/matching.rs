//! Matching many ads at once (`Pool`) and the why-not analysis
//! (`analyze`): the library's batch matching and analysis, with the GIL
//! released while they run. classad2 has neither.

use std::sync::{PoisonError, RwLock};

use classad::analysis::{self, Analysis};
use classad::ClassAd;
use matchmaker::matching;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;

use crate::errors::checked;
use crate::objects::{PyClassAd, PyExprTree};
use crate::repr::Repr;
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
/// are copied and prepared when the pool is made, and one at a time when
/// one is replaced (`pool[i] = ad`) or added (`append`); the GIL is
/// released while matching.
#[pyclass(name = "Pool", module = "classad_rs", frozen)]
pub(crate) struct PyPool {
    /// The ads, each one's `Requirements` and `Rank` prepared, and the
    /// attribute columns requests build, reused by every request. The
    /// lock is only ever taken with the GIL released, so a thread waiting
    /// for it never holds the GIL another one needs to let it go.
    pool: RwLock<matching::Pool>,
}

impl PyPool {
    /// Runs `f` on the pool, read-locked, with the GIL released.
    fn read<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&matching::Pool) -> R + Send) -> R {
        py.detach(|| f(&self.pool.read().unwrap_or_else(PoisonError::into_inner)))
    }

    /// Runs `f` on the pool, write-locked, with the GIL released.
    fn write<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut matching::Pool) -> R + Send) -> R {
        py.detach(|| f(&mut self.pool.write().unwrap_or_else(PoisonError::into_inner)))
    }
}

/// `index` (negative from the end) as a position among `len` ads.
fn position(index: isize, len: usize) -> PyResult<usize> {
    let len = isize::try_from(len).unwrap_or(isize::MAX);
    let index = if index < 0 { index + len } else { index };
    if !(0..len).contains(&index) {
        return Err(PyIndexError::new_err("Pool index out of range"));
    }
    Ok(index as usize)
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
        Repr::new("Match")
            .field("index", &self.index)
            .field("rank", &self.rank)
            .field("ad_rank", &self.ad_rank)
            .finish()
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
        Ok(PyPool { pool: RwLock::new(checked(pool)?) })
    }

    /// The ads that match `request` both ways, in pool order, with both
    /// ranks; the ads whose index is in `skip` (any iterable of ints,
    /// negative ones from the end: slots taken already, say) are left out
    /// without being evaluated.
    #[pyo3(signature = (request, skip=None))]
    fn matches(
        &self,
        py: Python<'_>,
        request: PyRef<'_, PyClassAd>,
        skip: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<PyMatch>> {
        let skipped = match skip {
            None => None,
            Some(skip) => {
                let len = self.read(py, |pool| pool.len());
                let mut skipped = vec![false; len];
                for index in skip.try_iter()? {
                    // Negative from the end, as for `pool[i]`; indices
                    // outside the pool skip nothing.
                    if let Ok(at) = position(index?.extract::<isize>()?, len) {
                        skipped[at] = true;
                    }
                }
                Some(skipped)
            }
        };
        let request = &request.ad;
        let found = self.read(py, |pool| {
            let keep = |i: usize| !skipped.as_ref().is_some_and(|s| s.get(i).copied().unwrap_or(false));
            if pool.len() >= PARALLEL_FROM {
                pool.par_matches_filtered(request, keep)
            } else {
                let mut found = Vec::new();
                pool.matches_into_filtered(request, keep, &mut found);
                found
            }
        });
        let found = checked(found)?;
        Ok(found.into_iter().map(|m| PyMatch { index: m.index, rank: m.left_rank, ad_rank: m.right_rank }).collect())
    }

    /// How many ads match `request` both ways.
    fn count(&self, py: Python<'_>, request: PyRef<'_, PyClassAd>) -> PyResult<usize> {
        let request = &request.ad;
        checked(self.read(py, |pool| pool.count(request)))
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.read(py, |pool| pool.len())
    }

    /// The ad at `index` (a copy).
    fn __getitem__(&self, py: Python<'_>, index: isize) -> PyResult<PyClassAd> {
        let ad = self.read(py, |pool| position(index, pool.len()).map(|i| ClassAd::clone(&pool.ads()[i])))?;
        Ok(PyClassAd { ad })
    }

    /// Replaces the ad at `index` with (a copy of) `ad`: only that ad is
    /// prepared again, and its place in the columns updated.
    fn __setitem__(&self, py: Python<'_>, index: isize, ad: PyRef<'_, PyClassAd>) -> PyResult<()> {
        let ad = ad.ad.clone();
        let replaced = self.write(py, |pool| {
            let at = position(index, pool.len())?;
            pool.replace(at, ad);
            Ok(())
        });
        checked(replaced)?
    }

    /// Adds (a copy of) `ad` after the others, prepared.
    fn append(&self, py: Python<'_>, ad: PyRef<'_, PyClassAd>) -> PyResult<()> {
        let ad = ad.ad.clone();
        self.write(py, |pool| pool.push(ad));
        checked(())
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
        Repr::new("Analysis")
            .field("machines", &self.machines)
            .field("rejected_by_job", &self.rejected_by_job)
            .field("rejected_by_machine", &self.rejected_by_machine)
            .field("matching", &self.matching)
            .finish()
    }
}
