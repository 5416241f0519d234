#!/usr/bin/env python3
"""The harness's layering and naming rules, checked over the source tree (docs/ARCHITECTURE.md).

    check_layers.py SOURCE_ROOT            check the tree; one line per violation, exit 1 if any
    check_layers.py --self-test SOURCE_ROOT  copy the tree, plant one violation of each rule, and
                                             check that every one is reported

Rules:
  layers    an #include may point only at its own layer or a lower one (LAYERS, lowest first);
            run/ and bench/ are siblings and include neither each other; an op's folder includes
            no other op's (ops/common is shared); the shipped backends see only the ABI and SDK,
            but the mutant backend of `opcert selftest`, which reads and writes values with the
            harness's exact codec (model/) so that its correct twins round once, as the reference does.
  links     a harness CMake target links only targets of its own layer or lower ones.
  op names  no harness or reports source outside harness/ops/<op>/ holds "<op>" as a string.
  peer      no harness or reports source holds the word torch in a string literal, but the one
            default of --peer (harness/cli/cli_context.cpp, kDefaultPeer).
  sources   no CMakeLists.txt globs for source files: each library lists its sources, and only the
            op folders (harness/ops/, tests/ops/) are discovered, as folders; but the discoveries
            of DISCOVERY_FILES, each the one place that finds an op's files by folder.
"""
import os
import re
import shutil
import sys
import tempfile

# Lowest first. A layer may include itself and any layer before it.
LAYERS = ["abi", "sdk", "model", "opkit", "loader", "reference", "ops", "check", "ranks", "reports", "compare",
          "history", "dashboard", "selftest", "certify", "session", "golden", "run", "bench", "cli"]
SIBLINGS = {("run", "bench"), ("bench", "run")}  # same height, but strangers
RANK = {name: i for i, name in enumerate(LAYERS)}
RANK["bench"] = RANK["run"]
RANK["cli"] = RANK["run"] + 1
HARNESS_LAYERS = ["model", "opkit", "loader", "reference", "ops", "check", "ranks", "compare", "history", "dashboard",
                  "selftest", "certify", "session", "golden",
                  "run", "bench", "cli"]
# What a backend may include beyond the ABI and the SDK, and why (the docstring says).
BACKEND_ALLOWANCES = {"backend:mutants": {"model"}}
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".in")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
DEFAULT_PEER_LINE = re.compile(r'constexpr const char\* kDefaultPeer = "torch";')
TARGET_LAYER = {"abi": "abi", "sdk": "sdk", "model": "model", "opkit": "opkit", "loader": "loader",
                "platform": "loader", "reference": "reference", "ops": "ops", "check": "check", "ranks": "ranks",
                "reports": "reports", "compare": "compare", "history": "history", "dashboard": "dashboard", "selftest": "selftest", "certify": "certify", "session": "session", "golden": "golden", "run": "run", "bench": "bench"}


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


def check_includes(root):
    problems = []
    for top in ("harness", "reports", "backends"):
        for rel in sources(root, top):
            mine = layer_of(rel)
            if mine is None:
                continue
            text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
            for bracket, path in INCLUDE.findall(text):
                target = resolve(root, rel, bracket, path)
                if target is None:
                    continue
                theirs = layer_of(target)
                if theirs is None or theirs == mine:
                    if mine == "ops" and theirs == "ops":
                        a, b = op_folder(rel), op_folder(target)
                        if a and b and a != b and b != "common":
                            problems.append(f"{rel}: includes {path}, another op's folder (share code through ops/common)")
                    continue
                if mine.startswith("backend:"):
                    if theirs not in ("abi", "sdk") and theirs not in BACKEND_ALLOWANCES.get(mine, ()):
                        problems.append(f"{rel}: includes {path} ({theirs}); a backend sees only the ABI and the SDK")
                    continue
                if theirs.startswith("backend:"):
                    problems.append(f"{rel}: includes {path}, a backend's source; the harness reaches backends through the ABI")
                    continue
                if (mine, theirs) in SIBLINGS:
                    problems.append(f"{rel}: includes {path}: {mine}/ and {theirs}/ are siblings over session/; move what both need there")
                elif RANK[theirs] > RANK[mine]:
                    problems.append(f"{rel}: includes {path}, which points up from {mine} to {theirs} "
                                    f"(layers, lowest first: {', '.join(LAYERS)})")
    return problems


LINK_CALL = re.compile(r"target_link_libraries\(\s*(\S+)(.*?)\)", re.S)
LINKED = re.compile(r"opcert(?:::|_)(abi|sdk|model|opkit|loader|platform|reference|ops|op_\w+|check|ranks|reports|compare|selftest|certify|session|golden|run|bench)\b")


def check_links(root):
    problems = []
    for rel in [f for top in ("harness", "reports") for f in cmake_files(root, top)]:
        mine = layer_of(rel.replace("CMakeLists.txt", "x.h"))
        if mine is None:
            continue
        text = open(os.path.join(root, rel), encoding="utf-8").read()
        for target, args in LINK_CALL.findall(text):
            for name in LINKED.findall(args):
                theirs = "ops" if name.startswith("op_") else TARGET_LAYER[name]
                if theirs == mine:
                    continue
                if (mine, theirs) in SIBLINGS or RANK[theirs] > RANK[mine]:
                    problems.append(f"{rel}: {target} links opcert::{name}, which is not below {mine}")
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


def check(root):
    return check_includes(root) + check_links(root) + check_names(root) + check_source_globs(root)


def self_test(root):
    """Plants one violation of each rule in a copy of the tree; each must be reported."""
    plants = {
        "harness/model/zz_up.h": '#include "session/targets.h"\n',
        "harness/run/zz_sibling.cpp": '#include "bench/bench_job.h"\n',
        "harness/ops/gemm/zz_cross.cpp": '#include "ops/softmax/softmax.h"\n',
        "backends/cpu/zz_harness.cpp": '#include "model/case.h"\n',
        "harness/check/zz_name.cpp": 'const char* k = "softmax";\n',
        "reports/zz_peer.cpp": 'const char* p = "vs torch";\n',
    }
    expected = ["zz_up.h", "zz_sibling.cpp", "zz_cross.cpp", "zz_harness.cpp", "zz_name.cpp", "zz_peer.cpp",
                "links opcert::bench", "backends/cpu/CMakeLists.txt: globs"]
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
        found = check(copy)
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
