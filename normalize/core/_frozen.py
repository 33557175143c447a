"""Building frozen dataclass instances without their generated ``__init__`` (a per-row cost)."""

from __future__ import annotations

from typing import Any, TypeVar

_T = TypeVar("_T")


def frozen_instance(cls: type[_T], fields: dict[str, Any]) -> _T:
    """``cls(**fields)`` for a plain frozen dataclass, ``fields`` holding every field in order.

    The ``__init__`` a frozen dataclass gets sets each field through ``object.__setattr__``
    (about 0.1 µs a field), and a row builds a dozen such objects (its result, the chain's
    outcome, the parse context, a trace step per rule that changed the text); this fills the
    instance's ``__dict__`` at once: the same object, equal, with the same ``repr``.  Only for
    the classes :func:`check_plain_frozen` accepts (no ``__post_init__``, no ``__slots__``);
    a test compares every caller's instances with ``__init__``'s.
    """
    instance = object.__new__(cls)
    instance.__dict__.update(fields)
    return instance


def check_plain_frozen(*classes: type[Any]) -> None:
    """Raise ``TypeError`` unless each class is a frozen dataclass that :func:`frozen_instance`
    may build (its ``__init__`` would only set the fields: no ``__post_init__``, no slots)."""
    for cls in classes:
        params = getattr(cls, "__dataclass_params__", None)
        if params is None or not params.frozen or hasattr(cls, "__post_init__") or "__slots__" in vars(cls):
            raise TypeError(f"{cls.__name__} is not a plain frozen dataclass")
