"""The official SQuAD evaluation functions, copied verbatim (only the command-line ``main``,
file reading and the v2.0 no-answer-probability statistics are left out), for the
differential test of ``scoring.metrics.squad``'s ``squad_official`` metrics.

v1.1: "Official evaluation script for v1.1 of the SQuAD dataset" (``evaluate-v1.1.py``,
Pranav Rajpurkar, Stanford NLP, MIT licence).  v2.0: "Official evaluation script for SQuAD
version 2.0" (``evaluate-v2.0.py``, codalab bundle 0x6b567e1cf2e041ec80d7098f031c5c9e).
The bodies below are the scripts' own (v2.0's two-space indentation re-indented to four);
``# noqa`` keeps the linter off code that is not ours.
"""
# ruff: noqa

from __future__ import annotations

import collections
import re
import string
from collections import Counter


class v1_1:  # noqa: N801 - a namespace: the two scripts use the same function names
    @staticmethod
    def normalize_answer(s):
        """Lower text and remove punctuation, articles and extra whitespace."""
        def remove_articles(text):
            return re.sub(r'\b(a|an|the)\b', ' ', text)

        def white_space_fix(text):
            return ' '.join(text.split())

        def remove_punc(text):
            exclude = set(string.punctuation)
            return ''.join(ch for ch in text if ch not in exclude)

        def lower(text):
            return text.lower()

        return white_space_fix(remove_articles(remove_punc(lower(s))))

    @staticmethod
    def f1_score(prediction, ground_truth):
        normalize_answer = v1_1.normalize_answer
        prediction_tokens = normalize_answer(prediction).split()
        ground_truth_tokens = normalize_answer(ground_truth).split()
        common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
        num_same = sum(common.values())
        if num_same == 0:
            return 0
        precision = 1.0 * num_same / len(prediction_tokens)
        recall = 1.0 * num_same / len(ground_truth_tokens)
        f1 = (2 * precision * recall) / (precision + recall)
        return f1

    @staticmethod
    def exact_match_score(prediction, ground_truth):
        normalize_answer = v1_1.normalize_answer
        return (normalize_answer(prediction) == normalize_answer(ground_truth))

    @staticmethod
    def metric_max_over_ground_truths(metric_fn, prediction, ground_truths):
        scores_for_ground_truths = []
        for ground_truth in ground_truths:
            score = metric_fn(prediction, ground_truth)
            scores_for_ground_truths.append(score)
        return max(scores_for_ground_truths)


class v2_0:  # noqa: N801
    @staticmethod
    def normalize_answer(s):
        """Lower text and remove punctuation, articles and extra whitespace."""
        def remove_articles(text):
            regex = re.compile(r'\b(a|an|the)\b', re.UNICODE)
            return re.sub(regex, ' ', text)
        def white_space_fix(text):
            return ' '.join(text.split())
        def remove_punc(text):
            exclude = set(string.punctuation)
            return ''.join(ch for ch in text if ch not in exclude)
        def lower(text):
            return text.lower()
        return white_space_fix(remove_articles(remove_punc(lower(s))))

    @staticmethod
    def get_tokens(s):
        if not s: return []
        return v2_0.normalize_answer(s).split()

    @staticmethod
    def compute_exact(a_gold, a_pred):
        return int(v2_0.normalize_answer(a_gold) == v2_0.normalize_answer(a_pred))

    @staticmethod
    def compute_f1(a_gold, a_pred):
        gold_toks = v2_0.get_tokens(a_gold)
        pred_toks = v2_0.get_tokens(a_pred)
        common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
        num_same = sum(common.values())
        if len(gold_toks) == 0 or len(pred_toks) == 0:
            # If either is no-answer, then F1 is 1 if they agree, 0 otherwise
            return int(gold_toks == pred_toks)
        if num_same == 0:
            return 0
        precision = 1.0 * num_same / len(pred_toks)
        recall = 1.0 * num_same / len(gold_toks)
        f1 = (2 * precision * recall) / (precision + recall)
        return f1
