"""sequence.py DUMP [BUFFER [COUNT]]: the allocations (A) and frees (F) galloc_replay.py replays in
one buffer (0 = the first GPU), in order: name, op, MiB and offset in MiB, numbered: what the
engine's plan (core/sizing/allocator) must reproduce node by node."""
import sys; sys.path.insert(0, __import__('os').path.dirname(__file__))
from galloc_replay import simulate
path = sys.argv[1]
want = int(sys.argv[2]) if len(sys.argv) > 2 else 0
count = int(sys.argv[3]) if len(sys.argv) > 3 else None
trace = []
simulate(path, {0: 64, 1: 64}, trace)
events = [e for e in trace if e[1] == want]
for n, (kind, _, name, op, size, offset) in enumerate(events[:count], 1):
    print("%5d %s %-40s %-15s %9.3f @ %9.3f" % (n, kind, name, op, size / 2**20, offset / 2**20))
