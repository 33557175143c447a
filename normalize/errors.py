"""Exceptions raised by harness-normalize."""

from __future__ import annotations

from typing import Final

from normalize.status import Status

#: The exit codes of the command line, beside the errors they report: 0 ok, 1 findings (a
#: check or a threshold failed), 2 a usage or configuration error (:class:`UsageError` and its
#: subclasses), 3 an unexpected exception (a bug), 130 stopped by Ctrl-C (128 + SIGINT, as
#: shells report it).  A leaf, so that code below the command line (the streaming job) names
#: them without importing it.
EXIT_OK: Final = 0
EXIT_FINDINGS: Final = 1
EXIT_USAGE: Final = 2
EXIT_BUG: Final = 3
EXIT_INTERRUPTED: Final = 130


class NormalizeError(Exception):
    """Base class of every error this library raises on purpose."""


class UsageError(NormalizeError, ValueError):
    """The user asked for something that cannot be done (a bad option value, a missing file,
    an unknown task): the command line reports it and exits 2.  Any other exception that
    reaches the command line is a bug and exits 3."""


class PackError(UsageError):
    """A rule pack is malformed: names the file, line and column when known."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        return f"{where}{self.message}"


class CheckConfigError(UsageError):
    """The pack's ``check`` section, a ``normalize check`` option or the golden samples are unusable."""


class CheckSectionError(PackError, CheckConfigError):
    """The pack's ``check:`` section is malformed (raised by ``load_pack``, with its location)."""


class RegistrationError(NormalizeError):
    """A rule or parser was registered twice or with a bad declaration."""


class RejectText(NormalizeError):
    """Raised by a rule to stop its chain with a recorded status, e.g. ``invalid``.

    This is not a crash: the engine records ``status`` and ``reason`` on the result.
    """

    def __init__(self, status: Status, reason: str) -> None:
        self.status = status
        self.reason = reason
        super().__init__(f"{status}: {reason}")
