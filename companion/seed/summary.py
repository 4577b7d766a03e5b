"""What a demo seed wrote (or found already written), for the CLI and for tests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class SeedSummary:
    store_id: int
    store_name: str
    #: The publishable key that opens the demo store.
    key: str
    hosts: tuple[str, ...]
    #: Rows of the demo store per catalogue table, in seeding order.
    counts: Mapping[str, int]
    #: False when the demo store was already in the database and was left unchanged.
    created: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", MappingProxyType(dict(self.counts)))

    def describe(self) -> str:
        """A few lines for the terminal: what was seeded, how to reach it, how much of each."""
        state = "seeded" if self.created else "already present, left unchanged"
        width = max((len(table) for table in self.counts), default=0)
        lines = [
            f'Demo store "{self.store_name}" (store {self.store_id}) {state}.',
            f"Publishable key: {self.key}",
            f"Hosts: {', '.join(self.hosts)}",
            *(f"  {table:<{width}}  {count:>9,}" for table, count in self.counts.items()),
        ]
        return "\n".join(lines)
