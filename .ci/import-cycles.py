#!/usr/bin/env python3
"""Import cycles between the source files of each crate of the workspace.

Usage: import-cycles.py [WORKSPACE] [--allow FILE] [--quiet]

A file depends on another when it names an item defined there: through a
`use` declaration or a path written in the code (`crate::a::b`,
`super::x`, `self::y`, a child module's name). Re-exports are followed to
the file that defines the item, so a parent module that only re-exports
its children does not tie them together. Test code (`#[cfg(test)]`
modules and `tests.rs` files) is left out.

Cycles are looked for level by level, as a module tree is read: at each
module, its child modules (each with everything under it) are the nodes,
and a child depends on a sibling when a file under the one names an item
defined under the other. The parent's own file is left out at its level:
a module that dispatches to its children and whose children use the
types it defines is one unit, not a cycle. Prints the groups of siblings
that depend on each other in a cycle (strongly connected components with
more than one member), each with one cycle through it as evidence. With
--files, the groups are of single files instead, parents included.

With --allow FILE, each line of FILE is a group of glob patterns (paths
relative to the workspace, separated by spaces; `#` starts a comment). A
cycle group is allowed when all its files match the patterns of one line.
The exit status is 1 when some group is not allowed.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field

CRATE_ROOTS = [
    "classad/src/lib.rs",
    "cli/src/main.rs",
    "matchmaker/src/lib.rs",
    "negotiator-sim/src/lib.rs",
    "negotiator-sim/src/main.rs",
    "bindings/src/lib.rs",
    "cedar/src/lib.rs",
    "daemons/src/lib.rs",
    "capi/src/lib.rs",
]

ITEM_RE = re.compile(
    r"\b(?:fn|struct|enum|union|trait|type|const|static|macro_rules!)\s+([A-Za-z_]\w*)"
)
MOD_RE = re.compile(r"((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)\s*([;{])")
PATH_ATTR_RE = re.compile(r'#\[path\s*=\s*"([^"]+)"\]')
USE_RE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
QUALIFIED_RE = re.compile(r"\b((?:crate|super|self)(?:\s*::\s*[A-Za-z_]\w*)+)")
CHILD_PATH_RE = re.compile(r"(?<![\w:])([a-z_]\w*)\s*::\s*([A-Za-z_]\w*)")


def strip(text: str) -> str:
    """The code without comments, string and char literals (kept as blanks)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    out.append("\n" if text[i] == "\n" else "")
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append("' '")
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_brace(code: str, open_at: int) -> int:
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code)


@dataclass
class Module:
    path: list[str]          # module path from the crate root
    file: str                # the file its code is in
    children: dict[str, "Module"] = field(default_factory=dict)
    items: set[str] = field(default_factory=set)
    exports: dict[str, list[str]] = field(default_factory=dict)  # name -> absolute path
    globs: list[list[str]] = field(default_factory=list)
    refs: list[list[str]] = field(default_factory=list)          # absolute paths named
    parent: "Module | None" = None


def expand_use(tree: str) -> list[tuple[list[str], str | None]]:
    """`a::{b, c::d as e}` as ([a, b], b), ([a, c, d], e); globs end in `*`."""
    tree = re.sub(r"\s+", "", tree)
    results: list[tuple[list[str], str | None]] = []

    def walk(prefix: list[str], s: str) -> None:
        # split s at top-level commas
        parts, depth, start = [], 0, 0
        for k, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:k])
                start = k + 1
        parts.append(s[start:])
        for part in parts:
            if not part:
                continue
            brace = part.find("{")
            if brace >= 0 and part.endswith("}"):
                head = [x for x in part[:brace].split("::") if x]
                walk(prefix + head, part[brace + 1:-1])
                continue
            alias = None
            if "as" in part and re.search(r"[^:]as[A-Za-z_]", part):
                m = re.match(r"(.*?)as([A-Za-z_]\w*)$", part)
                if m and not m.group(1).endswith(":"):
                    part, alias = m.group(1), m.group(2)
            segs = [x for x in part.split("::") if x]
            if segs and segs[-1] == "self":
                segs = segs[:-1]
                alias = alias or (segs[-1] if segs else None)
            if not segs:
                continue
            results.append((prefix + segs, alias or segs[-1]))

    walk([], tree)
    return results


class Crate:
    def __init__(self, workspace: str, root_file: str):
        self.ws = workspace
        self.root = self.load(["crate"], os.path.join(workspace, root_file), None, is_dir_owner=True)

    def rel(self, path: str) -> str:
        return os.path.relpath(path, self.ws)

    def load(self, mpath: list[str], file: str, parent: Module | None, is_dir_owner: bool) -> Module:
        module = Module(mpath, self.rel(file), parent=parent)
        with open(file, encoding="utf-8") as f:
            code = strip(f.read())
        base = os.path.dirname(file)
        subdir = base if is_dir_owner else os.path.join(base, os.path.splitext(os.path.basename(file))[0])
        self.fill(module, code, subdir)
        return module

    def fill(self, module: Module, code: str, subdir: str) -> None:
        # child modules, and inline test modules cut out
        pieces = []
        pos = 0
        for m in MOD_RE.finditer(code):
            if m.start() < pos:
                continue
            attrs, name, term = m.group(1), m.group(2), m.group(3)
            is_test = "cfg(test)" in attrs or name == "tests"
            if term == "{":
                close = matching_brace(code, m.end() - 1)
                pieces.append(code[pos:m.start()])
                pos = close + 1
                if not is_test:
                    child = Module(module.path + [name], module.file, parent=module)
                    module.children[name] = child
                    self.fill(child, code[m.end():close], os.path.join(subdir, name))
                continue
            if is_test:
                continue
            pa = PATH_ATTR_RE.search(attrs)
            if pa:
                cand = [os.path.join(subdir if module.file.endswith(("lib.rs", "main.rs", "mod.rs")) else os.path.dirname(subdir), pa.group(1))]
            else:
                cand = [os.path.join(subdir, name + ".rs"), os.path.join(subdir, name, "mod.rs")]
            for c in cand:
                if os.path.exists(c):
                    owner = c.endswith("mod.rs")
                    module.children[name] = self.load(module.path + [name], c, module, owner)
                    break
        pieces.append(code[pos:])
        body = "".join(pieces)
        module.items |= set(ITEM_RE.findall(body))
        for m in USE_RE.finditer(body):
            public = m.group(1) is not None
            for segs, alias in expand_use(m.group(2)):
                absolute = self.absolute(module, segs)
                if absolute is None:
                    continue
                if absolute[-1] == "*":
                    module.refs.append(absolute[:-1])
                    if public:
                        module.globs.append(absolute[:-1])
                    continue
                module.refs.append(absolute)
                if public and alias:
                    module.exports[alias] = absolute
        for m in QUALIFIED_RE.finditer(body):
            segs = [s.strip() for s in m.group(1).split("::")]
            absolute = self.absolute(module, segs)
            if absolute:
                module.refs.append(absolute)
        for m in CHILD_PATH_RE.finditer(body):
            if m.group(1) in module.children or m.group(1) in ("crate", "super", "self"):
                absolute = self.absolute(module, [m.group(1), m.group(2)])
                if absolute:
                    module.refs.append(absolute)

    def absolute(self, module: Module, segs: list[str]) -> list[str] | None:
        """`segs` as a path from the crate root, or None for another crate's."""
        if not segs:
            return None
        head = segs[0]
        if head == "crate":
            return segs
        if head == "self":
            return module.path + segs[1:]
        if head == "super":
            base = module.path
            while segs and segs[0] == "super":
                base, segs = base[:-1], segs[1:]
            return base + segs
        # a child module (or one declared later: children are known only
        # after the whole file is read, so accept any lowercase head that
        # names a file beside this module)
        return module.path + segs if head in module.children or self.child_file_exists(module, head) else None

    def child_file_exists(self, module: Module, name: str) -> bool:
        file = os.path.join(self.ws, module.file)
        d = os.path.dirname(file) if file.endswith(("lib.rs", "main.rs", "mod.rs")) else os.path.splitext(file)[0]
        return os.path.exists(os.path.join(d, name + ".rs")) or os.path.exists(os.path.join(d, name, "mod.rs"))

    def find(self, path: list[str]) -> Module | None:
        m = self.root
        for s in path[1:]:
            m = m.children.get(s)
            if m is None:
                return None
        return m

    def resolve(self, path: list[str], depth: int = 0) -> str | None:
        """The file that defines what `path` names (None: outside the crate)."""
        if depth > 20 or not path or path[0] != "crate":
            return None
        m = self.root
        for k, s in enumerate(path[1:], start=1):
            child = m.children.get(s)
            if child is not None:
                m = child
                continue
            if s in m.items:
                return m.file
            if s in m.exports:
                target = m.exports[s] + path[k + 1:]
                if target != path:
                    return self.resolve(target, depth + 1) or m.file
            for g in m.globs:
                inner = self.find(g)
                if inner is not None and (s in inner.items or s in inner.exports or s in inner.children):
                    return self.resolve(g + path[k:], depth + 1)
            return m.file
        return m.file

    def modules(self):
        stack = [self.root]
        while stack:
            m = stack.pop()
            yield m
            stack.extend(m.children.values())

    def graph(self) -> dict[str, set[str]]:
        g: dict[str, set[str]] = {}
        for m in self.modules():
            if os.path.basename(m.file) == "tests.rs":
                continue
            g.setdefault(m.file, set())
            for ref in m.refs:
                target = self.resolve(ref)
                if target and target != m.file and os.path.basename(target) != "tests.rs":
                    g[m.file].add(target)
        for targets in list(g.values()):
            for t in targets:
                g.setdefault(t, set())
        return g


def sccs(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on, stack, out = set(), [], []
    counter = [0]

    def connect(v: str) -> None:
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        group.append(w)
                        if w == node:
                            break
                    if len(group) > 1:
                        out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def one_cycle(graph: dict[str, set[str]], group: list[str]) -> list[str]:
    members = set(group)
    start = group[0]
    # breadth-first from start back to start inside the group
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v]):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return group


def sibling_graph(crate: Crate, files: dict[str, set[str]]) -> dict[str, set[str]]:
    """Edges between sibling modules (named by their directory-like path),
    each standing for everything under it; parents' own files left out."""
    g: dict[str, set[str]] = {}
    for m in crate.modules():
        if not m.children:
            continue
        owner: dict[str, str] = {}
        for name, child in m.children.items():
            node = "/".join(child.path[1:]) or child.file
            node = f"{os.path.dirname(crate.rel(os.path.join(crate.ws, crate.root.file)))}/{node}"
            g.setdefault(node, set())
            stack = [child]
            while stack:
                c = stack.pop()
                if c.file != m.file:
                    owner[c.file] = node
                stack.extend(c.children.values())
        for f, node in owner.items():
            for t in files.get(f, ()):
                other = owner.get(t)
                if other is not None and other != node:
                    g[node].add(other)
    return g


def main() -> int:
    args = sys.argv[1:]
    quiet = "--quiet" in args
    args = [a for a in args if a != "--quiet"]
    allow: list[list[str]] = []
    if "--allow" in args:
        k = args.index("--allow")
        with open(args[k + 1], encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].split()
                if line:
                    allow.append(line)
        del args[k:k + 2]
    files_mode = "--files" in args
    args = [a for a in args if a != "--files"]
    ws = os.path.abspath(args[0] if args else ".")
    bad = 0
    total_groups = 0
    for root in CRATE_ROOTS:
        if not os.path.exists(os.path.join(ws, root)):
            continue
        crate = Crate(ws, root)
        graph = crate.graph()
        if not files_mode:
            graph = sibling_graph(crate, graph)
        groups = sccs(graph)
        unit = "files" if files_mode else "modules"
        total_groups += len(groups)
        edges = sum(len(v) for v in graph.values())
        if not quiet or groups:
            print(f"{root}: {len(graph)} {unit}, {edges} dependencies, {len(groups)} cycle groups")
        for group in groups:
            allowed = any(all(any(fnmatch.fnmatch(f, p) for p in line) for f in group) for line in allow)
            if not allowed:
                bad += 1
            mark = "allowed" if allowed else "CYCLE"
            print(f"  {mark}: {len(group)} {unit}: {' '.join(group)}")
            print(f"    e.g. {' -> '.join(one_cycle(graph, group))}")
    if allow:
        print(f"{total_groups} cycle groups, {bad} not allowed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
