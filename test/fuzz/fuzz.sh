#!/usr/bin/env bash
#===- fuzz.sh - Replay tilec-fuzz's regressions, then fuzz ----------------===#
#
# Usage: test/fuzz/fuzz.sh BUILD_DIR [SECONDS]
#
# BUILD_DIR is a build with -DTILEC_BUILD_FUZZER=ON (and sanitizers; see
# docs/robustness.md). Runs every input of test/fuzz/regressions/ and every
# seed once, then fuzzes for SECONDS (default 300) from the seeds. Exits
# non-zero on the first crash, sanitizer report, internal error, hang over
# 20 s or memory use over 2 GiB; the input is printed and kept in
# BUILD_DIR/fuzz/findings/. New corpus entries go to BUILD_DIR/fuzz/corpus,
# which later runs reuse.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [SECONDS]" >&2
  exit 2
fi
build=$1
seconds=${2:-300}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fuzzer=$build/bin/tilec-fuzz
if [[ ! -x $fuzzer ]]; then
  echo "fuzz.sh: no $fuzzer; configure $build with -DTILEC_BUILD_FUZZER=ON" >&2
  exit 2
fi

work=$build/fuzz
rm -rf "$work/seeds"
mkdir -p "$work/corpus" "$work/findings"
python3 "$root/test/fuzz/collect_seeds.py" "$work/seeds"

limits=(-timeout=20 -rss_limit_mb=2048 -max_len=16384
        -artifact_prefix="$work/findings/")

echo "fuzz.sh: replaying the regressions and the seeds"
"$fuzzer" "${limits[@]}" -runs=0 "$root/test/fuzz/regressions" "$work/seeds" \
  > "$work/replay.log" 2>&1 || {
  status=$?
  tail -n 60 "$work/replay.log"
  echo "fuzz.sh: a regression input or seed fails (exit $status)" >&2
  exit 1
}
grep -E '^#[0-9]+[[:space:]]+DONE' "$work/replay.log"

echo "fuzz.sh: fuzzing for $seconds s"
"$fuzzer" "${limits[@]}" -max_total_time="$seconds" -print_final_stats=1 \
  -dict="$root/test/fuzz/tile.dict" "$work/corpus" "$work/seeds" \
  > "$work/fuzz.log" 2>&1 || {
  status=$?
  grep -v '^#[0-9]' "$work/fuzz.log" | tail -n 60
  echo "fuzz.sh: tilec-fuzz found a problem (exit $status); the input is" \
       "in $work/findings/" >&2
  exit 1
}
grep -E '^(INFO: Loaded 1 modules|Done|stat::)' "$work/fuzz.log"
grep -E '^#[0-9]+' "$work/fuzz.log" | tail -n 1
