import sys; sys.path.insert(0,'/tmp/hunt14/py')
from kwlib import *
import numpy as np
L,S,n,W=200.0,0.02,0.05,32.0
K=10/3.6e6; psd=0.0385; i=50/3.6e6
a=np.sqrt(S)/n; m=5/3
Fp=K*psd/(i-K); tp=Fp/i
def Fga(t):
    if t<=tp: return i*t
    lo,hi=Fp,1.0
    for _ in range(100):
        F=0.5*(lo+hi); g=F-Fp-psd*np.log((psd+F)/(psd+Fp))-K*(t-tp)
        if g>0: hi=F
        else: lo=F
    return F
T=np.linspace(0,2400,24001)
F=np.array([Fga(t) for t in T]); E=i*T-F  # cumulative excess = h of uniform region
E=np.maximum(E,0)
def outlet_h(t):
    k=np.searchsorted(T,t)
    # characteristic from x=0 starting at tau: distance travelled by t
    def dist(j0):
        h=E[j0:k+1]-E[j0]; c=a*m*np.maximum(h,0)**(m-1)
        return np.trapz(c,T[j0:k+1])
    jp=np.searchsorted(T,tp)
    if dist(jp) < L: return E[k]
    lo,hi=jp,k
    while hi-lo>1:
        mid=(lo+hi)//2
        if dist(mid)>=L: lo=mid
        else: hi=mid
    return E[k]-E[lo]
_,xs=readcsv('/tmp/hunt14/out/kw_ga/mass_balance.csv')
t=xs[:,0]; cum=xs[:,2]
Qm=np.diff(cum)/np.diff(t); tm=0.5*(t[1:]+t[:-1])
for tt,q in zip(tm,Qm):
    if tt<600: continue
    h=outlet_h(tt); qa=a*h**m*W
    print(f"{tt:6.0f} model {q:.5g} kin {qa:.5g} {(q/qa-1)*100 if qa>0 else 0:+.2f}%")
