"""Print the CPU features NumPy dispatches to at run time (space-separated): the names that restrict NumPy to its baseline
code paths when passed as NPY_DISABLE_CPU_FEATURES.  The names differ between NumPy versions (NumPy 2.4: X86_V3 X86_V4
AVX512_ICL AVX512_SPR; older: AVX2 AVX512F AVX512_SKX ...), so they are read from the NumPy that is installed.

    NPY_DISABLE_CPU_FEATURES="$(python .ci/simd_features.py)" nbdev-test nbs/00_privacy.ipynb
"""
try: from numpy._core._multiarray_umath import __cpu_dispatch__ as dispatch   # NumPy >= 2
except ImportError: from numpy.core._multiarray_umath import __cpu_dispatch__ as dispatch  # NumPy 1.x
print(' '.join(dispatch))
