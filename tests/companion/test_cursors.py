import pytest

from companion.cursors import clamp_limit, decode_cursor, encode_cursor
from companion.problems import Problem


def test_cursor_round_trips_a_timestamp_key() -> None:
    cursor = encode_cursor("2026-11-20T03:04:05.123456", 42)
    assert cursor == "2026-11-20T03:04:05.123456|42"
    assert decode_cursor(cursor) == ("2026-11-20T03:04:05.123456", 42)


def test_cursor_key_may_itself_contain_a_bar() -> None:
    assert decode_cursor("a|b|7") == ("a|b", 7)


@pytest.mark.parametrize("bad", ["", "nobar", "x|", "x|-1", "x|1.5", "x|¹", "x|٣", "x|" + "9" * 19])
def test_malformed_cursor_is_a_422_naming_the_field(bad: str) -> None:
    with pytest.raises(Problem) as err:
        decode_cursor(bad)
    assert err.value.status == 422
    assert err.value.errors[0].field == "cursor"


def test_limit_defaults_and_clamps() -> None:
    assert clamp_limit(None, default=20, maximum=100) == 20
    assert clamp_limit(500, default=20, maximum=100) == 100
    with pytest.raises(Problem):
        clamp_limit(0, default=20, maximum=100)
