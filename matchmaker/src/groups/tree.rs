//! The tree of configured group names and which group a submitter is in.

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

    /// A group's subgroups, in the order HTCondor keeps them (their names
    /// sorted case-insensitively).
    pub fn children(&self, id: GroupId) -> Vec<GroupId> {
        // Ids are given in sorted-name order, so filtering keeps that order.
        self.ids().filter(|&g| self.groups[g.0].parent == Some(id)).collect()
    }

    /// Every group breadth first from the root, children in
    /// [`children`](GroupTree::children) order: the order HTCondor lists
    /// groups in (and, for equal GROUP_SORT_EXPR values, negotiates them).
    pub fn breadth_first(&self) -> Vec<GroupId> {
        let mut out = vec![self.root()];
        let mut next = 0;
        while next < out.len() {
            let children = self.children(out[next]);
            out.extend(children);
            next += 1;
        }
        out
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
        // (Names are short: a plain scan finds the separators soonest.)
        let last = |text: &str, byte: u8| text.bytes().rposition(|b| b == byte);
        let Some(at) = last(name, b'@') else {
            return self.find(name).unwrap_or(GroupId(0));
        };
        let user_part = &name[..at];
        let Some(dot) = last(user_part, b'.') else {
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
    fn breadth_first_lists_levels_in_name_order() {
        let tree = GroupTree::new(["g_b.sub1", "g_c", "g_a", "g_b"]);
        let names: Vec<&str> = tree.breadth_first().into_iter().map(|g| tree.name(g)).collect();
        assert_eq!(names, ["<none>", "g_a", "g_b", "g_c", "g_b.sub1"]);
        let b = tree.find("g_b").expect("configured");
        assert_eq!(tree.children(b).len(), 1);
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
