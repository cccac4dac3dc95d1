//! What the schedd does to a job at submit time: its job transforms
//! (`JOB_TRANSFORM_NAMES`) and its submit requirements
//! (`SUBMIT_REQUIREMENT_NAMES`), and `condor_transform_ads`' rules.
//!
//! - [`Transform`]: one transform in HTCondor's transform language
//!   (`SET`, `DEFAULT`, `EVALSET`, `EVALMACRO`, `COPY`, `RENAME`,
//!   `DELETE` and their `/regex/` forms, `REQUIREMENTS`, `NAME = value`
//!   variables, `$(...)` macros, `if`/`else`, `TRANSFORM` iteration).
//! - [`JobTransforms`]: the ordered transforms of a configuration, also in
//!   the older ClassAd form (`[ set_A = 1; copy_B = "C"; ... ]`), applied
//!   as the schedd applies them ([`JobTransforms::transform_job`]) or as
//!   `condor_transform_ads` does ([`JobTransforms::transform_ads`]).
//! - [`SubmitRequirements`]: which jobs are refused, with what reason,
//!   and which only warned about.
//!
//! ```
//! use matchmaker::config::Config;
//! use matchmaker::schedd::{JobTransforms, SubmitRequirements, Verdict};
//! let config = Config::parse_str(
//!     "JOB_TRANSFORM_NAMES = Default\n\
//!      JOB_TRANSFORM_Default @=end\n\
//!        DEFAULT RequestMemory 2048\n\
//!      @end\n\
//!      SUBMIT_REQUIREMENT_NAMES = Memory\n\
//!      SUBMIT_REQUIREMENT_Memory = RequestMemory <= 4096\n\
//!      SUBMIT_REQUIREMENT_Memory_REASON = \"at most 4 GB\"\n",
//!     "schedd.conf",
//! )?;
//! let (transforms, requirements) = (JobTransforms::from_config(&config), SubmitRequirements::from_config(&config));
//! let mut job: classad::ClassAd = r#"[ Owner = "alice" ]"#.parse()?;
//! transforms.transform_job(&mut job, Some(&config))?;
//! assert_eq!(requirements.check(&job, None), Verdict::Accepted { warnings: vec![] });
//! let mut big: classad::ClassAd = r#"[ Owner = "bob"; RequestMemory = 8192 ]"#.parse()?;
//! transforms.transform_job(&mut big, Some(&config))?;
//! assert!(matches!(requirements.check(&big, None), Verdict::Refused { reason, .. } if reason == "at most 4 GB"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod classad_form;
mod error;
mod filename;
mod glob;
mod iterate;
mod macros;
mod printf;
mod scopes;
mod statements;
mod submit_requirements;
mod transform;
mod transforms;

pub use error::{At, TransformError};
pub use iterate::Iteration;
pub use macros::Macros;
pub use submit_requirements::{SubmitRequirement, SubmitRequirements, Verdict};
pub use transform::Transform;
pub use transforms::{Applied, JobTransforms};
