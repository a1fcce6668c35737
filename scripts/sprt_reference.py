#!/usr/bin/env python3
"""Reference values for the pentanomial GSPRT in crates/arena/src/stats/sprt.rs.

Standard library only. The numbers printed here are hardcoded in the Rust
tests; this script computes them by a different numerical route than the
Rust code, so that a shared mistake is unlikely:

* Rust finds the constrained maximum-likelihood distribution by solving the
  Lagrange condition sum p_i (a_i - s) / (1 + theta (a_i - s)) = 0 for theta
  (safeguarded Newton on a bracket) and sums log-ratios of the two fitted
  distributions (the primal form).

* Here the LLR comes from the dual: for the constraint E[a] = s,

      max_q sum p log q = sum p log p - max_theta g(theta),
      g(theta) = sum p log(1 + theta (a - s)),

  and g is concave, so it is maximised by golden-section search on values
  alone (no derivative, no root). LLR = N (max g_0 - max g_1), the sums
  taken with math.fsum.

Empty categories are replaced by 1e-3 pairs before anything else, as
fishtest and fastchess do, and N is the sum after that.

Run: python3 scripts/sprt_reference.py
"""

import math

SCORES = [0.0, 0.25, 0.5, 0.75, 1.0]
GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def regularize(counts):
    return [c if c > 0 else 1e-3 for c in counts]


def logistic_score(elo):
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def golden_max(f, lo, hi, iterations=300):
    """Maximum of a unimodal f on [lo, hi] by golden-section search."""
    a, b = lo, hi
    c = b - GOLDEN * (b - a)
    d = a + GOLDEN * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iterations):
        if fc >= fd:
            b, d, fd = d, c, fc
            c = b - GOLDEN * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + GOLDEN * (b - a)
            fd = f(d)
        if b - a <= 1e-16 * max(1.0, abs(a), abs(b)):
            break
    return max(fc, fd)


def dual_max_linear(p, s):
    """max over theta of sum p log(1 + theta (a - s))."""

    def g(theta):
        total = []
        for pi, a in zip(p, SCORES):
            x = 1.0 + theta * (a - s)
            if x <= 0.0:
                return -math.inf
            total.append(pi * math.log(x))
        return math.fsum(total)

    lo = -1.0 / (SCORES[-1] - s)
    hi = -1.0 / (SCORES[0] - s)
    # g is -inf at both ends; search just inside them.
    width = hi - lo
    return golden_max(g, lo + 1e-15 * width, hi - 1e-15 * width)


def llr_logistic(counts, elo0, elo1):
    counts = regularize(counts)
    n = math.fsum(counts)
    p = [c / n for c in counts]
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return n * (dual_max_linear(p, s0) - dual_max_linear(p, s1))


def llr_normal_approximation(counts, elo0, elo1):
    """N (s1 - s0) (2 mean - s0 - s1) / (2 var), no regularization."""
    n = math.fsum(counts)
    mean = math.fsum(c * a for c, a in zip(counts, SCORES)) / n
    var = math.fsum(c * (a - mean) ** 2 for c, a in zip(counts, SCORES)) / n
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


# (counts [LL, LD, DD+WL, WD, WW], elo0, elo1)
LOGISTIC_CASES = [
    ([10, 30, 60, 30, 10], 0.0, 10.0),
    ([5, 20, 40, 45, 20], 0.0, 10.0),
    ([0, 0, 3, 10, 37], 0.0, 20.0),
    ([0, 0, 0, 0, 12], 0.0, 20.0),
    ([40, 0, 0, 0, 0], -10.0, 10.0),
    ([3, 150, 900, 160, 2], -5.0, 5.0),
    ([1, 2, 3, 4, 5], 0.0, 50.0),
    ([223, 9863, 21279, 10037, 246], 0.5, 2.5),
    ([871, 26175, 55983, 26678, 821], 0.0, 2.0),
]

NORMAL_APPROXIMATION_CASES = [
    ([20000, 60000, 100000, 62000, 21000], 0.0, 5.0),
]


def main():
    print("logistic: counts [LL, LD, DD+WL, WD, WW], elo0, elo1 -> LLR")
    for counts, elo0, elo1 in LOGISTIC_CASES:
        print(f"  {counts}, {elo0}, {elo1} -> {llr_logistic(counts, elo0, elo1)!r}")
    print("logistic exact vs normal approximation")
    for counts, elo0, elo1 in NORMAL_APPROXIMATION_CASES:
        exact = llr_logistic(counts, elo0, elo1)
        approx = llr_normal_approximation(counts, elo0, elo1)
        print(f"  {counts}, {elo0}, {elo1} -> exact {exact!r}, approximation {approx!r}")


if __name__ == "__main__":
    main()
