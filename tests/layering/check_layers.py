#!/usr/bin/env python3
"""The harness's layering and naming rules, checked over the source tree (docs/ARCHITECTURE.md).

    check_layers.py SOURCE_ROOT            check the tree; one line per violation, exit 1 if any
    check_layers.py --self-test SOURCE_ROOT  copy the tree, plant one violation of each rule, and
                                             check that every one is reported
    check_layers.py --edges                print the declared layer edges, one layer a line

Rules:
  layers    LAYER_EDGES declares, for each layer, the layers its files may include; an #include of
            any other layer is a violation (file:line, and what to do), and so is a cycle among
            the declared edges. An op's folder includes no other op's (ops/common is shared); the
            shipped backends see only the ABI and SDK, but the mutant backend of `opcert selftest`,
            which reads and writes values with the harness's exact codec (model/) so that its
            correct twins round once, as the reference does.
  links     a harness CMake target links only targets of its own layer or of a layer it may include.
  op names  no harness or reports source outside harness/ops/<op>/ holds "<op>" as a string.
  peer      no harness or reports source holds the word torch in a string literal, but the one
            default of --peer (harness/cli/cli_context.cpp, kDefaultPeer).
  remove_all no harness or reports source calls std::filesystem::remove_all: a pip wheel's
            libtorch.so exports one that crashes on a folder holding files; util/remove_tree.h
  sources   no CMakeLists.txt globs for source files: each library lists its sources, and only the
            op folders (harness/ops/, tests/ops/) are discovered, as folders; but the discoveries
            of DISCOVERY_FILES, each the one place that finds an op's files by folder.
"""
import os
import re
import shutil
import sys
import tempfile

# Each layer and the layers its files may include, besides its own (docs/ARCHITECTURE.md, "The
# layers", is drawn from this table), listed after every layer it may include. An edge is a
# reviewed decision: a new include of a layer not listed here is a violation until the edge is
# added here and in the doc, or the code moves.
LAYER_EDGES = {
    "abi": [],
    "sdk": ["abi"],
    "model": ["abi"],
    "util": ["model"],
    "opkit": ["abi", "model"],
    "loader": ["abi", "model", "opkit"],
    "reference": ["model", "opkit"],
    "ops": ["sdk", "model", "opkit", "reference"],
    "check": ["model", "opkit", "loader", "reference"],
    "ranks": ["model"],
    "reports": ["model", "util"],
    "compare": ["model", "util", "reports"],
    "history": ["model", "loader", "reports", "compare"],
    "dashboard": ["model", "util", "reports", "compare", "history"],
    "session": ["abi", "model", "util", "opkit", "loader", "reference", "check", "ranks", "reports"],
    "selftest": ["model", "util", "opkit", "loader", "check", "ranks", "reports", "session"],
    "certify": ["abi", "model", "util", "loader", "check", "reports", "session"],
    "golden": ["abi", "model", "opkit", "loader", "reference", "check", "session"],
    "run": ["model", "util", "check", "ranks", "reports", "session"],
    "bench": ["model", "util", "opkit", "loader", "check", "ranks", "reports", "session"],
    "cli": ["abi", "model", "util", "opkit", "loader", "reference", "ops", "check", "ranks", "reports", "compare",
            "history", "dashboard", "session", "selftest", "certify", "golden", "run", "bench"],
}
# What the shipped backends may include, and the one backend allowed more, and why (the docstring).
BACKEND_EDGES = ["abi", "sdk"]
BACKEND_ALLOWANCES = {"backend:mutants": ["model"]}
# Pairs with no edge on purpose, and what to do instead of adding one.
STRANGERS = {frozenset(("run", "bench")): "run/ and bench/ are siblings over session/; move what both need there"}
HARNESS_LAYERS = [layer for layer in LAYER_EDGES if layer not in ("abi", "sdk", "reports")]
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".in")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
DEFAULT_PEER_LINE = re.compile(r'constexpr const char\* kDefaultPeer = "torch";')
TARGET_LAYER = {name: name for name in LAYER_EDGES if name != "cli"}
TARGET_LAYER["platform"] = "loader"


def layer_of(rel):
    """The layer of a file by its path relative to the root, or None for files outside the rules."""
    parts = rel.split("/")
    if rel == "backends/sdk/include/opcert/backend_abi.h":
        return "abi"
    if parts[:2] == ["backends", "sdk"]:
        return "sdk"
    if parts[0] == "backends" and len(parts) > 2:
        return "backend:" + parts[1]
    if parts[0] == "reports":
        return "reports"
    if parts[0] == "harness" and len(parts) > 2 and parts[1] in HARNESS_LAYERS:
        return parts[1]
    return None


def op_folder(rel):
    parts = rel.split("/")
    return parts[2] if parts[:2] == ["harness", "ops"] and len(parts) > 3 else None


def resolve(root, rel, bracket, path):
    """The file an include names, relative to the root, or None when it is not one of ours."""
    here = os.path.dirname(rel)
    candidates = []
    if bracket == '"':
        candidates.append(os.path.join(here, path))
        parts = rel.split("/")
        if parts[0] == "backends" and len(parts) > 2:
            candidates.append(os.path.join("backends", parts[1], path))
        candidates += [os.path.join("harness", path), path]
    if path.startswith("opcert/"):
        candidates.append(os.path.join("backends/sdk/include", path))
    for c in candidates:
        c = os.path.normpath(c)
        if os.path.isfile(os.path.join(root, c)):
            return c
    return None


def sources(root, top):
    base = os.path.join(root, top)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "build"))]
        for f in filenames:
            if f.endswith(SOURCE_SUFFIXES):
                yield os.path.relpath(os.path.join(dirpath, f), root)


def may_include(mine, theirs, edges):
    """Whether a file of layer `mine` may include one of layer `theirs` (another layer)."""
    if mine.startswith("backend:"):
        return theirs in BACKEND_EDGES or theirs in BACKEND_ALLOWANCES.get(mine, ())
    return theirs in edges.get(mine, ())


def undeclared_include(mine, theirs, edges):
    """What to do about an include from `mine` of `theirs` that no edge allows."""
    if mine.startswith("backend:"):
        return f" ({theirs}); a backend sees only the ABI and the SDK"
    if theirs.startswith("backend:"):
        return ", a backend's source; the harness reaches backends through the ABI"
    stranger = STRANGERS.get(frozenset((mine, theirs)))
    if stranger:
        return ": " + stranger
    if mine in reachable(theirs, edges):
        return (f", which points back up from {mine}/ to {theirs}/ ({theirs} reaches {mine}: "
                f"{' -> '.join(path_between(theirs, mine, edges))}); move the code down, or the shared part to a "
                f"layer both may include")
    allowed = ", ".join(edges.get(mine, ())) or "none"
    return (f", but {mine}/ may include only {allowed}: move the code, or declare the edge "
            f"\"{mine}\" -> \"{theirs}\" in LAYER_EDGES (tests/layering/check_layers.py) and "
            f"docs/ARCHITECTURE.md")


def path_between(start, goal, edges):
    """A path of declared edges from `start` to `goal` (both included), or [] when none."""
    queue, came_from = [start], {start: None}
    while queue:
        node = queue.pop(0)
        if node == goal:
            path = []
            while node is not None:
                path.append(node)
                node = came_from[node]
            return path[::-1]
        for nxt in edges.get(node, ()):
            if nxt not in came_from:
                came_from[nxt] = node
                queue.append(nxt)
    return []


def reachable(start, edges):
    return {node for node in edges if node != start and path_between(start, node, edges)}


def check_edges(edges):
    """The declaration itself: every edge names a layer, and no edges make a cycle. The first cycle
    the depth-first walk closes is named; others that share its edges would only repeat it."""
    problems = []
    state = {}  # layer -> "open" while on the walk's path, "done" after

    def walk(layer, path):
        state[layer] = "open"
        for theirs in edges.get(layer, ()):
            if theirs not in edges:
                problems.append(f"LAYER_EDGES: {layer} -> {theirs}: no layer {theirs}; declare it or drop the edge")
            elif state.get(theirs) == "open" and not any("is a cycle" in p for p in problems):
                cycle = " -> ".join(path[path.index(theirs):] + [layer, theirs] if theirs != layer else [layer, layer])
                problems.append(f"LAYER_EDGES: {cycle} is a cycle: layers only include downwards; drop one of its "
                                f"edges and move the code that needed it below both layers")
            elif theirs not in state:
                walk(theirs, path + [layer])
        state[layer] = "done"

    for layer in edges:
        if layer not in state:
            walk(layer, [])
    return problems


def check_includes(root, edges):
    problems = []
    for top in ("harness", "reports", "backends"):
        for rel in sources(root, top):
            mine = layer_of(rel)
            if mine is None:
                continue
            text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
            for match in INCLUDE.finditer(text):
                bracket, path = match.groups()
                target = resolve(root, rel, bracket, path)
                if target is None:
                    continue
                where = f"{rel}:{text.count(chr(10), 0, match.start(2)) + 1}"
                theirs = layer_of(target)
                if theirs is None or theirs == mine:
                    if mine == "ops" and theirs == "ops":
                        a, b = op_folder(rel), op_folder(target)
                        if a and b and a != b and b != "common":
                            problems.append(f"{where}: includes {path}, another op's folder (share code through ops/common)")
                    continue
                if not may_include(mine, theirs, edges):
                    problems.append(f"{where}: includes {path}{undeclared_include(mine, theirs, edges)}")
    return problems


LINK_CALL = re.compile(r"target_link_libraries\(\s*(\S+)(.*?)\)", re.S)
LINKED = re.compile(r"opcert(?:::|_)(abi|sdk|model|util|opkit|loader|platform|reference|ops|op_\w+|check|ranks|reports|"
                    r"compare|history|dashboard|selftest|certify|session|golden|run|bench)\b")


def check_links(root, edges):
    problems = []
    for rel in [f for top in ("harness", "reports") for f in cmake_files(root, top)]:
        mine = layer_of(rel.replace("CMakeLists.txt", "x.h"))
        if mine is None:
            continue
        text = open(os.path.join(root, rel), encoding="utf-8").read()
        for call in LINK_CALL.finditer(text):
            target, args = call.groups()
            for name in LINKED.findall(args):
                theirs = "ops" if name.startswith("op_") else TARGET_LAYER[name]
                if theirs != mine and not may_include(mine, theirs, edges):
                    line = text.count("\n", 0, call.start()) + 1
                    problems.append(f"{rel}:{line}: {target} links opcert::{name}, but {mine} may include only "
                                    f"{', '.join(edges.get(mine, ())) or 'none'}: link what its layer may include")
    return problems


def cmake_files(root, top):
    for dirpath, _, filenames in os.walk(os.path.join(root, top)):
        if "CMakeLists.txt" in filenames:
            yield os.path.relpath(os.path.join(dirpath, "CMakeLists.txt"), root)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def check_names(root):
    problems = []
    ops_dir = os.path.join(root, "harness/ops")
    ops = sorted(d for d in os.listdir(ops_dir) if os.path.isdir(os.path.join(ops_dir, d)) and d != "common")
    for top in ("harness", "reports"):
        for rel in sources(root, top):
            text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
            folder = op_folder(rel)
            for op in ops:
                if folder != op and f'"{op}"' in text:
                    problems.append(f'{rel}: names op "{op}" outside harness/ops/{op}/ (an op\'s knowledge belongs in its folder)')
            for line in strip_comments(text).splitlines():
                if DEFAULT_PEER_LINE.search(line) and rel == "harness/cli/cli_context.cpp":
                    continue
                for literal in STRING.findall(line):
                    if re.search(r"\btorch\b", literal):
                        problems.append(f"{rel}: names torch in {literal}; the peer is a role (--peer), named only by its default")
    return problems


# Where a glob for source files is the rule rather than a mistake, and what it finds: a new op's
# files land in these folders and no list is edited (docs/ARCHITECTURE.md, "Adding an op").
DISCOVERY_FILES = {
    "backends/CMakeLists.txt": "opcert_backend_ops: each backend's ops/ folder, one file per op",
    "backends/sdk/CMakeLists.txt": "opcert/sdk/ops.h, made from the SDK's ops/ folder, one header per op",
    "tests/ops/CMakeLists.txt": "the ops' tests, tests/ops/<op>/*_test.cpp (unit, reference, mutation, parser)",
}
SOURCE_GLOB = re.compile(r"file\(\s*GLOB(?:_RECURSE)?\b[^)]*?\*\.(?:c|cc|cpp|cu|cuh|h|hpp)\b", re.S)


REMOVE_ALL = re.compile(r"\bremove_all\s*\(")


def check_remove_all(root):
    problems = []
    for top in ("harness", "reports"):
        for rel in sources(root, top):
            text = strip_comments(open(os.path.join(root, rel), encoding="utf-8", errors="replace").read())
            if REMOVE_ALL.search(text):
                problems.append(f"{rel}: calls remove_all; use remove_tree (util/remove_tree.h: a pip wheel's "
                                "libtorch.so binds remove_all to a copy that crashes)")
    return problems


def check_source_globs(root):
    problems = []
    for top in ("harness", "reports", "backends", "tests", "examples"):
        if not os.path.isdir(os.path.join(root, top)):
            continue
        for rel in cmake_files(root, top):
            if rel in DISCOVERY_FILES:
                continue
            if SOURCE_GLOB.search(open(os.path.join(root, rel), encoding="utf-8").read()):
                problems.append(f"{rel}: globs for source files; list them (a new file is a reviewed edit of this list)")
    return problems


def check(root, edges=None):
    edges = LAYER_EDGES if edges is None else edges
    return (check_edges(edges) + check_includes(root, edges) + check_links(root, edges) + check_names(root) +
            check_remove_all(root) + check_source_globs(root))


def self_test(root):
    """Plants one violation of each rule in a copy of the tree, and a cycle in a copy of the edges;
    each must be reported."""
    plants = {
        "harness/model/zz_up.h": '#include "session/planning/targets.h"\n',
        "harness/run/zz_sibling.cpp": '#include "bench/bench_job.h"\n',
        # ranks/ is no higher than reports/, but reports/ declares no edge to it
        "reports/zz_undeclared.cpp": '#include <vector>\n\n#include "ranks/world.h"\n',
        "harness/ops/gemm/zz_cross.cpp": '#include "ops/softmax/softmax.h"\n',
        "backends/cpu/zz_harness.cpp": '#include "model/case.h"\n',
        "harness/check/zz_name.cpp": 'const char* k = "softmax";\n',
        "reports/zz_peer.cpp": 'const char* p = "vs torch";\n',
        "harness/run/zz_remove.cpp": 'void f(const std::filesystem::path& p) { std::filesystem::remove_all(p); }\n',
    }
    expected = ["zz_up.h:1: includes session/planning/targets.h, which points back up from model/ to session/",
                "zz_sibling.cpp:1: includes bench/bench_job.h: run/ and bench/ are siblings",
                'zz_undeclared.cpp:3: includes ranks/world.h, but reports/ may include only model, util: move the '
                'code, or declare the edge "reports" -> "ranks"',
                "zz_cross.cpp:1", "zz_harness.cpp:1", "zz_name.cpp", "zz_peer.cpp", "zz_remove.cpp: calls remove_all",
                "links opcert::bench", "backends/cpu/CMakeLists.txt: globs",
                "LAYER_EDGES: model -> check -> model is a cycle"]
    # A declared edge that closes a cycle: check/ already reaches model/, and model/ now check/.
    edges = {layer: list(lower) for layer, lower in LAYER_EDGES.items()}
    edges["model"].append("check")
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "tree")
        for top in ("harness", "reports", "backends"):
            shutil.copytree(os.path.join(root, top), os.path.join(copy, top))
        for rel, text in plants.items():
            with open(os.path.join(copy, rel), "w") as f:
                f.write(text)
        with open(os.path.join(copy, "harness/check/CMakeLists.txt"), "a") as f:
            f.write("\ntarget_link_libraries(opcert_check PRIVATE opcert::bench)\n")
        with open(os.path.join(copy, "backends/cpu/CMakeLists.txt"), "a") as f:
            f.write("\nfile(GLOB _more CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/ops/*.cpp)\n")
        found = check(copy, edges)
    missed = [e for e in expected if not any(e in p for p in found)]
    for m in missed:
        print(f"check_layers self-test: the planted violation {m} was not reported", file=sys.stderr)
    extra = [p for p in found if not any(e in p for e in expected)]
    for p in extra:
        print(f"check_layers self-test: reported more than the plants: {p}", file=sys.stderr)
    return 1 if missed or extra else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    if len(argv) == 2 and argv[1] == "--edges":
        for layer, lower in LAYER_EDGES.items():
            print(f"{layer} -> {', '.join(lower) or '(nothing)'}")
        return 0
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    print(f"check_layers: {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
