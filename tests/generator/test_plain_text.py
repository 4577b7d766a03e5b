from generator.plain_text import html_to_text, shorten


def test_block_elements_do_not_run_together() -> None:
    html = "<p>Mềm mại.</p><ul><li>Chất liệu: cotton</li><li>Xuất xứ: Việt Nam</li></ul>Hết<br>hàng"
    assert html_to_text(html) == "Mềm mại. Chất liệu: cotton Xuất xứ: Việt Nam Hết hàng"


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
