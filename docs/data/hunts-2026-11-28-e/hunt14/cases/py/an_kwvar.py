import sys; sys.path.insert(0,'/tmp/hunt14/py')
from kwlib import *
import numpy as np
L,S,n,W=200.0,0.02,0.05,32.0
a=np.sqrt(S)/n; m=5/3
T=np.linspace(0,3600,36001)
r=np.interp(T,[0,900,1800],[0,100/3.6e6,0])
E=np.concatenate([[0],np.cumsum(0.5*(r[1:]+r[:-1])*np.diff(T))])
def outlet_h(t):
    k=np.searchsorted(T,t)
    def dist(j0):
        h=E[j0:k+1]-E[j0]; c=a*m*np.maximum(h,0)**(m-1)
        return np.trapz(c,T[j0:k+1])
    if dist(0) < L: return E[k]
    lo,hi=0,k
    while hi-lo>1:
        mid=(lo+hi)//2
        if dist(mid)>=L: lo=mid
        else: hi=mid
    return E[k]-E[lo]
_,mb=readcsv('/tmp/hunt14/out/kw_tri/mass_balance.csv')
print('rain vol model', mb[-1,3], 'exact', E[-1]*L*W)
_,xs=readcsv('/tmp/hunt14/out/kw_tri/section_out.csv')
for t,q in xs[::8]:
    if t==0: continue
    h=outlet_h(t); qa=a*h**m*W
    print(f"{t:6.0f} xs {q:.5g} kin {qa:.5g} {(q/qa-1)*100 if qa>0 else 0:+.2f}%")
