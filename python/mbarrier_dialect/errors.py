"""The errors and warnings of compiling a module: ``CompileError`` (a stage
failed, with MLIR's diagnostics) and ``SyncCheckWarning`` (the
synchronization checker's warnings). Their own module, below the compiler
and the launcher, which both raise them."""
from __future__ import annotations

from typing import Sequence

__all__ = ["CompileError", "SyncCheckWarning"]


class CompileError(RuntimeError):
    """Compilation failed.  Where MLIR reported the failure, the message is
    its diagnostics as compilers print them, one per line
    (``file:line:col: error: message``, each note on a line of its own,
    each distinct diagnostic once), and ``diagnostics`` lists them (one
    entry per error with its notes); otherwise ``diagnostics`` is empty.

    ``warnings`` holds the synchronization checker's warnings of the stage
    that failed (``"file:line:col: warning: message"``): an error does not
    drop them, and ``str()`` prints them after the error. ``message`` is the
    error alone."""

    def __init__(self, message: str, diagnostics: Sequence[str] = (),
                 warnings: Sequence[str] = ()):
        super().__init__(message)
        self.message = message
        self.diagnostics = list(diagnostics)
        self.warnings = list(warnings)

    def __str__(self) -> str:
        return "\n".join([self.message, *self.warnings])


class SyncCheckWarning(UserWarning):
    """A warning of the synchronization checker (``mbarrier-check-sync``):
    a barrier protocol that is probably wrong (docs/checker.md)."""
