# wearcosim: one-command set-up.  `make demo` and `make test` install what they need.
PYTHON ?= python3
STAMP := .make/installed

.PHONY: demo test install fmus bench clean

# the stamp stands for an installed package: where this Python cannot find it (a new
# virtualenv, another interpreter) the set-up runs again
ifneq ($(shell $(PYTHON) -c "import importlib.util as u; raise SystemExit(u.find_spec('wearcosim') is None)" >/dev/null 2>&1 && echo ok),ok)
.PHONY: $(STAMP)
endif

$(STAMP): pyproject.toml
	@mkdir -p .make
	@echo "== installing wearcosim and its dependencies (first run only; a few minutes)"
	$(PYTHON) -m pip install --disable-pip-version-check --progress-bar on -e '.[test]'
	@echo "== installed" 
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(PYTHON) -m wearcosim.cli demo

fmus: $(STAMP)
	$(PYTHON) -m wearcosim.cli build

test: $(STAMP)
	$(PYTHON) -m pytest -q

clean:
	rm -rf fmu/build results .make
