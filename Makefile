# Two commands a newcomer needs: `make demo` and `make test`. Both build .venv/ first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The default native llama.cpp build segfaults in llama_decode on these CPUs; pin the ISA explicitly.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
STAMP := $(VENV)/.installed

.PHONY: demo test venv lint clean weights scaleout

venv: $(STAMP)

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first, pinned to the CPU build on disk, so nothing pulls a CUDA build.
	$(BIN)/pip install --quiet torch==2.13.0
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" FORCE_CMAKE=1 $(BIN)/pip install --quiet "llama-cpp-python[server]>=0.3.7,<0.4"
	$(BIN)/pip install --quiet -e ".[local,postgres,dev]"
	touch $(STAMP)

demo: $(STAMP)
	SELFRAG_HOME=$${SELFRAG_HOME:-$(CURDIR)/.selfrag-demo} HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/selfrag demo

test: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest -q

# Rebuild the reader-critic's weights from the pinned data, seeded, in two stages (about an hour on
# two cores; never run by demo or test): every head from the base model, then the reader (yes/no
# answers four times over) and the support judgement once more from the first stage's weights.
JUDGE := selfrag/reading/weights/minilm-judge-v1
weights: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m eval.training --out build/judge-stage1
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m eval.training --out $(JUDGE) --init-from build/judge-stage1 \
		--reader-epochs 1.5 --critic-epochs 1 --tasks support --yes-no-oversample 4 --seed-offset 1

# The whole scale-out on this machine for development: Chroma, Postgres, FalkorDB and N instances
# (dev/scaleout.py; N=2, PORT=8100 by default). Ctrl-C stops everything.
N ?= 2
PORT ?= 8100
scaleout: $(STAMP)
	$(BIN)/python dev/scaleout.py --instances $(N) --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check selfrag graders workflows eval bench tests dev
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .selfrag-demo
