#!/usr/bin/env bash
# Benchmarks the same rows with this tree's opcert and with an older commit's, alternately, on the
# GPU machine, then compares them with `opcert compare` (rank test over the repetitions): the check
# that a refactor did not move GPU figures. The older source comes as a `git archive` tarball
# (make it here: git archive COMMIT | gzip > old.tar.gz; the device machine has no .git).
# Usage:
#   ci/gpu/bench_against.sh OLD.tar.gz NAME SUITE FILTER [opcert bench flags...]
# Writes $OUT/NAME-old.txt, NAME-new.txt (the tables), NAME-compare.md and NAME-compare.txt.
# Both builds stay between calls while the machine is warm (build/gpu, build/gpu-old).
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
old_tar=$1 name=$2 suite=$3 filter=$4
shift 4
mkdir -p "${OUT:=out}"
old_src=$root/build/old-src
if [ ! -x "$old_src/build/gpu/harness/cli/opcert" ]; then
  rm -rf "$old_src" && mkdir -p "$old_src"
  tar -xzf "$old_tar" -C "$old_src" || { echo "cannot unpack $old_tar"; exit 2; }
  (cd "$old_src" && ci/gpu/build.sh) > "$OUT/$name-build-old.log" 2>&1 || { tail -20 "$OUT/$name-build-old.log"; exit 2; }
fi
[ -x build/gpu/harness/cli/opcert ] || ci/gpu/build.sh > "$OUT/$name-build-new.log" 2>&1 || { tail -20 "$OUT/$name-build-new.log"; exit 2; }
work=/tmp/opcert-against/$name
rm -rf "$work" && mkdir -p "$work"
# Old first, then new: each row's pair is minutes apart at most; the rank test judges the gap.
bench_args=("$@")
run_one() { local which=$1 bin=$2; shift 2; "$bin" bench --backend cuda --suite "$suite" --filter "$filter" \
  --out "$work/$which" "${bench_args[@]}" > "$OUT/$name-$which.txt" 2> "$work/$which.stderr"
  echo "bench $which rc=$? $(date -u +%H:%M:%S)" | tee -a "$OUT/$name-$which.txt"; }
run_one old "$old_src/build/gpu/harness/cli/opcert"
run_one new build/gpu/harness/cli/opcert
build/gpu/harness/cli/opcert compare "$work/old" "$work/new" --markdown "$OUT/$name-compare.md" \
  > "$OUT/$name-compare.txt" 2>&1
echo "compare rc=$?" | tee -a "$OUT/$name-compare.txt"
tail -25 "$OUT/$name-compare.txt"
