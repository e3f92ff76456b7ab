"""Cross-checks of dpnotes.privacy against an independent implementation (Google's dp-accounting)."""
import numpy as np
import pandas as pd
import pytest
from dp_accounting.pld import common, privacy_loss_mechanism as plm

from dpnotes.privacy import (Budget, BudgetExceeded, as_matrix, gaussian_delta, gaussian_mech,
                             gaussian_sigma_analytic, laplace_mech)

CASES = [(1.0, 0.1, 1e-5), (1.0, 1.0, 1e-5), (2.5, 4.0, 1e-6), (0.3, 0.5, 0.1), (1.0, 10.0, 1e-8), (1.0, 0.01, 1e-3)]


@pytest.mark.parametrize("sens,eps,delta", CASES)
def test_analytic_sigma_matches_dp_accounting(sens, eps, delta):
    """Balle & Wang's sigma equals the one dp-accounting calibrates by its own search, to 1e-6 relative."""
    theirs = plm.GaussianPrivacyLoss.from_privacy_guarantee(
        common.DifferentialPrivacyParameters(eps, delta), sensitivity=sens).standard_deviation
    ours = gaussian_sigma_analytic(sens, eps, delta)
    assert abs(ours / theirs - 1) < 1e-6


@pytest.mark.parametrize("sens,eps,delta", CASES)
def test_exact_delta_matches_dp_accounting(sens, eps, delta):
    """Our closed-form delta(sigma, eps) agrees with dp-accounting's privacy-loss computation."""
    sigma = 1.7 * sens / eps
    theirs = plm.GaussianPrivacyLoss(sigma, sensitivity=sens).get_delta_for_epsilon(eps)
    assert abs(gaussian_delta(sigma, sens, eps) - theirs) <= 1e-9 * max(theirs, 1e-12) + 1e-15


def test_mechanisms_do_not_mutate_inputs():
    v = np.arange(6.0).reshape(2, 3); v0 = v.copy()
    laplace_mech(v, 1.0, 1.0, rng=0); gaussian_mech(v, 1.0, 1.0, 1e-5, rng=0)
    np.testing.assert_array_equal(v, v0)
    df = pd.DataFrame(v, columns=list("abc")); df0 = df.copy()
    arr, _ = as_matrix(df); arr[:] = 0
    pd.testing.assert_frame_equal(df, df0)


def test_budget_refuses_overspend():
    b = Budget(1.0, 1e-5)
    b.spend(0.6, 5e-6)
    with pytest.raises(BudgetExceeded, match="exceeds"):
        b.spend(0.5)
    with pytest.raises(BudgetExceeded):
        b.spend(0.1, 6e-6)
    b.spend(0.4, 5e-6)
    assert b.remaining == pytest.approx((0.0, 0.0), abs=1e-12)


# ---- the float-safe sampler ---------------------------------------------------------------------------------------
from scipy import stats  # noqa: E402

from dpnotes.privacy import (SAMPLERS, add_gaussian, add_laplace, gaussian_noise, gaussian_sigma,  # noqa: E402
                             laplace_noise, safe_grid)


def test_safe_sampler_is_registered_and_seeded():
    assert 'safe' in SAMPLERS
    np.testing.assert_array_equal(laplace_noise(1.0, 5, rng=3, sampler='safe'), laplace_noise(1.0, 5, rng=3, sampler='safe'))
    np.testing.assert_array_equal(gaussian_noise(1.0, 5, rng=3, sampler='safe'), gaussian_noise(1.0, 5, rng=3, sampler='safe'))


@pytest.mark.parametrize("value", [0.1, 1 / 3, -7.25e-3, 12345.678])
def test_safe_outputs_lie_on_one_grid_whatever_the_value(value):
    """Mironov's attack needs outputs whose low-order bits depend on f(D); safe outputs are multiples of one grid step."""
    g = safe_grid(1.0)
    for out in (add_laplace(np.full(200, value), 1.0, rng=1, sampler='safe'),
                add_gaussian(np.full(200, value), 1.0, rng=2, sampler='safe')):
        assert np.all(np.mod(out, g) == 0)


def test_safe_mechanisms_charge_the_grid_and_keep_the_law():
    """The safe Laplace/Gaussian mechanisms add at least the nominal noise, and their noise has the nominal law (KS, level 1e-3)."""
    z = laplace_mech(np.zeros(40_000), 1.0, 0.5, rng=5, sampler='safe')
    assert stats.kstest(z, stats.laplace(scale=2.0).cdf).pvalue > 1e-3
    w = gaussian_mech(np.zeros(40_000), 1.0, 0.5, 1e-5, rng=6, sampler='safe')
    assert stats.kstest(w / gaussian_sigma(1.0, 0.5, 1e-5), 'norm').pvalue > 1e-3


def test_safe_handles_extreme_values_without_raising():
    out = laplace_mech(np.array([1e150, -1e-160, 3e300]), 1.0, 1.0, rng=0, sampler='safe')
    assert np.all(np.isfinite(out)) and abs(out[0] / 1e150 - 1) < 1e-12
