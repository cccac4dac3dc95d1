//! The attributes of an ad that refer back to themselves through the ad's
//! attributes, and one cycle through each.

use std::collections::{HashMap, HashSet};

use crate::ad::ClassAd;
use crate::expr::Node;
use crate::name::Name;

use super::reference::{reference_of_node, Scope};

/// For each attribute of `ad` on a cycle of references through the ad's
/// attributes (`x` or `MY.x`): the reference that starts it and the names
/// along it, by the attribute's symbol.
pub(super) fn cycles(ad: &ClassAd) -> HashMap<u32, (String, Vec<String>)> {
    // The graph: for each attribute, the attributes of `ad` its expression
    // refers to, with the reference as written.
    let names: Vec<Name> = ad.names().collect();
    let index: HashMap<u32, usize> = names.iter().enumerate().map(|(i, n)| (n.symbol(), i)).collect();
    let mut edges: Vec<Vec<(usize, String)>> = vec![Vec::new(); names.len()];
    for (i, name) in names.iter().enumerate() {
        if let Some(expr) = ad.lookup(*name) {
            let mut seen = HashSet::new();
            let mut stack = vec![expr];
            while let Some(e) = stack.pop() {
                let Some(node) = e.as_node() else {
                    continue;
                };
                if let Some((Scope::Unscoped | Scope::My, target)) = reference_of_node(node) {
                    if let Some(&j) = index.get(&target.symbol()) {
                        if seen.insert(j) {
                            edges[i].push((j, e.to_string()));
                        }
                    }
                    continue;
                }
                match node {
                    // Names in a nested ad or evaluated in other ads are
                    // not this ad's.
                    Node::Record(_) => {}
                    Node::Call(call) if call.name().is("evalInEachContext") || call.name().is("countMatches") => {
                        stack.extend(call.args().iter().skip(1));
                    }
                    node => stack.extend(node.children()),
                }
            }
        }
    }
    // Tarjan's strongly connected components, without recursion.
    let n = names.len();
    let (mut order, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut counter, mut stack, mut components) = (0, Vec::new(), Vec::new());
    for root in 0..n {
        if order[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut next)) = work.last_mut() {
            if *next == 0 {
                order[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some((w, _)) = edges[v].get(*next) {
                let w = *w;
                *next += 1;
                if order[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == order[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    // For each component, paths through its first member `root`:
    // `toward[w]`, the next step from w on a shortest way to the root, and
    // `parent[w]`, the step before w on a shortest way from the root.
    let mut reverse: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (v, out) in edges.iter().enumerate() {
        for (w, _) in out {
            reverse[*w].push(v);
        }
    }
    let forward = forward_of(&edges);
    let (mut component_of, mut toward, mut parent) = (vec![usize::MAX; n], vec![usize::MAX; n], vec![usize::MAX; n]);
    let mut out = HashMap::new();
    for (c, component) in components.iter().enumerate() {
        let root = component[0];
        let self_loop = edges[root].iter().any(|(w, _)| *w == root);
        if component.len() == 1 && !self_loop {
            continue;
        }
        for &v in component {
            component_of[v] = c;
        }
        for (links, adjacency) in [(&mut toward, &reverse), (&mut parent, &forward)] {
            links[root] = root;
            let mut queue = std::collections::VecDeque::from([root]);
            while let Some(at) = queue.pop_front() {
                for &w in &adjacency[at] {
                    if component_of[w] == c && links[w] == usize::MAX {
                        links[w] = at;
                        queue.push_back(w);
                    }
                }
            }
        }
        for &v in component {
            out.insert(names[v].symbol(), cycle_through(v, root, &toward, &parent, &edges, &names));
        }
    }
    out
}

/// The targets of each attribute's references.
fn forward_of(edges: &[Vec<(usize, String)>]) -> Vec<Vec<usize>> {
    edges.iter().map(|out| out.iter().map(|(w, _)| *w).collect()).collect()
}

/// A cycle from `v` back to itself through `root` (or, for the root,
/// through its first reference inside the component): the reference that
/// starts it and the names along it, at most a dozen (`...` for the
/// rest).
fn cycle_through(
    v: usize,
    root: usize,
    toward: &[usize],
    parent: &[usize],
    edges: &[Vec<(usize, String)>],
    names: &[Name],
) -> (String, Vec<String>) {
    const SHOWN: usize = 6;
    // v, then the steps to the root.
    let mut head = vec![v];
    let mut at = v;
    if v == root {
        // The root's first reference that leads back into the component
        // (every member leads back to the root).
        at = edges[v].iter().map(|(w, _)| *w).find(|&w| toward[w] != usize::MAX).unwrap_or(v);
        head.push(at);
    }
    while at != root && head.len() < SHOWN {
        at = toward[at];
        head.push(at);
    }
    // The steps from the root to v, backwards.
    let mut tail = vec![v];
    let mut back = v;
    while back != root && tail.len() < SHOWN {
        back = parent[back];
        tail.push(back);
    }
    let mut path: Vec<usize> = head.clone();
    if at != root || back != root {
        path.push(usize::MAX);
    }
    if path.len() > 1 || v != root {
        // The way back, without repeating the step both halves share.
        let last = path.last().copied();
        path.extend(tail.iter().rev().skip_while(|&&w| Some(w) == last));
    }
    let path =
        path.iter().map(|&w| if w == usize::MAX { "...".to_owned() } else { names[w].as_str().to_owned() }).collect();
    let next = head.get(1).copied().unwrap_or(v);
    let reference = edges[v].iter().find(|(w, _)| *w == next).map(|(_, text)| text.clone()).unwrap_or_default();
    (reference, path)
}
