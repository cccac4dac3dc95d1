//! A pool snapshot: what a negotiation cycle needs, read from the files
//! HTCondor's tools write.
//!
//! * slots: `condor_status -long` (or `-json`, `-xml`) output;
//! * jobs: `condor_q -allusers -long` (or `-json`) output;
//! * configuration: HTCondor configuration files (`condor_config_val
//!   -dump` output reads as one);
//! * priorities: the accountant's log (`Accountantnew.log`) or
//!   `condor_userprio -allusers -long` output;
//! * optionally submitters: `condor_status -submitters -long` output, for
//!   the negotiator's last tie-break among equal priorities
//!   (`LastHeardFrom % 1009`).
//!
//! Ad files may be gzipped. Errors name the file, the ad and the line.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use classad::format::{self, Reader};
use classad::ClassAd;

use crate::accountant::{Accountant, AccountantConfig, AccountantError};
use crate::autocluster::{self, SubmitterQueue};
use crate::classad_log::LoadReport;
use crate::config::{Config, ConfigError, Loader};
use crate::negotiator::Negotiator;

/// Why a snapshot could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// A file could not be opened or decoded.
    #[error("{path}: {source}")]
    Input {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: format::InputError,
    },
    /// An ad file has an error.
    #[error("{path}: {source}")]
    Ad {
        /// The file.
        path: PathBuf,
        /// Where and what.
        source: format::FormatError,
    },
    /// The configuration is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A file is over the process's
    /// [`FileLimits`](classad::bounded_file::FileLimits), or not UTF-8.
    #[error(transparent)]
    File(classad::bounded_file::FileError),
    /// The priorities could not be read.
    #[error("{path}: {source}")]
    Accountant {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: AccountantError,
    },
    /// The file given as the accountant's log is missing, or is not a log.
    #[error("{}: {why}", path.display())]
    NotALog {
        /// The file.
        path: PathBuf,
        /// Why it is not used.
        why: String,
    },
    /// A `condor_userprio -l` file does not hold one ad.
    #[error("{path}: expected the one ad condor_userprio -allusers -long prints, found {found}")]
    Userprio {
        /// The file.
        path: PathBuf,
        /// How many ads it holds.
        found: usize,
    },
}

/// Reads every ad of a file (any of HTCondor's formats, gzipped or not).
pub fn read_ads(path: &Path) -> Result<Vec<ClassAd>, SnapshotError> {
    let input = format::open(path).map_err(|source| SnapshotError::Input { path: path.to_path_buf(), source })?;
    read_ads_from(input, path)
}

/// Reads every ad of `input`, as [`read_ads`] reads a file's (any of
/// HTCondor's formats, gzipped or not); `path` names the input in errors.
pub fn read_ads_from(input: impl BufRead, path: &Path) -> Result<Vec<ClassAd>, SnapshotError> {
    let input = format::decode(input).map_err(|source| SnapshotError::Input { path: path.to_path_buf(), source })?;
    Reader::new(input, None)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|source| SnapshotError::Ad { path: path.to_path_buf(), source })
}

/// Where a snapshot's priorities come from.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Priorities {
    /// Nobody has a history: every submitter starts at the lowest priority.
    Fresh,
    /// An accountant log.
    Log(PathBuf),
    /// `condor_userprio -allusers -long` output.
    Userprio(PathBuf),
}

/// What a cycle needs, read from files.
#[derive(Debug)]
pub struct Snapshot {
    /// The slot ads.
    pub slots: Vec<ClassAd>,
    /// The job ads.
    pub jobs: Vec<ClassAd>,
    /// The submitter ads (may be empty).
    pub submitters: Vec<ClassAd>,
    /// The configuration.
    pub config: Config,
    /// The accountant.
    pub accountant: Accountant,
    /// The time the priorities were last updated (the cycle's `now`
    /// unless the caller says otherwise).
    pub last_update: i64,
    /// What was recovered from while reading, each naming its file (a
    /// torn accountant log, duplicate slot or job ads): worth showing.
    pub warnings: Vec<String>,
}

impl Snapshot {
    /// Reads a snapshot; `config` `None` is HTCondor's defaults.
    pub fn read(
        slots: &Path,
        jobs: &Path,
        config: Option<&Path>,
        priorities: &Priorities,
        submitters: Option<&Path>,
    ) -> Result<Snapshot, SnapshotError> {
        let config = match config {
            Some(path) => Loader::new().subsystem("NEGOTIATOR").load_file(path)?,
            None => Loader::new().subsystem("NEGOTIATOR").defaults(),
        };
        let accountant_config = AccountantConfig::from_config(&config)?;
        let mut warnings = Vec::new();
        let accountant = match priorities {
            Priorities::Fresh => Accountant::new(accountant_config),
            Priorities::Log(path) => {
                let (accountant, report) = read_accountant_log(accountant_config, path)?;
                warnings.extend(report.warnings);
                accountant
            }
            Priorities::Userprio(path) => {
                let ads = read_ads(path)?;
                let [ad] = ads.as_slice() else {
                    return Err(SnapshotError::Userprio { path: path.clone(), found: ads.len() });
                };
                Accountant::from_userprio_ad(accountant_config, ad)
                    .map_err(|source| SnapshotError::Accountant { path: path.clone(), source })?
            }
        };
        let slots = latest_ads(read_ads(slots)?, slots, &SLOT_KEY, &mut warnings);
        let jobs = latest_ads(read_ads(jobs)?, jobs, &JOB_KEY, &mut warnings);
        Ok(Snapshot {
            slots,
            jobs,
            submitters: match submitters {
                Some(path) => read_ads(path)?,
                None => Vec::new(),
            },
            last_update: accountant.last_update(),
            config,
            accountant,
            warnings,
        })
    }

    /// The submitters' resource requests, grouped as the schedd groups
    /// them for `negotiator`, with the tie-breaks of the submitter ads.
    pub fn queues(&self, negotiator: &Negotiator) -> Vec<SubmitterQueue> {
        queues(&self.slots, &self.jobs, &self.submitters, negotiator)
    }
}

/// Reads the accountant's log given for a snapshot, refusing what would
/// silently be empty priorities: a missing file, or a file that is not a
/// log (its first line is not a record). A torn tail is read up to the tear,
/// with a warning in the report.
pub fn read_accountant_log(config: AccountantConfig, path: &Path) -> Result<(Accountant, LoadReport), SnapshotError> {
    if !path.exists() {
        return Err(SnapshotError::NotALog {
            path: path.to_path_buf(),
            why: "no such file (leave the accountant's log out to start every submitter afresh)".into(),
        });
    }
    let (accountant, report) = Accountant::load(config, path)
        .map_err(|source| SnapshotError::Accountant { path: path.to_path_buf(), source })?;
    if let Some(reason) = &report.not_a_log {
        return Err(SnapshotError::NotALog {
            path: path.to_path_buf(),
            why: format!(
                "line 1: not an accountant log (expected a record such as `107 <sequence> CreationTimestamp \
                 <epoch>` or `105`): {reason}"
            ),
        });
    }
    Ok((accountant, report))
}

/// What makes two ads of a file the same ad: the collector keeps one slot
/// ad per `Name` and address, the schedd one job per `GlobalJobId`.
struct AdKey {
    /// The attributes, all of which must be strings for the ad to have a key.
    attributes: &'static [&'static str],
    /// What the ads are, for the warning.
    what: &'static str,
}

const SLOT_KEY: AdKey = AdKey { attributes: &["Name", "MyAddress"], what: "slot" };
const JOB_KEY: AdKey = AdKey { attributes: &["GlobalJobId"], what: "job" };

/// `ads` with one ad per key, as the collector or schedd would hold them
/// (a snapshot concatenated twice, an ad captured twice): the later ad
/// replaces the earlier in its place. Ads without a key are all kept. A
/// warning names the file and how many were dropped.
fn latest_ads(ads: Vec<ClassAd>, path: &Path, key: &AdKey, warnings: &mut Vec<String>) -> Vec<ClassAd> {
    let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
    let key_of = |ad: &ClassAd| -> Option<Vec<String>> {
        let ctx = classad::EvalContext::new(&opts).my(ad);
        key.attributes
            .iter()
            .map(|name| match ctx.eval_attr(*name) {
                classad::Value::Str(s) => Some(s.as_str().to_string()),
                _ => None,
            })
            .collect()
    };
    let mut first_at: std::collections::HashMap<Vec<String>, usize> = std::collections::HashMap::new();
    let mut kept: Vec<ClassAd> = Vec::with_capacity(ads.len());
    let mut dropped = 0usize;
    let mut example = None;
    for ad in ads {
        match key_of(&ad) {
            Some(k) => match first_at.get(&k) {
                Some(&at) => {
                    kept[at] = ad;
                    dropped += 1;
                    example.get_or_insert(k);
                }
                None => {
                    first_at.insert(k, kept.len());
                    kept.push(ad);
                }
            },
            None => kept.push(ad),
        }
    }
    if let Some(example) = example {
        warnings.push(format!(
            "{}: {dropped} {} ads repeat an earlier ad's {} (the first: {}); the later ad of each is used, in the \
             earlier's place",
            path.display(),
            key.what,
            key.attributes.join(" and "),
            example.join(", ")
        ));
    }
    kept
}

/// The submitters' resource requests of `jobs`, grouped into autoclusters
/// as the schedd groups them for `negotiator` (on the attributes `slots`
/// and its expressions reference), with the tie-breaks of the submitter
/// ads (`LastHeardFrom`; `submitters` may be empty). The jobs may be ads
/// or references to ads.
///
/// ```
/// use classad::ClassAd;
/// use matchmaker::negotiator::Negotiator;
/// let job = |id: i64, cpus: i64| -> ClassAd {
///     format!(r#"[ User = "amy@site"; ClusterId = 1; ProcId = {id}; JobStatus = 1; RequestCpus = {cpus} ]"#)
///         .parse()
///         .expect("parses")
/// };
/// let jobs = [job(0, 1), job(1, 1), job(2, 4)];
/// let borrowed: Vec<&ClassAd> = jobs.iter().collect();
/// let queues = matchmaker::snapshot::queues(&[], &borrowed, &[], &Negotiator::new());
/// assert_eq!(queues.len(), 1);
/// assert_eq!(queues[0].name, "amy@site");
/// assert_eq!(queues[0].requests.iter().map(|r| r.count).collect::<Vec<_>>(), [2, 1]);
/// ```
pub fn queues<J: std::borrow::Borrow<ClassAd>>(
    slots: &[ClassAd],
    jobs: &[J],
    submitters: &[ClassAd],
    negotiator: &Negotiator,
) -> Vec<SubmitterQueue> {
    let significant = autocluster::significant_attributes(slots, &negotiator.expressions());
    let mut queues = autocluster::queues(jobs, &significant);
    let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
    for ad in submitters {
        let ctx = classad::EvalContext::new(&opts).my(ad);
        let (classad::Value::Str(name), classad::Value::Int(heard)) =
            (ctx.eval_attr("Name"), ctx.eval_attr("LastHeardFrom"))
        else {
            continue;
        };
        if let Some(q) = queues.iter_mut().find(|q| q.name == name.as_str()) {
            q.tie_break = heard % 1009;
        }
    }
    queues
}
