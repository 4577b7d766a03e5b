"""Login throttling policy: the counts an attempt claims, and how long a full one refuses."""

from __future__ import annotations

from datetime import datetime, timedelta

from companion.customers.throttle import LoginLimits, counts_of, seconds_refused

NOW = datetime(2026, 11, 20, 3, 0, 0)
WINDOW = timedelta(minutes=15)
LIMITS = LoginLimits(per_client_account=5, per_client=30, per_account=100, window=WINDOW)


def test_up_to_the_limit_attempts_are_evaluated() -> None:
    assert seconds_refused(5, NOW, 5, WINDOW, NOW + timedelta(seconds=5)) == 0


def test_past_the_limit_attempts_are_refused_until_the_window_ends() -> None:
    assert seconds_refused(6, NOW, 5, WINDOW, NOW) == 900
    assert seconds_refused(6, NOW, 5, WINDOW, NOW + timedelta(seconds=899.5)) == 1


def test_an_attempt_counts_for_its_client_its_client_at_the_email_and_the_email() -> None:
    client, pair, account = counts_of(LIMITS, "203.0.113.7", "lan@example.vn")
    assert (client.subject, client.limit) == ("client:203.0.113.7", 30)
    assert (pair.subject, pair.limit) == ("pair:203.0.113.7 lan@example.vn", 5)
    assert (account.subject, account.limit) == ("account:lan@example.vn", 100)
    assert [c.cleared_by_success for c in (client, pair, account)] == [False, True, False]


def test_another_client_at_the_same_email_has_its_own_pair_count() -> None:
    one = counts_of(LIMITS, "203.0.113.7", "lan@example.vn")
    two = counts_of(LIMITS, "198.51.100.20", "lan@example.vn")
    assert one[1].subject != two[1].subject and one[2].subject == two[2].subject


def test_a_long_forwarded_address_is_cut_to_fit_its_column() -> None:
    pair = counts_of(LIMITS, "x" * 500, "a" * 254 + "@example.vn")[1]
    assert len(pair.subject) <= 400


def test_an_unknown_address_shares_no_client_count_with_everyone() -> None:
    pair, account = counts_of(LIMITS, "", "lan@example.vn")
    assert (pair.subject, account.subject) == ("pair: lan@example.vn", "account:lan@example.vn")
