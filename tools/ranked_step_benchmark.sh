#!/usr/bin/env bash
# Three builds on one 4-GPU machine: sel (before), lag (lagged CFL limit), ea (and the step's
# end submitted with the next border pass). Then the model's calibration points and the
# load-balancing comparison with ea. Run from the repository root with the builds in
# .bench/quadflood-{sel,lag,ea} (cargo build --release --no-default-features --features mpi)
# and the Vulkan loader in .gl/ (docs/development.md); OUT is where the results go.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader > $OUT/gpu.txt
MPI="mpirun --allow-run-as-root --bind-to none"
R=$OUT/results.txt
ms() { grep -o '"ms_per_step": [0-9.e+-]*' $1 | head -1 | cut -d' ' -f2; }
waits() { python3 -c "
import json;d=json.load(open('$1'))
r=d['per_rank_ms_per_step'];n=len(r)
print('gpu_between %.4f dt_reduction_wait %.4f exchange_wait %.4f gpu_busy %.4f' % tuple(sum(x[k] for x in r)/n for k in ('gpu_between','dt_reduction_wait','exchange_wait','gpu_busy')))"; }
for b in sel ea; do
  ./.bench/quadflood-$b bench --n 4096 --steps 1000 --adapter NVIDIA --json /tmp/one.json > /dev/null 2>&1
  echo "$b 1 GPU 4096x4096: $(ms /tmp/one.json)" | tee -a $R
done
for ny in 256 8192 16384; do
  nx=4096; [ $ny = 256 ] && nx=256
  ./.bench/quadflood-ea bench --n $nx --ny $ny --steps 1000 --adapter NVIDIA --json /tmp/one.json > /dev/null 2>&1
  echo "ea 1 GPU ${nx}x$ny: $(ms /tmp/one.json)" | tee -a $R
done
for ny in 4096 8192 16384; do
  $MPI -n 2 ./.bench/quadflood-ea bench --n 4096 --ny $ny --steps 1000 --json /tmp/t2.json > /dev/null 2>&1
  echo "ea 2 ranks 4096x$ny: $(ms /tmp/t2.json) | $(waits /tmp/t2.json)" | tee -a $R
done
for round in 1 2; do
  for b in sel lag ea; do
    B=./.bench/quadflood-$b
    for ny in 4096 8192 16384; do
      $MPI -n 4 $B bench --n 4096 --ny $ny --steps 1000 --json /tmp/f.json > /dev/null 2>&1
      echo "$b r$round 4 ranks 4096x$ny: $(ms /tmp/f.json) | $(waits /tmp/f.json)" | tee -a $R
      [ $round = 2 ] && [ $b != lag ] && [ $ny != 8192 ] && cp /tmp/f.json $OUT/four-$b-$ny.json
    done
  done
done
MPIRUN_FLAGS="-x XDG_RUNTIME_DIR --bind-to none" XDG_RUNTIME_DIR=/tmp timeout 240 tools/balance_benchmark.sh ./.bench/quadflood-ea 4 /tmp/bal > $OUT/balance.md 2> $OUT/balance.err
cat $OUT/balance.md
