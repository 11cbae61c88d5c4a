"""Card mechanics from outside the package: the extensions a process loads before it reads any deck.

An extension is a Python module that registers goal or effect kinds (``converge.engine.register_effect``,
``register_goal``; see docs/extending.md) when it is imported. A process loads them in two ways:

* every entry point of the group :data:`GROUP` of the installed distributions (``[project.entry-points.
  "converge.extensions"]`` in a package's pyproject.toml): the module it names is imported, and when it names
  a callable (``mymech.kinds:register``), that is called;
* the modules the user names: ``converge --plugin MODULE`` and the environment variable :data:`ENV` (module
  names separated by commas).

Each is loaded once per process (:func:`load_extensions` may be called again: what is loaded stays loaded, and
registers nothing twice). The processes converge starts (the simulator's workers, the server's bot workers,
serve-bench's servers) load the same ones: the modules named travel in the jobs they are given
(:func:`named_plugins`) and, from the command line, in :data:`ENV`, which child processes inherit
(:func:`share_with_children`); entry points are found again in each process.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
from collections.abc import Iterable

#: The entry-point group of installed extensions.
GROUP = "converge.extensions"
#: The environment variable naming extension modules, separated by commas.
ENV = "CONVERGE_PLUGINS"


class PluginError(Exception):
    """An extension that could not be loaded: the message (one line) names it, where it was named, and what
    went wrong."""


_entry_points_loaded = False  # (every entry point of the group loaded)
#: The entry points loaded (``name = value``): after one failed, the next call does not call the others again.
_entry_points_done: set[str] = set()
#: The modules named by the user (argument or :data:`ENV`) that this process has loaded, in order.
_named: list[str] = []


def is_module_name(text: str) -> bool:
    """Whether ``text`` is a dotted module name (``mymech``, ``mymech.kinds``), which an import can take."""
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def env_plugins() -> list[str]:
    """The module names of :data:`ENV`, in order, without blanks."""
    return [name.strip() for name in os.environ.get(ENV, "").split(",") if name.strip()]


def _failure(plugin: str, where: str, exc: BaseException) -> PluginError:
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    what = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    return PluginError(f"cannot load the plugin {plugin!r} ({where}): {what}")


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    for ep in importlib.metadata.entry_points(group=GROUP):
        key = f"{ep.name} = {ep.value}"
        if key in _entry_points_done:  # (also a distribution found twice on the path, as an editable one can be)
            continue
        dist = f" of {ep.dist.name} {ep.dist.version}" if ep.dist is not None else ""
        try:
            loaded = ep.load()
            if ep.attr is not None and callable(loaded):
                loaded()
        except Exception as exc:  # anything a plugin raises is the plugin's failure, reported as such
            raise _failure(ep.name, f"entry point {key}{dist}", exc) from exc
        _entry_points_done.add(key)
    _entry_points_loaded = True


def _load_module(name: str, where: str) -> None:
    if name in _named:
        return
    if not is_module_name(name):
        raise PluginError(f"cannot load the plugin {name!r} ({where}): a plugin is a module name such as "
                          "mymech or mymech.kinds, importable from the Python path (PYTHONPATH)")
    try:
        importlib.import_module(name)
    except Exception as exc:  # as above: a plugin's own error (or its absence) is reported as its failure
        raise _failure(name, where, exc) from exc
    _named.append(name)


def load_extensions(modules: Iterable[str] = (), named_by: str = "--plugin") -> None:
    """Load, once per process, every extension: the entry points of :data:`GROUP`, the modules of :data:`ENV`,
    then ``modules`` (``named_by`` says where they were named, for the error). Raises :class:`PluginError` for
    the first that cannot be imported or raises as it loads."""
    _load_entry_points()
    for name in env_plugins():
        _load_module(name, f"named in {ENV}")
    for name in modules:
        _load_module(name.strip(), f"named by {named_by}")


def named_plugins() -> tuple[str, ...]:
    """The modules named by the user (not the entry points, which every process finds itself) that this process
    has loaded, in order: what a worker process needs to load the same kinds."""
    return tuple(_named)


def share_with_children() -> None:
    """Name this process's loaded modules in :data:`ENV`, which the processes it starts inherit."""
    if _named:
        os.environ[ENV] = ",".join(_named)


__all__ = ["ENV", "GROUP", "PluginError", "env_plugins", "is_module_name", "load_extensions", "named_plugins",
           "share_with_children"]
