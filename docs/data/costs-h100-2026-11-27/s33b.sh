#!/usr/bin/env bash
# Which part of this session's kernel code costs the 1.5%: before, new, new without the
# losses hook, new without the outflow-edge faces; the bench dam break with maxima.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp
for round in 1 2; do
  for n in 1024 4096; do
    for b in before new spec; do
      ./.bench/quadflood-$b bench --n $n --steps 1000 --maxima --adapter NVIDIA --json /tmp/b.json > /tmp/log.txt 2>&1
      echo "$b n=$n round=$round: $(grep -o '"cell_updates_per_s": [0-9.e+]*' /tmp/b.json)"
    done
  done
done
