"""``normalize diff OLD NEW IN...``: two packs on the same outputs, and which difference moved each verdict.

A pack is named as a file, ``shipped:NAME`` (a pack of the shipped folder) or ``REV:PATH``, the
file as git has it at revision ``REV`` of the repository the command runs in (read with
``git archive`` of the file's folder, so its relative includes come from the same revision).
"""

from __future__ import annotations

import argparse
import atexit
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from normalize.cli import EXIT_OK, add_format_option
from normalize.core.pack import SHIPPED_PREFIX, Pack, default_pack_path, load_pack
from normalize.errors import UsageError
from normalize.io.jsonl import InputRow, read_jsonl
from normalize.io.lm_eval_log import add_source_options, source_input
from normalize.io.stream import write_atomically
from scoring.diff import diff_packs, render_diff_text
from scoring.metrics import MathVerifier

_GIT_TIMEOUT = 60


def register(sub: Any) -> None:
    diff = sub.add_parser("diff", help="score the same outputs with two packs; name the difference behind each "
                                       "flipped verdict")
    diff.add_argument("old", metavar="OLD", help="the baseline pack: a file, shipped:NAME or REV:PATH (git); "
                                                 "'harness': the harness's own extracted answers (a log read "
                                                 "with --from inspect|lighteval|opencompass|evalscope)")
    diff.add_argument("new", metavar="NEW", help="the pack compared with it (same forms)")
    diff.add_argument("input", metavar="IN", help="rows with id, task, output, target")
    add_source_options(diff)
    diff.add_argument("--allow-module", metavar="MODULE", action="append", default=[],
                      help="let either pack import rules from this Python module")
    diff.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples (default 1000)")
    diff.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    diff.add_argument("--replay-budget", type=int, default=64, metavar="N",
                      help="at most N re-runs per flipped row when looking for its cause (default 64)")
    diff.add_argument("--examples", type=int, default=3, metavar="N", help="examples kept per cause (default 3)")
    diff.add_argument("--html", metavar="OUT.html", help="also write the diff as a self-contained HTML page")
    add_format_option(diff, help_json="the diff: figures of both packs, flips, differences and causes")
    diff.set_defaults(func=cmd_diff)


def _git(args: Sequence[str], cwd: Path) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=_GIT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise UsageError("reading a pack at a git revision needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"git {args[0]} took more than {_GIT_TIMEOUT}s") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(f"git {args[0]}: {message[-1] if message else f'exit {done.returncode}'}")
    return done.stdout


def pack_at_revision(rev: str, path: str, *, cwd: Path | None = None) -> Path:
    """The pack file ``path`` as it is at git revision ``rev`` of the repository holding ``cwd``,
    written with its folder (for its includes) to a temporary directory deleted at exit.

    ``path`` is relative to ``cwd`` and must lie inside that repository; ``rev`` must name a commit.
    """
    here = (cwd or Path.cwd()).resolve()
    if not rev or rev.startswith("-") or any(c.isspace() for c in rev):
        raise UsageError(f"not a git revision: {rev!r}")
    top = Path(_git(["rev-parse", "--show-toplevel"], here).decode("utf-8").strip()).resolve()
    wanted = (here / path).resolve()
    try:
        relative = wanted.relative_to(top)
    except ValueError:
        raise UsageError(f"{path} is outside the git repository {top}") from None
    commit = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], top).decode().strip()
    _git(["cat-file", "-e", f"{commit}:{relative.as_posix()}"], top)
    folder = relative.parent.as_posix() or "."
    archive = _git(["archive", "--format=tar", commit, "--", folder], top)
    target = Path(tempfile.mkdtemp(prefix="normalize-diff-"))
    atexit.register(shutil.rmtree, target, True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target / relative


def resolve_pack(spec: str, *, allow_modules: Sequence[str] = (), cwd: Path | None = None) -> Pack:
    """The pack ``spec`` names: ``shipped:NAME``, an existing file, or ``REV:PATH`` (git)."""
    if spec.startswith(SHIPPED_PREFIX):
        name = spec[len(SHIPPED_PREFIX):] or "default"
        path = default_pack_path().parent / (name if name.endswith((".yaml", ".yml")) else f"{name}.yaml")
        if not path.is_file():
            raise UsageError(f"no shipped pack {name!r}")
        return load_pack(path, allow_modules=allow_modules)
    here = cwd or Path.cwd()
    if (here / spec).exists() or ":" not in spec:
        return load_pack(here / spec, allow_modules=allow_modules)
    rev, inside = spec.split(":", 1)
    return load_pack(pack_at_revision(rev, inside, cwd=here), allow_modules=allow_modules)


def _rows(path: str) -> Iterator[InputRow]:
    yield from read_jsonl(path)


def cmd_diff(args: argparse.Namespace) -> int:
    if args.bootstrap < 1:
        raise UsageError(f"--bootstrap must be at least 1, got {args.bootstrap}")
    if args.replay_budget < 1:
        raise UsageError(f"--replay-budget must be at least 1, got {args.replay_budget}")
    if args.examples < 0:
        raise UsageError(f"--examples must be non-negative, got {args.examples}")
    new = resolve_pack(args.new, allow_modules=args.allow_module)
    harness = args.old == "harness"
    old = new if harness else resolve_pack(args.old, allow_modules=args.allow_module)
    path = source_input(args, new)
    with MathVerifier() as verifier:
        document = diff_packs(old, new, _rows(path), n_resamples=args.bootstrap, seed=args.seed, verifier=verifier,
                              replay_budget=args.replay_budget, examples=args.examples, harness_side=harness)
    document["old"]["spec"], document["new"]["spec"] = args.old, args.new
    if args.html:
        from scoring._html_diff import render_diff_page

        write_atomically(args.html, render_diff_page(document))
    if args.format == "json":
        print(json.dumps(document, ensure_ascii=False, indent=2, allow_nan=False, default=str))
    else:
        print(render_diff_text(document, old_label=args.old, new_label=args.new))
    sys.stdout.flush()
    return EXIT_OK
