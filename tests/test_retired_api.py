"""Options the project judged and did not adopt, or retired (nbs/92_decisions.ipynb, "Judged and not adopted, kept
where judged" and "Retired options"), are not parameters of the package's API: not of the estimator classes, not of
`release()` and not of any registered adapter. Their code stays in the notebook that judged each one."""
import inspect
from dataclasses import fields, is_dataclass

import pandas as pd
import pytest

from dpnotes.copula import CopulaGauss
from dpnotes.registry import METHODS, method_params
from dpnotes.release import release
from dpnotes.suffstat import SuffStatGauss

REMOVED = {
    CopulaGauss: {'coarse', 'coarse_share', 'mean_shrink', 'range_share', 'range_tail'},   # D4, D8, D22
    SuffStatGauss: {'scaling', 'covariance', 'postprocess'},                                # D2's ablation branches
}
FRONT_DOOR = set().union(*REMOVED.values()) | {'calibrate_atoms'}                           # D17, D18
RETIRED_VALUES = {'atoms': (True, 'merge'), 'clip_factor': ('auto',)}                       # D9, D11, D7


def params_of(obj) -> set:
    "Parameter names of a callable's signature (a class: its constructor's), and the fields of a dataclass."
    names = set(inspect.signature(obj).parameters)
    if is_dataclass(obj): names |= {f.name for f in fields(obj)}
    return names


def present(obj, removed) -> set:
    "The removed parameter names `obj` still takes."
    return params_of(obj) & set(removed)


@pytest.mark.parametrize('cls', list(REMOVED), ids=lambda c: c.__name__)
def test_estimator_signature_has_no_removed_parameter(cls):
    assert not present(cls, REMOVED[cls]), present(cls, REMOVED[cls])


def test_release_and_adapters_take_no_removed_parameter():
    assert not present(release, FRONT_DOOR)
    bad = {name: present(cls, FRONT_DOOR) | (set(method_params(cls)) & FRONT_DOOR) for name, cls in METHODS.items()}
    bad.update({f'{name} spec': present(cls.spec_type, FRONT_DOOR) for name, cls in METHODS.items()})
    assert not any(bad.values()), {k: v for k, v in bad.items() if v}


def test_no_default_is_a_retired_value():
    for obj in [CopulaGauss, *METHODS.values()]:
        p = inspect.signature(obj).parameters
        for name, values in RETIRED_VALUES.items():
            if name in p: assert not any(p[name].default == v and type(p[name].default) is type(v) for v in values)


@pytest.mark.parametrize('opts', [dict(atoms=True), dict(atoms='merge'), dict(clip_factor='auto')])
def test_copula_refuses_retired_values(opts):
    cols = {'a': dict(kind='numeric', lower=0, upper=1)}
    with pytest.raises(ValueError, match='retired'):
        CopulaGauss(cols, rng=0, **opts).fit(pd.DataFrame({'a': [0.1, 0.5, 0.9]}))


def test_control_a_removed_parameter_is_caught():
    "The check finds a removed name in a constructor, in a function and in a dataclass field."
    class Dummy:
        def __init__(self, columns, epsilon=1.0, mean_shrink=None): pass

    def dummy_release(data, method='x', *, scaling='centre'): pass

    from dataclasses import dataclass

    @dataclass(frozen=True)
    class DummySpec:
        split: float = 0.5
        calibrate_atoms: object = False

    assert present(Dummy, REMOVED[CopulaGauss]) == {'mean_shrink'}
    assert present(dummy_release, FRONT_DOOR) == {'scaling'}
    assert present(DummySpec, FRONT_DOOR) == {'calibrate_atoms'}
