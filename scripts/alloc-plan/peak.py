"""peak.py DUMP [BUFFER]: what is alive in one buffer (0 = the first GPU) when galloc_replay.py
reaches its peak: name, op, MiB and offset of each tensor."""
import sys; sys.path.insert(0, __import__('os').path.dirname(__file__))
from galloc_replay import *
path=sys.argv[1]; want=int(sys.argv[2]) if len(sys.argv)>2 else 0
tr=[]
bufs,peaks=simulate(path,{0:64,1:64},tr)
print("logged", {b: round(v/2**20,3) for b,v in bufs.items()}, "sim", {b: round(v/2**20,3) for b,v in peaks.items()})
live={}
for i,e in enumerate(tr):
    k,b,name,op,size,off=e
    if b!=want: continue
    if k=='A':
        live[off]=(name,op,size,off)
        if off+size>=peaks[want]-64:
            print("peak at", name, op, "live:")
            for o,(n,op2,s,o2) in sorted(live.items()): print("   %-40s %-15s %8.3f @ %8.3f"%(n,op2,s/2**20,o2/2**20))
            break
    else:
        live.pop(off,None)
