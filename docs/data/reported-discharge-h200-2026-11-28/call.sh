#!/bin/bash
# Old (e1360d7's build) against new (the reported discharge): the dam-break benchmark
# interleaved, then every shipped scenario with each (.bench/all.sh is
# docs/data/shipped-h200-2026-11-28-b/all.sh).
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/bench.txt
for round in 1 2; do
  for b in old new; do
    for n in 4096 1024; do
      r=$(.bench/quadflood-$b bench --n $n --steps 1000 --maxima --adapter NVIDIA 2>&1 | grep -i "cell updates/s" | head -1)
      echo "round $round $b n=$n: $r" | tee -a $OUT/bench.txt
    done
  done
done
mkdir -p $OUT/new $OUT/old
OUT=$OUT/new BIN=.bench/quadflood-new bash .bench/all.sh
cp -r /tmp/r/dam_break $OUT/new/ 2>/dev/null; rm -rf /tmp/r
OUT=$OUT/old BIN=.bench/quadflood-old bash .bench/all.sh
