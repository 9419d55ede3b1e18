"""Evaluating an engine on a question set: the questions file, one result per question, the run's summary
and the comparison of two runs. No front end here: ``hippo-tui eval`` prints these, a dashboard can draw them."""

from hippo_tui.evaluation.compare import METRICS, Comparison, compare_runs, worse_metrics
from hippo_tui.evaluation.questions import DEMO_QUESTIONS, EvalQuestion, QuestionsError, load_questions
from hippo_tui.evaluation.results import EvalRun, QuestionResult, RunError, Summary, load_run, summarize
from hippo_tui.evaluation.runner import EngineOpener, run_questions

__all__ = [
    "DEMO_QUESTIONS",
    "METRICS",
    "Comparison",
    "EngineOpener",
    "EvalQuestion",
    "EvalRun",
    "QuestionResult",
    "QuestionsError",
    "RunError",
    "Summary",
    "compare_runs",
    "load_questions",
    "load_run",
    "run_questions",
    "summarize",
    "worse_metrics",
]
