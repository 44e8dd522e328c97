"""The one statistic a match prints: a 95% interval of a mean over boards (Student's t)."""

from __future__ import annotations


T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
        2.042)
"""Student's t, 97.5% quantile, for 1 to 30 degrees of freedom."""


def t975(df: int) -> float:
    """Student's t 97.5% quantile (beyond the table, its Cornish-Fisher expansion around 1.96)."""
    if df <= len(T975):
        return T975[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
