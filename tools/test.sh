#!/usr/bin/env bash
# The test command of dpnotes (README: `bash tools/test.sh`).
#
#   bash tools/test.sh            nbdev-test over every notebook (2 workers, `#| slow`/`#| notest` cells skipped),
#                                 then pytest over tests/ (tests marked `slow` deselected; one pytest-xdist worker per CPU)
#   bash tools/test.sh --slow     the long experiments too: nbdev-test --flags slow, and every pytest test
#   extra arguments are passed to pytest (e.g. `bash tools/test.sh -x -k privacy`)
#
# The last lines printed are pytest's summary.  nbdev-test's result is part of it: tests/test_repo.py's
# test_notebooks_pass_nbdev_test fails (with the failing notebooks and their tracebacks) when nbdev-test failed.
# Browser tests of the site (marker `site`) run when `python docs/build.py site` has built it and Chromium is installed;
# otherwise one line says that they are skipped and why (under CI they run and fail instead).
#   bash tools/test.sh --site-status   prints only that line.
# Exit status: non-zero if nbdev-test or pytest failed.
set -uo pipefail
cd "$(dirname "$0")/.."

site_why=''
chromium="${DPNOTES_CHROMIUM:-/usr/bin/chromium}"
if [[ ! -f docs/_build/html/dpnotes-build.json ]]; then
    site_why='no built site (docs/_build/html/dpnotes-build.json is missing): run `python docs/build.py site` first'
elif [[ ! -x "$chromium" ]] && ! command -v "$chromium" >/dev/null 2>&1; then
    site_why="Chromium not found at $chromium: install it (Debian: apt-get install -y chromium) or set DPNOTES_CHROMIUM"
elif ! python -c 'import playwright' >/dev/null 2>&1; then
    site_why='the Python package playwright is missing: pip install -e ".[dev]"'
fi
if [[ -z "$site_why" ]]; then site_line='== site tests: run against docs/_build/html with '"$chromium"
elif [[ -n "${CI:-}" ]]; then site_line="== site tests: will FAIL (CI is set): $site_why"
else site_line="== site tests: SKIPPED, $site_why"; fi
if [[ "${1:-}" == "--site-status" ]]; then echo "$site_line"; exit 0; fi

nb_flags=()
markers='not slow'
if [[ "${1:-}" == "--slow" ]]; then
    shift
    nb_flags=(--flags slow)
    markers=''
fi

mkdir -p artifacts
log="$PWD/artifacts/nbdev-test.log"
echo "== nbdev-test --n-workers 2 --timing ${nb_flags[*]}  (log: $log)"
start=$SECONDS
nbdev-test --n-workers 2 --timing "${nb_flags[@]}" 2>&1 | tee "$log"
nb_rc=${PIPESTATUS[0]}
echo "== nbdev-test exited with $nb_rc after $((SECONDS - start)) s"

export DPNOTES_NBDEV_TEST_RC=$nb_rc DPNOTES_NBDEV_TEST_LOG=$log
echo "$site_line"
if [[ -n "$site_why" && -z "${CI:-}" ]]; then markers="${markers:+$markers and }not site"; fi
# pytest-xdist: one worker per CPU this process may use (at most 4); none on a one-CPU machine
cpus=$(python -c 'import os; print(len(os.sched_getaffinity(0)))' 2>/dev/null || echo 1)
par=()
if (( cpus > 1 )) && python -c 'import xdist' >/dev/null 2>&1; then par=(-n "$(( cpus < 4 ? cpus : 4 ))"); fi
echo "== pytest ${par[*]} ${markers:+-m \"$markers\"} tests/ $*"
if [[ -n "$markers" ]]; then
    python -m pytest "${par[@]}" -m "$markers" --durations=15 tests/ "$@"
else
    python -m pytest "${par[@]}" --durations=15 tests/ "$@"
fi
py_rc=$?
# pytest exit 5 = no test collected: a broken selection, not a pass
if (( nb_rc != 0 && py_rc == 0 )); then exit 1; fi
exit $py_rc
