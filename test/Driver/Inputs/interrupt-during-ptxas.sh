#!/usr/bin/env bash
# interrupt-during-ptxas.sh TILEC INPUT.tile SCRATCH CUDA_PATH
#
# Compiles INPUT.tile to a cubin with a CUDA toolkit whose ptxas hangs,
# sends SIGTERM to tilec once ptxas runs, and prints what the run left:
# tilec's exit status, whether ptxas still runs, and the files left in the
# temporary folder and beside the output.
set -u
tilec=$1 input=$2 scratch=$3 cuda=$4

rm -rf "$scratch" && mkdir -p "$scratch/cuda/bin" "$scratch/cuda/nvvm" "$scratch/tmp"
ln -s "$cuda/nvvm/libdevice" "$scratch/cuda/nvvm/libdevice"
cat > "$scratch/cuda/bin/ptxas" <<SCRIPT
#!/bin/sh
echo \$\$ > "$scratch/ptxas.pid"
exec sleep 300
SCRIPT
chmod +x "$scratch/cuda/bin/ptxas"

TMPDIR="$scratch/tmp" "$tilec" "$input" --cuda-path "$scratch/cuda" \
  -o "$scratch/out.cubin" &
compiler=$!
for _ in $(seq 600); do
  [[ -s $scratch/ptxas.pid ]] && break
  sleep 0.1
done
[[ -s $scratch/ptxas.pid ]] || { echo "ptxas never started"; exit 1; }
kill -TERM "$compiler"
wait "$compiler"
echo "tilec exit status: $?"

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
