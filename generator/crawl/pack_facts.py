"""What later stages derive from a packed product, kept beside the model by its blob.

    PackFacts(digest, card_digest, loads, traits)
    remember(blob, facts)     known(blob) -> PackFacts | None     forget()

The model holds the store's data only. A page's fingerprint takes the digests of a pack's blob
and card (the write stage), the content security policy the loads of its page (the plan's
``loads``), the listings' filters and the search index what it sells (its traits); working
them out at every build would digest every blob and unpack every product.
So they are worked out once, when the product is packed (``pack.facts`` on a miss), and kept
here by the blob they describe: equal blobs, equal facts, so a fact never goes stale. The crawl
cache and the catalog snapshot pickle a pack with its facts (``pickled``), and a replayed pack
brings them back. A build forgets them when it starts (``forget``), so that a process building
again and again (watch) holds only its current catalog's.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PackFacts:
    digest: bytes  # the SHA-1 of the pack's blob
    card_digest: bytes  # ``pickled.card_digest`` of the card the blob holds
    #: What its page makes a browser load from elsewhere (``generator.loads``): image hosts of
    #: its gallery, card and variants, and what its description fetches, as (directive, source).
    loads: tuple[tuple[str, str], ...]
    #: What the listings' filters and the search index read of it beyond its head, as JSON
    #: text (one object, not a few dozen, a product): ``pack.traits`` reads it.
    traits: str


_KNOWN: dict[bytes, PackFacts] = {}


def remember(blob: bytes, facts: PackFacts) -> None:
    # Keyed by this very blob: a dict given an equal key keeps the first, which would hold
    # the blob of a catalog read again (and let go of) for as long as this one is built.
    _KNOWN.pop(blob, None)
    _KNOWN[blob] = facts


def known(blob: bytes) -> PackFacts | None:
    return _KNOWN.get(blob)


def forget() -> None:
    _KNOWN.clear()
