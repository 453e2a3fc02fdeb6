"""The test oracle: Apache Otava's E-Divisive on the series given as JSON on stdin.

Input: {"series": [[...], ...], "alpha": 0.01, "seed": 1}. Output, per series: the first candidate
split of Otava's PairDistanceCalculator (index, qhat) and the change points of
compute_change_points_orig (Matteson & James with Otava's permutation test, 100 shuffles) with
their p-values. Run from the virtualenv scripts/test-prereqs.sh makes (never at run time).
"""
import json
import sys

import numpy as np
from otava.analysis import compute_change_points_orig
from otava.change_point_divisive.calculator import PairDistanceCalculator

req = json.load(sys.stdin)
out = []
for values in req["series"]:
    x = np.array(values, dtype=np.float64)
    cand = PairDistanceCalculator(x).get_next_candidate([slice(0, len(x))])
    cps, _ = compute_change_points_orig(list(values), max_pvalue=req["alpha"], seed=req["seed"])
    out.append({
        "candidate": {"index": int(cand.index), "qhat": float(cand.qhat)},
        "changes": [{"index": int(c.index), "pValue": float(c.stats.pvalue)} for c in sorted(cps, key=lambda c: c.index)],
    })
json.dump(out, sys.stdout)
