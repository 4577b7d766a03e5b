from hypothesis import given, settings
from hypothesis import strategies as st

from generator.plain_text import BLOCKS, _parsed_text, _simple_text, html_to_text, shorten


def test_block_elements_do_not_run_together() -> None:
    html = "<p>Mềm mại.</p><ul><li>Chất liệu: cotton</li><li>Xuất xứ: Việt Nam</li></ul>Hết<br>hàng"
    assert html_to_text(html) == "Mềm mại. Chất liệu: cotton. Xuất xứ: Việt Nam. Hết hàng"


def test_a_line_that_goes_on_is_not_made_a_sentence() -> None:
    # A line ending in punctuation, or followed by one in lower case, joins with a space.
    assert html_to_text("<p>Xuất xứ:</p><p>Việt Nam</p>") == "Xuất xứ: Việt Nam"
    assert html_to_text("<p>Áo thun</p><p>cổ tròn</p>") == "Áo thun cổ tròn"
    assert html_to_text('<li>Cỡ "S"</li><li>Cỡ M (nhỏ)</li><li>Đen</li>') == (
        'Cỡ "S". Cỡ M (nhỏ). Đen'
    )
    assert html_to_text("<li>Giảm 10%!</li><li>Mua ngay</li>") == "Giảm 10%! Mua ngay"


def test_inline_elements_keep_words_whole() -> None:
    assert html_to_text("<p>Áo <b>thun</b><i>cotton</i></p>") == "Áo thuncotton"


def test_scripts_and_styles_are_not_text() -> None:
    assert html_to_text("<p>a</p><script>alert(1)</script><style>p{}</style>") == "a"


def test_empty_or_missing_html_is_empty_text() -> None:
    assert html_to_text(None) == ""
    assert html_to_text("   ") == ""


def test_shorten_cuts_at_a_word_with_an_ellipsis() -> None:
    assert shorten("một hai ba bốn năm", 12) == "một hai ba…"
    assert shorten("ngắn", 12) == "ngắn"


_TAGS = sorted(BLOCKS | {"a", "b", "em", "i", "span", "strong", "script", "title", "img", "td"})
_PIECES = st.one_of(
    st.sampled_from(_TAGS).map(lambda tag: f"<{tag}>"),
    st.sampled_from(_TAGS).map(lambda tag: f"</{tag}>"),
    st.sampled_from(_TAGS).map(lambda tag: f'<{tag} class="x">'),
    st.sampled_from(["<br/>", "<P>", "</P>", "<p/>", "</br>", " ", "\n", "&amp;", "<", ">"]),
    st.sampled_from(["a", "bc", "Áo", "X y", "x.", "\x0c", "\r", "\ue000"]),
    st.text(max_size=4),
)


@settings(max_examples=500)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_text_read_without_the_parser_is_what_the_parser_reads(html: str) -> None:
    """Simple fragments skip lxml; whatever they give must equal lxml's reading."""
    simple = _simple_text(html)
    if simple is not None:
        assert simple == _parsed_text(html)


def test_common_merchant_html_is_read_without_the_parser() -> None:
    html = "<p>Áo <strong>thun</strong></p><ul><li>Chất liệu: cotton</li></ul>"
    assert _simple_text(html) == "Áo thun. Chất liệu: cotton"
    assert _simple_text("<p>a &amp; b</p>") is None  # entities: the parser decides
