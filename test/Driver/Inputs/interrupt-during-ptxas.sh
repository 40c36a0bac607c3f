#!/usr/bin/env bash
# interrupt-during-ptxas.sh TILEC INPUT.tile SCRATCH CUDA_PATH [SIGNAL]
#
# Compiles INPUT.tile to a cubin with a CUDA toolkit whose ptxas hangs,
# sends SIGNAL (TERM by default) to tilec once ptxas runs, and prints what
# the run left: tilec's exit status, the internal errors it reported,
# whether ptxas still runs, and the files left in the temporary folder and
# beside the output. With SIGNAL "ignored-INT", tilec starts with SIGINT
# ignored, as `cmd &` in a script does; it must keep running through a
# SIGINT, and SIGTERM then ends it.
set -u
tilec=$1 input=$2 scratch=$3 cuda=$4 signal=${5:-TERM}

rm -rf "$scratch" && mkdir -p "$scratch/cuda/bin" "$scratch/cuda/nvvm" "$scratch/tmp"
ln -s "$cuda/nvvm/libdevice" "$scratch/cuda/nvvm/libdevice"
cat > "$scratch/cuda/bin/ptxas" <<SCRIPT
#!/bin/sh
echo \$\$ > "$scratch/ptxas.pid"
exec sleep 300
SCRIPT
chmod +x "$scratch/cuda/bin/ptxas"

if [[ $signal == ignored-INT ]]; then
  (trap '' INT; TMPDIR="$scratch/tmp" exec "$tilec" "$input" \
    --cuda-path "$scratch/cuda" -o "$scratch/out.cubin" 2>"$scratch/stderr") &
else
  TMPDIR="$scratch/tmp" "$tilec" "$input" --cuda-path "$scratch/cuda" \
    -o "$scratch/out.cubin" 2>"$scratch/stderr" &
fi
compiler=$!
for _ in $(seq 600); do
  [[ -s $scratch/ptxas.pid ]] && break
  sleep 0.1
done
[[ -s $scratch/ptxas.pid ]] || { echo "ptxas never started"; exit 1; }
if [[ $signal == ignored-INT ]]; then
  kill -INT "$compiler"
  sleep 1
  if kill -0 "$compiler" 2>/dev/null; then echo "after SIGINT: running"; fi
  signal=TERM
fi
kill -"$signal" "$compiler"
wait "$compiler"
echo "tilec exit status: $?"
echo "internal errors: $(grep -c 'internal error' "$scratch/stderr")"

ptxas=$(cat "$scratch/ptxas.pid")
for _ in $(seq 100); do
  # A child that has ended but not yet been reaped is a zombie.
  state=$(awk '{print $3}' "/proc/$ptxas/stat" 2>/dev/null)
  [[ -z $state || $state == Z ]] && break
  sleep 0.1
done
if [[ -z $state || $state == Z ]]; then echo "ptxas: ended"; else echo "ptxas: still running"; kill "$ptxas"; fi
echo "temporary folder: $(ls -A "$scratch/tmp" | wc -l) entries"
echo "outputs: $(ls -A "$scratch" | grep -c out)"
