#!/usr/bin/env bash
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
cd .bench/sagehen
for v in "loam " "ci --set terrain.cell_size=80 --set refinement.levels=2 --set time.end=60 --set time.output_interval=30"; do
  set -- $v; name=$1; shift
  ../quadflood-head run study.toml --out /tmp/st-$name --quiet --adapter NVIDIA --set output.rasters=false --set output.png=false "$@" > /tmp/st-$name.log 2>&1
  echo "$name rc=$? $(tail -2 /tmp/st-$name.log)"
  python3 -c "import json;d=json.load(open('/tmp/st-$name/summary.json'));print({k:d[k] for k in ['steps','wall_s','mass_error_rel','mass_infiltrated_m3','mass_rain_m3','mass_outflow_m3','max_depth_m']})"
  awk -F, 'NR>2{if($3>m){m=$3;t=$1}}END{print "culvert peak", m, "at", t}' /tmp/st-$name/structures.csv
  for g in /tmp/st-$name/gauge_*.csv; do awk -F, -v g=$(basename $g) 'NR>2{if($3>m){m=$3;e=$7}}END{print g, "peak depth", m, "level", e}' $g; done
  cp /tmp/st-$name/structures.csv $OUT/structures-$name.csv
done
