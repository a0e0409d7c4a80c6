#!/bin/bash
# One GPU: main (base) against draining films (drain), alternating rounds.
. tools/bench_lib.sh
for round in 1 2 3; do
  for b in base drain; do
    for cfg in "4096 1000" "1024 4000" "4096 1000 --maxima"; do
      set -- $cfg; n=$1; steps=$2; extra=$3; tag=$n${extra:+-maxima}
      ./.bench/quadflood-$b bench --n $n --steps $steps $extra --adapter NVIDIA --json /tmp/$b-$tag-r$round.json > /tmp/$b-$tag-r$round.log 2>&1
      echo "$b r$round $tag: $(ms /tmp/$b-$tag-r$round.json)" | tee -a $R
    done
  done
done
for round in 1 2; do
  for b in base drain; do
    ./.bench/quadflood-$b bench --n 4096 --steps 1000 --wet-sweep --adapter NVIDIA >> $OUT/wet-$b.txt 2>&1
  done
done
tar czf $OUT/json.tgz /tmp/*.json 2>/dev/null
