#!/bin/bash
# Every shipped scenario at full size on one GPU: exit code, wall time, steps, mass error.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
BIN=${BIN:-.bench/quadflood-new}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/scenarios.txt
for s in $(ls scenarios/*.toml | grep -v sagehen) .bench/sagehen/study.toml .bench/sagehen/rain.toml; do
  name=$(basename $s .toml)
  start=$(date +%s.%N)
  timeout 240 $BIN run $s --out /tmp/r/$name --quiet --set output.png=false --set output.netcdf=false > /tmp/$name.log 2>&1
  rc=$?
  end=$(date +%s.%N)
  mass=$(python3 -c "import json;s=json.load(open('/tmp/r/$name/summary.json'));print(s.get('mass_error_rel'), s.get('steps'))" 2>/dev/null)
  wall=$(python3 -c "print(round($end - $start, 1))")
  echo "$name rc=$rc wall=$wall mass,steps=$mass" | tee -a $OUT/scenarios.txt
  tail -3 /tmp/$name.log >> $OUT/scenarios_tail.txt
done
cp /tmp/r/study/mass_balance.csv $OUT/study_mass_balance.csv 2>/dev/null
ls /tmp/r/study > $OUT/study_files.txt 2>&1
