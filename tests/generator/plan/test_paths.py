from __future__ import annotations

import unicodedata
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.errors import UnsafePath
from generator.plan.paths import (
    MAX_NAME_BYTES,
    PAGE_SUFFIX,
    _checked,
    decoded_segments,
    output_file,
    page_key,
    public_path,
)


def test_root_is_written_to_index_html() -> None:
    assert output_file("/") == PurePosixPath("index.html")


def test_nested_path_is_written_to_an_html_file_in_folders() -> None:
    assert output_file("/a/b") == PurePosixPath("a/b.html")


def test_trailing_slash_is_written_to_index_html_in_its_folder() -> None:
    assert output_file("/a/b/") == PurePosixPath("a/b/index.html")


@pytest.mark.parametrize(
    "spelling",
    ["/%C3%A1o-thun", "/%c3%a1o-thun", "/áo-thun", unicodedata.normalize("NFD", "/áo-thun")],
)
def test_non_ascii_paths_are_written_under_their_nfc_decoded_name(spelling: str) -> None:
    file = output_file(spelling)
    assert file == PurePosixPath("áo-thun.html")
    assert unicodedata.is_normalized("NFC", file.name)


@pytest.mark.parametrize(
    "spelling", ["/%C3%A1o-thun", "/%c3%a1o-thun", "/áo-thun", unicodedata.normalize("NFD", "/áo")]
)
def test_public_path_is_nfc_and_percent_encoded(spelling: str) -> None:
    expected = "/%C3%A1o-thun" if "thun" in spelling else "/%C3%A1o"
    assert public_path(spelling) == expected


def test_public_path_keeps_ascii_paths_exactly() -> None:
    assert public_path("/thoi-trang/ao_so-1.html~x") == "/thoi-trang/ao_so-1.html~x"
    assert public_path("/a;b=c&d@e") == "/a;b=c&d@e"


def test_public_path_encodes_spaces_and_quotes() -> None:
    assert public_path('/a b"c<d>') == "/a%20b%22c%3Cd%3E"


def test_spellings_of_one_path_share_a_page_key() -> None:
    assert page_key("/%C3%A1o-thun") == page_key("/áo-thun") == "/áo-thun"


@pytest.mark.parametrize(
    "path",
    [
        "/../x",
        "/a/../../x",
        "/..",
        "/./x",
        "/%2e%2e/x",
        "/%2E%2E/x",
        "/a/%2e%2e/%2e%2e/x",
        "/%2e/x",
        "/a%2Fb",
        "/a%2fb",
        "/..%2Fx",
        "/a\\b",
        "/a%5Cb",
        "/..\\x",
        "/a\x00b",
        "/a%00b",
        "/a%0Ab",
        "//etc/passwd",
        "C:\\Windows\\system.ini",
        "C:/Windows",
        "etc/passwd",
        "file:///etc/passwd",
        "https://example.com/x",
        "",
        "/a//b",
        "/.git/config",
        "/%2egit/config",
        "/a?b=1",
        "/a#top",
        "/100%",
        "/%zz",
        "/%C3",
        "/" + "a" * 300,
    ],
)
def test_unsafe_paths_are_refused(path: str) -> None:
    with pytest.raises(UnsafePath):
        output_file(path)
    with pytest.raises(UnsafePath):
        public_path(path)


def test_double_encoded_dots_are_a_literal_name_inside_the_folder() -> None:
    assert output_file("/%252e%252e/x") == PurePosixPath("%2e%2e/x.html")


def test_unsafe_path_message_names_the_path() -> None:
    with pytest.raises(UnsafePath, match=r"/%2e%2e/x"):
        output_file("/%2e%2e/x")


@given(st.text(max_size=40))
def test_any_accepted_path_stays_inside_the_output_folder(tail: str) -> None:
    root = Path("/srv/out")
    try:
        file = output_file("/" + tail)
    except UnsafePath:
        return
    assert not file.is_absolute()
    assert ".." not in file.parts
    resolved = (root / file).resolve()
    assert resolved.is_relative_to(root)
    assert file.suffix == ".html"


_PLAIN_CHARS = "abcXYZ019-._~!$&'()*+,;=:@"


@given(
    st.lists(st.text(alphabet=_PLAIN_CHARS, min_size=1, max_size=8), min_size=1, max_size=4),
    st.data(),
)
def test_plain_paths_read_like_their_percent_encoded_spellings(
    segments: list[str], data: st.DataObject
) -> None:
    """A plain ASCII path skips decoding; spelt with escapes, it must name the same page."""
    plain = "/" + "/".join(segments)
    encoded = "/" + "/".join(
        "".join(
            f"%{ord(ch):02X}" if data.draw(st.booleans(), label=f"encode {ch!r}") else ch
            for ch in segment
        )
        for segment in segments
    )
    try:
        expected = (page_key(encoded), public_path(encoded), output_file(encoded))
    except UnsafePath:
        with pytest.raises(UnsafePath):
            output_file(plain)
        return
    assert (page_key(plain), public_path(plain), output_file(plain)) == expected
    assert public_path(plain) == plain


@given(st.text(alphabet=_PLAIN_CHARS + "/", max_size=30))
def test_a_plain_path_is_split_or_refused_as_the_segment_checks_say(tail: str) -> None:
    """Most paths are taken by one pattern, without the segment checks: it must agree."""
    path = "/" + tail
    if path.startswith("//"):
        return
    try:
        expected: tuple[str, ...] | None = _checked(path, tuple(tail.split("/")))
    except UnsafePath:
        expected = None
    try:
        found: tuple[str, ...] | None = decoded_segments(path)
    except UnsafePath:
        found = None
    assert found == expected


def test_a_plain_name_may_be_as_long_as_a_file_name_allows() -> None:
    longest = "a" * (MAX_NAME_BYTES - len(PAGE_SUFFIX))
    assert output_file(f"/x/{longest}") == PurePosixPath(f"x/{longest}{PAGE_SUFFIX}")
    with pytest.raises(UnsafePath, match="too long"):
        output_file(f"/x/{longest}a")
