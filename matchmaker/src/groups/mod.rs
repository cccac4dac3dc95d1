//! Accounting groups: the tree of configured group names (`GROUP_NAMES`),
//! which group a submitter belongs to ([`tree`]); the quotas the
//! negotiator gives groups each cycle ([`quota`], configured by
//! [`GroupQuotaConfig`]); and what a cycle reports of each group
//! ([`report`]).
//!
//! The tree is rooted at `<none>`; a dotted name (`group_physics.hep`) is a
//! subgroup of its prefix (`group_physics`), which must be configured too.
//! A submitter `group_physics.hep.alice@site` belongs to the deepest
//! configured group along `group_physics.hep`; a submitter with no dot
//! before its `@` belongs to `<none>`. Names compare case-insensitively.
//!
//! ```
//! use matchmaker::groups::GroupTree;
//!
//! let tree = GroupTree::new(["group_physics", "group_physics.hep", "group_chem"]);
//! let hep = tree.assigned_group("group_physics.hep.alice@site");
//! assert_eq!(tree.name(hep), "group_physics.hep");
//! // An unconfigured subgroup falls back to the deepest configured prefix.
//! assert_eq!(tree.name(tree.assigned_group("group_physics.nuclear.bob@site")), "group_physics");
//! assert_eq!(tree.name(tree.assigned_group("carol@site")), "<none>");
//! // A name without `@` is a group's own record.
//! assert!(GroupTree::is_group_name("group_chem"));
//! ```

mod policy;
pub mod quota;
pub mod report;
mod round_robin;
pub mod tree;

pub use quota::{
    GroupNegotiation, GroupPolicy, GroupQuotaConfig, GroupRound, GroupState, Quotas, RoundReport, RoundRobinTimes,
};
pub use report::{GroupReport, GroupRoundFigures, GroupRoundTotals};
pub use tree::{GroupId, GroupTree, ROOT};
