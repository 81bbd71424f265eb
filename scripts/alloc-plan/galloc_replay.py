"""galloc_replay.py DUMP [GPU_ALIGN HOST_ALIGN]: replays ggml-alloc (ggml/src/ggml-alloc.c
ggml_gallocr_alloc_graph_impl and the best-fit ggml_dyn_tallocr) over a graph written by
allocdump.c, and prints per buffer the size ggml-alloc chose and the replay's peak, in MiB.
A developer tool for working out compute-buffer rules (core/sizing/gpucompute.cpp); lavapipe's
buffers align to 64 bytes."""
import sys, re
INPLACE = {"SCALE","DIAG_MASK_ZERO","DIAG_MASK_INF","ADD","ADD_ID","ADD1","SUB","MUL","DIV","SQR","SQRT","LOG","UNARY","ROPE","RMS_NORM","SOFT_MAX"}
FLAG_INPUT, FLAG_OUTPUT = 1, 2
def parse(path):
    bufs = {}; leafs = []; nodes = []; T = {}
    for line in open(path):
        p = line.split()
        if p[0] == "BUF": bufs[int(p[1])] = int(p[2])
        elif p[0] == "L":
            m = re.match(r"L (\d+) (\S+) (-?\d+) (.+?) (\S+) (\d+) (\d+) 0 data=(\d) (\S+)(?: pre#-?\d+)?", line)
            i, ptr, b, name, ty, nbytes, flags, pre, ne = m.groups()
            t = dict(kind="L", ptr=ptr, buf=int(b), name=name, type=ty, nbytes=int(nbytes), flags=int(flags), pre=pre=="1", view=None, src=[], op="NONE", ne=ne, nb="")
            leafs.append(t); T[t["ptr"]] = t
        elif p[0] == "N":
            m = re.match(r"N (\d+) (\S+) (-?\d+) (.+?) (\S+) (\S+) (\d+) (\d+) view=(\S+) pre=(\d) (\[\S+\]) nb=(\[\S+\]) src:(.*?)(?: pre#-?\d+)?$", line.rstrip("\n"))
            i, ptr, b, name, op, ty, nbytes, flags, view, pre, ne, nb, srcs = m.groups()
            t = dict(kind="N", ptr=ptr, buf=int(b), name=name, op=op, type=ty, nbytes=int(nbytes), flags=int(flags), view=None if view in ("(nil)", "0") else view, pre=pre=="1", ne=ne, nb=nb, src=srcs.split())
            nodes.append(t); T[ptr] = t
    return bufs, leafs, nodes, T

class Dyn:
    def __init__(s, align): s.align = align; s.free = [[0, 1 << 60]]; s.peak = 0
    def alloc(s, size):
        size = (size + s.align - 1) // s.align * s.align
        best = None; bs = None
        for i in range(len(s.free) - 1):
            if s.free[i][1] >= size and (bs is None or s.free[i][1] <= bs): best = i; bs = s.free[i][1]
        if best is None: best = len(s.free) - 1
        off = s.free[best][0]; s.free[best][0] += size; s.free[best][1] -= size
        if s.free[best][1] == 0: del s.free[best]
        s.peak = max(s.peak, off + size); return off
    def release(s, off, size):
        size = (size + s.align - 1) // s.align * s.align
        for i, f in enumerate(s.free):
            if f[0] + f[1] == off:
                f[1] += size
                if i + 1 < len(s.free) and f[0] + f[1] == s.free[i + 1][0]:
                    f[1] += s.free[i + 1][1]; del s.free[i + 1]
                return
            if off + size == f[0]:
                f[0] = off; f[1] += size
                if i > 0 and s.free[i - 1][0] + s.free[i - 1][1] == f[0]:
                    s.free[i - 1][1] += f[1]; del s.free[i]
                return
        at = 0
        while at < len(s.free) and s.free[at][0] < off: at += 1
        s.free.insert(at, [off, size])

def simulate(path, aligns, trace=None):
    bufs, leafs, nodes, T = parse(path)
    dyn = {b: Dyn(aligns.get(b, 32)) for b in bufs}
    hn = {}
    def H(ptr):
        if ptr not in hn: hn[ptr] = dict(children=0, views=0, alloc=False, buf=None, off=None)
        return hn[ptr]
    def is_alloc(t): return t["pre"] or H(t["ptr"])["alloc"]
    def allocate(t, b):
        h = H(t["ptr"])
        if is_alloc(t) or t["view"]: return
        h["alloc"] = True
        if t["op"] in INPLACE:
            for sp in t["src"]:
                p = T.get(sp)
                if p is None: continue
                if not H(sp)["alloc"]: continue
                if p["flags"] & FLAG_OUTPUT or (p["view"] and T[p["view"]]["flags"] & FLAG_OUTPUT): continue
                if not (p["type"] == t["type"] and p["ne"] == t["ne"] and p["nb"] == t["nb"]): continue
                ph = H(sp)
                if ph["children"] == 1 and ph["views"] == 0:
                    if p["view"]:
                        vh = H(p["view"])
                        if vh["views"] == 1 and vh["children"] == 0:
                            h["buf"] = vh["buf"]; h["off"] = vh["off"]; vh["alloc"] = False; h["size"] = vh.get("size"); return
                    else:
                        h["buf"] = ph["buf"]; h["off"] = ph["off"]; h["size"] = ph.get("size"); ph["alloc"] = False; return
        h["buf"] = b; h["size"] = t["nbytes"]; h["off"] = dyn[b].alloc(t["nbytes"])
        if trace is not None: trace.append(("A", b, t["name"], t["op"], t["nbytes"], h["off"]))
    def free(t):
        if t["flags"] & FLAG_OUTPUT: return
        h = H(t["ptr"]); dyn[h["buf"]].release(h["off"], h["size"]); h["alloc"] = False
        if trace is not None: trace.append(("F", h["buf"], t["name"], t["op"], h["size"], h["off"]))
    for l in leafs: allocate(l, l["buf"])
    for t in nodes:
        if t["view"] and t["op"] != "NONE": H(t["view"])["views"] += 1
        if t["flags"] & FLAG_INPUT: allocate(t, t["buf"])
        for sp in t["src"]:
            H(sp)["children"] += 1
            s = T[sp]
            if s["flags"] & FLAG_INPUT: allocate(s, t["buf"])
    for t in nodes:
        for sp in t["src"]: allocate(T[sp], t["buf"])
        allocate(t, t["buf"])
        for sp in t["src"]:
            p = T[sp]; ph = H(sp); ph["children"] -= 1
            if ph["children"] == 0 and ph["views"] == 0:
                if p["view"]:
                    vh = H(p["view"]); vh["views"] -= 1
                    if vh["views"] == 0 and vh["children"] == 0 and vh["alloc"]: free(T[p["view"]])
                elif ph["alloc"]: free(p)
    return bufs, {b: d.peak for b, d in dyn.items()}

if __name__ == "__main__":
    a0 = int(sys.argv[2]) if len(sys.argv) > 2 else 32; a1 = int(sys.argv[3]) if len(sys.argv) > 3 else 32
    bufs, peaks = simulate(sys.argv[1], {0: a0, 1: a1})
    for b in bufs: print(b, bufs[b] / 2**20, peaks[b] / 2**20)
