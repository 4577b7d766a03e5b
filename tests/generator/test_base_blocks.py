"""base.html gives a theme author the blocks a page frame needs: head, header, before_main,
content, after_main, footer, scripts; a layer's page template fills them in order."""

from __future__ import annotations

from pathlib import Path

from tests.support.incremental_store import CrawledStores, build, config_for

BLOCKS = ("head", "header", "before_main", "after_main", "footer", "scripts")
HOME = (
    '{% extends "base.html" %}\n'
    + "".join(
        f'{{% block {name} %}}<meta name="{name}-blockmark">{{{{ super() }}}}{{% endblock %}}\n'
        for name in BLOCKS
    )
    + '{% block content %}<p class="content-blockmark">home</p>{% endblock %}\n'
)


def test_a_layer_fills_every_block_of_the_page_frame_in_order(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    crawled_stores.copy(tmp_path, products=2).close()
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "home.html").write_text(HOME, encoding="utf-8")
    build(None, config_for(tmp_path, out="themed", from_cache=True, templates=theme))
    home = (tmp_path / "themed" / "index.html").read_text(encoding="utf-8")
    marks = [home.index(f"{name}-blockmark") for name in BLOCKS[:3]]
    marks.append(home.index("content-blockmark"))
    marks += [home.index(f"{name}-blockmark") for name in BLOCKS[3:]]
    assert marks == sorted(marks)
    head, body = home.split("</head>")
    assert "head-blockmark" in head and "header-blockmark" in body
    # super(): the header and footer the blocks wrap stay, each around its mark.
    assert (
        home.index("header-blockmark") < home.index("<header") < home.index("before_main-blockmark")
    )
    assert (
        home.index("after_main-blockmark") < home.index("footer-blockmark") < home.index("<footer")
    )
    assert home.index("<main") < home.index("content-blockmark") < home.index("</main>")
    assert home.index("</main>") < home.index("after_main-blockmark")
    # Other pages keep the default frame, with no mark.
    other = (tmp_path / "themed" / "404.html").read_text(encoding="utf-8")
    assert "-blockmark" not in other
