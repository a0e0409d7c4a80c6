#!/bin/bash
# Sagehen rain (2 h) on one GPU: uniform 10 m against multi-level grids; ASCII outputs.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
REPO=$(pwd)
cd .bench/sagehen
B=../quadflood-results
run() { # name scenario extra...
  local name=$1 sc=$2; shift 2
  /usr/bin/time -f "%e s" $B run $sc.toml --out /tmp/sh/$name --quiet --adapter NVIDIA "$@" > /tmp/sh-$name.log 2>&1
  echo "$name: $(tail -1 /tmp/sh-$name.log) $(python3 -c "import json;d=json.load(open('/tmp/sh/$name/summary.json'));print(d['steps'],d['cell_updates'],d['blocks'],d['blocks_per_level'],round(d['wall_s'],2),d['mass_error_rel'])" 2>&1)"
}
mkdir -p /tmp/sh
for v in uniform relief4 ch1e6 ch3e5 ch1e5; do run $v $v; done
run uniform5 uniform --set terrain.cell_size=5
run ch1e6-5 ch1e6 --set terrain.cell_size=5
run ch3e5-5 ch3e5 --set terrain.cell_size=5
python3 $REPO/.bench/sagehen_compare.py /tmp/sh $OUT/compare.json
for d in /tmp/sh/*; do n=$(basename $d); mkdir -p $OUT/sh/$n; cp $d/summary.json $d/gauge_*.csv $d/section_*.csv $OUT/sh/$n/; done
tar czf $OUT/sh.tgz -C $OUT sh && rm -rf $OUT/sh
for v in uniform ch1e6; do gzip -c /tmp/sh/$v/max_depth.asc > $OUT/max_depth-$v.asc.gz; done
