"""The pages the islands fill in: cart, checkout, payment return, account, search.

The API has no entity behind them, so the build writes each as a static shell at a fixed path:
the frame of the site (header, menus, footer) and a short text that says what the page is for,
which an island replaces with the live content. Shells are ``noindex``, have no canonical and
stay out of the sitemap. The crawl treats their paths as built in (``CrawlSettings``), so a menu
link to ``/gio-hang`` is a link to this page, never a path sent to ``/routes/resolve``.

A merchant page at one of these paths wins: the shell is not written there (``site_plan``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ShellKind = Literal["cart", "checkout", "payment_return", "account", "search"]


@dataclass(frozen=True, slots=True)
class Shell:
    kind: ShellKind  # also the key of its name (its h1) in the theme's words.toml [pages]
    path: str
    template: str


SHELLS: tuple[Shell, ...] = (
    Shell("cart", "/gio-hang", "cart.html"),
    Shell("checkout", "/thanh-toan", "checkout.html"),
    Shell("payment_return", "/thanh-toan/ket-qua", "payment_return.html"),
    Shell("account", "/tai-khoan", "account.html"),
    Shell("search", "/tim-kiem", "search.html"),
)

SHELL_PATHS: frozenset[str] = frozenset(shell.path for shell in SHELLS)

#: The shells that take payment or personal data. Their security policy is one the store's
#: content cannot widen: it shows there only through the islands (a cart line's image).
SENSITIVE_KINDS: frozenset[ShellKind] = frozenset({"cart", "checkout", "payment_return", "account"})
