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
else the last part of ``data_source`` (``openai/gsm8k`` → ``gsm8k``); the language from
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
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from normalize.pack import Pack
from scoring.integrations._shared import Verdict, cached_pack, judge
from scoring.metrics import MathVerifier, scoring_config

__all__ = ["DEFAULT_TARGET_KEYS", "NormalizeReward", "compute_score"]

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
        if kind != "math" or scoring_config(self.pack, task, kind).metric != "math_verify":
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
        if task is None and isinstance(data_source, str) and data_source:
            task = data_source.rstrip("/").rsplit("/", 1)[-1].lower()
        lang = extra_info.get("lang") if isinstance(extra_info, Mapping) else None
        verdict = self.verdict(solution_str, ground_truth, task, lang if isinstance(lang, str) else None)
        return {"score": self.reward(verdict), "acc": float(bool(verdict.correct)), "parsed": float(verdict.parsed)}


def compute_score(data_source: str | None, solution_str: str | None, ground_truth: Any,
                  extra_info: Mapping[str, Any] | None = None, **kwargs: Any) -> dict[str, float]:
    """verl's ``compute_score`` with the shipped packs, the task from ``extra_info`` or ``data_source``.

    >>> compute_score("openai/gsm8k", "The answer is $\\\\boxed{18}$.", "18")
    {'score': 1.0, 'acc': 1.0, 'parsed': 1.0}
    """
    return _default_reward().compute_score(data_source, solution_str, ground_truth, extra_info, **kwargs)


@functools.cache
def _default_reward() -> NormalizeReward:
    return NormalizeReward()
