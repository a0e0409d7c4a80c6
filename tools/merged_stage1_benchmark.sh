#!/usr/bin/env bash
# The ghosts' and border blocks' stage 1 in one dispatch ("merge1") against two in turn
# ("onex"), side by side on one 4-GPU machine; builds in .bench/quadflood-{onex,merge1}.
set -u
. tools/bench_lib.sh
for b in onex merge1; do
  ./.bench/quadflood-$b bench --n 4096 --steps 1000 --adapter NVIDIA --json /tmp/one.json > /dev/null 2>&1
  echo "$b 1 GPU 4096x4096: $(ms /tmp/one.json)" | tee -a $R
done
for round in 1 2 3; do
  for b in onex merge1; do
    for ny in 4096 8192 16384; do
      [ $round = 3 ] && [ $ny != 4096 ] && continue
      $MPI -n 4 ./.bench/quadflood-$b bench --n 4096 --ny $ny --steps 1000 --json /tmp/f.json > /dev/null 2>&1
      echo "$b r$round 4 ranks 4096x$ny: $(ms /tmp/f.json) | $(waits /tmp/f.json)" | tee -a $R
      [ $round = 2 ] && [ $ny != 8192 ] && cp /tmp/f.json $OUT/four-$b-$ny.json
    done
  done
done
