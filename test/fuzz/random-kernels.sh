#!/usr/bin/env bash
#===- random-kernels.sh - Compile random kernels and check every run ------===#
#
# Usage: test/fuzz/random-kernels.sh BUILD_DIR SECONDS [FIRST_SEED]
#
# Replays the random kernels of test/fuzz/regressions/ (random-*.tile, each
# of which must compile), then compiles kernels of random_kernels.py, seed
# after seed from FIRST_SEED (default: one drawn from the clock), for
# SECONDS, with BUILD_DIR/bin/tilec, and checks each run
# (check_random_kernels.py: no crash, internal error, sanitizer report or
# error without a location, 10 s and 1 GiB at most, outputs written only
# on success, and headers that compile as C99 and C++17). Prints the seeds
# run and how many compiled for each target; exits non-zero if a run
# failed, each failing kernel copied to
# test/fuzz/regressions/random-SEED-ORACLE.tile and kept in
# BUILD_DIR/random-kernels/, or if too many kernels were user errors.
# Reproduce a seed with
#
#   python3 test/fuzz/random_kernels.py SEED -o k.tile
#   tilec k.tile $(head -1 k.tile | cut -c3-)
#
# RANDOM_KERNELS_JOBS sets how many kernels compile at once (default: the
# number of processors). docs/robustness.md says more.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 BUILD_DIR SECONDS [FIRST_SEED]" >&2
  exit 2
fi
build=$1
seconds=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tilec=$build/bin/tilec
if [[ ! -x $tilec ]]; then
  echo "random-kernels.sh: no $tilec" >&2
  exit 2
fi
jobs=${RANDOM_KERNELS_JOBS:-$(nproc)}

status=0
shopt -s nullglob
regressions=("$here"/regressions/random-*.tile)
if (( ${#regressions[@]} )); then
  echo "random-kernels.sh: replaying ${#regressions[@]} random kernels of test/fuzz/regressions"
  python3 "$here/check_random_kernels.py" "$tilec" --replay "${regressions[@]}" || status=1
fi

python3 "$here/check_random_kernels.py" "$tilec" --seconds "$seconds" \
  ${3:+--first-seed "$3"} --jobs "$jobs" --regressions "$here/regressions" \
  --work "$build/random-kernels" || status=1
exit $status
