"""What a keyboard user reaches in the main menu: Tab through the page and note which of the
menu's links take the focus. A closed disclosure button in the menu (aria-expanded="false")
is opened with Enter on the way, as a keyboard user would."""

from __future__ import annotations

from playwright.sync_api import ElementHandle, Page

# The main menu: what the menu button controls (aria-controls), else the header's first nav.
MENU_BUTTON = "header button[aria-controls][aria-expanded]"
_START = """(button) => {
  const byButton = button && document.getElementById(button.getAttribute('aria-controls'))
  const header = [...document.querySelectorAll('header')].find((h) => !h.closest('main'))
  const nav = byButton || (header && header.querySelector('nav'))
  if (!nav) return null
  const links = [...nav.querySelectorAll('a[href]')]
  window.__menuWalk = { nav, links, seen: new Set(), opened: new Set() }
  return links.map((a) => {
    const parent = a.parentElement.closest('ul')?.parentElement?.closest('li')
    const above = parent ? parent.firstElementChild.textContent.trim() + ' > ' : ''
    return above + a.textContent.trim()
  })
}"""
_STEP = """() => {
  const walk = window.__menuWalk, el = document.activeElement
  const index = walk.links.indexOf(el)
  if (index >= 0) walk.seen.add(index)
  const disclose = walk.nav.contains(el) && el.tagName === 'BUTTON' &&
    el.getAttribute('aria-expanded') === 'false' && !walk.opened.has(el)
  if (disclose) walk.opened.add(el)  // pressed once: a button that does not open stays shut
  return { disclose, left: walk.links.length - walk.seen.size }
}"""
_SEEN = "() => [...window.__menuWalk.seen]"


def unreachable_menu_items(page: Page, button: ElementHandle | None = None) -> list[str]:
    """The menu's links (the one ``button`` controls, else the header's nav) that Tab never
    reaches from where the focus is now; ``["no menu"]`` when the page has none."""
    labels: list[str] | None = page.evaluate(_START, button)
    if labels is None:
        return ["no menu"]
    state = page.evaluate(_STEP)
    # Enough presses to pass the skip link, the header's tools and every item twice.
    for _ in range(2 * len(labels) + 40):
        if state["left"] == 0:
            break
        page.keyboard.press("Enter" if state["disclose"] else "Tab")
        state = page.evaluate(_STEP)
    seen = set(page.evaluate(_SEEN))
    return [label for n, label in enumerate(labels) if n not in seen]
