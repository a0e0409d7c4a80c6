import numpy as np, os, glob, csv, json
def asc(path):
    with open(path) as f:
        hdr={}
        for _ in range(6):
            k,v=f.readline().split(); hdr[k.lower()]=float(v)
        a=np.loadtxt(f)
    a=np.atleast_2d(a)[::-1].copy()  # row 0 = south
    nd=hdr.get('nodata_value',-9999)
    a[a==nd]=np.nan
    return a
def grid(d,name,t=None):
    if t is None: p=os.path.join(d,name+'.asc')
    else: p=os.path.join(d,'%s_%09.1fs.asc'%(name,t))
    if not os.path.exists(p):
        p2=p[:-4]+'.tif'
        from osgeo import gdal
        ds=gdal.Open(p2); a=ds.GetRasterBand(1).ReadAsArray().astype(float)[::-1].copy()
        a[a==-9999]=np.nan; return a
    return asc(p)
def times(d):
    return sorted(float(os.path.basename(p)[6:-6]) for p in glob.glob(d+'/depth_*s.asc')+glob.glob(d+'/depth_*s.tif'))
def csvr(p):
    rows=[l for l in open(p) if not l.startswith('#')]
    r=list(csv.reader(rows)); h=r[0]
    return h,np.array([[float(x) for x in row] for row in r[1:]])
def summary(d): return json.load(open(d+'/summary.json'))
