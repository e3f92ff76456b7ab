"""Differentially private data release by random projections and Gaussian generative models, derived, implemented and checked in literate notebooks.

Modules:

- `dpnotes.bench`: Every DP release in dpnotes, the non-private model and the majority rate on the same splits and seeds: train on the release, test on real records; the share of the majority → non-private gap each method closes; and which method to use.
- `dpnotes.dprp`: Gondara & Wang (UAI 2020), Algorithm 1, derived and checked: the reconstruction algebra, the privacy of $P'$ and of the noisy second-moment matrix, an honest private choice of $k_1$, row-chunked release, end-to-end audits of the public calls, and the paper's Tables 2 and 3.
- `dpnotes.dpsyn`: Abay, Zhou, Kantarcioglu, Thuraisingham & Sweeney, *Privacy Preserving Synthetic Data Release Using Deep Learning*: split the data by label, train a small auto-encoder on each label group with DP-SGD, fit a Gaussian mixture to the latent codes with DP-EM, sample codes and decode them.
- `dpnotes.gauss`: RON-Gauss (Alg. 3, 4, 5), PCA-Gauss (Alg. 1, 2, 3 with Lap-PCA, Analyze Gauss and public PCA), a MODIPS-style Gaussian model without reduction, and the identity-query baselines of Li et al. and Jiang et al., as scikit-learn-style estimators.
- `dpnotes.jl`: Gaussian random projections, the sensitivity of $XR$ for neighbouring data sets (DPRP Lemma 2), and the noise σ₁ that makes P′ = XR + N(0, σ₁²) differentially private (DPRP Theorem A).
- `dpnotes.jl_release`: Algorithm 1 (project with a secret Gaussian matrix, add Laplace noise) for element-wise and row-wise neighbours, its privacy statements rewritten as (ε, δ)-DP, and Algorithm 2 (unbiased recovery of squared distances) with its variance derived from scratch.
- `dpnotes.suffstat`: A class-conditional Gaussian generative model released through Gaussian noise on counts, class sums and one pooled second-moment matrix, all under a single zCDP budget: the levers that make Gaussian-model releases useful at ε = 1."""

__version__ = "0.0.1"
