"""The offline evaluation harness and the grader-tuning experiments.

- datasets: end-to-end and grader cases as JSONL (``eval.datasets``), HaluEval QA importer
  (``eval.halueval``), hand-written sets for the samples (``eval/sets``);
- runs: ``run_eval`` writes per-case traces, ``summary.json``, reports and a manifest;
  ``SQLiteLLMCache`` makes reruns cheap; ``compare_runs`` gates regressions;
- grader experiments: ``run_grader_experiment`` over variants, with classification metrics;
- bring your own: ``load_rows`` / ``load_cases`` read CSV, RAGAS JSONL, Hugging Face and LangSmith
  datasets through a column mapping; ``score_predictions`` scores answers made elsewhere (a
  ``Prediction`` file, or an ``Endpoint`` asked with ``ask_endpoint``); ``JUDGED_METRICS`` judge
  answers with the local critic or an API model (``make_judge``);
- self-query sets (``eval/sets/<name>/``): ``load_plan_set`` and ``score_plan_set`` score a planner's
  filters by what they select from probe records (``probe_records``) in a real Chroma.
"""

from eval.cache import SQLiteLLMCache, with_cache
from eval.classification import ClassificationReport, Confusion, classify
from eval.compare import Comparison, check_regressions, compare_runs, render_comparison
from eval.datasets import DatasetError, Document, E2ECase, GraderCase, load_documents, load_e2e, load_grader_cases
from eval.endpoints import Endpoint, ask_endpoint
from eval.experiments import (
    ExperimentResult,
    Variant,
    choose_and_report,
    load_variants,
    run_grader_experiment,
    summary_line,
    write_experiment,
)
from eval.halueval import DEV_ROWS, ImportReport, import_halueval, parse_rows
from eval.judged import JUDGED_METRICS, JudgedInputs
from eval.judges import make_judge
from eval.loaders import load_cases, load_rows
from eval.plan_eval import CaseScore, Planned, SetScore, planner_fn, score_plan_set
from eval.plan_sets import PlanCase, PlanSet, load_plan_set
from eval.predictions import Prediction
from eval.probes import ProbeChroma, probe_records
from eval.runner import RunSummary, run_eval
from eval.scoring import rejudge_run, score_predictions

__all__ = [
    "DEV_ROWS",
    "JUDGED_METRICS",
    "CaseScore",
    "ClassificationReport",
    "Comparison",
    "Confusion",
    "DatasetError",
    "Document",
    "E2ECase",
    "Endpoint",
    "ExperimentResult",
    "GraderCase",
    "ImportReport",
    "JudgedInputs",
    "PlanCase",
    "PlanSet",
    "Planned",
    "Prediction",
    "ProbeChroma",
    "RunSummary",
    "SQLiteLLMCache",
    "SetScore",
    "Variant",
    "ask_endpoint",
    "check_regressions",
    "choose_and_report",
    "classify",
    "compare_runs",
    "import_halueval",
    "load_cases",
    "load_documents",
    "load_e2e",
    "load_grader_cases",
    "load_plan_set",
    "load_rows",
    "load_variants",
    "make_judge",
    "parse_rows",
    "planner_fn",
    "probe_records",
    "rejudge_run",
    "render_comparison",
    "run_eval",
    "run_grader_experiment",
    "score_plan_set",
    "score_predictions",
    "summary_line",
    "with_cache",
    "write_experiment",
]
