"""Generate clinic_demo.csv: a synthetic mixed-type table shipped with dpnotes (licence CC0; no real person in it).

    python dpnotes/datasets/clinic_demo/make_clinic_demo.py      # rewrites clinic_demo.csv next to this script

3,000 rows, fixed seed 20261126, numpy only. Columns: clinic and insurance (string categories), smoker (yes/no with
missing cells), age (integer 18-95, right-skewed), visits (integer count 0-60, heavy tail), bmi (skewed float with
missing cells), cholesterol (float with missing cells), and the label readmitted (0/1), which depends on age, visits,
bmi, smoker and insurance. After any change, update the sha256 and bytes in dpnotes/datasets/registry.json.
"""
from pathlib import Path
import numpy as np

SEED, N = 20261126, 3000


def make(n=N, seed=SEED):
    g = np.random.default_rng(seed)
    clinic = g.choice(['North', 'South', 'East', 'West', 'Central'], size=n, p=[0.35, 0.25, 0.2, 0.095, 0.105])
    age = np.clip(np.rint(18 + g.gamma(2.2, 14.0, size=n)), 18, 95).astype(int)
    p_none = np.where(age < 30, 0.25, np.where(age > 65, 0.05, 0.16))
    u = g.uniform(size=n)
    insurance = np.where(u < p_none, 'none', np.where(u < p_none + (1 - p_none) * 0.55, 'public', 'private'))
    smoker = np.where(g.uniform(size=n) < 0.22 - 0.001 * (age - 40), 'yes', 'no').astype(object)
    smoker[g.uniform(size=n) < 0.03] = ''
    bmi = np.round(15 + g.lognormal(2.3, 0.45, size=n) + 0.02 * (age - 40), 1)
    visits = np.minimum(g.negative_binomial(1.5, 1.5 / (1.5 + 1.5 + 0.04 * (age - 18) + (bmi > 30))), 60)
    chol = np.round(4.2 + 0.012 * (age - 18) + 0.03 * (bmi - 25) + g.normal(0, 0.9, size=n), 2)
    logit = -3.2 + 0.025 * (age - 18) + 0.12 * visits + 0.04 * (bmi - 25) + 0.6 * (smoker == 'yes') + 0.5 * (insurance == 'none')
    readmitted = (g.uniform(size=n) < 1 / (1 + np.exp(-logit))).astype(int)
    bmi_s = np.where(g.uniform(size=n) < 0.08 + 0.05 * (insurance == 'none'), '', bmi.astype(str))
    chol_s = np.where(g.uniform(size=n) < 0.05, '', np.char.mod('%.2f', chol))
    cols = dict(clinic=clinic, insurance=insurance, smoker=smoker, age=age, visits=visits, bmi=bmi_s, cholesterol=chol_s,
                readmitted=readmitted)
    lines = [','.join(cols)] + [','.join(str(cols[c][i]) for c in cols) for i in range(n)]
    return '\n'.join(lines) + '\n'


if __name__ == '__main__':
    out = Path(__file__).with_name('clinic_demo.csv')
    out.write_text(make(), encoding='utf-8')
    print(out)
