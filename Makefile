# wearcosim: one-command set-up.  `make demo` and `make test` install what they need into the
# project's virtual environment (.venv, or `make VENV=path ...`), never into the Python that
# creates it: that interpreter ($(PYTHON)) is only asked to make the environment.
#   make demo    the runtime dependencies only (pyproject's [project] dependencies), then the demo
#   make test    the `test` extra (test tools and the peers the tests compare with), then pytest
# The versions CI tests are taken from constraints.txt (pip install -c).
PYTHON ?= python3
VENV ?= .venv
# options of `python -m venv`: the environment sees the packages the machine already has, so
# pip installs only what is missing or of another version -- into $(VENV), never elsewhere (a
# fresh CI clone does not download ~2 GB again); `make VENV_FLAGS= ...` for an isolated one
VENV_FLAGS ?= --system-site-packages
PY := $(VENV)/bin/python
# pip of the environment only; PIP_REQUIRE_VIRTUALENV makes any pip outside one refuse
PIP := PIP_REQUIRE_VIRTUALENV=1 $(PY) -m pip --disable-pip-version-check
CONSTRAINTS := -c constraints.txt
# the suite in parallel (pytest-xdist; one file's tests on one worker, so a module's FMU
# builds are made once), the 25 slowest tests listed at the end (CI's output)
PYTEST_ARGS ?= -q -n auto --dist loadfile --durations=25
RUNTIME := $(VENV)/.wearcosim-runtime
TESTENV := $(VENV)/.wearcosim-test
SETUP := pyproject.toml setup.py constraints.txt

.PHONY: demo test install install-test fmus docs clean distclean

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || \
	  { echo "error: wearcosim needs Python >= 3.11 to create $(VENV); '$(PYTHON)' is not (make PYTHON=python3.11 ...)" >&2; exit 1; }
	@echo "== creating the virtual environment $(VENV) with $(PYTHON) (the system's packages stay as they are)"
	@$(PYTHON) -m venv $(VENV_FLAGS) $(VENV) >/dev/null 2>&1 || { rm -rf $(VENV); $(PYTHON) -m virtualenv -q $(VENV_FLAGS) $(VENV) >/dev/null 2>&1; } || \
	  { rm -rf $(VENV); virtualenv -q $(VENV_FLAGS) -p $(PYTHON) $(VENV) >/dev/null 2>&1; } || \
	  { rm -rf $(VENV); echo "error: cannot create a virtual environment: '$(PYTHON) -m venv' needs ensurepip (Debian/Ubuntu: apt-get install python3-venv) or install virtualenv" >&2; exit 1; }

$(RUNTIME): $(PY) $(SETUP)
	@echo "== installing wearcosim and its runtime dependencies into $(VENV) (first run only)"
	$(PIP) install --progress-bar on $(CONSTRAINTS) -e .
	@touch $@

$(TESTENV): $(PY) $(SETUP)
	@echo "== installing wearcosim with the test extra into $(VENV) (first run only; a few minutes)"
	$(PIP) install --progress-bar on $(CONSTRAINTS) -e '.[test]'
	@touch $@ $(RUNTIME)

install: $(RUNTIME)
	@echo "== wearcosim is installed in $(VENV): $(VENV)/bin/wearcosim, or 'source $(VENV)/bin/activate'"

install-test: $(TESTENV)

demo: $(RUNTIME)
	@echo "== running the demo with $(PY)"
	$(PY) -m wearcosim.cli demo

fmus: $(RUNTIME)
	$(PY) -m wearcosim.cli build

# pytest's status is passed on (make itself exits with 2 on any failure); 5 = no test collected
test: $(TESTENV)
	@echo "== running the test suite with $(PY)"
	@echo "$(PY) -m pytest $(PYTEST_ARGS)"; $(PY) -m pytest $(PYTEST_ARGS); rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "error: no tests were collected" >&2; fi; exit $$rc

docs: $(TESTENV)
	$(PY) -m mkdocs build --strict

clean:
	rm -rf fmu/build results .make

distclean: clean
	rm -rf $(VENV)
