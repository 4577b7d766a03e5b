"""Editorial content of the demo store: articles with categories and tags, and CMS pages.

Articles have no url column (their path is always /bai-viet/<slug>). Two articles are drafts,
some have no author, excerpt or cover. One tag is used by no article. Among the CMS pages one
has url NULL and one is a draft.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from companion.seed.images import demo_image
from companion.seed.paths import page_url
from companion.seed.prose import (
    ARTICLE_CATEGORIES,
    ARTICLE_TAGS,
    AUTHORS,
    CARE_MATERIALS,
    FEATURED_TITLES,
    HEADINGS,
    LIST_ITEMS,
    SENTENCES,
    STORE_PAGES,
    STYLING_ITEMS,
    STYLING_OCCASIONS,
    UNUSED_TAG,
)
from companion.seed.slugs import slugify
from companion.seed.store_rows import STORE_NAME
from companion.seed.timeline import BASE, edited_after, moment_in_history
from companion.text import fold

BASE_ARTICLES = 40
#: One more article per this many products (mild growth), up to the titles available.
PRODUCTS_PER_EXTRA_ARTICLE = 2_000
#: Article numbers (0-based) kept as drafts.
DRAFT_ARTICLES = frozenset({3, 7})

NULL_URL_PAGE = "huong-dan-chon-size"
DRAFT_PAGE = "tuyen-dung"


@dataclass(frozen=True, slots=True)
class ArticleDraft:
    row: dict[str, Any]
    category_indexes: tuple[int, ...]
    tag_indexes: tuple[int, ...]


def article_category_rows(store_id: int) -> list[dict[str, Any]]:
    return [
        {"store_id": store_id, "name": name, "slug": slugify(name), "position": position}
        for position, name in enumerate(ARTICLE_CATEGORIES)
    ]


def article_tag_rows(store_id: int) -> list[dict[str, Any]]:
    """The tags in use (ARTICLE_TAGS, in that order), then the unused one."""
    return [
        {"store_id": store_id, "name": name, "slug": slugify(name)}
        for name in (*ARTICLE_TAGS, UNUSED_TAG)
    ]


def article_titles(rng: random.Random, count: int) -> list[str]:
    """Up to ``count`` distinct titles: the featured ones first, then styling and care guides."""
    guides = [
        f"{rng.choice((3, 5, 7, 10))} cách phối {item} cho {occasion}"
        for item in STYLING_ITEMS
        for occasion in STYLING_OCCASIONS
    ]
    guides += [
        f"Bảo quản {material} đúng cách để dùng được nhiều năm" for material in CARE_MATERIALS
    ]
    rng.shuffle(guides)
    return [*FEATURED_TITLES, *guides][:count]


def article_count(products: int) -> int:
    return BASE_ARTICLES + products // PRODUCTS_PER_EXTRA_ARTICLE


def draft_articles(rng: random.Random, store_id: int, products: int) -> list[ArticleDraft]:
    drafts = []
    for number, title in enumerate(article_titles(rng, article_count(products))):
        slug = slugify(title)
        created = moment_in_history(rng)
        draft = number in DRAFT_ARTICLES
        excerpt = rng.choice(SENTENCES) if rng.random() < 0.9 else None
        row = {
            "store_id": store_id,
            "title": title,
            "search_title": fold(title),
            "slug": slug,
            "excerpt": excerpt,
            "cover_image_url": (demo_image("article", slug) if rng.random() < 0.85 else None),
            "content_html": _article_html(rng),
            "author_name": rng.choice(AUTHORS) if rng.random() < 0.75 else None,
            "meta_title": f"{title} | {STORE_NAME}" if rng.random() < 0.4 else None,
            "meta_description": excerpt if rng.random() < 0.5 else None,
            "status": "draft" if draft else "published",
            "published_at": (
                None if draft else min(BASE, created + timedelta(seconds=rng.randrange(0, 86400)))
            ),
            "created_at": created,
            "updated_at": edited_after(rng, created),
        }
        categories = rng.sample(range(len(ARTICLE_CATEGORIES)), rng.choice((1, 1, 2)))
        tags = rng.sample(range(len(ARTICLE_TAGS)), rng.randint(1, 4))
        drafts.append(ArticleDraft(row, tuple(sorted(categories)), tuple(sorted(tags))))
    return drafts


def _article_html(rng: random.Random) -> str:
    first, second = rng.sample(HEADINGS, 2)
    items = "".join(f"<li>{item}</li>" for item in rng.sample(LIST_ITEMS, 3))
    return (
        f"<p>{rng.choice(SENTENCES)}</p>"
        f"<h2>{first}</h2><p>{' '.join(rng.sample(SENTENCES, 2))}</p>"
        f"<ul>{items}</ul>"
        f"<h2>{second}</h2><p>{rng.choice(SENTENCES)}</p>"
    )


def article_link_rows(
    drafts: Sequence[ArticleDraft],
    article_ids: Sequence[int],
    category_ids: Sequence[int],
    tag_ids: Sequence[int],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(article_category_links rows, article_tag_links rows)."""
    category_links = []
    tag_links = []
    for draft, article_id in zip(drafts, article_ids, strict=True):
        store_id = draft.row["store_id"]
        category_links += [
            {"store_id": store_id, "article_id": article_id, "category_id": category_ids[i]}
            for i in draft.category_indexes
        ]
        tag_links += [
            {"store_id": store_id, "article_id": article_id, "tag_id": tag_ids[i]}
            for i in draft.tag_indexes
        ]
    return category_links, tag_links


def page_rows(rng: random.Random, store_id: int) -> list[dict[str, Any]]:
    rows = []
    for title, slug, content_html in STORE_PAGES:
        created = moment_in_history(rng)
        rows.append(
            {
                "store_id": store_id,
                "title": title,
                "slug": slug,
                "url": None if slug == NULL_URL_PAGE else page_url(slug),
                "content_html": content_html,
                "meta_title": f"{title} | {STORE_NAME}",
                "meta_description": None,
                "status": "draft" if slug == DRAFT_PAGE else "published",
                "created_at": created,
                "updated_at": edited_after(rng, created),
            }
        )
    return rows
