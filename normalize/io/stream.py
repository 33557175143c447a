"""Streaming JSONL jobs that lose nothing: atomic output, ``--resume``, SIGINT, ``--jobs``.

A job reads input lines one at a time, turns each into one output line (bytes) and one small
record for the caller's running totals, and writes the lines in input order.  Nothing holds
more than a bounded number of rows: with one job a row at a time, with N jobs at most
``2·N`` chunks of at most :data:`CHUNK_ROWS` rows or :data:`CHUNK_BYTES` bytes.

With N jobs the parent only hands out work and keeps the running totals, and it shares the
cores with the workers, so what it does per byte counts: from a regular input file it sends
each worker a byte range (the worker reads its lines itself, :func:`read_range`), and into a
regular output file the workers write their chunks' lines themselves, each chunk at the end of
the output once every earlier chunk is written (a turn passed under a lock): no line goes
through a pipe.  A pipe or stdin on either side sends the bytes themselves.

Output to a file is atomic: rows go to ``OUT.partial`` beside ``OUT`` (with a sidecar
``OUT.partial.json`` naming the input, pack hash and options), and only a complete run
renames it to ``OUT``; an interrupted run leaves ``OUT`` as it was.  ``--resume`` keeps every
complete line of ``OUT.partial`` (a line cut by SIGKILL is dropped), skips as many input rows
and continues; the result is byte-identical to an uninterrupted run.

SIGINT (Ctrl-C) finishes the rows already started, writes them, flushes and stops with a
message naming the last input line done; a second SIGINT stops at once (the partial file is
still resumable, as after SIGKILL).

Parquet and Arrow files (``--input-format``/``--output-format`` or the suffix) go through the
same job: a reader turns their rows into the JSON objects a JSONL line holds, and an output in
one of those formats has ``OUT.partial`` as a JSONL spool that the commit converts
(:mod:`normalize.io._arrow`).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import multiprocessing
import os
import signal
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO, Any, NamedTuple

from normalize.errors import EXIT_INTERRUPTED, UsageError
from normalize.io._io import iter_lines, stdout_bytes

#: Rows per chunk sent to a worker process (IPC is amortized over a chunk).
CHUNK_ROWS = 256
#: A chunk also ends once its lines hold this many bytes, so huge rows do not pile up.
CHUNK_BYTES = 1 << 20
#: A line at least this long is a huge row: its worker lets go of each copy (bytes, text,
#: value) as soon as the next exists (:func:`take_line`, ``decode_held``, ``encode_row_taking``),
#: which costs a little time per row, so small rows do not.
BIG_ROW_BYTES = 1 << 20
#: Bytes of output lines gathered before they are written to ``OUT.partial``: rows go out in
#: blocks, not one write a row.  A stop (SIGINT, an error) or the commit flushes them first; a
#: SIGKILL loses at most this much, which ``--resume`` runs again.
OUTPUT_BUFFER = 1 << 20
#: Inputs below this size run in one process even with ``--jobs`` (starting workers costs more).
PARALLEL_MIN_BYTES = 256 << 10

#: One chunk's work: ``(line number, raw bytes)`` in, ``(output bytes, records)`` out.
Worker = Callable[[list[tuple[int, bytes]]], tuple[bytes, list[Any]]]

_WORKER: Worker | None = None  # set in the parent before the pool forks; workers inherit it


class WorkerDied(UsageError):
    """A ``--jobs`` worker process died (killed, out of memory): not a bug in the rows or the
    tool, and the run is resumable; the command line reports it with exit 2."""


@dataclass
class _Slots:
    """Where each worker records the chunk it is on (shared memory), so a worker that dies can
    be named with its chunk: ``claimed`` counts the slots taken, ``cells`` holds per slot
    ``pid, first line, last line`` (0 when idle)."""

    lock: Any  # multiprocessing.Lock
    claimed: Any  # RawValue("i")
    cells: Any  # RawArray("q", 3 * slots)

    @property
    def size(self) -> int:
        return len(self.cells) // 3


_SLOTS: _Slots | None = None  # set in the parent before the pool forks; workers inherit it
_SLOT = -1  # this worker's slot (-1: none, or not a worker)


#: Inputs of at least this many bytes get a progress bar when stderr is a terminal.
PROGRESS_MIN_BYTES = 4 << 20


def add_stream_options(parser: argparse.ArgumentParser) -> None:
    """``--jobs`` and ``--resume``, shared by ``run`` and ``score``."""
    parser.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                        help="worker processes (default: every core); the output is the same for any N")
    parser.add_argument("--resume", action="store_true",
                        help="continue an interrupted run from the complete rows of OUT.jsonl.partial")
    formats = ("auto", "jsonl", "parquet", "arrow")
    parser.add_argument("--input-format", choices=formats, default="auto",
                        help="jsonl, parquet or arrow (IPC); auto (default): by the suffix (.parquet/.pq, "
                        ".arrow/.feather/.ipc), else JSONL")
    parser.add_argument("--output-format", choices=formats, default="auto",
                        help="the same for -o; Parquet and Arrow outputs need a file (not stdout)")


@contextmanager
def progress_bar(path: str, *, enabled: bool, desc: str) -> Iterator[Callable[[int], None] | None]:
    """A row counter on stderr for inputs of at least :data:`PROGRESS_MIN_BYTES` when stderr is a terminal."""
    big = path != "-" and Path(path).is_file() and Path(path).stat().st_size >= PROGRESS_MIN_BYTES
    if not (enabled and big and sys.stderr.isatty()):
        yield None
        return
    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread: --jobs forks while the bar is shown
    with tqdm(desc=desc, unit="row", file=sys.stderr) as bar:

        def advance(rows: int) -> None:
            bar.update(rows)

        yield advance


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def check_jobs(jobs: int | None) -> int:
    """``--jobs`` as a positive count (None: every core); a bad value is a ``ValueError``."""
    if jobs is None:
        return default_jobs()
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    return jobs


# --------------------------------------------------------------------------- interruption


class Interrupt:
    """Turns the first SIGINT into a request to stop after the rows in hand; the second stops at once."""

    def __init__(self) -> None:
        self.requested = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("normalize: interrupted; finishing the rows in hand (Ctrl-C again to stop at once)", file=sys.stderr)


@contextmanager
def interruptible() -> Iterator[Interrupt]:
    """Install :class:`Interrupt` as the SIGINT handler for the block (main thread only)."""
    state = Interrupt()
    try:
        previous = signal.signal(signal.SIGINT, state._handle)
    except ValueError:  # not the main thread: leave SIGINT alone
        yield state
        return
    try:
        yield state
    finally:
        signal.signal(signal.SIGINT, previous)


# --------------------------------------------------------------------------- output


def partial_path(path: str | Path) -> Path:
    """Where rows of an unfinished run go: ``OUT.partial`` beside ``OUT``."""
    return Path(f"{path}.partial")


def _meta_path(path: str | Path) -> Path:
    return Path(f"{path}.partial.json")


def input_identity(path: str | Path) -> dict[str, Any]:
    """What a resumed run checks its input against: path, size and modification time."""
    if str(path) == "-":
        return {"path": "-"}
    try:
        info = Path(path).stat()
    except FileNotFoundError:
        raise UsageError(f"input file not found: {path}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    return {"path": str(Path(path).resolve()), "size": info.st_size, "mtime_ns": info.st_mtime_ns}


@dataclass
class Output:
    """Where output lines go: stdout, or ``OUT.partial`` renamed to ``OUT`` by :meth:`commit`."""

    path: str | None
    handle: IO[bytes]
    rows_kept: int = 0
    #: What a write error names when there is no ``path`` (a device or pipe; stdout).
    name: str = "standard output"
    #: Writes ``OUT`` from the complete ``OUT.partial`` instead of renaming it (a Parquet or
    #: Arrow output: the partial file is its JSONL spool); it must replace ``OUT`` atomically.
    finish: Callable[[Path, str], Any] | None = None

    @property
    def partial(self) -> Path | None:
        return None if self.path is None else partial_path(self.path)

    @property
    def written(self) -> str:
        """The file the rows go to now (``OUT.partial`` for an atomic output)."""
        return str(self.partial) if self.partial is not None else self.name

    def kept_lines(self) -> Iterator[bytes]:
        """The complete lines a resumed run kept from ``OUT.partial``, read back one at a time."""
        if self.path is None or not self.rows_kept:
            return
        with partial_path(self.path).open("rb") as reader:
            for _ in range(self.rows_kept):
                yield next(reader)

    def write(self, data: bytes) -> None:
        try:
            self.handle.write(data)
        except OSError as exc:
            raise named(exc, self.written) from None

    def commit(self) -> None:
        """Flush, sync to disk, rename ``OUT.partial`` to ``OUT`` and drop the sidecar."""
        try:
            self.handle.flush()
            if self.path is None:
                return
            os.fsync(self.handle.fileno())
            self.handle.close()
        except OSError as exc:
            raise named(exc, self.written) from None
        if self.finish is not None:
            self.finish(partial_path(self.path), self.path)
            partial_path(self.path).unlink(missing_ok=True)
        else:
            os.replace(partial_path(self.path), self.path)
        _meta_path(self.path).unlink(missing_ok=True)

    def stop(self) -> None:
        """Flush what is written and leave ``OUT.partial`` for ``--resume``."""
        try:
            self.handle.flush()
            if self.path is not None:
                os.fsync(self.handle.fileno())
                self.handle.close()
        except OSError as exc:
            if self.path is not None and not self.handle.closed:
                with contextlib.suppress(OSError):
                    self.handle.close()
            raise named(exc, self.written) from None


def named(exc: OSError, path: str | Path) -> OSError:
    """``exc`` naming ``path`` when it names no file (a write's ``File too large``, ``No space left``
    carry none); the same class, so a broken pipe stays a :class:`BrokenPipeError`."""
    if exc.filename is not None or exc.errno is None:
        return exc
    return type(exc)(exc.errno, exc.strerror, str(path))


def _complete_lines(path: Path) -> tuple[int, int]:
    """``(complete lines, byte length they fill)`` of a partial file; a cut last line is not counted."""
    count = end = 0
    with path.open("rb") as handle:
        for line in handle:
            if not line.endswith(b"\n"):
                break
            try:
                json.loads(line)
            except ValueError:
                break
            count += 1
            end += len(line)
    return count, end


@contextmanager
def open_output(path: str | Path | None, *, meta: dict[str, Any], resume: bool,
                atomic: bool = True, output_format: str = "jsonl") -> Iterator[Output]:
    """Open the output of a job; with ``resume``, keep the complete rows of ``OUT.partial``.

    ``meta`` (input identity, pack hash, options) is stored beside the partial file and must
    match on resume, so a partial output is never continued with another input or pack.
    On an exception the partial file is flushed and left in place.  ``atomic=False`` writes
    straight to ``path`` (``os.devnull`` when rows are not wanted).  ``output_format``
    ``parquet`` or ``arrow``: ``OUT.partial`` is a JSONL spool that :meth:`Output.commit`
    converts into ``OUT`` (:mod:`normalize.io._arrow`).
    """
    finish = _arrow_finish(path, output_format, atomic)
    if path is not None and str(path) != "-" and _special(Path(path)):
        atomic = False  # a device or pipe (/dev/null, /dev/stdout, <(…)): it cannot be renamed over
        if resume:
            raise UsageError(f"--resume needs a regular output file; {path} is a device or pipe")
    if not atomic and path is not None:
        try:
            sink = open(path, "wb")
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
        with sink:
            yield Output(None, sink, name=str(path))
        return
    if path is None or str(path) == "-":
        if resume:
            raise UsageError("--resume needs an output file (-o OUT.jsonl): stdout cannot be resumed")
        sys.stdout.flush()
        out = Output(None, stdout_bytes())
        yield out
        out.handle.flush()
        return
    if Path(path).is_symlink():
        path = Path(path).resolve()  # replace the file the link points to, not the link
    path = str(path)
    partial, meta_file = partial_path(path), _meta_path(path)
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: cannot create the directory {Path(path).parent}: "
                         f"{exc.strerror or exc}") from None
    if Path(path).is_dir():
        raise UsageError(f"cannot write {path}: it is a directory")
    kept = 0
    if resume and partial.exists():
        kept, end = _resumable(partial, meta_file, meta)
        mode = "r+b"
    else:
        if resume:
            print(f"normalize: no partial output {partial} to resume; starting at the first row", file=sys.stderr)
        end, mode = 0, "wb"
    try:
        _write_meta(meta_file, meta)
        handle: IO[bytes] = open(partial, mode, buffering=OUTPUT_BUFFER)
    except OSError as exc:
        raise UsageError(f"cannot write {partial}: {exc.strerror or exc}") from None
    if mode == "r+b":
        handle.truncate(end)
        handle.seek(end)
    out = Output(path, handle, kept, finish=finish)
    try:
        yield out
    except BaseException:
        if not handle.closed:
            out.stop()
        raise
    if not handle.closed:
        out.stop()


def _arrow_finish(path: str | Path | None, output_format: str, atomic: bool) -> Callable[[Path, str], Any] | None:
    """The converter :meth:`Output.commit` runs for a Parquet or Arrow output (None for JSONL)."""
    if output_format == "jsonl":
        return None
    if path is None or str(path) == "-" or not atomic or _special(Path(path)):
        raise UsageError(f"{output_format} output needs a regular file (-o OUT.{output_format}), not stdout or a device")
    from normalize.io._arrow import pyarrow, write_from_jsonl

    pyarrow()  # a missing pyarrow is told now, not after the whole run

    def finish(spool: Path, dest: str) -> None:
        write_from_jsonl(spool, dest, output_format)

    return finish


def _special(path: Path) -> bool:
    """Whether ``path`` exists and is not a regular file (a device, a pipe, a socket)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def write_atomically(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never a half-written file."""
    target = Path(path)
    if _special(target):
        try:
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
        return
    if target.is_symlink():
        target = target.resolve()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def _write_meta(meta_file: Path, meta: dict[str, Any]) -> None:
    tmp = meta_file.with_name(meta_file.name + ".tmp")
    tmp.write_text(json.dumps(meta, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, meta_file)


def _resumable(partial: Path, meta_file: Path, meta: dict[str, Any]) -> tuple[int, int]:
    try:
        stored = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise UsageError(f"cannot resume: {meta_file} (what {partial} was made from) is missing or unreadable; "
                         "run again without --resume") from None
    changed = sorted(key for key in set(stored) | set(meta) if stored.get(key) != meta.get(key))
    if changed:
        raise UsageError(f"cannot resume {partial}: it was made with other {', '.join(changed)} "
                         f"({'; '.join(f'{k}: {stored.get(k)!r} now {meta.get(k)!r}' for k in changed)}); "
                         "run again without --resume")
    return _complete_lines(partial)


# --------------------------------------------------------------------------- the job


@dataclass
class Progress:
    """What a job did: rows written (resumed rows included), the last input line done, whether it stopped early."""

    rows: int = 0
    last_line: int = 0
    interrupted: bool = False


def chunks(lines: Iterable[tuple[int, bytes]], *, rows: int | None = None,
           size: int | None = None) -> Iterator[list[tuple[int, bytes]]]:
    """Group lines into chunks of at most ``rows`` rows or about ``size`` bytes (default: the module's)."""
    rows = rows or CHUNK_ROWS
    size = size or CHUNK_BYTES
    chunk: list[tuple[int, bytes]] = []
    held = 0
    for item in lines:
        chunk.append(item)
        held += len(item[1])
        if len(chunk) >= rows or held >= size:
            yield chunk
            chunk, held = [], 0
    if chunk:
        yield chunk


def take_line(chunk: list[tuple[int, bytes]], index: int) -> tuple[int, list[bytes]]:
    """Line ``index`` of a chunk as its number and a list holding only its bytes, leaving only
    the number in the chunk: :func:`normalize.io._jsonl.decode_held` takes the bytes out of the
    list, so a huge row's bytes live no longer than its decoding.

    >>> chunk = [(3, b'{"a": 1}')]
    >>> take_line(chunk, 0), chunk
    ((3, [b'{"a": 1}']), [(3, b'')])
    """
    number, raw = chunk[index]
    chunk[index] = (number, b"")
    return number, [raw]


def _on_chunk(first: int, last: int) -> None:
    """Record in this worker's slot the lines it is working on (``0, 0``: none)."""
    if _SLOTS is not None and _SLOT >= 0:
        cells = _SLOTS.cells
        cells[3 * _SLOT + 1], cells[3 * _SLOT + 2] = first, last


def _run_chunk(chunk: list[tuple[int, bytes]]) -> tuple[bytes, list[Any]]:
    if _WORKER is None:
        raise RuntimeError("the worker function was not set before the pool started")
    _on_chunk(chunk[0][0], chunk[-1][0])
    try:
        return _WORKER(chunk)
    finally:
        _on_chunk(0, 0)


class RangeTask(NamedTuple):
    """A chunk given to a worker by place: input lines ``first``… (``lines`` of them, blank ones
    included) at bytes ``start``–``end`` of ``path``; ``turn``: its place among the chunks the
    workers write themselves (``-1``: send the output lines back instead)."""

    path: str
    start: int
    end: int
    first: int
    lines: int
    turn: int


class RangeDone(NamedTuple):
    """What a worker sends back for a :class:`RangeTask`: the output bytes (``None`` when it
    wrote them), the records, the last non-blank line's number."""

    data: bytes | None
    records: list[Any]
    last: int


def read_range(path: str | Path, start: int, end: int, first: int) -> list[tuple[int, bytes]]:
    """The rows :func:`normalize.io._io.iter_lines` gives for the whole lines at bytes ``start``–``end``
    of ``path``, the first of them being line ``first``: ``(line number, bytes without the line
    end)``, blank lines left out but counted.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile(delete=False) as f:
    ...     _ = f.write(b'{"a": 1}\\n\\n  \\r\\n{"b": 2}\\r\\n{"c": 3}')
    >>> read_range(f.name, 0, 36, 1), read_range(f.name, 14, 36, 4)
    ([(1, b'{"a": 1}'), (4, b'{"b": 2}'), (5, b'{"c": 3}')], [(4, b'{"b": 2}'), (5, b'{"c": 3}')])
    >>> os.unlink(f.name)
    """
    with open(path, "rb", buffering=0) as handle:
        handle.seek(start)
        data = handle.read(end - start)
    pieces = data.split(b"\n")
    if pieces[-1] == b"":  # the range ends with a line end: no line after it
        pieces.pop()
    return [(first + i, raw.rstrip(b"\r\n")) for i, raw in enumerate(pieces) if raw.strip()]


def line_ranges(
    path: str | Path, *, rows: int | None = None, size: int | None = None
) -> Iterator[tuple[int, int, int, int]]:
    """``(start, end, first line, lines)`` of consecutive chunks of ``path``'s lines: whole lines,
    at most ``rows`` lines (blank ones included) and about ``size`` bytes each (over it by the
    chunk's last line at most), in order, covering the file.  Only line lengths are counted: no
    line is decoded, split or sent anywhere.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile(delete=False) as f:
    ...     _ = f.write(b"a\\nbb\\n\\nccc\\nd")
    >>> list(line_ranges(f.name, rows=2))
    [(0, 5, 1, 2), (5, 10, 3, 2), (10, 11, 5, 1)]
    >>> list(line_ranges(f.name, size=1))
    [(0, 2, 1, 1), (2, 5, 2, 1), (5, 6, 3, 1), (6, 10, 4, 1), (10, 11, 5, 1)]
    >>> os.unlink(f.name)
    """
    rows = rows or CHUNK_ROWS
    size = size or CHUNK_BYTES
    with open(path, "rb") as handle:
        start = end = count = 0
        first = 1
        for line in handle:  # split on b"\n" only, as iter_lines reads
            end, count = end + len(line), count + 1
            if count >= rows or end - start >= size:
                yield start, end, first, count
                start, first, count = end, first + count, 0
        if count:
            yield start, end, first, count


@dataclass
class _Sink:
    """The output file the workers write in turn: its descriptor, the next chunk's turn and
    where it goes (shared memory, under ``lock``), and whether a chunk failed."""

    fd: int
    lock: Any  # multiprocessing.Condition
    turn: Any  # multiprocessing RawValue("q"): the turn of the chunk to write next
    offset: Any  # RawValue("q"): where it goes
    failed: Any  # RawValue("b"): a chunk failed; no later one is written
    name: str = ""  # the file, for a write error


_SINK: _Sink | None = None  # set in the parent before the pool forks; workers inherit it


def _run_range(task: RangeTask) -> RangeDone:
    if _WORKER is None:
        raise RuntimeError("the worker function was not set before the pool started")
    sink = _SINK if task.turn >= 0 else None
    if task.turn >= 0 and sink is None:
        raise RuntimeError("the output was not set before the pool started")
    _on_chunk(task.first, task.first + task.lines - 1)
    try:
        chunk = read_range(task.path, task.start, task.end, task.first)
        last = chunk[-1][0] if chunk else 0
        data, records = _WORKER(chunk) if chunk else (b"", [])
    except BaseException:
        if sink is not None:
            _write_in_turn(sink, task.turn, None)  # later chunks must not wait for this one
        _on_chunk(0, 0)
        raise
    if sink is None:
        _on_chunk(0, 0)
        return RangeDone(data, records, last)
    _write_in_turn(sink, task.turn, data)
    _on_chunk(0, 0)
    return RangeDone(None, records, last)


def _write_in_turn(sink: _Sink, turn: int, data: bytes | None) -> None:
    """Wait until every chunk before ``turn`` is written, write ``data`` at the end of the
    output, and pass the turn on.  ``None``: this chunk failed; it and every later chunk are
    not written (the parent raises the failure when it reaches this chunk)."""
    with sink.lock:
        while sink.turn.value != turn:
            sink.lock.wait(1.0)
        error: OSError | None = None
        if data is None:
            sink.failed.value = 1
        elif not sink.failed.value:
            view, at = memoryview(data), sink.offset.value
            try:
                while view:  # pwrite may take part of it
                    written = os.pwrite(sink.fd, view, at)
                    view, at = view[written:], at + written
            except OSError as exc:  # a full disk, a file size limit: this chunk and every later one fail
                sink.failed.value, error = 1, named(exc, sink.name)
            else:
                sink.offset.value = at
        sink.turn.value = turn + 1  # passed on even after a failure: later chunks must not wait for ever
        sink.lock.notify_all()
    if error is not None:
        raise error


def _init_worker(parent: int) -> None:
    """A worker ignores SIGINT (the parent decides when to stop) and dies with its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    global _SLOT
    slots = _SLOTS
    if slots is not None:
        with slots.lock:
            slot = slots.claimed.value
            slots.claimed.value = slot + 1
        if slot < slots.size:
            _SLOT = slot
            slots.cells[3 * slot] = os.getpid()


def _start_slots(context: Any, jobs: int) -> None:
    global _SLOTS
    _SLOTS = _Slots(context.Lock(), context.RawValue("i", 0), context.RawArray("q", 3 * 2 * jobs))


def _worker_died(pool: ProcessPoolExecutor, output: Output, progress: Progress, waiting: tuple[int, int]) -> WorkerDied:
    """What to say when ``pool`` broke: which worker died, how, on which lines (from its slot;
    else the chunk the run was waiting for, ``waiting``), and that ``--resume`` continues."""
    processes = dict(getattr(pool, "_processes", None) or {})  # the pool's own record (CPython): each worker
    for proc in processes.values():
        proc.join(2.0)  # the broken pool is ending the others: their exit codes tell which died first
    dead = {pid: proc.exitcode for pid, proc in processes.items()
            if proc.exitcode is not None and proc.exitcode not in (0, -signal.SIGTERM)}
    on = ""
    who = "a worker process"
    slots = _SLOTS
    if slots is not None:
        cells = list(slots.cells)
        for slot in range(slots.size):
            pid, first, last = cells[3 * slot: 3 * slot + 3]
            if pid in dead:
                who = f"worker process {pid}"
                on = f" while on the chunk of input lines {first}–{last}" if first else " between chunks"
                break
    codes = [code for code in dead.values() if code is not None]
    if codes and codes[0] < 0:
        try:
            how = f"killed by {signal.Signals(-codes[0]).name}"
        except ValueError:
            how = f"killed by signal {-codes[0]}"
        how += ": out of memory, or killed from outside" if codes[0] == -signal.SIGKILL else ""
    elif codes:
        how = f"exited with status {codes[0]}"
    else:
        how = "terminated abruptly"
    done = f"after input line {progress.last_line}" if progress.last_line else "before the first row"
    done += f" (the chunk of input lines {waiting[0]}–{waiting[1]} was not finished)"
    if output.path is None:
        resume = f"the rows up to input line {progress.last_line} went to stdout; write to a file (-o) to resume"
    else:
        resume = (f"the rows done so far are in {output.partial} (partial; {output.path} is unchanged): run the same "
                  "command with --resume to continue")
    return WorkerDied(f"{who} died ({how}){on}; the run stopped {done}; {resume}")


def run_job(
    input_path: str | Path,
    output: Output,
    worker: Worker,
    consume: Callable[[list[Any]], None],
    *,
    jobs: int,
    interrupt: Interrupt,
    on_chunk: Callable[[int], None] | None = None,
    rows_from: Callable[[int], Iterator[tuple[int, bytes]]] | None = None,
) -> Progress:
    """Feed every input line not yet in ``output`` through ``worker`` and write the results in order.

    ``consume`` gets each chunk's records in input order (the caller's running totals);
    ``on_chunk`` the count of rows just written (a progress bar).  With ``jobs`` > 1 the
    chunks run in forked worker processes, at most ``2·jobs`` in flight; the bytes written
    are the same as with one job.  ``rows_from(skip)``: the input rows (``(number, JSON
    bytes)``) from another reader than the JSONL one (a Parquet file, :mod:`normalize.io._arrow`).
    """
    progress = Progress(rows=output.rows_kept)
    lines = iter_lines(input_path, skip=output.rows_kept) if rows_from is None else rows_from(output.rows_kept)
    parallel = jobs > 1 and _fork_available() and _big_enough(input_path)

    def take(data: bytes, records: list[Any], last: int) -> None:
        output.write(data)
        consume(records)
        progress.rows += len(records)
        progress.last_line = last
        if on_chunk is not None:
            on_chunk(len(records))

    if not parallel:
        upcoming = next(lines, None)
        while upcoming is not None:
            number = upcoming[0]
            one, upcoming = [upcoming], None  # the worker may drop the line once decoded (see take_line)
            data, records = worker(one)
            del one
            take(data, records, number)
            upcoming = next(lines, None)
            if interrupt.requested and upcoming is not None:
                progress.interrupted = True
                break
        return progress

    if output.rows_kept == 0 and rows_from is None and _regular_file(input_path):
        return _run_ranges(str(input_path), output, worker, take, jobs=jobs, interrupt=interrupt, progress=progress)
    source = chunks(lines)
    first = next(source, None)
    if first is None:
        return progress
    # The first chunk runs here: lazy imports and compiled patterns are then inherited by the
    # workers instead of being paid once per worker.
    data, records = worker(first)
    take(data, records, first[-1][0])
    if interrupt.requested:
        progress.interrupted = True
        return progress

    global _WORKER, _SLOTS
    _WORKER = worker
    output.handle.flush()  # forked workers must not inherit unwritten bytes
    sys.stdout.flush()
    sys.stderr.flush()
    gc.freeze()  # the pack and its compiled patterns stay shared: the collector would copy their pages
    context = multiprocessing.get_context("fork")
    _start_slots(context, jobs)
    pending: list[tuple[Future[tuple[bytes, list[Any]]], int, int]] = []
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker,
                                 initargs=(os.getpid(),)) as pool:
            exhausted = False
            waiting = (0, 0)  # the lines of the chunk the run waits for next
            try:
                while True:
                    while not exhausted and not interrupt.requested and len(pending) < 2 * jobs:
                        chunk = next(source, None)
                        if chunk is None:
                            exhausted = True
                            break
                        if not pending:
                            waiting = (chunk[0][0], chunk[-1][0])
                        pending.append((pool.submit(_run_chunk, chunk), chunk[0][0], chunk[-1][0]))
                    if not pending:
                        break
                    future, first_line, last = pending.pop(0)
                    waiting = (first_line, last)
                    data, records = future.result()
                    take(data, records, last)
                    if pending:
                        waiting = pending[0][1:]
            except BrokenProcessPool:  # a worker died: at submit or at a result
                raise _worker_died(pool, output, progress, waiting) from None
            progress.interrupted = interrupt.requested and not exhausted
    finally:
        _WORKER = _SLOTS = None
        gc.unfreeze()
    return progress


def _run_ranges(
    path: str,
    output: Output,
    worker: Worker,
    take: Callable[[bytes, list[Any], int], None],
    *,
    jobs: int,
    interrupt: Interrupt,
    progress: Progress,
) -> Progress:
    """:func:`run_job`'s parallel path for a regular input file: each worker reads its byte
    range itself and, when the output is a regular file, writes its output lines there itself
    once every earlier chunk is written, so no line goes through a pipe.  The bytes written are
    the same as with one job."""
    ranges = line_ranges(path)
    first = next(ranges, None)
    if first is None:
        return progress
    # The first chunk runs here: lazy imports and compiled patterns are then inherited by the
    # workers instead of being paid once per worker.
    chunk = read_range(path, first[0], first[1], first[2])
    if chunk:
        data, records = worker(chunk)
        take(data, records, chunk[-1][0])
    if interrupt.requested:
        progress.interrupted = True
        return progress

    global _WORKER, _SINK, _SLOTS
    _WORKER = worker
    output.handle.flush()  # forked workers must not inherit unwritten bytes
    sys.stdout.flush()
    sys.stderr.flush()
    context = multiprocessing.get_context("fork")
    sink = None
    if _regular_output(output):  # the workers write it, in turn, from where it ends now
        lock = context.Condition()
        sink = _Sink(output.handle.fileno(), lock, context.RawValue("q", 0), context.RawValue("q", output.handle.tell()),
                     context.RawValue("b", 0), output.written)
    _SINK = sink
    _start_slots(context, jobs)
    gc.freeze()  # the pack and its compiled patterns stay shared: the collector would copy their pages
    pending: list[tuple[Future[RangeDone], int, int]] = []
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker,
                                 initargs=(os.getpid(),)) as pool:
            exhausted = False
            turn = 0
            waiting = (0, 0)  # the lines of the chunk the run waits for next
            try:
                while True:
                    while not exhausted and not interrupt.requested and len(pending) < 2 * jobs:
                        upcoming = next(ranges, None)
                        if upcoming is None:
                            exhausted = True
                            break
                        start, end, line, lines = upcoming
                        if not pending:
                            waiting = (line, line + lines - 1)
                        pending.append((pool.submit(_run_range, RangeTask(path, start, end, line, lines,
                                                                           turn if sink is not None else -1)),
                                        line, line + lines - 1))
                        turn += 1
                    if not pending:
                        break
                    future, first_line, last_line = pending.pop(0)
                    waiting = (first_line, last_line)
                    done = future.result()
                    if done.records:  # not blank lines only
                        take(done.data or b"", done.records, done.last)
                    if pending:
                        waiting = pending[0][1:]
            except BrokenProcessPool:  # a worker died: at submit or at a result
                raise _worker_died(pool, output, progress, waiting) from None
            progress.interrupted = interrupt.requested and not exhausted
    finally:
        _WORKER = _SINK = _SLOTS = None
        gc.unfreeze()
        if sink is not None:  # the handle goes on from where the workers stopped writing
            output.handle.seek(sink.offset.value)
    return progress


def _regular_file(path: str | Path) -> bool:
    """Whether ``path`` names a regular file (not stdin, a pipe or a device): it can be read by range."""
    if str(path) == "-":
        return False
    try:
        return stat.S_ISREG(Path(path).stat().st_mode)
    except OSError:
        return False


def _regular_output(output: Output) -> bool:
    """Whether ``output`` writes a regular file (one that can be written at an offset)."""
    try:
        return stat.S_ISREG(os.fstat(output.handle.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's buffer)
        return False


def _fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _big_enough(path: str | Path) -> bool:
    if str(path) == "-":
        return True
    try:
        return Path(path).stat().st_size >= PARALLEL_MIN_BYTES
    except OSError:
        return True


def stream_formats(args: argparse.Namespace) -> tuple[str, str, Callable[[int], Iterator[tuple[int, bytes]]] | None]:
    """``(input format, output format, rows_from)`` of a command with :func:`add_stream_options`:
    the formats by ``--input-format``/``--output-format`` or the suffixes, and the reader
    :func:`run_job` takes for a Parquet or Arrow input (None for JSONL)."""
    from normalize.io._arrow import iter_rows, pyarrow, resolve_format

    in_fmt = resolve_format(args.input, getattr(args, "input_format", None))
    out_fmt = resolve_format(args.output, getattr(args, "output_format", None))
    if in_fmt == "jsonl":
        return in_fmt, out_fmt, None
    pyarrow()
    path = args.input

    def rows_from(skip: int) -> Iterator[tuple[int, bytes]]:
        return iter_rows(path, in_fmt, skip=skip)

    return in_fmt, out_fmt, rows_from


def format_meta(in_fmt: str, out_fmt: str) -> dict[str, str]:
    """What a resumed run also checks when a side is not JSONL (nothing for JSONL on both sides,
    so the sidecars of JSONL runs stay as they were)."""
    return {} if in_fmt == out_fmt == "jsonl" else {"input_format": in_fmt, "output_format": out_fmt}


def stopped_message(output: Output, progress: Progress) -> str:
    """Where an interrupted run stopped and how to continue it."""
    where = f"after input line {progress.last_line}" if progress.last_line else "before the first row"
    if output.path is None:
        return f"normalize: stopped {where}; {progress.rows} rows written to stdout"
    return (f"normalize: stopped {where}; {progress.rows} rows are in {output.partial} "
            f"(partial; {output.path} is unchanged). Run the same command with --resume to continue.")


__all__ = [
    "BIG_ROW_BYTES",
    "CHUNK_BYTES",
    "CHUNK_ROWS",
    "EXIT_INTERRUPTED",
    "PROGRESS_MIN_BYTES",
    "Interrupt",
    "Output",
    "Progress",
    "RangeDone",
    "RangeTask",
    "WorkerDied",
    "add_stream_options",
    "check_jobs",
    "chunks",
    "default_jobs",
    "format_meta",
    "input_identity",
    "interruptible",
    "line_ranges",
    "open_output",
    "partial_path",
    "progress_bar",
    "read_range",
    "run_job",
    "stopped_message",
    "stream_formats",
    "take_line",
    "write_atomically",
]
