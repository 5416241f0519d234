#!/usr/bin/env python3
"""Checks that the unit tests a main tree leaves to the sanitizer tree run there, and only there.

Usage: unit_tests_run_once.py LIST SANITIZER_TREE MAIN_TREE PRESETS_JSON

LIST is the sanitizer tree's unit_tests_run_here.txt. Each binary it names must be the command of
at least one test that the sanitizer tree's ctest runs under its test preset's label filter
(CMakePresets.json, test preset "asan"), and of none in the main tree. Exit 0 when so, 1 with one
line per binary that breaks it.
"""
import json
import os
import subprocess
import sys


def ctest_binaries(tree, exclude_label=None):
    """The binaries (file names) of the tests ctest would run in TREE."""
    command = ["ctest", "--test-dir", tree, "--show-only=json-v1"]
    if exclude_label:
        command += ["--label-exclude", exclude_label]
    listing = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    return {os.path.basename(t["command"][0]) for t in listing["tests"] if t.get("command")}


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    listed_file, sanitizer_tree, main_tree, presets_file = sys.argv[1:]
    with open(listed_file, encoding="utf-8") as f:
        listed = [line.strip() for line in f if line.strip()]
    with open(presets_file, encoding="utf-8") as f:
        presets = json.load(f)
    asan = next(p for p in presets["testPresets"] if p["name"] == "asan")
    excluded = asan.get("filter", {}).get("exclude", {}).get("label")
    there = ctest_binaries(sanitizer_tree, excluded)
    here = ctest_binaries(main_tree)
    problems = []
    for binary in listed:
        if binary not in there:
            problems.append(f"{binary}: left out of {main_tree} but no test of it runs in {sanitizer_tree}'s ctest "
                            f"(build the sanitizer tree, or check its test preset's labels)")
        if binary in here:
            problems.append(f"{binary}: listed as run in {sanitizer_tree} but its tests are also in {main_tree}")
    if not listed:
        problems.append(f"{listed_file}: names no binary; the sanitizer tree builds unit tests")
    for p in problems:
        print(p)
    print(f"{len(listed)} unit-test binaries run in the sanitizer tree only; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
