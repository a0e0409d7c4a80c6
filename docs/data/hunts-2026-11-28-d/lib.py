import numpy as np, subprocess, os, json, glob, time
BIN=os.environ.get('QUADFLOOD', 'quadflood')
def write_asc(path, z, cell=1.0, xll=0.0, yll=0.0, nodata=-9999.0):
    """z[j,i] with j=0 south row."""
    ny,nx=z.shape
    with open(path,'w') as f:
        f.write(f"ncols {nx}\nnrows {ny}\nxllcorner {xll}\nyllcorner {yll}\ncellsize {cell}\nNODATA_value {nodata}\n")
        for j in range(ny-1,-1,-1):
            f.write(' '.join('%.6f'%(nodata if np.isnan(v) else v) for v in z[j])+'\n')
def run(toml, out, extra=()):
    t=time.time()
    r=subprocess.run([BIN,'run',toml,'--out',out,*extra],capture_output=True,text=True)
    dt=time.time()-t
    if r.returncode!=0:
        print('RC',r.returncode, r.stdout[-2000:], r.stderr[-3000:])
    s=json.load(open(os.path.join(out,'summary.json'))) if os.path.exists(os.path.join(out,'summary.json')) else None
    return r.returncode, s, dt
def read_asc(path):
    with open(path) as f:
        hdr={}
        for _ in range(6):
            k,v=f.readline().split(); hdr[k.lower()]=float(v)
        a=np.loadtxt(f)
    a=np.atleast_2d(a)[::-1].copy()  # south row first
    a[a==hdr.get('nodata_value',-9999)]=np.nan
    return a
def field(out, name, t):
    return read_asc(os.path.join(out, f"{name}_{t:09.1f}s.asc"))
