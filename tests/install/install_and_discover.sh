#!/usr/bin/env bash
# Installs an opcert build tree into a fresh prefix (checking that <libdir>/opcert holds no test
# code: the mutant backend lies in <libexecdir>/opcert), builds examples/plugin against that prefix
# (find_package(opcert) only, as a vendor would), installs the plugin into the same prefix, and
# checks that the installed `opcert list` discovers it through OPCERT_PLUGIN_PATH; then certifies it
# on plan basic with a fresh Ed25519 key, verifies the bundle against its library, checks that a
# rebuilt library is refused, and that the install, moved to another prefix, runs the smoke suite
# from its own share/opcert/suites.
#
#   install_and_discover.sh --build-dir DIR --source-dir DIR [--cmake CMAKE] [--generator GEN]
#                           [--cxx COMPILER] [--python PYTHON] [--config CONFIG]
#
# Each step says what it does; a failing step names itself, says what went wrong, shows the end of
# its log and keeps the work directory. OPCERT_KEEP_TMP=1 keeps it on success too.
set -euo pipefail

build_dir="" source_dir="" cmake="cmake" generator="" cxx="" python="python3" config=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="$2" ;;
    --source-dir) source_dir="$2" ;;
    --cmake) cmake="$2" ;;
    --generator) generator="$2" ;;
    --cxx) cxx="$2" ;;
    --python) python="$2" ;;
    --config) config="$2" ;;
    *) echo "install_and_discover: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
[[ -n "$build_dir" && -n "$source_dir" ]] || { echo "install_and_discover: --build-dir and --source-dir are required" >&2; exit 2; }

# Checked before any work directory exists; reported as step 1 below.
prerequisite_problem=""
if ! command -v "$python" >/dev/null; then
  prerequisite_problem="python3 ('$python') is needed to check \`opcert list --json\`"
elif [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  prerequisite_problem="$build_dir is not a configured CMake build tree"
elif [[ ! -f "$source_dir/examples/plugin/CMakeLists.txt" ]]; then
  prerequisite_problem="$source_dir/examples/plugin/CMakeLists.txt is missing"
fi

# Only what this script sets may steer opcert.
unset OPCERT_BACKENDS OPCERT_PLATFORM OPCERT_PLATFORM_JSON OPCERT_PLUGIN_PATH

# The loader refuses libraries in world-writable directories: keep every directory we create 0755,
# under a work directory that only we can write to (mktemp -d makes it 0700).
umask 022
work="$(mktemp -d "${TMPDIR:-/tmp}/opcert-install-test.XXXXXX")"
work="$(cd "$work" && pwd -P)"  # the loader reports canonical paths
prefix="$work/prefix"
example_build="$work/example-build"
plugins="$prefix/share/opcert/plugins"
current_step="setup"
current_log=""

cleanup() {
  local rc=$?
  if [[ $rc -ne 0 && "$current_step" == 1/* ]]; then
    rm -rf "$work"  # nothing in it yet
  elif [[ $rc -ne 0 ]]; then
    echo "install_and_discover: work directory kept for inspection: $work" >&2
  elif [[ "${OPCERT_KEEP_TMP:-0}" == 1 ]]; then
    echo "install_and_discover: work directory kept: $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

step() {
  current_step="$1"
  current_log="$work/step-${1%%/*}.log"
  echo "==> $1"
}

fail() {
  {
    echo
    echo "install_and_discover: FAILED at step [$current_step]"
    echo "install_and_discover: $*"
    if [[ -n "$current_log" && -s "$current_log" ]]; then
      echo "---- last 60 lines of $current_log ----"
      tail -n 60 "$current_log"
      echo "----"
    fi
  } >&2
  exit 1
}

# Runs a command with its output in the step's log; fails the step with the command line if it fails.
run() {
  echo "    \$ $*"
  echo "\$ $*" >>"$current_log"
  "$@" >>"$current_log" 2>&1 || fail "command exited with status $?: $*"
}

config_args=()
[[ -n "$config" ]] && config_args=(--config "$config")
generator_args=()
[[ -n "$generator" ]] && generator_args=(-G "$generator")
compiler_args=()
[[ -n "$cxx" ]] && compiler_args=("-DCMAKE_CXX_COMPILER=$cxx")

# ------------------------------------------------------------------------------------------------
step "1/13 check prerequisites"
[[ -n "$prerequisite_problem" ]] && fail "$prerequisite_problem"

step "2/13 install the opcert build tree into $prefix"
run "$cmake" --install "$build_dir" --prefix "$prefix" "${config_args[@]}"
[[ -x "$prefix/bin/opcert" ]] ||
  fail "$prefix/bin/opcert was not installed: build the 'opcert' target before running this test (cmake --build $build_dir)"
config_file="$(find "$prefix" -path '*/cmake/opcert/opcertConfig.cmake' -print -quit)"
[[ -n "$config_file" ]] || fail "no opcertConfig.cmake under $prefix: the package files were not installed"
for header in opcert/backend_abi.h opcert/sdk/backend.h opcert/sdk/api_table.h opcert/sdk/error.h opcert/sdk/op_call.h; do
  [[ -f "$prefix/include/$header" ]] || fail "header $header was not installed under $prefix/include"
done
echo "    installed: bin/opcert, include/opcert, ${config_file#"$prefix/"}"
# <libdir>/opcert holds what backs real runs and nothing else: no mutant backend (opcert selftest's
# lies in <libexecdir>/opcert) and no test plugin.
libdir="$(dirname "$(dirname "$(dirname "$config_file")")")"
if [[ -d "$libdir/opcert" ]]; then
  while IFS= read -r -d '' file; do
    case "$(basename "$file")" in
      libopcert_python.so) ;;
      *) fail "${file#"$prefix/"} was installed: ${libdir#"$prefix/"}/opcert is for the Python bridge only, not test code" ;;
    esac
  done < <(find "$libdir/opcert" -mindepth 1 -print0)
fi
[[ -f "$prefix/libexec/opcert/libopcert_mutants.so" ]] ||
  fail "opcert selftest's mutant backend was not installed as libexec/opcert/libopcert_mutants.so"

step "3/13 configure examples/plugin against the install prefix"
run "$cmake" -S "$source_dir/examples/plugin" -B "$example_build" "${generator_args[@]}" "${compiler_args[@]}" \
  "-DCMAKE_PREFIX_PATH=$prefix" "-DCMAKE_INSTALL_PREFIX=$prefix" -DCMAKE_BUILD_TYPE=Release
found_dir="$(sed -n 's/^opcert_DIR:PATH=//p' "$example_build/CMakeCache.txt")"
[[ "$(cd "$found_dir" 2>/dev/null && pwd -P)" == "$(dirname "$config_file")" ]] ||
  fail "find_package(opcert) found '$found_dir', not the package installed in $prefix"

step "4/13 build examples/plugin"
run "$cmake" --build "$example_build"

step "5/13 install examples/plugin into the same prefix"
run "$cmake" --install "$example_build"
manifest="$plugins/example_npu.json"
[[ -f "$manifest" ]] || fail "the example did not install its manifest to $manifest"
echo "    manifest: $(tr -d '\n ' <"$manifest")"

step "6/13 run the example's own tests (opcert::opcert from the package, the build tree as plugin dir)"
run "$cmake" -E chdir "$example_build" ctest --output-on-failure "${config_args[@]}"
grep -q "example_npu.loads" "$current_log" || fail "the example's ctest ran no test: opcert::opcert was not defined by the package"

step "7/13 opcert list finds the plugin through OPCERT_PLUGIN_PATH"
list_out="$work/list.txt"
current_log="$list_out"
status=0
OPCERT_PLUGIN_PATH="$plugins" "$prefix/bin/opcert" list >"$list_out" 2>&1 || status=$?
[[ $status -eq 0 ]] || fail "opcert list exited with status $status"
grep -qF "example_npu" "$list_out" || fail "opcert list does not mention the backend 'example_npu'"
grep -qF "example_npu.softmax.reference" "$list_out" ||
  fail "opcert list does not show the implementation 'example_npu.softmax.reference'"
grep -F "example_npu" "$list_out" | sed 's/^/    | /'

step "8/13 opcert list --json shows the plugin with its provenance"
json_out="$work/list.json"
current_log="$json_out"
status=0
OPCERT_PLUGIN_PATH="$plugins" "$prefix/bin/opcert" list --json >"$json_out" 2>"$work/list.json.stderr" || status=$?
[[ $status -eq 0 ]] || fail "opcert list --json exited with status $status: $(cat "$work/list.json.stderr")"
"$python" - "$json_out" "$manifest" >>"$work/check-json.log" 2>&1 <<'PY' || { current_log="$work/check-json.log"; fail "opcert list --json is not what was expected (see below)"; }
import hashlib, json, os, sys

doc_path, manifest = sys.argv[1], os.path.realpath(sys.argv[2])
try:
    with open(doc_path) as f:
        doc = json.load(f)
except ValueError as e:
    sys.exit(f"output is not valid JSON: {e}")

def expect(cond, what):
    if not cond:
        sys.exit(what)

backends = {b.get("name"): b for b in doc.get("backends", [])}
bad = [u for u in doc.get("unavailable", []) if "example_npu" in json.dumps(u)]
expect(not bad, f"example_npu is listed as unavailable: {bad}")
expect("example_npu" in backends, f"no backend named example_npu; backends: {sorted(backends)}")
b = backends["example_npu"]
keys = [i.get("key") for i in b.get("implementations", [])]
expect("example_npu.softmax.reference" in keys, f"implementation key missing; keys: {keys}")

src = b.get("source", {})
expect(src.get("kind") == "plugin", f"source.kind is {src.get('kind')!r}, not 'plugin'")
with open(manifest) as f:
    declared = json.load(f)["backend"]["library_path"]
library = os.path.realpath(os.path.join(os.path.dirname(manifest), declared))
expect(os.path.realpath(src.get("manifest_path", "")) == manifest,
       f"source.manifest_path is {src.get('manifest_path')!r}, expected {manifest}")
expect(src.get("library_path") == library, f"source.library_path is {src.get('library_path')!r}, expected {library}")
with open(library, "rb") as f:
    digest = hashlib.sha256(f.read()).hexdigest()
expect(src.get("sha256") == digest, f"source.sha256 is {src.get('sha256')!r}, the library's sha256 is {digest}")
print(f"example_npu {b.get('version')} ({b.get('vendor')}), ABI {b.get('abi_version')}, "
      f"library {library}, sha256 {digest}")
PY
sed 's/^/    /' "$work/check-json.log"

step "9/13 opcert certify the plugin on plan basic, and opcert verify the bundle against its library"
bundle="$work/certificate"
library="$("$python" -c 'import json,os,sys; m=sys.argv[1]; print(os.path.realpath(os.path.join(os.path.dirname(m), json.load(open(m))["backend"]["library_path"])))' "$manifest")"
openssl genpkey -algorithm ed25519 -out "$work/vendor.pem" >>"$current_log" 2>&1 || fail "openssl could not make an Ed25519 key"
openssl pkey -in "$work/vendor.pem" -pubout -out "$work/vendor.pub" >>"$current_log" 2>&1 || fail "openssl could not write the public key"
run env OPCERT_PLUGIN_PATH="$plugins" "$prefix/bin/opcert" certify --backend example_npu --plan basic --out "$bundle" \
  --sign-key "$work/vendor.pem"
run env OPCERT_PLUGIN_PATH="$plugins" "$prefix/bin/opcert" verify "$bundle" --pubkey "$work/vendor.pub" --plugin "$library"
grep -q '"verdict": "certified"' "$bundle/manifest.json" || fail "the example plugin was not certified (see $bundle/summary.md)"
echo "    certified: $(sed -n 's/.*\*\*\(.*\)\*\*.*/\1/p' "$bundle/summary.md" | head -n 1), library $library"

step "10/13 opcert verify rejects a rebuilt plugin library"
rebuilt="$work/example-rebuilt"
run "$cmake" -S "$source_dir/examples/plugin" -B "$rebuilt" "${generator_args[@]}" "${compiler_args[@]}" \
  "-DCMAKE_PREFIX_PATH=$prefix" -DCMAKE_BUILD_TYPE=Debug
run "$cmake" --build "$rebuilt"
rebuilt_library="$(find "$rebuilt" -name "$(basename "$library")" -print -quit)"
[[ -n "$rebuilt_library" ]] || fail "the rebuilt example has no $(basename "$library")"
status=0
"$prefix/bin/opcert" verify "$bundle" --plugin "$rebuilt_library" >"$work/verify-rebuilt.txt" 2>&1 || status=$?
current_log="$work/verify-rebuilt.txt"
[[ $status -eq 1 ]] || fail "opcert verify exited $status for a rebuilt library, not 1"
grep -q "is not the certified library" "$work/verify-rebuilt.txt" || fail "opcert verify did not say the library differs"
sed -n 's/^INVALID: /    refused: /p' "$work/verify-rebuilt.txt"

step "11/13 a moved install stands alone: opcert run --suite smoke reads the prefix's own suites"
moved="$work/moved-prefix"
run cp -a "$prefix" "$moved"
run env -u OPCERT_SUITE_PATH "$moved/bin/opcert" run --backend cpu --no-peer --suite smoke --filter '^softmax' \
  --progress plain --out "$work/standalone"
"$python" - "$work/standalone/report.json" "$moved" >>"$current_log" 2>&1 <<'PY' || fail "the moved install did not read its own suites (see below)"
import json, os, sys
report, moved = json.load(open(sys.argv[1])), os.path.realpath(sys.argv[2])
path = os.path.realpath(report["suite"]["path"])
if not path.startswith(os.path.join(moved, "share", "opcert", "suites") + os.sep):
    sys.exit(f"suite read from {path}, not from {moved}/share/opcert/suites")
if not report["results"] or any(r["status"] != "PASSED" for r in report["results"]):
    sys.exit("no results, or not all PASSED")
if any("--suite smoke" not in r["repro"] for r in report["results"]):
    sys.exit("a repro line does not name the suite as the user typed it")
print(f"    {len(report['results'])} results from {path}")
PY
tail -n 1 "$current_log"

step "12/13 the moved install's Python bridge serves a Python backend with the prefix's own opcert API"
bridge="$(find "$moved" -name 'libopcert_python.so' -print -quit)"
if [[ -z "$bridge" ]]; then
  echo "    skipped: this build has no Python bridge (OPCERT_WITH_PYTHON)"
else
  module_dir="$work/python-module"
  mkdir -p "$module_dir"
  # A backend that reports where the opcert API it imported lies: the bridge must give it the
  # prefix's share/opcert/python, not the source tree's.
  cat > "$module_dir/where_ops.py" <<'PY'
import os
import opcert

backend = opcert.Backend("where_ops", description=os.path.dirname(os.path.realpath(opcert.__file__)))
PY
  printf '{"file_format_version": "1.1.0", "backend": {"name": "where_ops", "python": "where_ops:backend", "abi_version": "1.3"}}\n' \
    > "$module_dir/where_ops.json"
  echo "\$ PYTHONPATH=$module_dir $moved/bin/opcert list --json --plugin-dir $module_dir" >>"$current_log"
  env PYTHONPATH="$module_dir" "$moved/bin/opcert" list --json --plugin-dir "$module_dir" >"$work/where.json" \
    2>>"$current_log" || fail "opcert list --json exited with status $?"
  "$python" - "$work/where.json" "$moved" >>"$current_log" 2>&1 <<'PY' || fail "the moved install's bridge did not serve where_ops from its own files (see below)"
import json, os, sys
doc = json.load(open(sys.argv[1]))
moved = os.path.realpath(sys.argv[2])
where = next((b for b in doc["backends"] if b["name"] == "where_ops"), None)
if where is None:
    sys.exit(f"where_ops is not listed; unavailable: {doc['unavailable']}")
if not os.path.realpath(where["source"]["library_path"]).startswith(moved + os.sep):
    sys.exit(f"the bridge was loaded from {where['source']['library_path']}, not from {moved}")
if not where["description"].startswith(os.path.join(moved, "share", "opcert", "python")):
    sys.exit(f"the opcert API came from {where['description']}, not from {moved}/share/opcert/python")
print(f"    where_ops served by {where['source']['library_path']} with the API of {where['description']}")
PY
  tail -n 1 "$current_log"
fi

step "13/13 the moved install's opcert selftest loads the prefix's own mutant backend"
printf '{"suite_format": "1.0", "cases": [{"op": "softmax", "params": {"dtype": "fp32", "rows": 64, "n": 1000}}]}\n' > "$work/softmax.json"
run env -u OPCERT_SUITE_PATH "$moved/bin/opcert" selftest --suite "$work/softmax.json" --mutant 'mutants.softmax.last_dropped' \
  --out "$work/selftest"
"$python" - "$work/selftest" "$moved" >>"$current_log" 2>&1 <<'PY' || fail "the moved install's selftest did not use its own mutant backend (see below)"
import glob, json, os, sys
report = json.load(open(glob.glob(os.path.join(sys.argv[1], "*", "report.json"))[0]))
moved = os.path.realpath(sys.argv[2])
mutants = next(b for b in report["backends"] if b["name"] == "mutants")
if not os.path.realpath(mutants["library_path"]).startswith(os.path.join(moved, "libexec", "opcert") + os.sep):
    sys.exit(f"the mutant backend was loaded from {mutants['library_path']}, not from {moved}/libexec/opcert")
if not json.load(open(os.path.join(sys.argv[1], "selftest.json")))["clean"]:
    sys.exit("selftest.json is not clean")
print(f"    mutants from {mutants['library_path']}; last_dropped caught")
PY
tail -n 1 "$current_log"

echo "install_and_discover: OK"
