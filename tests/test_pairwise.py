"""Win rates, Bradley–Terry, position bias, McNemar, permutation test, MDD — against hand values and scipy."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.pairwise import (
    Battle,
    Judgment,
    NotIdentifiable,
    _binomial_two_sided_half,
    bradley_terry,
    bt_bootstrap,
    mcnemar,
    minimum_detectable_difference,
    paired_permutation,
    resolve_orders,
    win_rates,
)

scipy_stats = pytest.importorskip("scipy.stats")
scipy_optimize = pytest.importorskip("scipy.optimize")

ROOT = Path(__file__).resolve().parent.parent


def seed_battles() -> list[Battle]:
    """The seed lecture's exercise 6: 0 beats 1 7:3, 1 beats 2 7:3, 0 beats 2 8:2."""
    out: list[Battle] = []
    for a, b, wins, losses in (("m0", "m1", 7, 3), ("m1", "m2", 7, 3), ("m0", "m2", 8, 2)):
        out += [Battle(a, b, "A")] * wins + [Battle(a, b, "B")] * losses
    return out


def test_bradley_terry_reproduces_the_seed_exercise() -> None:
    ratings = bradley_terry(seed_battles(), anchor="m1", anchor_rating=0.0)
    assert round(ratings["m0"]) == 131 and ratings["m1"] == 0.0 and round(ratings["m2"]) == -131
    p02 = 1 / (1 + 10 ** ((ratings["m2"] - ratings["m0"]) / 400))
    assert p02 == pytest.approx(0.82, abs=0.005)


def _nll(theta: np.ndarray, battles: list[Battle], models: list[str]) -> float:
    full = np.concatenate([[0.0], theta])
    idx = {m: i for i, m in enumerate(models)}
    total = 0.0
    for b in battles:
        d = full[idx[b.model_a]] - full[idx[b.model_b]]
        pa = 1 / (1 + math.exp(-d))
        w = {"A": 1.0, "B": 0.0, "tie": 0.5}[b.winner]
        total -= w * math.log(pa) + (1 - w) * math.log(1 - pa)
    return total


def test_bradley_terry_is_the_maximum_likelihood_estimate() -> None:
    rng = np.random.default_rng(0)
    strength = {"a": 1.0, "b": 0.3, "c": -0.2, "d": -1.0}
    battles = []
    names = sorted(strength)
    for _ in range(400):
        x, y = rng.choice(names, size=2, replace=False)
        p = 1 / (1 + math.exp(strength[y] - strength[x]))
        u = rng.random()
        battles.append(Battle(str(x), str(y), "tie" if abs(u - p) < 0.05 else ("A" if u < p else "B")))
    fit = scipy_optimize.minimize(_nll, np.zeros(len(names) - 1), args=(battles, names), method="BFGS",
                                  options={"gtol": 1e-10})
    ours = bradley_terry(battles, anchor="a", anchor_rating=0.0)
    for i, m in enumerate(names[1:]):
        assert ours[m] == pytest.approx(fit.x[i] * 400 / math.log(10), abs=0.05), m


def test_bradley_terry_refuses_when_no_estimate_exists() -> None:
    with pytest.raises(NotIdentifiable, match="never lost: x"):
        bradley_terry([Battle("x", "y", "A"), Battle("x", "y", "A")])
    with pytest.raises(ValueError, match="anchor"):
        bradley_terry(seed_battles(), anchor="nobody")


def test_bootstrap_intervals_are_seeded_and_contain_the_point() -> None:
    one = bt_bootstrap(seed_battles(), anchor="m1", n_resamples=200, seed=3)
    assert one == bt_bootstrap(seed_battles(), anchor="m1", n_resamples=200, seed=3)
    assert one["anchor"] == "m1" and one["anchor_rating"] == 1000.0
    for model, r in one["ratings"].items():
        assert r["low"] <= r["value"] <= r["high"], model
    assert one["ratings"]["m1"]["low"] == one["ratings"]["m1"]["high"] == 1000.0
    assert one["n_valid"] <= 200


def test_win_rates_count_ties_as_half() -> None:
    rates = win_rates([Battle("x", "y", "A"), Battle("y", "x", "tie"), Battle("x", "z", "B")])
    assert rates["x"] == {"wins": 1, "losses": 1, "ties": 1, "n": 3, "win_rate": 0.5}
    assert rates["z"]["win_rate"] == 1.0


def test_position_bias_policies() -> None:
    judged = [
        Judgment("q1", "x", "y", "A"), Judgment("q1", "y", "x", "B"),  # consistent: x
        Judgment("q2", "x", "y", "A"), Judgment("q2", "y", "x", "A"),  # inconsistent: first position wins
        Judgment("q3", "x", "y", "tie"), Judgment("q3", "y", "x", "tie"),  # consistent tie
        Judgment("q4", "x", "y", "B"),  # one order only
        Judgment("q5", "x", "y", None),  # no verdict
    ]
    tie = resolve_orders(judged, "tie")
    assert (tie.pairs_both_orders, tie.inconsistent, tie.single_order, tie.unparsed) == (3, 1, 1, 1)
    assert tie.inconsistent_share == pytest.approx(1 / 3)
    assert sorted(tuple(b) for b in tie.battles) == [("x", "y", "A"), ("x", "y", "B"), ("x", "y", "tie"), ("x", "y", "tie")]
    drop = resolve_orders(judged, "drop")
    assert len(drop.battles) == 3
    assert tie.to_json()["first_position_win_share"] == pytest.approx(3 / 5)  # A, B, A, A, B
    with pytest.raises(ValueError, match="position_bias"):
        resolve_orders(judged, "keep")  # type: ignore[arg-type]


def test_mcnemar_equals_scipy() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        n = int(rng.integers(5, 80))
        a = [bool(v) for v in rng.random(n) < 0.6]
        b = [bool(v) for v in rng.random(n) < 0.7]
        r = mcnemar(a, b)
        k = r.b + r.c
        if k:
            assert r.p_exact == pytest.approx(scipy_stats.binomtest(r.b, k, 0.5).pvalue)
            stat = (abs(r.b - r.c) - 1) ** 2 / k if abs(r.b - r.c) >= 1 else 0.0
            assert r.p_chi2 == pytest.approx(scipy_stats.chi2.sf(stat, 1))
    assert mcnemar([True], [True]).p_exact == 1.0
    with pytest.raises(ValueError, match="True or False"):
        mcnemar([1], [0])  # type: ignore[list-item]


def _exact_mcnemar_p(b: int, c: int) -> float:
    """The definition, in exact rationals: min(1, 2·Σ_{k<=min(b,c)} C(n,k)/2**n), rounded once."""
    n = b + c
    tail = sum(Fraction(math.comb(n, k), 2**n) for k in range(min(b, c) + 1))
    return float(min(Fraction(1), 2 * tail))


def _paired(b: int, c: int, both: int = 3, neither: int = 2) -> tuple[list[bool], list[bool]]:
    a = [True] * b + [False] * c + [True] * both + [False] * neither
    bb = [False] * b + [True] * c + [True] * both + [False] * neither
    return a, bb


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.integers(0, 700), st.integers(0, 700))
def test_mcnemar_exact_p_is_the_exact_value(b: int, c: int) -> None:
    """Up to 1024 discordant pairs the p is the correctly rounded exact value (as before);
    beyond, within float precision of it."""
    r = mcnemar(*_paired(b, c))
    assert (r.b, r.c) == (b, c)
    exact = _exact_mcnemar_p(b, c) if b + c else 1.0
    if b + c <= 1024:
        assert r.p_exact == exact
    else:
        assert r.p_exact == pytest.approx(exact, rel=1e-11)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(1025, 400_000), st.floats(0.0, 1.0))
def test_mcnemar_exact_p_equals_scipy_on_large_tables(n: int, share: float) -> None:
    """Beyond the integer path: the saddle-point tail agrees with SciPy's exact binomial test
    (both within ~1e-12 of the exact value) wherever the p-value is a normal float."""
    b = min(n, int(share * n))
    c = n - b
    ours = _binomial_two_sided_half(min(b, c), n)
    ref = float(scipy_stats.binomtest(b, n, 0.5).pvalue)
    if ref > 1e-290:
        assert ours == pytest.approx(ref, rel=1e-10)
    else:
        assert ours == pytest.approx(ref, abs=1e-290)


def test_mcnemar_exact_p_on_59000_disagreements_matches_scipy_and_exact() -> None:
    """The issue's case: 59,000 discordant pairs (the old Fraction sum took over 400 s)."""
    for b in (29_000, 29_400, 29_499, 29_500, 28_000):
        c = 59_000 - b
        r = mcnemar(*_paired(b, c))
        ref = float(scipy_stats.binomtest(b, 59_000, 0.5).pvalue)
        assert r.p_exact == pytest.approx(ref, rel=1e-10)
    # one point held against the exact integer sum as well
    n, m = 59_000, 29_000
    term = total = 1
    for k in range(1, m + 1):
        term = term * (n - k + 1) // k
        total += term
    exact = float(Fraction(total, 1 << (n - 1)))
    assert mcnemar(*_paired(m, n - m)).p_exact == pytest.approx(exact, rel=1e-11)


def test_paired_permutation_equals_scipy_exact() -> None:
    rng = np.random.default_rng(2)
    a = rng.random(10).round(2)
    b = (a + rng.normal(0.1, 0.2, 10)).round(2)
    ours = paired_permutation(list(a), list(b), n_resamples=5000)
    assert ours.exact
    ref = scipy_stats.permutation_test((b, a), lambda x, y: np.mean(x - y), permutation_type="samples",
                                       n_resamples=np.inf, alternative="two-sided")
    assert ours.p == pytest.approx(ref.pvalue)


def test_paired_permutation_sampled_is_seeded_and_close_to_exact() -> None:
    rng = np.random.default_rng(4)
    a = list(rng.random(40))
    b = [x + 0.05 for x in a]
    b[::3] = [x - 0.2 for x in b[::3]]
    one = paired_permutation(a, b, n_resamples=4000, seed=5)
    assert not one.exact and one == paired_permutation(a, b, n_resamples=4000, seed=5)
    ref = scipy_stats.permutation_test((np.array(b), np.array(a)), lambda x, y, axis: np.mean(x - y, axis=axis),
                                       permutation_type="samples", n_resamples=20000, vectorized=True,
                                       alternative="two-sided", random_state=0)
    assert one.p == pytest.approx(ref.pvalue, abs=0.03)


def test_minimum_detectable_difference_matches_the_seed_exercise() -> None:
    # 1 % discordant items, a 0.2-point difference: about 19,600 items at 80 % power
    assert minimum_detectable_difference(19_600, discordance=0.01) == pytest.approx(0.002, rel=0.01)
    # at 5 % level and 50 % power, about 96 discordant items suffice for a 60:40 split (δ = 0.1)
    n = 96 / 0.01
    assert minimum_detectable_difference(int(n), discordance=0.01, power=0.5) == pytest.approx(0.002, rel=0.01)
    # unpaired, by the textbook formula
    z = 1.959963984540054 + 0.8416212335729143
    assert minimum_detectable_difference(500, accuracy=0.7) == pytest.approx(z * math.sqrt(2 * 0.21 / 500))
    with pytest.raises(ValueError, match="exactly one"):
        minimum_detectable_difference(10)


def test_judge_examples_report_pairwise_section(tmp_path: Path) -> None:
    from scoring.cli import main

    out = tmp_path / "report.json"
    assert main(["score", str(ROOT / "examples" / "judge.jsonl"), "--report", str(out), "--bootstrap", "100"]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    overall = next(g for g in report["groups"] if g["level"] == "overall")
    pw = overall["pairwise"]
    assert pw["position_bias"]["pairs_both_orders"] == 10 and pw["position_bias"]["inconsistent"] == 2
    bt = pw["bradley_terry"]
    assert bt["anchor"] == "gpt-4o" and bt["ratings"]["gpt-4o"]["value"] == 1000.0
    assert set(pw["win_rates"]) == {"gpt-4o", "llama-3-8b", "qwen-2-7b"}
    assert set(pw["ratings"]) == {"gpt-4o", "llama-3-8b", "qwen-2-7b"}
    assert overall["statuses"]["contradictory"] == 1 and overall["statuses"]["out_of_range"] == 1


def test_compare_prints_mcnemar_permutation_and_mdd(capsys: pytest.CaptureFixture[str]) -> None:
    from scoring.cli import main

    assert main(["compare", str(ROOT / "examples" / "predictions.jsonl"), str(ROOT / "examples" / "predictions_b.jsonl"),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mcnemar"]["b"] + data["mcnemar"]["c"] > 0
    assert data["permutation"]["exact"] is True
    assert data["mcnemar"]["p_exact"] == pytest.approx(data["permutation"]["p"])  # the same test on 0/1 items
    assert 0 < data["mdd"]["paired"] < 1


def test_pairwise_sections_survive_aggregation(tmp_path: Path) -> None:
    """Both orders of a pair share an id; voting over ids must not merge them before the bias check."""
    from scoring.cli import main

    plain, voted = tmp_path / "plain.json", tmp_path / "voted.json"
    judge = str(ROOT / "examples" / "judge.jsonl")
    assert main(["score", judge, "--report", str(plain), "--bootstrap", "50"]) == 0
    assert main(["score", judge, "--report", str(voted), "--bootstrap", "50", "--aggregate", "vote"]) == 0
    a, b = (json.loads(p.read_text(encoding="utf-8")) for p in (plain, voted))
    assert [g["pairwise"] for g in a["groups"]] == [g["pairwise"] for g in b["groups"]]


def test_table_and_markdown_show_the_sections(capsys: pytest.CaptureFixture[str]) -> None:
    from scoring.cli import main

    for name, needles in (("judge", ["pairwise judge verdicts:", "position bias: 10 pairs judged in both orders",
                                     "anchor gpt-4o = 1000", "mean rating:"]),
                          ("writing", ["text metrics:", "nrefs:var|case:mixed|eff:no|tok:13a", "(lower is better)",
                                       "tok:cjk-char+alnum"]),
                          ("ranking", ["ranking metrics:", "ndcg", "mrr"])):
        for fmt in ("table", "markdown"):
            assert main(["score", str(ROOT / "examples" / f"{name}.jsonl"), "--bootstrap", "30", "--format", fmt]) == 0
            out = capsys.readouterr().out
            for needle in needles:
                assert needle in out, (name, fmt, needle)


def test_odd_judge_rows_are_counted_not_dropped_silently(tmp_path: Path) -> None:
    from scoring.cli import main

    rows = tmp_path / "j.jsonl"
    rows.write_text("\n".join(json.dumps(r) for r in [
        {"id": 1, "task": "judge", "model_a": "x", "model_b": "y", "output": "[[A]]"},
        {"id": 2, "task": "judge", "model_a": "y", "model_b": "x", "output": "[[A]]"},
        {"id": 3, "task": "judge", "model_a": "x", "output": "[[A]]"},
        {"id": 4, "task": "judge", "model_a": "x", "model_b": "x", "output": "[[B]]"},
    ]) + "\n", encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["score", str(rows), "--report", str(out), "--bootstrap", "20"]) == 0
    pw = json.loads(out.read_text(encoding="utf-8"))["groups"][-1]["pairwise"]
    assert pw["note"].startswith("2 judge rows left out")
    assert pw["win_rates"]["x"]["wins"] == 1 and pw["win_rates"]["y"]["wins"] == 1
    assert pw["bradley_terry"]["ratings"]["x"]["value"] == pw["bradley_terry"]["ratings"]["y"]["value"] == 1000.0


def test_head_to_head_is_consistent_with_win_rates() -> None:
    from scoring.pairwise import head_to_head

    battles = [*seed_battles(), Battle("m2", "m0", "tie")]
    table, rates = head_to_head(battles), win_rates(battles)
    for model, row in table.items():
        assert sum(c["wins"] for c in row.values()) == rates[model]["wins"]
        assert sum(c["ties"] for c in row.values()) == rates[model]["ties"]
        for other, cell in row.items():
            mirror = table[other][model]
            assert (cell["wins"], cell["losses"], cell["ties"]) == (mirror["losses"], mirror["wins"], mirror["ties"])
    assert table["m0"]["m1"]["win_rate"] == 0.7
