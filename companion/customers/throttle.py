"""Login throttling: each guess is claimed before its password is checked. Pure policy.

Claimed first: a guess counted only once its password proved wrong lets many guesses sent at
once all pass the check before any is counted (40 at once had 8 to 12 evaluated). A claim is
one atomic increment that returns the new count (``login_attempts``), so however many arrive
together, no more than the limit are ever evaluated.

By client as well as by account: counted per e-mail alone, anyone who knows an e-mail could
lock its owner out. Each guess adds to three counts, each over a window:

- its client at its e-mail (``per_client_account``, 5): one address guessing at one account;
- its client (``per_client``): one address trying many accounts;
- its e-mail from every client (``per_account``, much higher): a guesser with many addresses.
  Only this one shuts the owner out as well, and one address adds at most ``per_client_account``
  to it, so it takes many addresses to reach.

A guess is refused (429) once a count it adds to is past its limit; the claim that fills a count
restarts that window, so the refusal lasts a whole window after the last guess let through. A
successful login gives its claims back and forgets its client's failures at that e-mail. The
client is the address the request came from, as the server's trusted-proxy handling leaves it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

#: Longest client address kept in a subject (an IPv6 address is at most 45 characters).
ADDRESS_CHARS = 64


@dataclass(frozen=True, slots=True)
class LoginLimits:
    per_client_account: int
    per_client: int
    per_account: int
    window: timedelta


@dataclass(frozen=True, slots=True)
class Count:
    """One count a login attempt adds to: its row's subject, its limit, and whom it throttles
    (the request log's words)."""

    subject: str
    limit: int
    whom: str
    #: Forgotten by a successful login (else only its own claim is given back).
    cleared_by_success: bool = False


def counts_of(limits: LoginLimits, client: str, email: str) -> tuple[Count, ...]:
    """The counts an attempt from ``client`` at ``email`` claims, in the order claimed. An
    unknown address (no socket to name one) has no count of its own: it would be everyone's."""
    client = client[:ADDRESS_CHARS]
    by_client = (Count(f"client:{client}", limits.per_client, "this client"),) if client else ()
    return (
        *by_client,
        Count(
            f"pair:{client} {email}",
            limits.per_client_account,
            "this client, this e-mail",
            cleared_by_success=True,
        ),
        Count(f"account:{email}", limits.per_account, "this e-mail"),
    )


def seconds_refused(
    attempts: int, window_started_at: datetime, limit: int, window: timedelta, now: datetime
) -> int:
    """How long attempts stay refused once a count stands at ``attempts`` (0: this one may be
    evaluated), rounded up to whole seconds."""
    if attempts <= limit:
        return 0
    return max(1, math.ceil((window_started_at + window - now).total_seconds()))
