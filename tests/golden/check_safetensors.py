#!/usr/bin/env python3
"""Checks a golden set as an outside reader would, with the safetensors format's rules and nothing
of opcert's code: every file the manifest lists has its sha256, an 8-byte little-endian header
length, a JSON header whose tensors have known dtypes, shapes that match their byte ranges and
ranges that tile the data exactly; each case's metadata names it. One line per problem, exit 1.

    check_safetensors.py SET_DIR
"""
import hashlib
import json
import math
import os
import struct
import sys

SIZES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
         "I32": 4, "U32": 4, "F32": 4, "I64": 8, "U64": 8, "F64": 8}


def check_file(path, case_id):
    problems = []
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    body = len(data) - 8 - n
    ranges = []
    for name, t in header.items():
        if name == "__metadata__":
            if not all(isinstance(v, str) for v in t.values()):
                problems.append(f"{path}: __metadata__ holds a non-string")
            continue
        if t["dtype"] not in SIZES:
            problems.append(f"{path}: {name}: unknown dtype {t['dtype']}")
            continue
        begin, end = t["data_offsets"]
        if math.prod(t["shape"]) * SIZES[t["dtype"]] != end - begin:
            problems.append(f"{path}: {name}: {end - begin} bytes for shape {t['shape']} of {t['dtype']}")
        ranges.append((begin, end))
    ranges.sort()
    covered = 0
    for begin, end in ranges:
        if begin != covered:
            problems.append(f"{path}: gap or overlap at {covered}")
        covered = end
    if covered != body:
        problems.append(f"{path}: the tensors cover {covered} of {body} data bytes")
    meta = header.get("__metadata__", {})
    if meta.get("format") != "opcert-golden-case/1" or meta.get("case") != case_id:
        problems.append(f"{path}: metadata names {meta.get('case')!r} ({meta.get('format')!r}), not {case_id!r}")
    if not any(k.startswith("input.") for k in header) or not any(k.endswith(".values") for k in header):
        problems.append(f"{path}: no input or no reference values")
    return problems


def main():
    root = sys.argv[1]
    manifest = json.load(open(os.path.join(root, "manifest.json")))
    problems, files = [], 0
    for suite in manifest["suites"]:
        for case in suite["cases"]:
            if "error" in case:
                continue
            path = os.path.join(root, case["file"])
            digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
            if digest != case["sha256"]:
                problems.append(f"{path}: sha256 {digest}, the manifest says {case['sha256']}")
            problems += check_file(path, case["id"])
            files += 1
    for p in problems:
        print(p)
    print(f"{files} file(s) checked, {len(problems)} problem(s)")
    return 1 if problems or files == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
