"""The strong Wolfe line search LBFGS(line_search_fn="strong_wolfe") runs: a bracketing phase,
then a zoom by safeguarded cubic interpolation, with PyTorch's constants and tie-breaks so the
steps it accepts are PyTorch's."""
from __future__ import annotations

import math


def cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clipped to
    `bounds` (default: the interval between the points); their midpoint when the cubic has no
    local minimum."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    discriminant = d1 ** 2 - g1 * g2
    if not discriminant >= 0:
        return (low + high) / 2.0
    d2 = math.sqrt(discriminant)
    if x1 <= x2:
        position = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        position = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(position, low), high)


class _Point:
    """A trial step with its loss, gradient and slope along the search direction."""

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                 max_ls=25):
    """Search along `d` from the point with loss f, gradient g and slope gtd, starting at step
    t; `evaluate(t)` gives (loss, flat gradient) at x + t*d. Returns (loss, flat gradient,
    step, evaluations) of the step it accepts."""
    def probe(step):
        loss, grad = evaluate(step)
        return _Point(step, loss, grad, float(grad.dot(d)))

    def too_high(point):
        return point.f > f + c1 * point.t * gtd

    def curvature(point):
        return abs(point.gtd) <= -c2 * gtd

    start, new = _Point(0, f, g.clone(), gtd), probe(t)
    evals, ls_iter, previous = 1, 0, start
    bracket, done = None, False
    while ls_iter < max_ls:
        if too_high(new) or (ls_iter > 1 and new.f >= previous.f):
            bracket = [previous, new]
            break
        if curvature(new):
            bracket, done = [new], True
            break
        if new.gtd >= 0:
            bracket = [previous, new]
            break
        # extrapolate past the current step, at most tenfold
        step = cubic_minimum(previous.t, previous.f, previous.gtd, new.t, new.f, new.gtd,
                             bounds=(new.t + 0.01 * (new.t - previous.t), new.t * 10))
        previous, new = new, probe(step)
        evals += 1
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = [start, new]
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    stalled = False
    while not done and ls_iter < max_ls:
        a, b = bracket
        if abs(b.t - a.t) * float(d.abs().max()) < tolerance_change:
            break
        step = cubic_minimum(a.t, a.f, a.gtd, b.t, b.f, b.gtd)
        step, stalled = _keep_inside(step, min(a.t, b.t), max(a.t, b.t), stalled)
        new = probe(step)
        evals += 1
        ls_iter += 1
        if too_high(new) or new.f >= bracket[low].f:
            bracket[high] = new
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
            continue
        if curvature(new):
            done = True
        elif new.gtd * (bracket[high].t - bracket[low].t) >= 0:
            bracket[high] = bracket[low]
        bracket[low] = new
    best = bracket[low]
    return best.f, best.g, best.t, evals


def _keep_inside(step, lowest, highest, stalled):
    """Move a step within a tenth of the bracket's width of an end back to that distance when
    the previous step was also that close (or it lies outside), so the bracket keeps
    shrinking; returns the step and whether this one was too close."""
    margin = 0.1 * (highest - lowest)
    if min(highest - step, step - lowest) >= margin:
        return step, False
    if not (stalled or step >= highest or step <= lowest):
        return step, True
    if abs(step - highest) < abs(step - lowest):
        return highest - margin, False
    return lowest + margin, False
