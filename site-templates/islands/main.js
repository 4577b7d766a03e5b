// Loaded by every page: the header's cart count, the page's islands, the beacons.
import { send, cartToken, flush, readCart, scriptError, showCount, visitor } from './api.js'

addEventListener('error', scriptError)
addEventListener('unhandledrejection', (e) => scriptError(e.reason))
addEventListener('pagehide', flush)

const known = sessionStorage.getItem('sf_count')
if (!cartToken()) showCount(0)
else if (known !== null) showCount(Number(known))
else readCart().then((cart) => showCount(cart ? cart.item_count : 0), () => {})

// Island name -> module; a module serving several islands exports {name: function}.
const MODULES = { search: 'listing', 'load-more': 'listing', recommendations: 'listing', cart: 'checkout', 'payment-return': 'checkout' }
for (const el of document.querySelectorAll('[data-island]')) {
  const name = el.dataset.island
  if (name === 'cart-link') continue
  import(`./${MODULES[name] || name}.js`).then(({ default: run }) => (run[name] || run)(el))
}

const page = document.body.dataset
const beacon = (path, body) => send(path, body, 'POST', { keepalive: true }).catch(() => {})
if (page.entityId) {
  beacon('/analytics/entity-view', { entity_type: page.entityType, entity_id: Number(page.entityId), session_token: visitor() })
}
document.addEventListener('click', (e) => {
  const banner = e.target.closest('[data-banner-id]')
  if (banner) beacon(`/banners/${banner.dataset.bannerId}/click`, { session_token: visitor() })
  // A gallery thumbnail scrolls the strip to its image; without JS its link jumps there.
  const thumb = e.target.closest('.thumbs a[href]')
  if (thumb) {
    e.preventDefault()
    document.querySelector(thumb.hash).scrollIntoView({ block: 'nearest', inline: 'start', behavior: 'smooth' })
    for (const a of thumb.closest('ul').querySelectorAll('a')) a.setAttribute('aria-current', a === thumb)
  }
})

// The menu: the drawer's button (phones), parents without a link (disclosures); Escape closes.
const nav = document.getElementById('nav')
const toggle = document.querySelector('[aria-controls=nav]')
const flip = (b, on) => b.setAttribute('aria-expanded', on)
const drawer = (on, focus) => {
  flip(toggle, nav.classList.toggle('open', on))
  if (focus) (on ? nav.querySelector('a,button') : toggle).focus()
}
if (toggle) {
  toggle.onclick = () => drawer(toggle.ariaExpanded !== 'true', 1)
  nav.onclick = (e) => {
    const b = e.target.closest('button')
    if (b) flip(b, b.ariaExpanded !== 'true')
    else if (e.target === nav) drawer(false, 1)
  }
  nav.addEventListener('focusout', (e) => {
    const to = e.relatedTarget
    for (const b of nav.querySelectorAll('[aria-expanded=true]')) if (!b.parentNode.contains(to)) flip(b, false)
    if (to && !nav.contains(to) && to !== toggle) drawer(false)
  })
  addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return
    const open = nav.querySelector('[aria-expanded=true]')
    if (open && open.parentNode.contains(document.activeElement)) flip(open, false), open.focus()
    else if (toggle.ariaExpanded === 'true') drawer(false, 1)
  })
}
