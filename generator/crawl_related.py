"""Related products and articles, chosen locally from what the lists already returned.

Pure functions. Asking /products/{id}/related for every product would add one request per
product page; the cards of /products already carry each product's category, which is all the
spec's "same category" rule needs. The indexes are built once per crawl, so choosing stays
linear in the size of the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from generator.model import ArticleSummary, ProductCard, ProductEntry, ProductHead

#: Cards (or summaries) by category id, in list order.
CardsByCategory = Mapping[int, Sequence[ProductCard]]
ArticlesByCategory = Mapping[int, Sequence[ArticleSummary]]


def cards_by_category(cards: Iterable[ProductCard]) -> CardsByCategory:
    index: dict[int, list[ProductCard]] = {}
    for card in cards:
        if card.category_id is not None:
            index.setdefault(card.category_id, []).append(card)
    return index


def articles_by_category(summaries: Iterable[ArticleSummary]) -> ArticlesByCategory:
    index: dict[int, list[ArticleSummary]] = {}
    for summary in summaries:
        for category in summary.categories:
            index.setdefault(category.id, []).append(summary)
    return index


def related_products(
    product: ProductEntry | ProductHead, by_category: CardsByCategory, count: int
) -> tuple[ProductCard, ...]:
    """Up to ``count`` other products of the same category, in list order, those with a page
    first; the product's main category before its other categories."""
    categories = dict.fromkeys(
        cid for cid in (product.card.category_id, *product.category_ids) if cid is not None
    )
    linked: list[ProductCard] = []
    plain: list[ProductCard] = []
    seen = {product.card.id}
    for category_id in categories:
        for card in by_category.get(category_id, ()):
            if len(linked) >= count:
                return tuple(linked)
            if card.id in seen:
                continue
            seen.add(card.id)
            if card.url is not None:
                linked.append(card)
            elif len(plain) < count:
                plain.append(card)
    return tuple((linked + plain)[:count])


def related_articles(
    article: ArticleSummary, by_category: ArticlesByCategory, count: int
) -> tuple[ArticleSummary, ...]:
    """Up to ``count`` other articles sharing a category, in list order (newest first)."""
    found: dict[int, ArticleSummary] = {}
    for category in article.categories:
        for other in by_category.get(category.id, ()):
            if len(found) >= count:
                break
            if other.id != article.id:
                found.setdefault(other.id, other)
    return tuple(found.values())[:count]
