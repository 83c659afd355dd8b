"""The forward check of each model-zoo pair, published or (--fixed) with the padding mended: verdict, first
divergence and findings. Args: pair names (default all). See RESULTS-zoo.md."""
import sys, time
from evaluation.corpus import zoo
from migcheck import run
names = [a for a in sys.argv[1:] if not a.startswith("--")] or list(zoo.PAIRS)
for n in names:
    t = time.time()
    r = run([zoo.case(n, "--fixed" in sys.argv)], modes=("pynative",))
    for v in r.verdicts:
        loc = v.localization
        print(f"{n}: {v.status} kind={getattr(v,'kind',None)} ({time.time()-t:.0f}s) :: {v.message[:300]}", flush=True)
        if loc is not None:
            print("   LOC:", (loc.summary or "")[:600])
            for f in loc.findings[:4]:
                print("   F:", getattr(f,'confidence',None), str(getattr(f,'text', f))[:300])
