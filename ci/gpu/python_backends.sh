#!/usr/bin/env bash
# The Python bridge on the GPU machine (docs/PYTHON.md): builds opcert with its bridge against the
# machine's PyTorch, pip-installs the Triton example into that Python with no index, then
#   list     opcert list: the example found through its entry point
#   run      its conformance on the rms_norm and softmax sweeps, torch the peer
#   bench    bench/norms' rms_norm and softmax rows against torch in the same run, 3 repetitions
#            of at least 0.3 s and at most 1 s each, with each repetition's clocks
#            (ci/gpu/bench_conditions.py)
# Logs go to $OUT (default out/). Usage: ci/gpu/python_backends.sh [run|bench]... (default: both)
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p "${OUT:=out}"
steps=${*:-run bench}
work=/tmp/opcert-python
rm -rf "$work" && mkdir -p "$work"
opcert=build/gpu/harness/cli/opcert

ci/gpu/build.sh > "$OUT/01-build.txt" 2>&1 || { cat "$OUT/01-build.txt"; exit 2; }
grep -E "Python bridge" build/gpu.configure.log >> "$OUT/01-build.txt"
python3 -m pip install --no-deps --no-index ./examples/python-triton-backend > "$OUT/02-install.txt" 2>&1 \
  || { cat "$OUT/02-install.txt"; exit 2; }
"$opcert" list > "$OUT/03-list.txt" 2>&1
status=0
[[ " $steps " == *" run "* ]] && for suite in sweeps/rms_norm sweeps/softmax; do
  name=${suite//\//-}
  "$opcert" run --backend triton_example --suite "$suite" --out "$work/$name" --progress plain \
    > "$OUT/04-run-$name.txt" 2>&1 || status=1
  python3 ci/gpu/worst_alignment.py "$work/$name/report.json" >> "$OUT/04-run-$name.txt" 2>&1
done
[[ " $steps " == *" bench "* ]] || exit $status
"$opcert" bench --backend triton_example --suite bench/norms --filter 'rms_norm|softmax' --out "$work/bench" \
  --benchmark_min_time=0.3s --benchmark_repetitions=3 --max-time 1 > "$OUT/05-bench.txt" 2> "$work/bench.stderr" || status=1
tail -5 "$work/bench.stderr" >> "$OUT/05-bench.txt"
[ -f "$work/bench/report.json" ] && python3 ci/gpu/bench_conditions.py "$work/bench/report.json" >> "$OUT/05-bench.txt" 2>&1
cp "$work/bench/report.json" "$OUT/bench-report.json" 2>/dev/null
exit $status
