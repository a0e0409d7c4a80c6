import subprocess, json, os, time, numpy as np, glob, hashlib
Q='/tmp/hunt13/quadflood'
def run(case, out, *extra, quiet=True):
    t=time.time()
    p=subprocess.run([Q,'run',case,'--out',out,*extra],capture_output=True,text=True)
    dt=time.time()-t
    s=None
    try: s=json.load(open(out+'/summary.json'))
    except Exception: pass
    if p.returncode!=0 or not quiet:
        print('RC',p.returncode, p.stderr[-2000:])
    return p.returncode,s,dt
def grid(path):
    with open(path) as f:
        hdr={}
        for _ in range(6):
            k,v=f.readline().split(); hdr[k.lower()]=float(v)
        a=np.loadtxt(f)
    nd=hdr.get('nodata_value',-9999)
    a=np.where(a==nd,np.nan,a)
    return a[::-1]  # row 0 = south
def field(out,name,t):
    return grid(f"{out}/{name}_{t:09.1f}s.asc")
def md5(p): return hashlib.md5(open(p,'rb').read()).hexdigest()
def cmpdirs(a,b,skip=('summary.json','run.log','resolved_scenario.toml')):
    fa=sorted(os.listdir(a)); fb=sorted(os.listdir(b)); diffs=[]
    for f in sorted(set(fa)|set(fb)):
        if f in skip or os.path.isdir(os.path.join(a,f)): continue
        if f not in fa or f not in fb: diffs.append((f,'missing')); continue
        if md5(os.path.join(a,f))!=md5(os.path.join(b,f)): diffs.append((f,'differs'))
    return diffs
