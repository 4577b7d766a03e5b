"""Where a command's messages go: rich on a terminal, plain lines anywhere else.

A build in CI or under a benchmark draws no bars and colours nothing, so it need not import
rich at all (about 35 ms of a build's start-up); ``BuildProgress`` and the summary take either.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Protocol, TextIO


class Printer(Protocol):
    """What the build asks of a console; a ``rich.console.Console`` is one."""

    @property
    def is_terminal(self) -> bool: ...

    def print(self, text: str) -> None: ...


@dataclass(frozen=True, slots=True)
class PlainConsole:
    """Lines of text as they are, for a file or a pipe (no markup, no colour)."""

    file: TextIO
    is_terminal: bool = False

    def print(self, text: str) -> None:
        print(text, file=self.file, flush=True)


def console_for(*, stderr: bool) -> Printer:
    """A rich console when the stream is a terminal, a plain one otherwise."""
    stream = sys.stderr if stderr else sys.stdout
    if not stream.isatty():
        return PlainConsole(stream)
    # rich is imported only here and where a terminal draws with it (progress bars, the summary's
    # table): it is the command's largest import, and a build in CI or a pipe never uses it.
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, emoji=False)
