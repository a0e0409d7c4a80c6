import sys, glob, os, math
def rd(f):
    L=[l for l in open(f) if not l.startswith('#')]
    h=L[0].strip().split(','); return h,[[float(v) for v in l.split(',')] for l in L[1:] if l.strip()]
def at(rows,t): return min(rows,key=lambda r:abs(r[0]-t))
def show(d, t, edge=None):
    print('==',d,'t=',t)
    for g in sorted(glob.glob(d+'/gauge_*.csv')):
        h,R=rd(g); r=at(R,t); hh,u,v=r[1],r[2],r[3]
        un = {'east':u,'west':-u,'north':v,'south':-v}.get(edge,u)
        Fr = abs(un)/math.sqrt(9.81*hh) if hh>0 else 0
        print(f'  {os.path.basename(g):12s} h={hh:.6g} un={un:.5g} h*un={hh*un:.5g} Fr={Fr:.3f}')
    for g in sorted(glob.glob(d+'/section_*.csv')):
        h,R=rd(g); print(f'  {os.path.basename(g):14s} Q={at(R,t)[1]:.6g}')
    h,R=rd(d+'/mass_balance.csv'); i=R.index(at(R,t))
    if i>0: print(f'  MB outflow rate {(R[i][2]-R[i-1][2])/(R[i][0]-R[i-1][0]):.6g}  err_rel={R[-1][6]:.2e}')
if __name__=='__main__':
    t=float(sys.argv[1]); e=sys.argv[2] if len(sys.argv)>2 else None
    for d in sys.argv[3:]: show(d,t,e)
