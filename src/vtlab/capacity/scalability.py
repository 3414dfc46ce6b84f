"""The Universal Scalability Law fitted by least squares: X(N) = λN / (1 + σ(N−1) + κN(N−1)) to points (N, X).

For a given σ and κ the law is linear in λ, so λ has a closed form (the least-squares slope through the origin of X
against N / (1 + σ(N−1) + κN(N−1))) and only σ and κ are searched: a grid over σ in [0, 1] and log κ (κ = 0 at its
lower end, where the coherency term could not reach 1/10,000 at the highest load), the grid narrowed around its best
cell, then Levenberg-Marquardt steps on all three from there (a narrow valley where σ trades against κ can hold the
grid short of the minimum). No scipy: three bounded parameters need none, and the project does not depend on it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

GRID = 11          # cells a side of each grid
NARROWINGS = 120   # how many times the grid closes in on its best cell
SHRINK = 0.7       # what each narrowing keeps of the grid's span
STEPS = 200        # Levenberg-Marquardt's steps at most


class Fit(NamedTuple):
    lam: float
    sigma: float
    kappa: float
    sse: float      # the sum of squared residuals at these parameters

    def throughput(self, load: float) -> float:
        return self.lam * _shape(load, self.sigma, self.kappa)

    def peak_load(self) -> float:
        """N* = √((1 − σ) / κ), where the throughput is highest; inf where κ = 0 (it never turns down)."""
        return math.sqrt((1 - self.sigma) / self.kappa) if self.kappa > 0 else math.inf


def _shape(load: float, sigma: float, kappa: float) -> float:
    return load / (1 + sigma * (load - 1) + kappa * load * (load - 1))


def _at(points: Sequence[tuple[float, float]], sigma: float, kappa: float) -> Fit:
    """λ in closed form for this σ and κ, and what it leaves unexplained."""
    shapes = [_shape(n, sigma, kappa) for n, _ in points]
    lam = sum(x * g for (_, x), g in zip(points, shapes, strict=True)) / sum(g * g for g in shapes)
    sse = sum((x - lam * g) ** 2 for (_, x), g in zip(points, shapes, strict=True))
    return Fit(lam, sigma, kappa, sse)


def fit(points: Sequence[tuple[float, float]]) -> Fit:
    """The least-squares σ, κ and λ for points (load N ≥ 1, throughput X > 0); at least three distinct loads, for
    three parameters (ValueError otherwise)."""
    if len({n for n, _ in points}) < 3:
        raise ValueError("three parameters need at least three distinct loads")
    top = max(n for n, _ in points)
    # κ's lower end: κN² at the highest load a ten-thousandth (taken as κ = 0); its upper: a peak at one load
    low, high = math.log10(1e-4 / top ** 2), 0.0

    def kappa(t: float) -> float:
        return 0.0 if t <= low else 10 ** t

    def best(sigmas: Sequence[float], ts: Sequence[float]) -> tuple[Fit, float]:
        return min(((_at(points, s, kappa(t)), t) for s in sigmas for t in ts), key=lambda found: found[0].sse)

    centre_s, span_s, centre_t, span_t = 0.5, 0.5, (low + high) / 2, (high - low) / 2
    found, t_found = best(_cells(centre_s, span_s, 0, 1), _cells(centre_t, span_t, low, high))
    for _ in range(NARROWINGS):
        span_s, span_t = span_s * SHRINK, span_t * SHRINK
        nearer, t_nearer = best(_cells(found.sigma, span_s, 0, 1), _cells(t_found, span_t, low, high))
        if nearer.sse <= found.sse:
            found, t_found = nearer, t_nearer
    return _polished(points, found)


def _polished(points: Sequence[tuple[float, float]], start: Fit) -> Fit:
    """Levenberg-Marquardt from `start`: a step is kept only where it lowers the squared residuals (σ kept in
    [0, 1], κ at or above 0); the damping grows after a refused step and shrinks after a kept one."""
    found, damping = start, 1e-3
    for _ in range(STEPS):
        step = _step(points, found, damping)
        if step is None:
            break
        lam, sigma, kappa = (a + b for a, b in zip((found.lam, found.sigma, found.kappa), step, strict=True))
        sigma, kappa = min(1.0, max(0.0, sigma)), max(0.0, kappa)
        tried = Fit(lam, sigma, kappa, sum((x - lam * _shape(n, sigma, kappa)) ** 2 for n, x in points))
        if tried.sse < found.sse:
            found, damping = tried, damping / 3
        else:
            damping *= 4
        if damping > 1e12:
            break
    return found


def _step(points: Sequence[tuple[float, float]], at: Fit, damping: float) -> tuple[float, float, float] | None:
    """The damped Gauss-Newton step (JᵀJ + μ·diag JᵀJ) δ = Jᵀr for (λ, σ, κ); None where it cannot be solved."""
    rows, residuals = [], []
    for n, x in points:
        d = 1 + at.sigma * (n - 1) + at.kappa * n * (n - 1)
        rows.append((n / d, -at.lam * n * (n - 1) / d ** 2, -at.lam * n * n * (n - 1) / d ** 2))
        residuals.append(x - at.lam * n / d)
    normal = [[sum(r[i] * r[j] for r in rows) for j in range(3)] for i in range(3)]
    for i in range(3):
        normal[i][i] *= 1 + damping
    rhs = [sum(r[i] * e for r, e in zip(rows, residuals, strict=True)) for i in range(3)]
    return _solve(normal, rhs)


def _solve(a: list[list[float]], b: list[float]) -> tuple[float, float, float] | None:
    """A 3×3 system by Cramer's rule; None where it is singular."""
    def det(m: list[list[float]]) -> float:
        return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))
    whole = det(a)
    if whole == 0 or not math.isfinite(whole):
        return None
    return tuple(det([[b[r] if c == k else a[r][c] for c in range(3)] for r in range(3)]) / whole
                 for k in range(3))


def _cells(centre: float, span: float, low: float, high: float) -> list[float]:
    """GRID values from centre − span to centre + span, kept within [low, high] (the bounds themselves included)."""
    return sorted({min(high, max(low, centre + span * (2 * i / (GRID - 1) - 1))) for i in range(GRID)})
