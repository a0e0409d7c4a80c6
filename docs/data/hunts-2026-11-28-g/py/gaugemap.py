import sys,re; sys.path.insert(0,'/tmp/hunt16/py')
from qf import *
d=sys.argv[1]; dx=float(sys.argv[2]); ox=float(sys.argv[3]) if len(sys.argv)>3 else 0; oy=float(sys.argv[4]) if len(sys.argv)>4 else 0
for p in sorted(glob.glob(d+'/gauge_*.csv')):
    l=open(p).readline(); m=re.search(r'x = ([-\d.e]+) m, y = ([-\d.e]+)',l)
    x,y=float(m.group(1)),float(m.group(2))
    i=int((x-ox)//dx); j=int((y-oy)//dx)
    _,a=csvr(p)
    bad=0;n=0
    for t in times(d):
        k=np.where(a[:,0]==t)[0]
        if len(k)==0: continue
        r=a[k[0]]
        h=grid(d,'depth',t)[j,i]; u=grid(d,'u',t)[j,i]; v=grid(d,'v',t)[j,i]
        n+=1
        if not (np.float32(h)==np.float32(r[1]) and np.float32(u)==np.float32(r[2]) and np.float32(v)==np.float32(r[3])):
            bad+=1; print(os.path.basename(p),t,'gauge',r[1:4],'map',h,u,v)
    print(os.path.basename(p),'compared',n,'mismatch',bad)
