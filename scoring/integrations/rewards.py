"""Reward functions for RL fine-tuning: TRL's ``reward_funcs`` and verl's ``compute_score``.

>>> reward = NormalizeReward(task="gsm8k")
>>> reward(["... so the answer is 42.", "I am not sure"], answer=["42", "42"])
[1.0, 0.0]
>>> reward.compute_score("openai/gsm8k", "#### 41", "42")["score"]
0.0
>>> reward(["<think>6 * 7 = 42</think>\\n<answer>42</answer>", "<think>6 * 7 is 42, so"], answer=["42", "42"])
[1.0, 0.0]

Reasoning-model completions are read as the pack reads them: ``<think>`` blocks (any number) are
dropped, ``<answer>…</answer>`` (R1 / open-r1 / TRL / verl) is the top tier, then
``<|begin_of_solution|>…<|end_of_solution|>``; a completion that is all unfinished reasoning (the
budget ran out inside ``<think>``) has no answer (``truncated_reasoning``) and gets ``no_answer``.
A chat message's ``reasoning_content`` is never read for the answer.

TRL (``GRPOTrainer(reward_funcs=[NormalizeReward(task="gsm8k")], ...)``) calls
``reward(completions=..., prompts=..., **dataset_columns)`` and logs the mean under
``reward.__name__``; completions may be strings or chat messages (the last assistant message
is scored).  The target is read from the first of ``target_key`` (default ``answer``,
``solution``, ``target``, ``ground_truth``) present in the dataset columns, the task from
``task=`` or a ``task`` column, the row's language from a ``lang`` column (its answer markers
then apply: MGSM ``Antwort: 42``).

verl (``custom_reward_function.path=examples/rewards/verl_reward.py``,
``custom_reward_function.name=compute_score``) calls ``compute_score(data_source,
solution_str, ground_truth, extra_info)``; the task is ``task=``, else ``extra_info["task"]``,
else verl's data source mapped by :data:`VERL_DATA_SOURCES` (``DigitalLearningGmbH/MATH-lighteval``
→ ``hendrycks_math``, ``math_dapo`` and ``aime*`` → ``math``/``aime``...), else the last part of
``data_source`` when the pack has that task (``openai/gsm8k`` → ``gsm8k``), else a task type
chosen by the ground truth's shape (a number or formula: ``math``; one letter: multiple
choice; an object: JSON; other text: extractive QA), logged once per data source as a warning
(:func:`task_for_source`).  verl's batch reward manager (``reward_model.reward_manager=batch``)
calls ``compute_score(data_sources=..., solution_strs=..., ground_truths=..., extra_infos=...)``:
point ``custom_reward_function.name`` at :func:`compute_score_batch`.  The language comes from
``extra_info["lang"]``.  It returns
``{"score": r, "acc": 1|0, "parsed": 1|0}`` (verl logs the extra keys).

Rewards: ``correct`` (1.0) for a right answer, the metric's value for F1 metrics, ``wrong``
(0.0) for a wrong one, ``no_answer`` (0.0 by default; set it below ``wrong`` to penalise
unparseable output) when the strict parser found none; an answer that abstains (status
``abstained``: ``I don't know``) is not correct and gets 0.0, neither ``wrong`` nor
``no_answer``.  A row without a target raises
``ValueError``: a reward must never be silently invented.

Thread-safe (the pack is immutable; each thread gets its own Math-Verify worker when a task
uses the ``math_verify`` metric) and process-safe (the object pickles to its task, pack and
settings; a child process reloads the pack and checks it has the same hash).
``reward.pack_hash`` and ``reward.signature`` identify the rules for logging.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import regex

from normalize.core.pack import Pack
from scoring.integrations._shared import Verdict, cached_pack, judge
from scoring.metrics import MathVerifier, scoring_config

__all__ = ["DEFAULT_TARGET_KEYS", "VERL_DATA_SOURCES", "NormalizeReward", "compute_score", "compute_score_batch",
           "task_for_source"]

#: Dataset columns tried, in order, for the target of a TRL completion.
DEFAULT_TARGET_KEYS = ("answer", "solution", "target", "ground_truth")


def _completion_text(completion: Any) -> str | None:
    """A TRL completion as text: a string, or the last assistant message of a conversation."""
    if completion is None or isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and all(isinstance(m, Mapping) for m in completion):
        for message in reversed(completion):
            if message.get("role", "assistant") == "assistant":
                content = message.get("content")
                if isinstance(content, str) or content is None:
                    return content
                if isinstance(content, list):  # content parts: keep the text ones
                    return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
        return None
    raise ValueError(f"a completion must be a string or a list of chat messages, got {type(completion).__name__}")


class NormalizeReward:
    """A reward from the pack's strict parse and the task's metric (see the module docstring)."""

    def __init__(self, task: str | None = None, pack: Pack | str | Path | None = None, *,
                 target_key: str | Sequence[str] = DEFAULT_TARGET_KEYS, correct: float = 1.0, wrong: float = 0.0,
                 no_answer: float = 0.0, name: str = "harness_normalize") -> None:
        for label, value in (("correct", correct), ("wrong", wrong), ("no_answer", no_answer)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{label} must be a number, got {value!r}")
        self.task = task
        self._pack_source = pack if isinstance(pack, Pack) else (None if pack is None else str(pack))
        self.pack = cached_pack(pack)
        if task is not None:
            self.pack.task_type_of(task)  # an unknown task fails now, not in the middle of training
        self.target_keys = (target_key,) if isinstance(target_key, str) else tuple(target_key)
        self.correct, self.wrong, self.no_answer = float(correct), float(wrong), float(no_answer)
        self.__name__ = name  # TRL logs a reward function under its __name__
        self._local = threading.local()

    # ----------------------------------------------------------------- identity

    @property
    def pack_hash(self) -> str:
        """The pack's hash: log it beside the reward so a curve is tied to exact rules."""
        return self.pack.hash

    @property
    def signature(self) -> str:
        return self.pack.signature

    def __repr__(self) -> str:
        return f"NormalizeReward(task={self.task!r}, pack={self.pack.name!r}, hash={self.pack.short_hash})"

    def __getstate__(self) -> dict[str, Any]:
        return {"task": self.task, "pack": self._pack_source, "pack_hash": self.pack.hash,
                "target_keys": self.target_keys, "correct": self.correct, "wrong": self.wrong,
                "no_answer": self.no_answer, "name": self.__name__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["task"], state["pack"], target_key=state["target_keys"],  # type: ignore[misc]
                      correct=state["correct"], wrong=state["wrong"], no_answer=state["no_answer"],
                      name=state["name"])
        if self.pack.hash != state["pack_hash"]:
            raise ValueError(f"the pack changed between processes: {state['pack_hash']} became {self.pack.hash}")

    # ----------------------------------------------------------------- scoring

    def _verifier(self, task: str) -> MathVerifier | None:
        kind = self.pack.task_type_of(task)
        if self.pack.task_types[kind].family != "math" or scoring_config(self.pack, task, kind).metric != "math_verify":
            return None
        verifier: MathVerifier | None = getattr(self._local, "verifier", None)
        if verifier is None:
            verifier = self._local.verifier = MathVerifier()
        return verifier

    def verdict(self, text: str | None, target: Any, task: str | None = None, lang: str | None = None) -> Verdict:
        """The full verdict on one output (status, answer, reason, correctness, pack hash);
        ``lang``: the row's language (MGSM ``de``): its answer markers apply."""
        name = task or self.task
        if name is None:
            raise ValueError("no task: give NormalizeReward(task=...) or a 'task' column / extra_info['task']")
        if target is None:
            raise ValueError(f"no target for task {name!r}: a reward needs one")
        verdict = judge(self.pack, text, name, target, verifier=self._verifier(name),
                        lang=lang if isinstance(lang, str) else None)
        if verdict.outcome not in ("scored", "no_answer"):
            raise ValueError(f"cannot score against the target {target!r} for task {name!r}: {verdict.note}")
        return verdict

    def reward(self, verdict: Verdict) -> float:
        """The reward of a verdict: ``no_answer``, else ``correct``/``wrong`` (F1 metrics scaled)."""
        if verdict.status == "abstained":
            return 0.0
        if not verdict.parsed:
            return self.no_answer
        if verdict.metric in ("f1", "field_f1"):
            return self.wrong + (self.correct - self.wrong) * verdict.value
        return self.correct if verdict.correct else self.wrong

    def __call__(self, completions: Sequence[Any], prompts: Sequence[Any] | None = None,
                 **kwargs: Any) -> list[float]:
        """TRL's reward function: one float per completion."""
        targets = next((kwargs[k] for k in self.target_keys if k in kwargs), None)
        if targets is None:
            raise ValueError(f"no target column: expected one of {list(self.target_keys)} among the dataset "
                             f"columns {sorted(k for k in kwargs if not k.startswith('completion'))}")
        if len(targets) != len(completions):
            raise ValueError(f"{len(completions)} completions but {len(targets)} targets")
        tasks = kwargs.get("task")
        langs = kwargs.get("lang")
        rewards: list[float] = []
        for i, completion in enumerate(completions):
            task = tasks[i] if isinstance(tasks, Sequence) and not isinstance(tasks, str) else tasks
            lang = langs[i] if isinstance(langs, Sequence) and not isinstance(langs, str) else langs
            verdict = self.verdict(_completion_text(completion), targets[i], task if isinstance(task, str) else None,
                                   lang if isinstance(lang, str) else None)
            rewards.append(self.reward(verdict))
        return rewards

    def compute_score(self, data_source: str | None, solution_str: str | None, ground_truth: Any,
                      extra_info: Mapping[str, Any] | None = None, **kwargs: Any) -> dict[str, float]:
        """verl's ``compute_score``: ``{"score": reward, "acc": 1|0, "parsed": 1|0}``."""
        task = self.task
        if task is None and isinstance(extra_info, Mapping) and isinstance(extra_info.get("task"), str):
            task = extra_info["task"]
        if task is None:
            task = task_for_source(self.pack, data_source, ground_truth, logged=self._logged_sources())
        lang = extra_info.get("lang") if isinstance(extra_info, Mapping) else None
        verdict = self.verdict(solution_str, ground_truth, task, lang if isinstance(lang, str) else None)
        return {"score": self.reward(verdict), "acc": float(bool(verdict.correct)), "parsed": float(verdict.parsed)}


    def _logged_sources(self) -> set[str]:
        """The data sources whose fallback task was logged already (once each per reward)."""
        logged: set[str] | None = getattr(self, "_fallback_logged", None)
        if logged is None:
            logged = set()
            self._fallback_logged: set[str] = logged
        return logged

    def compute_score_batch(self, data_sources: Sequence[Any], solution_strs: Sequence[str | None],
                            ground_truths: Sequence[Any], extra_infos: Sequence[Any] | None = None,
                            **kwargs: Any) -> list[dict[str, float]]:
        """verl's batch form (``BatchRewardManager``): one :meth:`compute_score` dict per row.

        ``data_sources`` and ``extra_infos`` may be numpy object arrays (verl's
        ``non_tensor_batch``); a row that cannot be scored raises ``ValueError`` naming it."""
        n = len(solution_strs)
        if len(data_sources) != n or len(ground_truths) != n or (extra_infos is not None and len(extra_infos) != n):
            raise ValueError(f"{n} solutions but {len(data_sources)} data sources, {len(ground_truths)} ground truths"
                             + ("" if extra_infos is None else f" and {len(extra_infos)} extra_infos"))
        scores: list[dict[str, float]] = []
        for i in range(n):
            extra = extra_infos[i] if extra_infos is not None else None
            try:
                scores.append(self.compute_score(_plain_str(data_sources[i]), solution_strs[i], ground_truths[i],
                                                 extra if isinstance(extra, Mapping) else None))
            except ValueError as exc:
                raise ValueError(f"row {i} of the batch (data_source {data_sources[i]!r}): {exc}") from None
        return scores


#: verl's data sources (``default_compute_score`` in verl/utils/reward_score and the data
#: preprocessing scripts of its examples) and the pack task each is scored as.  Keys are lower
#: case; :func:`task_for_source` also maps ``aime*`` to ``aime`` and ``numina_*`` to ``math``.
VERL_DATA_SOURCES: Final[Mapping[str, str]] = {
    "openai/gsm8k": "gsm8k",
    "gsm8k": "gsm8k",
    "lighteval/math": "hendrycks_math",
    "digitallearninggmbh/math-lighteval": "hendrycks_math",
    "huggingfaceh4/math": "hendrycks_math",
    "huggingfaceh4/math-500": "math500",
    "math500": "math500",
    "math_dapo": "math",
    "math_dapo_reasoning": "math",
    "math": "math",
    "bytedtsinghua-sia/dapo-math-17k": "math",
    "hiyouga/geometry3k": "math",
    "agentica-org/deepscaler-preview-dataset": "math",
    "deepscaler": "math",
}
#: verl's code sources: their ground truths are test cases to run, which this package does not do.
_CODE_SOURCES: Final = frozenset({"codecontests", "apps", "codeforces", "taco", "livecodebench"})
_MATH_SHAPE: Final = regex.compile(
    r"^\s*[-+(]?\s*(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:\s*[/%]\s*\d*)?\s*\)?\s*$"  # 42, -3.5, 1,000, 3/4, 50%
    r"|\\(?:frac|dfrac|sqrt|pi|boxed|infty|cdot|times|left|right)|[\^_]\{?|\$")
_LETTER_SHAPE: Final = regex.compile(r"^\s*\(?([A-Z])\)?\s*$")
_log = logging.getLogger("harness_normalize.rewards")


def _plain_str(value: Any) -> Any:
    """A numpy string (an element of verl's object arrays) as ``str``."""
    return str(value) if isinstance(value, str) else value


def _shape_task(ground_truth: Any) -> tuple[str, str]:
    """The task type a ground truth's shape suggests, and why."""
    if isinstance(ground_truth, Mapping):
        return "structured_json", "it is an object"
    if isinstance(ground_truth, bool) or not isinstance(ground_truth, (str, int, float)):
        return "math", f"it is a {type(ground_truth).__name__} (the math parser then refuses what it cannot read)"
    text = str(ground_truth)
    if isinstance(ground_truth, (int, float)) or _MATH_SHAPE.search(text):
        return "math", "it looks like a number or a formula"
    if _LETTER_SHAPE.match(text):
        return "multiple_choice", "it is one option letter"
    return "extractive_qa", "it is other text"


def task_for_source(pack: Pack, data_source: Any, ground_truth: Any = None, *,
                    logged: set[str] | None = None) -> str:
    """The task a verl ``data_source`` is scored as: :data:`VERL_DATA_SOURCES` (and ``aime*`` →
    ``aime``, ``numina_*`` → ``math``), else the source's last path part when the pack has that
    task, else the task type the ground truth's shape suggests, logged as a warning once per
    source (``logged`` holds those already logged).  verl's code sources raise ``ValueError``:
    their ground truths are tests to run.

    >>> from scoring.integrations._shared import cached_pack
    >>> task_for_source(cached_pack(None), "DigitalLearningGmbH/MATH-lighteval")
    'hendrycks_math'
    >>> task_for_source(cached_pack(None), "aime_2024"), task_for_source(cached_pack(None), "openai/gsm8k")
    ('aime', 'gsm8k')
    """
    source = data_source if isinstance(data_source, str) else ("" if data_source is None else str(data_source))
    key = source.strip().lower()
    if key in VERL_DATA_SOURCES:
        return VERL_DATA_SOURCES[key]
    if key.startswith("aime"):
        return "aime"
    if key.startswith("numina_"):
        return "math"
    if key in _CODE_SOURCES:
        raise ValueError(f"verl data source {source!r} is scored by running its test cases, which harness-normalize "
                         "does not do; use verl's sandbox reward for it")
    tail = key.rstrip("/").rsplit("/", 1)[-1]
    for name in (tail, key):
        if name:
            try:
                pack.task_type_of(name)
            except ValueError:
                continue
            return name
    if ground_truth is None:
        raise ValueError(f"unknown data source {source!r} and no ground truth to tell its kind: give "
                         "NormalizeReward(task=...) or extra_info['task']")
    kind, why = _shape_task(ground_truth)
    if logged is None or source not in logged:
        if logged is not None:
            logged.add(source)
        _log.warning("verl data source %r is not a task of pack %r nor a known verl source; scoring it as task "
                     "type %r because its ground truth %r %s (set NormalizeReward(task=...) or extra_info['task'] "
                     "to choose)", source, pack.name, kind, str(ground_truth)[:80], why)
    return kind


def compute_score(data_source: str | None, solution_str: str | None, ground_truth: Any,
                  extra_info: Mapping[str, Any] | None = None, **kwargs: Any) -> dict[str, float]:
    """verl's ``compute_score`` with the shipped packs, the task from ``extra_info`` or ``data_source``.

    >>> compute_score("openai/gsm8k", "The answer is $\\\\boxed{18}$.", "18")
    {'score': 1.0, 'acc': 1.0, 'parsed': 1.0}
    """
    return _default_reward().compute_score(data_source, solution_str, ground_truth, extra_info, **kwargs)


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str | None], ground_truths: Sequence[Any],
                        extra_infos: Sequence[Any] | None = None, **kwargs: Any) -> list[dict[str, float]]:
    """verl's batch reward function (``reward_model.reward_manager=batch``) with the shipped packs.

    >>> compute_score_batch(data_sources=["DigitalLearningGmbH/MATH-lighteval", "math_dapo"],
    ...                     solution_strs=["so $\\\\boxed{\\\\frac{1}{2}}$", "Answer: 34"], ground_truths=["\\\\frac12", "34"],
    ...                     extra_infos=[{"split": "test", "index": 0}, None])
    [{'score': 1.0, 'acc': 1.0, 'parsed': 1.0}, {'score': 1.0, 'acc': 1.0, 'parsed': 1.0}]
    """
    return _default_reward().compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, **kwargs)


@functools.cache
def _default_reward() -> NormalizeReward:
    return NormalizeReward()
