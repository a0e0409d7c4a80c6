import sys; sys.path.insert(0,'/tmp/hunt13'); from lib import *
import numpy as np, json
a,b=sys.argv[1],sys.argv[2]; ts=[float(t) for t in sys.argv[3:]] or [100,200]
for d in (a,b):
    s=json.load(open(d+'/summary.json')); print(d, 'steps',s['steps'],'err',s['mass_error_rel'],'in',s['mass_inflow_m3'],'out',s['mass_outflow_m3'],'final',s['mass_final_m3'],s['blocks_per_level'])
for t in ts:
    for n in ('depth','u','v'):
        A=field(a,n,t); B=field(b,n,t)[:,::-1]
        if n=='u': B=-B
        D=np.abs(A-B); k=np.unravel_index(np.nanargmax(D),D.shape)
        print(f't={t} {n}: max|diff| {np.nanmax(D):.3e} at (i={k[1]},j={k[0]}) A={A[k]:.5f} B={B[k]:.5f}  nan-mismatch {(np.isnan(A)!=np.isnan(B)).sum()}')
for n in ('max_depth','infiltration','max_speed','inundation_duration','arrival_time'):
    try:
        A=grid(f'{a}/{n}.asc'); B=grid(f'{b}/{n}.asc')[:,::-1]
        D=np.abs(A-B); k=np.unravel_index(np.nanargmax(D),D.shape)
        print(f'{n}: max|diff| {np.nanmax(D):.3e} at (i={k[1]},j={k[0]}) A={A[k]:.5f} B={B[k]:.5f}')
    except Exception as e: print(n,e)
