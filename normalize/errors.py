"""Exceptions raised by harness-normalize."""

from __future__ import annotations

from normalize.status import Status


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
