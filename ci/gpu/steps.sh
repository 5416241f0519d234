#!/usr/bin/env bash
# Runs a list of steps on the GPU machine within one device call, each logged to $OUT, stopping
# before a step that would start after the deadline (so that what finished still comes back).
# Usage: ci/gpu/steps.sh DEADLINE_S STEP...   where STEP is one of
#   build                      ci/gpu/build.sh (opcert and the gpu-labelled tests)
#   ctest                      ctest -L gpu in the build
#   run:SUITE[:FILTER[:FLAGS]]    opcert run --backend cuda (torch the peer unless FLAGS say --no-peer)
#   bench:SUITE[:FILTER[:FLAGS]]  opcert bench --backend cuda, 3 repetitions of at least 0.3 s (FLAGS
#                              may override them), then ci/gpu/bench_conditions.py: each repetition's
#                              sampling and the GPU's clocks, power and reasons around it
# FLAGS: more opcert flags, space-separated (--impl GLOBS, --no-peer); no colons in FILTER or FLAGS.
#   benchpair:SUITE[:FILTER[:FLAGS]]  opcert bench --backend cuda with bench's own defaults (issue 42's
#                              targets), twice back to back, the second with --baseline the first and
#                              --max-slowdown 3: the log has each run's wall time and the gate's verdict
#   copy                       ci/gpu/copy_bandwidth.py (the memory-bound targets' yardstick)
#   crosscheck:SUITE[:FILTER]  ci/gpu/torch_crosscheck.py: opcert's torch rows beside torch alone
#   certify                    ci/gpu/certify_check.sh: certify --devices all, verify, golden vs LibTorch
# A step gets what is left of DEADLINE_S plus 60 s, then is stopped (its log so far comes back).
# At most 8 files come back: steps.txt (the summary) and one log per step, so name few steps.
set -uo pipefail
cd "$(dirname "$0")/../.."
deadline=$1
shift
start=$(date +%s)
mkdir -p "${OUT:=out}"
work=/tmp/opcert-steps
mkdir -p "$work"
opcert=build/gpu/harness/cli/opcert
summary="$OUT/steps.txt"
n=0
for step in "$@"; do
  n=$((n + 1))
  elapsed=$(( $(date +%s) - start ))
  if [ "$elapsed" -ge "$deadline" ]; then echo "$step: not started, ${elapsed}s elapsed" >> "$summary"; continue; fi
  IFS=: read -r kind suite filter flags <<< "$step"
  read -r -a extra <<< "${flags:-}"
  name=$(printf '%02d' "$n")-${kind}${suite:+-${suite//\//-}}
  log="$OUT/$name.txt"
  t0=$(date +%s)
  left=$(( deadline + 60 - elapsed ))
  case $kind in
    build) OPCERT_GPU_TESTS=1 ci/gpu/build.sh > "$log" 2>&1 ;;
    copy) timeout "$left" python3 ci/gpu/copy_bandwidth.py > "$log" 2>&1 ;;
    crosscheck)
      filter_args=()
      [ -n "${filter:-}" ] && filter_args=(--filter "$filter")
      timeout "$left" python3 ci/gpu/torch_crosscheck.py "$opcert" "$suite" "${filter_args[@]}" --out "$work/$name" \
        -- --benchmark_min_time=0.3s --benchmark_repetitions=3 --max-time 1 > "$log" 2>&1 ;;
    ctest) ctest --test-dir build/gpu -L gpu --output-on-failure > "$log" 2>&1 ;;
    certify) timeout "$left" ci/gpu/certify_check.sh "$work/$name" > "$log" 2>&1 ;;
    run)
      timeout "$left" "$opcert" run --backend cuda --suite "$suite" --filter "${filter:-}" --out "$work/$name" \
        --progress plain "${extra[@]}" > "$log" 2>&1
      rc=$?
      python3 ci/gpu/worst_alignment.py "$work/$name/report.json" >> "$log" 2>&1
      (exit $rc) ;;
    bench)
      timeout "$left" "$opcert" bench --backend cuda --suite "$suite" --filter "${filter:-}" --out "$work/$name" \
        --benchmark_min_time=0.3s --benchmark_repetitions=3 "${extra[@]}" > "$log" 2> "$work/$name.stderr"
      rc=$?
      tail -5 "$work/$name.stderr" >> "$log"
      [ -f "$work/$name/report.json" ] && python3 ci/gpu/bench_conditions.py "$work/$name/report.json" >> "$log" 2>&1
      (exit $rc) ;;
    benchpair)
      for which in first second; do
        gate=()
        [ "$which" = second ] && gate=(--baseline "$work/$name-first" --max-slowdown 3)
        t1=$(date +%s)
        timeout "$left" "$opcert" bench --backend cuda --suite "$suite" --filter "${filter:-}" --out "$work/$name-$which" \
          "${extra[@]}" "${gate[@]}" >> "$log" 2> "$work/$name-$which.stderr"
        rc=$?
        tail -3 "$work/$name-$which.stderr" >> "$log"
        echo "bench $which: rc=$rc in $(( $(date +%s) - t1 ))s" >> "$log"
        left=$(( deadline + 60 - ($(date +%s) - start) ))
        [ "$left" -gt 5 ] || left=5  # timeout 0 would mean none
        [ "$rc" = 0 ] || [ "$which" = second ] || break
      done
      (exit $rc) ;;
    *) echo "unknown step $step" > "$log"; false ;;
  esac
  echo "$step: rc=$? in $(( $(date +%s) - t0 ))s" >> "$summary"
done
cat "$summary"
