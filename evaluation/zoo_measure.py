"""The zero-config weight mapping of each model-zoo pair (evaluation/corpus/zoo.py): problems, links, inferred
pairings by confidence. Args: pair names (default all); --static: no activation check. See RESULTS-zoo.md."""
import sys, time, collections
from evaluation.corpus import zoo
from migcheck.running.pipeline import mapping_for
names = sys.argv[1:] or list(zoo.PAIRS)
for n in names:
    t = time.time()
    try:
        m = mapping_for(zoo.case(n), resolve="--static" not in sys.argv)
        probs = m.problems()
        conf = collections.Counter(i.confidence for i in m.inferred)
        print(f"{n}: ok={m.ok} problems={len(probs)} links={len(m.links)} inferred={dict(conf)} ({time.time()-t:.0f}s)", flush=True)
        for p in probs[:3]: print("   ", p[:300])
    except Exception as e:
        print(f"{n}: ERROR {type(e).__name__}: {str(e)[:300]}", flush=True)
