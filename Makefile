# Clans by Mail: `make demo` runs the service, `make test` runs every test.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test bench clean catalog

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/pbem demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) instance .pytest_cache .hypothesis bench/results

# Translations (README, "Adding a language"): `make catalog` extracts the English
# sentences into messages.pot and merges them into every language's messages.po;
# translate the .po, then `make catalog` again compiles the .mo files.
TRANSLATIONS := pbem/translations
KEYWORDS := -k N_ -k n_:1,2 -k p_:1c,2 -k NP_:1c,2
catalog: $(STAMP)
	$(BIN)/pybabel extract -F $(TRANSLATIONS)/babel.cfg $(KEYWORDS) --add-comments=Translators: --no-location --sort-output \
	  --project "Clans by Mail" --msgid-bugs-address "" -o $(TRANSLATIONS)/messages.pot .
	$(BIN)/pybabel update -N -i $(TRANSLATIONS)/messages.pot -d $(TRANSLATIONS) --ignore-obsolete
	$(BIN)/pybabel compile --statistics -d $(TRANSLATIONS)
