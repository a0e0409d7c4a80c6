#!/usr/bin/env bash
# 1, 4 and 16 ranks on 4 GPUs write the same bytes (wall dam break: fronts on dry ground,
# steps planned again). Run from the repository root with a build without GDAL in
# .bench/quadflood-ea and the Vulkan loader in .gl/ (docs/development.md).
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
B=$PWD/.bench/quadflood-ea
S=$PWD/scenarios/wall-dam-break.toml
SET="--set time.end=20"
MPI="mpirun --allow-run-as-root --bind-to none --oversubscribe"
$B run $S $SET --adapter NVIDIA --out /tmp/r1 > $OUT/log1.txt 2>&1; echo "1 rank exit $?" | tee -a $OUT/bits.txt
for n in 4 16; do
  $MPI -n $n $B run $S $SET --out /tmp/r$n > $OUT/log$n.txt 2>&1; echo "$n ranks exit $?" | tee -a $OUT/bits.txt
  same=0; diff=0
  for f in $(cd /tmp/r1 && ls); do
    case $f in summary.json|run.log) continue;; esac
    if cmp -s /tmp/r1/$f /tmp/r$n/$f; then same=$((same+1)); else diff=$((diff+1)); echo "differs: $f" | tee -a $OUT/bits.txt; fi
  done
  echo "$n ranks: $same files identical, $diff differ; $(python3 -c "import json;d=json.load(open('/tmp/r$n/summary.json'));print('steps',d['steps'],'planned_again',d['steps_planned_again'])")" | tee -a $OUT/bits.txt
done
python3 -c "import json;d=json.load(open('/tmp/r1/summary.json'));print('1 rank: steps',d['steps'],'planned_again',d['steps_planned_again'])" | tee -a $OUT/bits.txt
