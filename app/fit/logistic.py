"""The L2-regularised logistic regression both weight fits solve (charge signals, retrieval strategies)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize


def l2_logistic(x: np.ndarray, y: np.ndarray, c: float) -> np.ndarray:
    """Coefficients of one column of ``x`` each, then the intercept (last), fitted by L-BFGS with penalty
    1 / c on the coefficients, not on the intercept."""
    x1 = np.hstack([x, np.ones((len(x), 1))])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x1 @ w
        p = 1.0 / (1.0 + np.exp(-z))
        value = float(np.sum(np.logaddexp(0, z) - y * z) + 0.5 / c * np.sum(w[:-1] ** 2))
        grad = x1.T @ (p - y) + np.append(w[:-1] / c, 0.0)
        return value, grad

    return np.asarray(minimize(loss, np.zeros(x1.shape[1]), jac=True, method="L-BFGS-B").x)
