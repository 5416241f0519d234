#!/usr/bin/env bash
# The opcert script's first configure of a tree (its first_configure_arguments): the `cuda` tree
# on a machine without a CUDA driver (CI) compiles sm_80 as PTX only; with a driver, and for every
# other preset, the preset's architectures stay. The driver probe is the one thing replaced: this
# machine has one answer, the test checks both. Usage: opcert_script_test.sh PATH/TO/opcert
set -euo pipefail
opcert="$1"
set --  # sourced without arguments: a script that runs its main would print its usage and exit 2
# shellcheck source=/dev/null
source "$opcert"
failures=0
expect() {
  local what="$1" want="$2" got="$3"
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: expected '$want', got '$got'" >&2
    failures=$((failures + 1))
  fi
}

have_cuda_driver() { return 1; }
expect "cuda preset, no driver" "-DCMAKE_CUDA_ARCHITECTURES=80-virtual;90a-real" "$(first_configure_arguments cuda)"
expect "default preset, no driver" "" "$(first_configure_arguments default)"
expect "asan preset, no driver" "" "$(first_configure_arguments asan)"
# One argument, the semicolon inside it, as configure_and_build reads it into its array.
read -r -a extra <<<"$(first_configure_arguments cuda)"
expect "arguments read by configure_and_build" "1" "${#extra[@]}"

have_cuda_driver() { return 0; }
expect "cuda preset, a driver" "" "$(first_configure_arguments cuda)"

[ "$failures" = 0 ] || exit 1
echo "ok"
