# Shared by the device benchmark scripts (source it from the repository root, with OUT set):
# the Vulkan loader unpacked from .gl/, the GPUs noted in $OUT/gpu.txt, and helpers to read
# `quadflood bench --json` files.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader > "$OUT/gpu.txt"
MPI="mpirun --allow-run-as-root --bind-to none"
R=$OUT/results.txt
# ms per step of a bench JSON.
ms() { grep -o '"ms_per_step": [0-9.e+-]*' "$1" | head -1 | cut -d' ' -f2; }
# The ranks' mean waits and GPU time per step (ms) of a ranked bench JSON.
waits() { python3 -c "
import json;d=json.load(open('$1'))
r=d['per_rank_ms_per_step'];n=len(r)
print('gpu_between %.4f dt_reduction_wait %.4f exchange_wait %.4f gpu_busy %.4f' % tuple(sum(x[k] for x in r)/n for k in ('gpu_between','dt_reduction_wait','exchange_wait','gpu_busy')))"; }
