#!/usr/bin/env bash
# Session 35: the bench dam break before (c4ae89f, main at the session start) and after
# unbiased rounding of depths (7735e65),
# three interleaved rounds at 1024² and 4096² with the run's maxima.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
for round in 1 2 3; do
  for n in 1024 4096; do
    for b in old new; do
      ./.bench/quadflood-$b bench --n $n --steps 1000 --maxima --adapter NVIDIA --json $OUT/bench-$b-$n-$round.json > /tmp/log-$b-$n-$round.txt 2>&1
      echo "$b n=$n round=$round: $(grep -o '"cell_updates_per_s": [0-9.e+]*' $OUT/bench-$b-$n-$round.json)" | tee -a $OUT/bench.txt
    done
  done
done
