"""What the crawl read from a cached answer, kept with it so the next build need not read again.

    dump_readings({name: value}) -> bytes       (a pickle)
    load_readings(blob) -> {name: value}
    READING_CODE                                 (which code wrote them)

Decoding the JSON of twenty thousand cached answers and normalizing every record costs seconds;
unpickling what that gave costs a fraction of it. A reading is named by what made it (e.g.
"one generator.crawl.normalize.product") and is valid only for the body it was read from (the cache
keeps it with that body) and for the code that read it: ``READING_CODE`` digests the modules
that shape a reading, and a cache written by other code has its readings ignored - never an
old shape read by a new generator.

The cache folder is this build's own state, written by this code: its pickles are as trusted
as the generator itself.

Model records are pickled as calls of their classes (``crawl.pickled``), which unpickles
several times faster.

A product card is the record readings repeat most: the product list, every category and
collection listing and the product's own pack each carry it, and a rebuild replays all of
them. A reading keeps its cards apart, by the SHA-1 of their field values (``card_digest``),
and ``load_readings`` is handed the cards the build has read already (``CardTable``): a
reading whose cards are all known takes those very objects and decodes none of its own.
Equal digests are equal values, so the cards taken are the ones the reading held.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import marshal
import pickle
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from generator import model
from generator.crawl.pickled import DISPATCH, card_digest, dump_records, load_records

#: The modules whose code shapes a reading: the records, their decoding, the list envelope and
#: how the fetcher reads answers. Named as modules: one renamed or moved fails here at import,
#: instead of silently dropping out of the digest.
_SHAPING = (
    "generator.model",
    "generator.records",
    "generator.plain_text",
    "generator.client.paging",
    "generator.crawl.normalize",
    "generator.crawl.wire_values",
    "generator.crawl.ask",
    "generator.crawl.pickled",
    "generator.crawl.pack_facts",
    "generator.crawl.products",
    "generator.crawl.pack",
    "generator.replay.fetch",
    "generator.replay.cache_values",
)


def _code_digest() -> str:
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(f"pickle {pickle.HIGHEST_PROTOCOL}\n".encode())
    for name in _SHAPING:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise ImportError(f"{name}, whose code shapes the crawl cache's readings, is missing")
        digest.update(name.encode() + b"\0" + Path(spec.origin).read_bytes())
    return digest.hexdigest()


READING_CODE = _code_digest()


#: The cards a build has read from readings so far, by ``card_digest``.
CardTable = dict[bytes, model.ProductCard]


#: The cards of the reading this thread is loading (``load_readings``), for ``_card_place``.
_LOADING = threading.local()


def _card_place(place: int) -> model.ProductCard:
    """What a reading names a card by: the card at ``place`` of the reading being loaded.
    (A module function, not a hook of an unpickler subclass: a rebuild loads ten thousand
    readings, and a plain ``pickle.loads`` costs a third less than a subclass's ``load``.)"""
    cards: list[model.ProductCard] | None = getattr(_LOADING, "cards", None)
    if cards is None:
        raise pickle.UnpicklingError(f"card {place} of a reading read without its cards")
    return cards[place]


class _CardsApart:
    """Gathers the cards a reading holds, each pickled as a call naming its place."""

    def __init__(self) -> None:
        self.cards: list[model.ProductCard] = []

    def reduce(self, card: model.ProductCard) -> tuple[Callable[[int], object], tuple[int]]:
        # Once per card object: the pickler's memo refers to it again after that.
        self.cards.append(card)
        return _card_place, (len(self.cards) - 1,)


def dump_readings(readings: Mapping[str, object]) -> bytes:
    """``readings`` as (the digests of its cards, the cards, the rest), the rest naming each
    card by its place."""
    buffer = io.BytesIO()
    apart = _CardsApart()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**DISPATCH, model.ProductCard: apart.reduce}
    pickler.dump(dict(readings))
    cards = apart.cards
    digests = tuple(card_digest(card) for card in cards)
    return marshal.dumps((digests, dump_records(cards) if cards else b"", buffer.getvalue()))


def load_readings(blob: bytes, known: CardTable | None = None) -> dict[str, object]:
    """The readings of ``blob``; {} when it cannot be read (it is only a shortcut). Its cards
    are taken from ``known`` when all are there; else decoded, and added to it."""
    try:
        digests, cards_blob, rest = marshal.loads(blob)
        _LOADING.cards = _cards(digests, cards_blob, {} if known is None else known)
        try:
            found = pickle.loads(rest)
        finally:
            _LOADING.cards = None
    except Exception:  # noqa: BLE001 - a damaged blob means reading the body again
        return {}
    return found if isinstance(found, dict) else {}


def _cards(digests: tuple[bytes, ...], blob: bytes, known: CardTable) -> list[model.ProductCard]:
    """A reading's cards: those of ``known`` when it has them all (none decoded), else the
    reading's own, each added to ``known`` (or taken from it, when an equal one is there)."""
    if not digests:
        return []
    try:
        return [known[digest] for digest in digests]
    except KeyError:
        pass
    cards = load_records(blob)
    if not isinstance(cards, list) or len(cards) != len(digests):
        raise ValueError("a reading's cards do not match their digests")
    for place, (digest, card) in enumerate(zip(digests, cards, strict=True)):
        cards[place] = known.setdefault(digest, card)
    return cards
