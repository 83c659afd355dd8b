import dataclasses, migcheck, torch, mindspore.nn as mnn
from evaluation.corpus import heldout4_b_train as T
from migcheck.specs import uniform
from migcheck.case import FrameworkPair
e = T.ENTRIES[0]
for hi in (1.0, 5.0, 20.0):
    for n in (6, 16):
        c = dataclasses.replace(e.correct, name=f"adagrad_try_{hi}_{n}", inputs={"x": uniform(n, 4), "y": uniform(n, 3, low=-hi, high=hi)},
                                optimizer=FrameworkPair(torch=lambda p: torch.optim.Adagrad(p, lr=0.1), mindspore=lambda p: mnn.Adagrad(p, accum=0.0, learning_rate=0.1)))
        v = migcheck.run([c], modes=("pynative",)).verdicts[0]
        print(hi, n, v.status, v.message[:150])
