"""`storefront theme new DIR`: a starter theme folder that layers over the default theme.

It holds a commented ``theme.toml`` (every setting, with examples), ``partials/footer.html``
(the default's footer, to edit: an example of replacing one partial) and
``assets/overrides.css`` (CSS variables to change, appended to the stylesheet). Every file
not in the folder comes from the default theme, so the folder builds as it is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.commands.new_folder import refuse_non_empty, write_files
from generator.render.theme import DEFAULT_THEME, OVERRIDES, THEME_INTERFACE
from generator.render.theme_settings import SETTINGS_FILE

_SETTINGS_TEMPLATE = """\
# Theme settings, read by `storefront build --theme DIR`. Every key is optional: remove the
# leading '#' of those you want. A wrong value stops the build with one line naming the key.
# (TOML: the plain keys come first, before any [table].)

# The theme interface this theme was made for: a build warns when the default theme's has moved
# past it (CHANGELOG.md, "Theme interface", says what to change; then raise this number).
interface = {interface}

# radius = "6px"            # corners of cards, buttons and fields
# logo = "logo.svg"         # assets/logo.svg of this folder, or an https url; else the store's

# [colors]                  # hex colours (#rgb or #rrggbb); the default theme's shown
# text = "#1b1b1b"
# muted = "#4d4d4d"
# link = "#0b57a4"
# accent = "#a31b12"        # prices, badges
# line = "#d6d6d6"          # borders
# soft = "#f4f4f4"          # the menu bar, soft backgrounds
# background = "#ffffff"

# [fonts]                   # font stacks (a self-hosted font's @font-face: in overrides.css)
# body = "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif"
# heading = "Georgia, serif"

# [layout]
# columns = 4               # product cards per row on wide screens (2 to 6)
# width = "72rem"           # the page column's largest width

# [contact]                 # which custom variables of the store hold these (shown in the footer)
# hotline = "hotline"
# zalo = "zalo_oa"
# hours = "gio_mo_cua"

# [analytics]
# ecommerce_events = true   # view_item, add_to_cart, begin_checkout, purchase -> window.dataLayer

# [embeds]                  # what the store's content (descriptions, articles) may load besides
#                           # images; never on the cart, checkout and account pages
# frame-src = ["https://www.youtube.com", "https://www.youtube-nocookie.com"]
# script-src = ["https://widget.example.vn"]
# inline_scripts = false    # true: inline <script> in the content runs (allowed by hash)

# Snippets: HTML put as it is at the end of <head> or <body> of every page (analytics, chat,
# verification tags). List the origins each loads from, by directive: the site's security
# policy allows exactly those, and its inline scripts by their hash.
# [[snippets]]
# name = "Google Analytics 4"
# place = "head"            # or "body_end"
# html = '''
# <script async src="https://www.googletagmanager.com/gtag/js?id=G-XXXXXXX"></script>
# <script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}
# gtag('js',new Date());gtag('config','G-XXXXXXX')</script>
# '''
# script-src = ["https://www.googletagmanager.com"]
# connect-src = ["https://*.google-analytics.com", "https://*.analytics.google.com"]
# img-src = ["https://*.google-analytics.com"]
"""

SETTINGS_EXAMPLE = _SETTINGS_TEMPLATE.replace("{interface}", str(THEME_INTERFACE))

OVERRIDES_EXAMPLE = """\
/* Appended to the default theme's stylesheet (one file, no extra request): change its CSS
   variables or add rules here. theme.toml's colours come before this file. */
/*
:root {
  --accent: #c2185b;
  --radius: 10px;
}
*/
"""

FOOTER_NOTE = (
    "{#- This file replaces the default theme's partials/footer.html: edit it, or delete it to "
    "use the default again. Any other template, partial or asset of the default theme can be "
    "replaced the same way, by a file at the same path. -#}\n"
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "theme",
        help="start a theme that layers over the default one",
        description="Themes layer over the default theme: a file of the theme folder replaces "
        "the default's file at the same path, everything else comes from the default.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    new = actions.add_parser(
        "new",
        help="write a starter theme folder with commented examples",
        description="Write DIR/theme.toml (every setting, commented), DIR/partials/footer.html "
        "(the default footer, to edit) and DIR/assets/overrides.css; build with --theme DIR.",
    )
    new.add_argument("dir", type=Path, help="the folder to create (must not exist or be empty)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    folder: Path = args.dir
    for path in new_theme(folder):
        print(f"wrote {path}", file=sys.stdout)
    print(f"build with: storefront build --theme {folder}", file=sys.stdout)
    return 0


def new_theme(folder: Path) -> list[Path]:
    """The starter files written into ``folder``: a new or empty one, or the theme layer
    `storefront init` made, untouched (its theme.toml alone, which the starter's replaces)."""
    if not _as_init_made(folder):
        refuse_non_empty(folder)
    footer = (DEFAULT_THEME / "partials" / "footer.html").read_text(encoding="utf-8")
    files = {
        folder / SETTINGS_FILE: SETTINGS_EXAMPLE,
        folder / "partials" / "footer.html": FOOTER_NOTE + footer,
        folder / "assets" / OVERRIDES.name: OVERRIDES_EXAMPLE,
    }
    return write_files(files, what="theme", folder=folder)


def _as_init_made(folder: Path) -> bool:
    from generator.commands.init import THEME_TOML
    from generator.render.theme import THEME_INTERFACE

    if not folder.is_dir() or [e.name for e in folder.iterdir()] != [SETTINGS_FILE]:
        return False
    made = THEME_TOML.format(interface=THEME_INTERFACE)
    return (folder / SETTINGS_FILE).read_text(encoding="utf-8") == made
