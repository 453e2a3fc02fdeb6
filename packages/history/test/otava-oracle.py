"""The test oracle: Apache Otava's E-Divisive on the series given as JSON on stdin.

Input: {"series": [[...], ...], "maxPvalue": 0.0075, "permutations": 199, "minMagnitude": 0.01,
"seed": 1}; the series are logs of a figure. Output, per series: the first candidate split of
Otava's PairDistanceCalculator (index, qhat); the change points of Matteson & James's E-Divisive
as Otava's `compute_change_points_orig` runs it (its ChangePointDetector with its
PermutationsSignificanceTester), but with `permutations` shuffles instead of the 100 that function
fixes; and, with `minMagnitude`, those change points after Otava's merge step (`merge`, the second
step of `compute_change_points`) on the figure itself (exp of the logs: Otava's magnitude is a
ratio of segment means), its t-test criterion switched off (max_pvalue = inf: the tool does not
re-test a change after the permutation test). Run from the virtualenv scripts/test-prereqs.sh
makes (never at run time).
"""
import json
import math
import sys

import numpy as np
from otava.analysis import TTestSignificanceTester, merge
from otava.change_point_divisive.calculator import PairDistanceCalculator
from otava.change_point_divisive.detector import ChangePointDetector
from otava.change_point_divisive.significance_test import PermutationsSignificanceTester

req = json.load(sys.stdin)
out = []
for values in req["series"]:
    x = np.array(values, dtype=np.float64)
    cand = PairDistanceCalculator(x).get_next_candidate([slice(0, len(x))])
    # One tester per series, as compute_change_points_orig makes one per call (its generator seeded anew).
    tester = PermutationsSignificanceTester(max_pvalue=req["maxPvalue"], permutations=req["permutations"], calculator=PairDistanceCalculator, seed=req["seed"])
    cps = ChangePointDetector(significance_tester=tester, calculator=PairDistanceCalculator).get_change_points(series=list(values))
    cps = sorted(cps, key=lambda c: c.index)
    answer = {
        "candidate": {"index": int(cand.index), "qhat": float(cand.qhat)},
        "changes": [{"index": int(c.index), "pValue": float(c.stats.pvalue)} for c in cps],
    }
    if req.get("minMagnitude") is not None:
        figure = [math.exp(v) for v in values]
        t = TTestSignificanceTester(math.inf)
        intervals = t.get_intervals(cps)
        weak = [t.change_point(c.to_candidate(), figure, intervals) for c in cps]
        kept = merge(weak, figure, max_pvalue=math.inf, min_magnitude=req["minMagnitude"])
        answer["merged"] = [{"index": int(c.index), "magnitude": float(c.stats.change_magnitude())} for c in kept]
    out.append(answer)
json.dump(out, sys.stdout)
