#!/usr/bin/env bash
# Session 33: the solver before (189f22c) and after this session's work (losses hook,
# structures, outflow boundaries) on the bench dam break; then Sagehen (uniform 10 m, 2 h
# of rain) with and without Green-Ampt losses, and with a culvert, on the new build.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
for round in 1 2; do
  for n in 1024 4096; do
    for b in before new; do
      ./.bench/quadflood-$b bench --n $n --steps 1000 --maxima --adapter NVIDIA --json $OUT/bench-$b-$n-$round.json > /tmp/log-$b-$n-$round.txt 2>&1
      echo "$b n=$n round=$round: $(grep -o '"cell_updates_per_s": [0-9.e+]*' $OUT/bench-$b-$n-$round.json)" | tee -a $OUT/bench.txt
    done
  done
done
cd .bench/sagehen
B=../quadflood-new
run() { # name extra...
  local name=$1; shift
  $B run uniform.toml --out /tmp/sh/$name --quiet --adapter NVIDIA --set output.rasters=false --set output.png=false "$@" > /tmp/sh-$name.log 2>&1
  echo "$name: rc=$? $(python3 -c "import json;d=json.load(open('/tmp/sh/$name/summary.json'));print('steps',d['steps'],'wall',round(d['wall_s'],2),'stepping',round(d['wall_clock_s']['stepping'],2),'mass_err',d['mass_error_rel'],'infiltrated',d.get('mass_infiltrated_m3'),'rain',d['mass_rain_m3'],'out',d['mass_outflow_m3'])" 2>&1) $(tail -1 /tmp/sh-$name.log)" | tee -a $OUT/sagehen.txt
}
mkdir -p /tmp/sh
run plain
run green_ampt --set 'losses.model="green_ampt"' --set losses.conductivity=10 --set losses.suction=110 --set losses.deficit=0.3
run il_cl --set 'losses.model="initial_continuing"' --set losses.initial=15 --set losses.continuing=5
run culvert --set 'culvert=[{ shape = "box", width = 2.0, height = 1.5, inlet = [219795.0, 4369865.0], outlet = [220795.0, 4369705.0], length = 30.0 }]'
for v in plain green_ampt culvert; do cp /tmp/sh/$v/mass_balance.csv $OUT/mass_balance-$v.csv; done
cp /tmp/sh/culvert/structures.csv $OUT/structures-culvert.csv 2>/dev/null
