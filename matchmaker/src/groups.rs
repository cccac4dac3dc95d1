//! Accounting groups: the tree of configured group names (`GROUP_NAMES`)
//! and which group a submitter belongs to.
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

use rustc_hash::FxHashMap;

/// The name of the root group.
pub const ROOT: &str = "<none>";

/// Index of a group in a [`GroupTree`]; the root is `GroupId(0)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupId(pub usize);

#[derive(Debug, Clone)]
struct Group {
    name: String,
    parent: Option<GroupId>,
    /// Children by lower-cased last name component.
    children: FxHashMap<String, GroupId>,
}

/// The configured accounting groups.
#[derive(Debug, Clone)]
pub struct GroupTree {
    groups: Vec<Group>,
    by_name: FxHashMap<String, GroupId>,
    /// Names that were ignored, with the reason (missing parent, duplicate,
    /// the reserved root name).
    ignored: Vec<(String, String)>,
}

impl Default for GroupTree {
    fn default() -> Self {
        Self::new(std::iter::empty::<&str>())
    }
}

impl GroupTree {
    /// Builds the tree from configured names (`GROUP_NAMES`, split on commas
    /// and blanks by the caller). Parents come before children whatever the
    /// order given: names are sorted case-insensitively first, as HTCondor
    /// does. A name whose parent is not configured is ignored, as are
    /// duplicates and `<none>`; [`GroupTree::ignored`] lists them.
    pub fn new<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Self {
        let mut tree = GroupTree {
            groups: vec![Group { name: ROOT.to_string(), parent: None, children: FxHashMap::default() }],
            by_name: FxHashMap::default(),
            ignored: Vec::new(),
        };
        tree.by_name.insert(ROOT.to_lowercase(), GroupId(0));
        let mut names: Vec<String> =
            names.into_iter().map(|n| n.as_ref().trim().to_string()).filter(|n| !n.is_empty()).collect();
        names.sort_by_key(|n| n.to_lowercase());
        for name in names {
            if name == ROOT {
                tree.ignored.push((name, "reserved for the root group".into()));
                continue;
            }
            let parts: Vec<&str> = name.split('.').collect();
            let mut at = GroupId(0);
            let mut missing = None;
            for part in &parts[..parts.len() - 1] {
                match tree.groups[at.0].children.get(&part.to_lowercase()) {
                    Some(&child) => at = child,
                    None => {
                        missing = Some(part.to_string());
                        break;
                    }
                }
            }
            if let Some(part) = missing {
                tree.ignored.push((name, format!("its parent `{part}` is not configured")));
                continue;
            }
            let last = parts[parts.len() - 1].to_lowercase();
            if tree.groups[at.0].children.contains_key(&last) {
                tree.ignored.push((name, "duplicate".into()));
                continue;
            }
            let id = GroupId(tree.groups.len());
            tree.groups[at.0].children.insert(last, id);
            tree.by_name.insert(name.to_lowercase(), id);
            tree.groups.push(Group { name, parent: Some(at), children: FxHashMap::default() });
        }
        tree
    }

    /// The root group, `<none>`.
    pub fn root(&self) -> GroupId {
        GroupId(0)
    }

    /// How many groups there are, the root included.
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    /// Whether only the root exists (no groups configured).
    pub fn is_empty(&self) -> bool {
        self.groups.len() == 1
    }

    /// Every group, parents before children (the root first).
    pub fn ids(&self) -> impl Iterator<Item = GroupId> {
        (0..self.groups.len()).map(GroupId)
    }

    /// A group's full (dotted) name as configured.
    pub fn name(&self, id: GroupId) -> &str {
        &self.groups[id.0].name
    }

    /// A group's parent (`None` for the root).
    pub fn parent(&self, id: GroupId) -> Option<GroupId> {
        self.groups[id.0].parent
    }

    /// The group configured under `name` (any case).
    pub fn find(&self, name: &str) -> Option<GroupId> {
        self.by_name.get(&name.to_lowercase()).copied()
    }

    /// Names that were not made groups, with the reason.
    pub fn ignored(&self) -> &[(String, String)] {
        &self.ignored
    }

    /// Whether an accountant record name is a group's (it has no `@`).
    pub fn is_group_name(name: &str) -> bool {
        !name.contains('@')
    }

    /// The group a submitter (or group record) name belongs to.
    ///
    /// A group record name (no `@`) that is configured is its own group; any
    /// other name without `@` maps to the root. For `a.b.user@site`, the
    /// deepest configured group along `a.b` is taken.
    pub fn assigned_group(&self, name: &str) -> GroupId {
        let Some(at) = name.rfind('@') else {
            return self.find(name).unwrap_or(GroupId(0));
        };
        let user_part = &name[..at];
        let Some(dot) = user_part.rfind('.') else {
            return GroupId(0);
        };
        let mut group = GroupId(0);
        for part in user_part[..dot].split('.') {
            match self.groups[group.0].children.get(&part.to_lowercase()) {
                Some(&child) => group = child,
                None => break,
            }
        }
        group
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_ignores_orphans_and_duplicates() {
        let tree = GroupTree::new(["b.c", "A", "a", "b", "x.y", "<none>"]);
        assert_eq!(tree.len(), 4); // root, A, b, b.c
        assert_eq!(tree.ignored().len(), 3);
        let bc = tree.find("B.C").expect("b.c configured");
        assert_eq!(tree.name(tree.parent(bc).expect("has a parent")), "b");
    }

    #[test]
    fn assignment_is_case_insensitive_and_deepest() {
        let tree = GroupTree::new(["g", "g.h"]);
        assert_eq!(tree.name(tree.assigned_group("G.H.u@d")), "g.h");
        assert_eq!(tree.name(tree.assigned_group("g.h.i.u@d")), "g.h");
        assert_eq!(tree.name(tree.assigned_group("other.u@d")), ROOT);
        assert_eq!(tree.name(tree.assigned_group("g.h")), "g.h");
        assert_eq!(tree.name(tree.assigned_group("undefined_group")), ROOT);
    }
}
