#!/usr/bin/env bash
# Three builds on one 4-GPU machine: sel (before), lag (lagged CFL limit), ea (and the step's
# end submitted with the next border pass). Then the model's calibration points and the
# load-balancing comparison with ea. Run from the repository root with the builds in
# .bench/quadflood-{sel,lag,ea} (cargo build --release --no-default-features --features mpi)
# and the Vulkan loader in .gl/ (docs/development.md); OUT is where the results go.
set -u
. tools/bench_lib.sh
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
