"""Differentially private data release by random projections and Gaussian generative models, derived, implemented and checked in literate notebooks.

Modules:

- `dpnotes.audit`: Lower confidence bounds on ε from samples of a mechanism on two neighbouring datasets, and an adversarial search for sensitivities.
- `dpnotes.bench`: Every DP release in dpnotes, the non-private model and the majority rate on the same splits and seeds: train on the release, test on real records; the share of the majority → non-private gap each method closes; and which method to use.
- `dpnotes.cli`: `dpnotes release IN -o OUT.csv --method M --epsilon E`: a differentially private table from the shell, with the privacy ledger and a utility summary printed; plus `methods`, `schema`, `report`, and `reproduce` for the papers' tables and figures.
- `dpnotes.covariance`: Sensitivity of second-moment matrices of norm-bounded rows, the symmetric Gaussian release (Analyze Gauss), and the entrywise L1 sensitivity behind RON-Gauss and PCA-Gauss.
- `dpnotes.data`: The tables of the DPRP and DP-SYN experiments, shipped or fetched with checksums, a user's own table in one call, and a public schema of a table's domain.
- `dpnotes.dfm`: Most random orthonormal projections of high-dimensional data look Gaussian: when it holds, when it fails, and how to measure it.
- `dpnotes.dprp`: Gondara & Wang (UAI 2020), Algorithm 1, derived and checked: the reconstruction algebra, the privacy of $P'$ and of the noisy second-moment matrix, an honest private choice of $k_1$, row-chunked release and end-to-end audits of the public calls (the paper's Tables 2 and 3 are reproduced on their own page).
- `dpnotes.dpsyn`: Abay, Zhou, Kantarcioglu, Thuraisingham & Sweeney, *Privacy Preserving Synthetic Data Release Using Deep Learning*: split the data by label, train a small auto-encoder on each label group with DP-SGD, fit a Gaussian mixture to the latent codes with DP-EM, sample codes and decode them.
- `dpnotes.evaluate`: Train on synthetic, test on real (TSTR): accuracy and AUPRC of a classifier fitted to released data and scored on real held-out records, with the non-private reference beside it.
- `dpnotes.gauss`: RON-Gauss (Alg. 3, 4, 5), PCA-Gauss (Alg. 1, 2, 3 with Lap-PCA, Analyze Gauss and public PCA), a MODIPS-style Gaussian model without reduction, and the identity-query baselines of Li et al. and Jiang et al., as scikit-learn-style estimators.
- `dpnotes.jl`: Gaussian random projections, the sensitivity of $XR$ for neighbouring data sets (DPRP Lemma 2), and the noise σ₁ that makes P′ = XR + N(0, σ₁²) differentially private (DPRP Theorem A).
- `dpnotes.jl_release`: Algorithm 1 (project with a secret Gaussian matrix, add Laplace noise) for element-wise and row-wise neighbours, its privacy statements rewritten as (ε, δ)-DP, and Algorithm 2 (unbiased recovery of squared distances) with its variance derived from scratch.
- `dpnotes.moments`: Counts, sums and second-moment matrices computed exactly in fixed point, so that one table gives bit-identical statistics in memory or split into any number of partitions: the primitive behind the Dask releases.
- `dpnotes.panel`: Interactive panels that work without a kernel: a small grid of a widget's views, rendered in advance into one self-contained HTML block whose sliders and menus show the matching view (no server, no CDN).
- `dpnotes.privacy`: Neighbouring datasets, sensitivity, the Laplace and Gaussian mechanisms (three calibrations), a privacy budget, and the package's conventions for randomness and input checking.
- `dpnotes.release`: From a user's table to a differentially private table: a public schema, one protocol for every method, a ledger of every charge, and the output back in the input's columns, units and types.
- `dpnotes.repro_dprp`: The experiments of Gondara & Wang (UAI 2020): Table 2 (train-on-synthetic accuracy and AUPRC across ε, beside RON-Gauss and PCA-Gauss), Table 3 (the number $k_2$ of kept eigenvectors), the budget split of §4.8, and the paper's row normalisation against per-feature bounds — ours beside the paper's, read against the majority-class rate.
- `dpnotes.repro_dpsyn`: Fig. 3–5 of Abay et al. (2018): SVM misclassification, 2- and 3-way marginal distance and SVM agreement of DP-SYN's synthetic rows across ε, beside RON-Gauss and PCA-Gauss and the non-private SVM, on the paper's public data sets.
- `dpnotes.repro_gauss`: Analogues of Tables 3–5 and Fig. 1 of Chanyaswad, Liu & Mittal (2019) at $\varepsilon=1$ — clustering, classification and regression from the released Gaussian models, beside PCA-Gauss (2017), a MODIPS-style model and the identity baselines — a dimension sweep, and the published class model of Alg. 5 against the scale-consistent one, across ε.
- `dpnotes.repro_jl`: Section 5 of Dhaliwal et al. (2019): Table 1 (k-means accuracy after the release), Figure 3 (recovered minus true squared distances) and Figure 4 (noise level against $k$), our numbers beside the paper's, with a Bayes ceiling that no classifier can beat.
- `dpnotes.reproduce`: One registry of every paper table and figure that dpnotes reproduces, and `reproduce(name)`, which regenerates one as a CSV file (and a PNG when the item is a figure). From the shell: `dpnotes reproduce --list`, `dpnotes reproduce NAME`.
- `dpnotes.suffstat`: A class-conditional Gaussian generative model released through Gaussian noise on counts, class sums and one pooled second-moment matrix, all under a single zCDP budget: the levers that make Gaussian-model releases useful at ε = 1."""

__version__ = "0.0.1"
