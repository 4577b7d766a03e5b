"""Related products and articles, chosen locally from what the lists already returned.

Pure functions. Asking /products/{id}/related for every product would add one request per
product page; the cards of /products already carry each product's category, which is all the
spec's "same category" rule needs. The indexes are built once per crawl, so choosing stays
linear in the size of the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from generator.model import ArticleSummary, PackedProduct, ProductCard, ProductHead

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
    product: PackedProduct | ProductHead, by_category: CardsByCategory, count: int
) -> tuple[ProductCard, ...]:
    """Up to ``count`` other products of the same category, in list order, those with a page
    first; the product's main category before its other categories. (For one product: a crawl
    chooses for all of its products with one ``RelatedProducts``.)"""
    return RelatedProducts(by_category, count).of(product)


class RelatedProducts:
    """``related_products`` for every product of one crawl, in a fraction of the time: the
    candidates of each set of categories are worked out once (the products of a category all
    share them), then each product leaves itself out."""

    def __init__(self, by_category: CardsByCategory, count: int) -> None:
        self._by_category = by_category
        self._count = count
        self._candidates: dict[tuple[int, ...], tuple[list[ProductCard], list[ProductCard]]] = {}
        #: The choice of each set of categories for a product not among its first cards: one
        #: tuple that all those products share (a page's fingerprint digests it once).
        self._shared: dict[tuple[int, ...], tuple[ProductCard, ...]] = {}

    def of(self, product: PackedProduct | ProductHead) -> tuple[ProductCard, ...]:
        if not self._count:  # none shown (--related-products 0): nothing to choose
            return ()
        categories = tuple(
            dict.fromkeys(
                cid for cid in (product.card.category_id, *product.category_ids) if cid is not None
            )
        )
        found = self._candidates.get(categories)
        if found is None:
            found = self._candidates[categories] = self._first(categories)
        linked, plain = found
        own = product.card.id
        if len(linked) > self._count and all(card.id != own for card in linked[: self._count]):
            shared = self._shared.get(categories)
            if shared is None:
                shared = self._shared[categories] = tuple(linked[: self._count])
            return shared
        chosen = [card for card in linked if card.id != own][: self._count]
        if len(chosen) >= self._count:
            return tuple(chosen)
        return tuple((chosen + [card for card in plain if card.id != own])[: self._count])

    def _first(self, categories: tuple[int, ...]) -> tuple[list[ProductCard], list[ProductCard]]:
        """The first ``count + 1`` cards with a page and without, in list order, each id once:
        one more than needed, as one of them may be the product itself."""
        linked: list[ProductCard] = []
        plain: list[ProductCard] = []
        seen: set[int] = set()
        for category_id in categories:
            for card in self._by_category.get(category_id, ()):
                if len(linked) > self._count:
                    return linked, plain
                if card.id in seen:
                    continue
                seen.add(card.id)
                if card.url is not None:
                    linked.append(card)
                elif len(plain) <= self._count:
                    plain.append(card)
        return linked, plain


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
