"""Differentially private data release by random projections and Gaussian generative models, derived, implemented and checked in literate notebooks.

Modules:

- `dpnotes.analyze_gauss`: The L2 sensitivity of the upper triangle of XᵀX for rows of bounded norm, under replace-one and add/remove neighbours, and the symmetric Gaussian release of Dwork et al. (2014) built on it, audited.
- `dpnotes.audit`: Lower confidence bounds on ε from samples of a mechanism on two neighbouring datasets, end-to-end audits of public calls on adversarial neighbours, and what a recipient of the front door observes.
- `dpnotes.bench`: Every DP release in dpnotes beside the strongest DP synthesisers we could install (MST, AIM) and DP classifiers trained directly (diffprivlib), the non-private model and the majority rate, on the same splits, seeds and scorer: train on the release, test on real records; the share of the majority → non-private gap each method closes; and which method to use.
- `dpnotes.cli`: `dpnotes release IN -o OUT.csv --epsilon E`: a differentially private table from the shell, with the privacy ledger and the public rules printed (and nothing computed from the real rows unless asked); plus `methods`, `schema`, `check`, `report`, and `reproduce` for the papers' tables and figures.
- `dpnotes.cov_lemmas`: RON-Gauss Lemmas 1, 2, 5 and 6 and PCA-Gauss Proposition 3 / Theorem 4: the other sensitivities the two generators use, each derived from the entrywise L1 bound on the second moment (`dpnotes.covariance`) or checked against it.
- `dpnotes.cov_release`: The release of a second-moment matrix with Laplace noise on its upper triangle (the step RON-Gauss and PCA-Gauss take), projected onto the PSD cone, with its leading eigenvectors; its error and bias measured, its float-safe mode, and the auditor run on the shipped and the published calibration.
- `dpnotes.covariance`: The entrywise L1 sensitivity of the second-moment matrix of norm-bounded rows, for the full matrix and for its upper triangle: the bound behind the Laplace releases of RON-Gauss and PCA-Gauss, corrected and checked two independent ways.
- `dpnotes.data`: The tables of the DPRP and DP-SYN experiments, shipped or fetched with checksums, a user's own table in one call, and a public schema of a table's domain.
- `dpnotes.dfm`: Most random orthonormal projections of high-dimensional data look Gaussian: when it holds, when it fails, and how to measure it.
- `dpnotes.dprp`: Gondara & Wang (UAI 2020), Algorithm 1 as an estimator: public pre-processing, the two Gaussian releases, the reconstruction, a row-chunked and a Dask path, and end-to-end audits of the public calls (the paper's Tables 2 and 3 are reproduced on their own page).
- `dpnotes.dprp_privacy`: Gondara & Wang (2020), Theorems A and B as DPRP uses them: the noise on P′ and on the second moment XᵀX, the published Theorem B and why it is not private, and an exponential-mechanism choice of k₁ with what tuning on the data would leak.
- `dpnotes.dprp_reconstruction`: Gondara & Wang (2020), Algorithm 1, line 7: the reconstruction from a noisy random projection, exact without noise when rank X ≤ k₂ ≤ k₁, and its expected error in closed form (the "dimensionality explosion" of k₁).
- `dpnotes.dpsyn`: Abay, Zhou, Kantarcioglu, Thuraisingham & Sweeney, *Privacy Preserving Synthetic Data Release Using Deep Learning*: split the data by label, train a small auto-encoder on each label group with DP-SGD, fit a Gaussian mixture to the latent codes with DP-EM, sample codes and decode them.
- `dpnotes.evaluate`: Train on synthetic, test on real (TSTR): accuracy and AUPRC of a classifier fitted to released data and scored on real held-out records, with the non-private reference beside it.
- `dpnotes.front_door`: The paths a user takes, run as a black box on the front-door pairs: `release()`, the `dpnotes release` command in a process of its own, Dask in several partition layouts; the leaky controls each audit must catch, and the one list of cases the grid runs.
- `dpnotes.gauss`: RON-Gauss (Alg. 3, 4, 5), PCA-Gauss (Alg. 1, 2, 3 with Lap-PCA, Analyze Gauss and public PCA) and a MODIPS-style Gaussian model without reduction, as scikit-learn-style estimators built from the Gaussian-model steps; checked here together with the identity-query baselines of Li et al. and Jiang et al.
- `dpnotes.gauss_steps`: The steps RON-Gauss and PCA-Gauss are made of: the one-pass pre-processing and projection, the scale-consistent class rows, the second-moment release, the Gaussian sampler, the PCA sources, and the label and class-sum rules.
- `dpnotes.identity_release`: Noisy projected rows, the baselines RON-Gauss and PCA-Gauss are compared with (Li et al.; Jiang et al.): rows normalised, projected by a random or a PCA basis, and every entry released with Laplace noise.
- `dpnotes.jl`: Gondara & Wang (2020), Lemma 2: how far replacing one record moves a Gaussian random projection XR, derived from the exact χ² law of ‖zR‖, checked by Monte Carlo, and shown by an adversarial search to hold for each pair of neighbours, not for a fixed R.
- `dpnotes.jl_gauss`: Gondara & Wang (2020), Theorem A: the noise σ₁ that makes P′ = XR + N(0, σ₁²) differentially private, in three calibrations (the published one, a corrected split of δ, and the exact one), the release `jl_gaussian_release` built on it, and its audits, down to the whole public call.
- `dpnotes.jl_release`: Dhaliwal et al. (2019), Algorithm 1 (project with a secret Gaussian matrix, add Laplace noise) for element-wise and row-wise neighbours, its privacy statements rewritten as (ε, δ)-DP, and Algorithm 2 (unbiased recovery of squared distances) with its variance derived from scratch.
- `dpnotes.moments`: Counts, sums and second-moment matrices computed exactly in fixed point, so that one table gives bit-identical statistics in memory or split into any number of partitions: the primitive behind the Dask releases.
- `dpnotes.panel`: Interactive panels that work without a kernel: a small grid of a widget's views, rendered in advance into one self-contained HTML block whose sliders and menus show the matching view (no server, no CDN).
- `dpnotes.plan`: `plan_release(schema, method, epsilon)`: the privacy ledger, the noise scale of every released statistic in the user's units, and a forecast of the noise on the released values — from the public schema and settings alone.
- `dpnotes.privacy`: Neighbouring datasets, sensitivity, the Laplace and Gaussian mechanisms (three calibrations), a privacy budget, a float-safe sampler, public label sets and private feature bounds, exact row norms, unit rows and clipping (the one implementation every mechanism calls), symmetric matrices released through their upper triangle, and the package's conventions for randomness and input checking.
- `dpnotes.registry`: The adapters that put every release method behind one protocol (validate, encode through the public schema, fit, sample, ledger), marginal calibration, and the registry of method names.
- `dpnotes.release`: From a user's table to a differentially private table: a public schema, one protocol for every method, a ledger of every charge, and the output back in the schema's columns, units and types.
- `dpnotes.replay`: Run a release on a table while recording every call into a noise primitive, run it again on a neighbouring table with every noisy output forced to the first run's, and check that nothing public moved, that each primitive's two inputs are no further apart than its declared sensitivity, and that the recorded calls compose within the ledger.
- `dpnotes.repro_dprp`: The experiments of Gondara & Wang (UAI 2020): Table 2 (train-on-synthetic accuracy and AUPRC across ε, beside RON-Gauss and PCA-Gauss), Table 3 (the number $k_2$ of kept eigenvectors), the budget split of §4.8, and the paper's row normalisation against per-feature bounds — ours beside the paper's, read against the majority-class rate.
- `dpnotes.repro_dpsyn`: Fig. 3–5 of Abay et al. (2018): SVM misclassification, 2- and 3-way marginal distance and SVM agreement of DP-SYN's synthetic rows across ε, beside RON-Gauss and PCA-Gauss and the non-private SVM, on the paper's public data sets.
- `dpnotes.repro_gauss`: Analogues of Tables 3–5 and Fig. 1 of Chanyaswad, Liu & Mittal (2019) at ε = 1 — clustering, classification and regression from the released Gaussian models, beside PCA-Gauss (2017), a MODIPS-style model and the identity baselines — a dimension sweep, and the published class model of Alg. 5 against the scale-consistent one, across ε.
- `dpnotes.repro_jl`: Section 5 of Dhaliwal et al. (2019): Table 1 (k-means accuracy after the release), Figure 3 (recovered minus true squared distances) and Figure 4 (noise level against $k$), our numbers beside the paper's, with a Bayes ceiling that no classifier can beat.
- `dpnotes.reproduce`: One registry of every paper table and figure that dpnotes reproduces, and `reproduce(name)`, which regenerates one as a CSV file (and a PNG when the item is a figure). From the shell: `dpnotes reproduce --list`, `dpnotes reproduce NAME`.
- `dpnotes.sensitivity`: An honest search for neighbouring datasets on which a query moves more than a claimed sensitivity bound: random pairs, then numerical optimisation; a refuted claim comes with a witness, an unreached one with its gap.
- `dpnotes.suffstat`: A class-conditional Gaussian generative model released through Gaussian noise on counts, class sums and one pooled second-moment matrix, all under a single zCDP budget: the levers that make Gaussian-model releases useful at ε = 1."""

__version__ = "0.0.1"

# The front door, spelled from the package: `dpnotes.release(table, method=..., epsilon=..., schema=...)`,
# `dpnotes.report(real, released, label=...)`, `dpnotes.methods()`, `dpnotes.plan_release(schema, method, epsilon)`.
# Loaded on first use (PEP 562), so `import dpnotes` stays light (no pandas, SciPy or scikit-learn).
# Hand-written: `nbdev-export` rewrites only the docstring above.
_LAZY = {'release': ('dpnotes.release', None), 'report': ('dpnotes.evaluate', 'report'),
         'methods': ('dpnotes.release', 'methods'), 'plan_release': ('dpnotes.plan', 'plan_release')}


def __getattr__(name):
    if name not in _LAZY: raise AttributeError(f"module 'dpnotes' has no attribute {name!r}")
    import importlib
    mod, attr = _LAZY[name]
    obj = importlib.import_module(mod)
    if attr is not None:
        obj = getattr(obj, attr)
        globals()[name] = obj   # the next lookup does not come here
    return obj


def __dir__(): return sorted(set(globals()) | set(_LAZY))
