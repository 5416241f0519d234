# Error of fp32 sums of softmax terms under four summation orders, as a share of the softmax
# bound's allowance for the sum (docs/TOLERANCES.md, "Reductions"). Run: /usr/bin/python3 docs/conformance/summation_orders.py
import numpy as np
rng=np.random.default_rng(1)
ua=2.0**-24
def seq(t):
    s=np.float32(0)
    for v in t: s=np.float32(s+v)
    return s
def blocked(t,b):
    parts=[seq(t[i:i+b]) for i in range(0,len(t),b)]
    return seq(np.array(parts,dtype=np.float32))
for N in [1024,4096,16384,32768,128256]:
    worst={}
    for trial in range(3):
        x=rng.uniform(-8,8,N).astype(np.float32)
        e=np.exp((x-x.max()).astype(np.float64))
        e32=e.astype(np.float32)
        S=e.sum()
        allowed=4*(8+np.log(N)+np.sqrt(N)+2)+2
        for name,f in [("seq",lambda: seq(e32)),("blk256",lambda: blocked(e32,256)),("blk1024",lambda: blocked(e32,1024)),("blk4096",lambda: blocked(e32,4096)),("pairwise",lambda: np.float32(np.sum(e32)))]:
            if name=="seq" and N>40000 and trial>0: continue
            r=abs(float(f())-S)/S/ua
            worst[name]=max(worst.get(name,0),r/allowed)
    print(N, {k:round(v,3) for k,v in worst.items()})
