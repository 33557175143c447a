"""The documentation cannot drift: README.md and docs/*.md are checked against the code.

* **Console examples run.** Every ```` ```console ```` block is a session: each ``$ normalize …`` line is
  run (through ``bash``, with ``normalize`` meaning ``python -m scoring.cli`` of this checkout) and
  what it prints, stdout and stderr together, must be the lines shown below it, exactly — hashes
  included.  The only normalizations: trailing whitespace of each line and trailing blank lines,
  and under a Python whose Unicode version is not the one the output shows (``unicode:14.0.0``:
  it is in every pack hash), that version and the hashes (see :func:`comparable`).
  A command must exit 0.  A ```` ```yaml ```` block right after ``<!-- file: NAME -->`` is written as
  ``NAME`` into the folder the document's sessions run in (a fresh folder where ``examples/`` and
  ``rules/`` are the repository's), so a session can use the pack its document shows.
  A ``$ normalize`` line anywhere else (a ```` ```bash ```` block) is an error: mark it ``console`` and
  show its output, or drop the prompt (a command shown without its output, for commands that
  need an extra, a model or a network, stays a plain code block).
* **Counts come from the registry.** "eight task types" (any count word or digits before "task
  types") must be the number of task types there are.
* **Paths exist.** Every repository path a document names (``normalize/…``, ``scoring/…``,
  ``rules/…``, ``tests/…``, ``bench/…``, ``examples/…``, ``docs/…``, ``.ci/…``, top-level files)
  exists, and every dotted ``normalize.…`` / ``scoring.…`` name in docs/*.md imports; a paragraph
  or list item that carries ``<!-- planned: NAME -->`` describes a change not yet merged and is
  exempt until the marker is removed.
* README's two commands stay what ``.ci/run`` runs (torch pin, llama.cpp build flags, extras, the
  test command).
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
README = DOCS[0].read_text(encoding="utf-8")


def task_type_count() -> int:
    """How many task types there are: the one place these tests read it from."""
    from normalize.core import tasktypes

    return tasktypes.count()


def task_type_names() -> tuple[str, ...]:
    from normalize.core.registry import TASK_TYPES

    return tuple(TASK_TYPES)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


# --------------------------------------------------------------------------- console sessions

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
FILE_MARK = re.compile(r"<!-- file: ([\w.-]+) -->\s*\n```yaml\n(.*?)^```", re.M | re.S)


@dataclass(frozen=True)
class Session:
    doc: Path
    line: int
    commands: tuple[tuple[str, str], ...]  # (command without "$ ", the output shown)

    @property
    def id(self) -> str:
        return f"{_name(self.doc)}:{self.line}"


def sessions(path: Path) -> list[Session]:
    text = _text(path)
    found = []
    for fence in FENCE.finditer(text):
        if fence.group(1) != "console":
            continue
        line = text.count("\n", 0, fence.start()) + 1
        commands: list[tuple[str, list[str]]] = []
        for row in fence.group(2).splitlines():
            if row.startswith("$ "):
                commands.append((row[2:], []))
            elif commands:
                commands[-1][1].append(row)
            else:
                raise AssertionError(f"{_name(path)}:{line}: a console block starts with a '$ ' command")
        assert commands, f"{_name(path)}:{line}: a console block without a '$ ' command"
        found.append(Session(path, line, tuple((c, "\n".join(out)) for c, out in commands)))
    return found


ALL_SESSIONS = [s for doc in DOCS for s in sessions(doc)]


def files_of(path: Path) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in FILE_MARK.finditer(_text(path))}


def _shown(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def run_console(command: str, cwd: Path) -> tuple[int, str]:
    """Run one documented command as a user's shell would, ``normalize`` being this checkout's."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS")}
    env.update(NO_COLOR="1", HN_DOCS_PYTHON=sys.executable,
               PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    script = 'normalize() { "$HN_DOCS_PYTHON" -m scoring.cli "$@"; }\n' + command
    done = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=120)
    return done.returncode, done.stdout


@functools.cache
def session_output(session: Session) -> tuple[tuple[int, str], ...]:
    """Each command's exit code and output, run in order in a fresh folder (once per session)."""
    for command, _ in session.commands:
        assert shlex.split(command)[0] == "normalize", f"{session.id}: only normalize commands run here: {command}"
    with tempfile.TemporaryDirectory(prefix="hn-docs-") as name:
        folder = Path(name)
        for sub in ("examples", "rules"):
            (folder / sub).symlink_to(ROOT / sub)
        for file, body in files_of(session.doc).items():
            (folder / file).write_text(body, encoding="utf-8")
        return tuple(run_console(command, folder) for command, _ in session.commands)


@pytest.mark.parametrize("session", ALL_SESSIONS, ids=[s.id for s in ALL_SESSIONS])
def test_console_example_prints_what_the_docs_show(session: Session) -> None:
    for (command, shown), (rc, printed) in zip(session.commands, session_output(session), strict=True):
        assert rc == 0, f"{session.id}: `{command}` exited {rc}:\n{printed}"
        assert comparable(printed, shown) == _shown(shown), f"{session.id}: `{command}` now prints:\n{printed}"


UNICODE_FIELD = re.compile(r"unicode:([\d.]+)")


def comparable(printed: str, shown: str) -> list[str]:
    """What was printed, as the docs would show it.

    The docs show output under the Unicode version their signatures name (the pins' version, the
    one CI runs); the Unicode version is in every pack hash.  Under a Python with another Unicode
    version only that field and the hashes beside it are taken from the docs; everything else
    must still be equal.
    """
    documented = UNICODE_FIELD.search(shown)
    if documented is None or documented.group(1) == unicodedata.unidata_version:
        return _shown(printed)
    masked = UNICODE_FIELD.sub(f"unicode:{documented.group(1)}", printed)
    hashes = iter(re.findall(r"hash:([0-9a-f]{12})", shown))
    return _shown(re.sub(r"hash:[0-9a-f]{12}", lambda m: f"hash:{next(hashes, m.group(0)[5:])}", masked))


def test_every_console_example_is_a_checked_session() -> None:
    """A ``$ normalize`` prompt outside a ```console block would not be run: refuse it."""
    bad = []
    for doc in DOCS:
        text = _text(doc)
        for fence in FENCE.finditer(text):
            if fence.group(1) != "console" and re.search(r"^\$ normalize\b", fence.group(2), re.M):
                bad.append(f"{_name(doc)}:{text.count(chr(10), 0, fence.start()) + 1} ({fence.group(1) or 'plain'})")
    assert bad == []


def test_the_sessions_are_found() -> None:
    # the checks above are only as good as the extraction: the README's explain examples are in it
    commands = [c for s in ALL_SESSIONS if s.doc.name == "README.md" for c, _ in s.commands]
    assert any(c.startswith("normalize explain --task math") for c in commands)
    assert any("--pack fact_check.yaml" in c for c in commands)
    assert "fact_check.yaml" in files_of(DOCS[0])


def test_a_drifted_example_fails() -> None:
    """The comparison sees a hash: the README's first example with an old hash is caught."""
    session = next(s for s in ALL_SESSIONS if s.commands[0][0].startswith("normalize explain --task math"))
    shown = session.commands[0][1]
    rc, printed = session_output(session)[0]
    assert rc == 0 and comparable(printed, shown) == _shown(shown)
    old = re.sub(r"hash:[0-9a-f]{12}", "hash:57e490e2cedc", shown)
    assert old != shown and comparable(printed, old) != _shown(old)
    assert comparable(printed.replace("extract_math_answer v5", "extract_math_answer v6"), shown) != _shown(shown)


def test_another_unicode_version_changes_only_its_field_and_the_hashes() -> None:
    other = "9.9.9" if unicodedata.unidata_version != "9.9.9" else "9.9.8"
    shown = f"answer: 1\npack: p|unicode:{other}|math:[a.v1]->math.v3|hash:0123456789ab"
    printed = f"answer: 1\npack: p|unicode:{unicodedata.unidata_version}|math:[a.v1]->math.v3|hash:ba9876543210"
    assert comparable(printed, shown) == _shown(shown)
    assert comparable(printed.replace("answer: 1", "answer: 2"), shown) != _shown(shown)
    assert comparable(printed.replace("a.v1", "a.v2"), shown) != _shown(shown)


# --------------------------------------------------------------------------- commands shown without output

PATHLIKE = re.compile(r"[\w*-]*/|\.(?:jsonl|json|yaml|parquet|eval|html)$")


def bundled_commands(text: str) -> list[str]:
    """The ``normalize …`` commands of plain code blocks that need only the bundled examples.

    A command whose every path is under ``examples/`` (its inputs, which must exist) or ``out/``
    (what it writes) can be run here; one naming a user's file, a model or a server cannot.
    """
    found = []
    for fence in FENCE.finditer(FENCE_CONSOLE_FREE.sub("", text)):
        if fence.group(1) not in ("bash", ""):
            continue
        for line in fence.group(2).splitlines():
            command = line.split(" && ")[-1] if " && normalize " in line else line
            if not command.startswith("normalize ") or command.rstrip().endswith("\\"):
                continue
            words = shlex.split(command, comments=True)
            paths = [w for w in words[1:] if PATHLIKE.search(w) and not w.startswith("-")]
            if paths and all(w.startswith(("examples/", "out/")) and "*" not in w for w in paths):
                found.append(" ".join(shlex.quote(w) for w in words))
    return found


FENCE_CONSOLE_FREE = re.compile(r"^```console\n.*?^```", re.M | re.S)
BUNDLED = [(doc, c) for doc in DOCS for c in bundled_commands(_text(doc))]


@pytest.mark.parametrize(("doc", "command"), BUNDLED, ids=[f"{_name(d)}: {c}" for d, c in BUNDLED])
def test_a_command_on_the_bundled_examples_runs(
    doc: Path, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shown without its output, it must still be a command that works as written."""
    from scoring.cli import main

    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    words = shlex.split(command)
    for w in words[1:]:
        if w.startswith("examples/"):
            assert (ROOT / w).exists(), f"{_name(doc)}: `{command}` names {w}, which is not in examples/"
    rc = main(words[1:])
    printed = capsys.readouterr()
    assert rc == 0, f"{_name(doc)}: `{command}` exited {rc}:\n{printed.out}\n{printed.err}"
    if words[1] in ("run", "score") and "-o" in words:  # every input row appears in the output
        written = (tmp_path / words[words.index("-o") + 1]).read_text(encoding="utf-8").splitlines()
        given = [line for line in (ROOT / words[2]).read_text(encoding="utf-8").splitlines() if line.strip()]
        assert len(written) == len(given)


def test_the_readme_first_command_is_among_them() -> None:
    assert "normalize score examples/predictions.jsonl -o out/scored.jsonl" in [c for _, c in BUNDLED]


# --------------------------------------------------------------------------- counts

NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen".split())}
COUNT = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r"|\d+)\s+(?:\w+\s+)?task\s+types\b", re.I)


def counts(text: str) -> list[tuple[int, str]]:
    """Every "N task types" (also "N shipped task types") with the number N as written."""
    found = []
    for m in COUNT.finditer(text):
        word = m.group(1).lower()
        found.append((int(word) if word.isdigit() else NUMBER_WORDS[word], m.group(0)))
    return found


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_counts_of_task_types_come_from_the_registry(doc: Path) -> None:
    wrong = [phrase for n, phrase in counts(_text(doc)) if n != task_type_count()]
    assert wrong == [], f"there are {task_type_count()} task types"


def test_the_count_check_reads_what_it_guards() -> None:
    assert counts("The six task types are") == [(6, "six task types")]
    assert counts("all 8 shipped task types") == [(8, "8 shipped task types")]
    assert any(n == task_type_count() for n, _ in counts(README))


def test_the_readme_lists_every_task_type_where_it_names_them() -> None:
    listed = re.search(r"The \w+ task types are (.*?)\.\s", README, re.S)
    assert listed is not None
    assert re.findall(r"`(\w+)`", listed.group(1)) == list(task_type_names())


def test_the_bundled_examples_hold_the_task_types_the_readme_says() -> None:
    """README: the first command scores every task type but judge and ranking, whose rows have files of their own."""
    from normalize import load_pack

    pack = load_pack()

    def types(name: str) -> set[str]:
        found = set()
        for line in (ROOT / "examples" / name).read_text(encoding="utf-8").splitlines():
            try:
                task = json.loads(line)["task"]
            except (ValueError, KeyError, TypeError):
                continue  # the bad row the README promises
            found.add(pack.task_type_of(task))
        return found

    sentence = re.search(r"bundled examples \((.*?)\):", README, re.S)
    assert sentence is not None
    apart = set(re.findall(r"`(\w+)`", sentence.group(1)))
    assert types("predictions.jsonl") == set(task_type_names()) - apart
    for name in apart:
        assert f"examples/{name}.jsonl" in sentence.group(1) and types(f"{name}.jsonl") == {name}


def test_the_readme_lists_the_shipped_languages() -> None:
    listed = re.search(r"^\* \*\*Languages\*\* \(`languages:`, `rules/languages/\*\.yaml`\): (.*?)\. Each has", README, re.M | re.S)
    assert listed is not None
    codes = [code.strip() for code in listed.group(1).split(",")]
    assert sorted(codes) == sorted(p.stem for p in (ROOT / "rules" / "languages").glob("*.yaml"))
    assert len(codes) == len(set(codes))


def test_the_count_of_adversarial_kinds_is_the_checks() -> None:
    from normalize.check import ADVERSARIAL

    stated = re.findall(r"against (\d+) kinds of adversarial input", README)
    assert stated == [str(len(ADVERSARIAL))]


def test_the_command_table_lists_every_subcommand() -> None:
    import argparse

    from scoring.cli import build_parser

    table = README.split("## The command line", 1)[1].split("\n\n", 2)[1]
    listed = re.findall(r"^\| `normalize (\w+)", table, re.M)
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert sorted(listed) == sorted(sub.choices) and len(listed) == len(set(listed))


def test_each_shipped_parser_is_described_once() -> None:
    from normalize.core.registry import REGISTRY

    section = README.split("### What the shipped parsers accept", 1)[1].split("\n### ", 1)[0]
    bullets = re.findall(r"^\* \*\*(\w+)\*\*[ (]", section, re.M)
    assert sorted(bullets) == sorted(REGISTRY.parsers) and len(bullets) == len(set(bullets))


# --------------------------------------------------------------------------- paths and names

PATH = re.compile(r"(?<![\w/.:-])((?:normalize|scoring|rules|tests|bench|examples|docs|\.ci)/[\w./*{}-]*"
                  r"|(?:hatch_build\.py|pyproject\.toml|CHANGELOG\.md|README\.md)\b)")
DOTTED = re.compile(r"`((?:normalize|scoring)(?:\.\w+)+)")
PLANNED = re.compile(r"<!-- planned: [\w, -]+ -->")


def paragraphs(text: str) -> list[str]:
    """Paragraphs and list items, outside code blocks (a planned marker covers the one it is in)."""
    text = FENCE.sub("", text)
    return [p for p in re.split(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.)\s)", text) if p.strip()]


def named_paths(text: str) -> list[str]:
    found = []
    for paragraph in paragraphs(text):
        if PLANNED.search(paragraph):
            continue
        found += [m.group(1).rstrip(".,:;)") for m in PATH.finditer(paragraph)]
    return found


def _exists(name: str) -> bool:
    if "{" in name:  # a{b,c} names several
        head, rest = name.split("{", 1)
        inner, tail = rest.split("}", 1)
        return all(_exists(head + part + tail) for part in inner.split(","))
    return any(ROOT.glob(name)) if "*" in name else (ROOT / name).exists()


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_every_path_the_docs_name_exists(doc: Path) -> None:
    missing = sorted({p for p in named_paths(_text(doc)) if not _exists(p)})
    assert missing == []


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


@pytest.mark.parametrize("doc", DOCS[1:], ids=_name)
def test_every_module_and_name_the_guide_names_imports(doc: Path) -> None:
    names = [m.group(1) for p in paragraphs(_text(doc)) if not PLANNED.search(p) for m in DOTTED.finditer(p)]
    assert sorted({n for n in names if not _resolves(n)}) == []


def test_the_path_check_sees_what_it_guards() -> None:
    text = "See `normalize/core/pack.py` and rules/formats/*.yaml.\n\n- `normalize/gone.py` <!-- planned: x -->\n"
    assert named_paths(text) == ["normalize/core/pack.py", "rules/formats/*.yaml"]
    assert not _exists("normalize/core/nothing_here.py") and _exists("normalize/core/{pack,engine}.py")
    assert _resolves("normalize.core.pack.load_pack") and not _resolves("normalize.core.pack.no_such_name")


def test_the_guide_exists_and_readme_links_to_it() -> None:
    assert (ROOT / "docs" / "CONTRIBUTING.md").is_file()
    assert "docs/CONTRIBUTING.md" in README


# --------------------------------------------------------------------------- the README's two commands


def _ci_default(variable: str) -> str:
    m = re.search(rf'^export {variable}="\$\{{{variable}:-(.*?)\}}"$', CI, re.M)
    assert m is not None, variable
    return m.group(1)


def test_the_readme_test_command_is_what_ci_runs() -> None:
    block = re.search(r"Run the tests .*?```bash\n(.*?)```", README, re.S)
    assert block is not None
    command = block.group(1).strip()
    torch = re.search(r'pip install (?:--quiet )?("torch==[^"]+")', CI)
    extras = re.search(r'pip install --quiet (".\[[^"]+\]")', CI)
    assert torch is not None and extras is not None
    assert f"pip install {torch.group(1)}" in command
    assert f'CMAKE_ARGS="{_ci_default("CMAKE_ARGS")}" pip install {extras.group(1)}' in command
    pytest_command = command.rsplit("&& ", 1)[1]
    assert CI.rstrip().splitlines()[-1] == pytest_command  # .ci/run ends with the README's test command


# --------------------------------------------------------------------------- for the docs' authors


def main() -> int:
    """``python tests/test_docs_examples.py``: each session whose output moved, as a diff to review.

    Nothing is rewritten: read the diff, then paste what the command now prints into the block.
    """
    import difflib

    moved = 0
    for session in ALL_SESSIONS:
        for (command, shown), (rc, printed) in zip(session.commands, session_output(session), strict=True):
            now = comparable(printed, shown)
            if rc != 0 or now != _shown(shown):
                moved += 1
                print(f"{session.id}: $ {command}  (exit {rc})")
                print("\n".join(difflib.unified_diff(_shown(shown), now, "the docs", "now", lineterm="")))
    print(f"{moved} of {sum(len(s.commands) for s in ALL_SESSIONS)} documented commands moved")
    return 1 if moved else 0


if __name__ == "__main__":
    raise SystemExit(main())
