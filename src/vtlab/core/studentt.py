"""Student's t, two-sided 95%, by degrees of freedom: a constant table, not a dependency on scipy."""

from __future__ import annotations

import math

T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
         11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 19: 2.093, 24: 2.064, 29: 2.045}


def t_975(df: int) -> float:
    """The table's value for `df`, or for the nearest smaller df listed (a slightly wider interval)."""
    if df < 1:
        return math.nan
    return T_975[max(k for k in T_975 if k <= df)]
