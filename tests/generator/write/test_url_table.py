"""The url table of a build's records: each url one small integer, the last build's kept."""

from __future__ import annotations

from array import array

from generator.write.incremental import UrlTable


def _ids(table: UrlTable, urls: list[str]) -> list[int]:
    found = array("I")
    found.frombytes(table.ids(urls))
    return found.tolist()


def test_known_urls_keep_their_index_and_new_ones_take_the_next() -> None:
    table = UrlTable(["/a", "/b"])
    assert _ids(table, ["/b", "/c", "/a", "/c", "/d"]) == [1, 2, 0, 2, 3]
    assert table.urls == ["/a", "/b", "/c", "/d"]
    assert _ids(table, ["/d", "/e"]) == [3, 4]
    assert table.urls == ["/a", "/b", "/c", "/d", "/e"]


def test_an_empty_table_numbers_urls_in_the_order_first_met() -> None:
    table = UrlTable()
    assert _ids(table, []) == []
    assert _ids(table, ["/x", "/y", "/x"]) == [0, 1, 0]
    assert [table.urls[i] for i in _ids(table, ["/y", "/z"])] == ["/y", "/z"]
