// Loaded by every page, and the one module every island imports (one request, no waterfall):
// the tab's one API client and the helpers the islands share, then the page's boot (cart count,
// the page's islands, beacons, gallery, menu). Calls go to the same-origin session forwarder,
// which adds the key and, from the httpOnly cookie, the customer's token: no token reaches this.
// The session lives beside /_assets/, so it follows a site's path prefix (/shop/session).
export const SESSION = new URL(import.meta.url).pathname.split('/_assets/')[0] + '/session'
// A site published under a path prefix (https://user.github.io/shop) says so on <html data-base>.
const ROOT = document.documentElement.dataset.base || ''
export const sitePath = (path) => ROOT + path
const BASE = SESSION + '/api'
const queue = []
let timer = 0

// Ecommerce events (analytics.js), only when the theme turns them on: else nothing is loaded.
export const track = (...a) => { if (document.documentElement.dataset.ecommerce) import('./analytics.js').then((m) => m.push(...a)) }
export const enc = encodeURIComponent
export const sleep = (ms) => new Promise((done) => setTimeout(done, ms))


// The theme's words (words.toml [islands], and [stock] as words.stock): the build puts them
// here as it publishes this module. say() puts in a text's {names}.
export const words = {}
export const say = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => values[k] ?? m)

// Errors in the theme's words, by the answer's code (out_of_stock), then its status
// (status_404): never the API's text (a form may say a code its own way: said()).
// A field of the page by its name, as its label says it.
const label = (field) => document.getElementsByName(field)[0]?.labels?.[0]?.textContent

function messageFor (status, body) {
  const code = body?.code
  if (/^(out_of_stock|item_unavailable)$/.test(code)) return words[code]
  if (status === 422 && Array.isArray(body?.errors)) {
    const names = [...new Set(body.errors.map((e) => label(String(e?.field).split('.').pop())).filter(Boolean))]
    if (names.length) return say(words.check, { fields: names.join(', ') })
  }
  return words['status_' + status] || words.generic
}

function apiError (status, body) {
  return Object.assign(new Error(messageFor(status, body)), { status, body })
}

// No session service (no answer, a page instead of JSON, 502-504): ordering is unavailable
// for now; reported once a page, never retried.
export const UNAVAILABLE = words.unavailable
let down = false

function unavailable (status, method, path) {
  if (!down) {
    down = true
    report(status, method, path, 'session service unreachable')
    flush()
  }
  return Object.assign(new Error(UNAVAILABLE), { status, unavailable: true })
}

// Elements from data: text is always a text node, so nothing from the API becomes markup.
export function h (tag, props, ...kids) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(props || {})) {
    if (v == null || v === false) continue
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v)
    else el.setAttribute(k, v === true ? '' : v)
  }
  el.append(...kids.flat(9).filter((kid) => kid != null && kid !== false))
  return el
}

// A path of this site from the API, else plain text: a null url, another scheme (javascript:)
// or a host ("//x", and "/\x", which browsers read as "//x") never becomes a link.
export const link = (url, text) =>
  sitePathOf(url) ? h('a', { href: sitePathOf(url) }, text) : h('span', null, text)

// A url of the API as a path of this site (under its prefix), else null.
const sitePathOf = (url) => typeof url === 'string' && /^\/(?![\/\\])/.test(url) ? ROOT + url : null
// An image url of the API as an img src: a path of this site under its prefix, else as it is.
export const src = (url) => sitePathOf(url) || url

// Integer VND from a number or a string; nothing for a missing price (never "0 ₫").
export function vnd (amount) {
  if (amount == null || amount === '') return ''
  return new Intl.NumberFormat('vi-VN').format(Math.round(Number(amount))) + '\u00a0₫'
}

// A template part's [data-field] elements filled in from `data`: as money where data-money; in
// the element's own words where it has data-other (data-<value>, else data-other: an order's
// status, partials/order_statuses.html); data-optional hides its row when empty or zero.
export function fill (el, data) {
  for (const f of el.querySelectorAll('[data-field]')) {
    const value = data[f.dataset.field]
    const says = f.dataset
    f.textContent = 'money' in says ? vnd(value) : 'other' in says ? says[value] || says.other : value ?? ''
    if ('optional' in says) f.parentNode.hidden = !value || value == 0
  }
  return el
}

export const priceOf = (item) => item.effective_price ?? item.price

// A part as the theme draws it (partials/drawn.html: the page's <template data-part>), its
// <slot>s replaced by the values' text.
const drawn = (name, values) => {
  const el = document.querySelector(`template[data-part=${name}]`).content.firstElementChild.cloneNode(true)
  for (const s of el.querySelectorAll('slot')) s.replaceWith(values[s.name] ?? '')
  return el
}

// The price (partials/price.html) in its state: none, now, the higher earlier price struck
// through, and the saving when asked (off: the percentage, the amount under 1%).
export function price (p, save) {
  const now = priceOf(p)
  const was = now != null && [p.compare_at_price, p.price].find((x) => x != null && +x > +now)
  const off = Math.round((was - now) * 100 / was)
  return drawn('price-' + (now == null ? 'contact' : was ? (save ? 'save' : 'was') : 'now'),
    { now: vnd(now), was: vnd(was), off: off >= 1 ? off + '%' : vnd(was - now) })
}

// A product card (partials/product_card.html): its name, link and image, price and stock mark.
export function card (p) {
  const el = drawn('card', { name: p.name })
  const [img, a, to] = [el.querySelector('img'), el.querySelector('a'), sitePathOf(p.url)]
  if (p.image_url) img.src = src(p.image_url)
  else img.remove()
  if (to) a.href = to
  else a.replaceWith(h('span', null, p.name))
  el.querySelector('.price').replaceWith(price(p))
  if (priceOf(p) == null || p.in_stock) el.querySelector('.stock')?.remove()
  return el
}

export const cartToken = () => decodeURIComponent(document.cookie.match(/(?:^|; )service_cart=([^;]*)/)?.[1] || '')

// An anonymous visitor id for the analytics beacons; not a credential.
export function visitor () {
  let id = localStorage.getItem('sf_visitor')
  if (!id) localStorage.setItem('sf_visitor', (id = crypto.randomUUID()))
  return id
}

function notice (text) {
  let el = document.querySelector('.notice')
  if (!el) document.querySelector('main').prepend((el = h('p', { class: 'notice', role: 'status' })))
  el.textContent = text
}

// A write: a POST of `body`, unless another method is named.
export const send = (path, body, method = 'POST', options) => api(path, { ...options, method, body })

// The session endpoints themselves (login, register, logout, me): a body makes it a POST.
// Whether their answer names a customer is kept (sf_in, not a credential: the token stays in
// the httpOnly cookie), for a product view to go to the customer's account.
export const session = (path, body) => api(path, { base: SESSION, method: body ? 'POST' : 'GET', body }).then((d) => (d?.customer ? localStorage.sf_in = 1 : delete localStorage.sf_in, d))

// A part of an island's markup the page keeps in a <template data-part> until it is shown.
export const part = (root, name) => root.querySelector(`template[data-part=${name}]`).content.firstElementChild

// Same-origin, so the JSON Content-Type on reads costs no preflight; a body only on writes.
const json = 'application/json'
export async function api (path, options = {}) {
  const { method = 'GET', base = BASE } = options
  const url = base + path
  let res
  try {
    res = await fetch(url, { method, headers: { Accept: json, 'Content-Type': json, ...options.headers }, body: JSON.stringify(options.body), keepalive: options.keepalive })
  } catch {
    throw unavailable(0, method, url)
  }
  const { status } = res
  if ((status !== 204 && !/json/.test(res.headers.get('Content-Type'))) || (status > 501 && status < 505)) throw unavailable(status, method, url)
  const data = await res.json().catch(() => null) // none for a 204
  if (res.ok) return data
  if (status === 401) delete localStorage.sf_in
  // What the shopper's own input earns (401 a wrong password, 409 a used-up coupon, 422 a form
  // to correct, login_throttled) is an answer the page words, not a fault: not reported.
  const own = /^4(0[19]|22)|_thr/.test(status + data?.code)
  if (!own) report(status, method, url, data?.code)
  // A throttled login is about the visitor's own tries, not the store's traffic: its form says so.
  if (status === 429 && !own) {
    // Calm, and never a loop: one retry of a read after Retry-After, then the visitor decides.
    const wait = Math.min(Number(res.headers.get('Retry-After')) || 5, 120)
    notice(say(words.busy, { seconds: wait }))
    if (method === 'GET' && !options.retried) {
      await sleep(wait * 1000)
      return api(path, { ...options, retried: true })
    }
  }
  throw apiError(status, data)
}

// Faults (5xx and unexpected 4xx answers, script errors), sent in batches of at most 50 (occurred_at in UTC).
export function report (status, method, path, message) {
  queue.push({ status, method, path: String(path).slice(0, 2000), message: message ? String(message).slice(0, 2000) : null, occurred_at: new Date().toISOString() })
  if (queue.length >= 50) flush()
  else timer ||= setTimeout(flush, 3000)
}

export function flush () {
  clearTimeout(timer)
  timer = 0
  while (queue.length) {
    const events = queue.splice(0, 50)
    // Fire and forget: a failed report is never reported or retried (no loops).
    fetch(BASE + '/storefront-errors', { method: 'POST', keepalive: true, headers: { 'Content-Type': json }, body: JSON.stringify({ events }) }).catch(() => {})
  }
}

function showCount (count) {
  for (const el of document.querySelectorAll('.cart-count')) el.textContent = count ? `(${count})` : ''
}

// The last cart the API answered, shared by the tabs (docs/islands.md): the header's count and
// the cart's lines without asking. Trusted for a write while recent: a change made on another
// device (one customer's cart) is in any answer read after it.
const RECENT = 3e5
const kept = () => {
  try {
    return JSON.parse(localStorage.sf_cart) // none (undefined), or unreadable: no copy
  } catch {}
}

// A cart answer (or none) kept, its token in the cookie (shared with the template engine),
// its count shown.
export function keep (cart) {
  const secure = location.protocol === 'https:' ? '; secure' : ''
  document.cookie = `service_cart=${enc(cart?.token || '')}; path=/; max-age=${cart ? 2592000 : 0}; samesite=lax${secure}`
  localStorage.sf_cart = JSON.stringify(cart && { ...cart, at: Date.now() })
  showCount(cart?.item_count)
  return cart
}

// The cookie's cart: the copy while it is that cart's and recent, else (and when `fresh`) the API's.
export async function readCart (fresh) {
  const token = cartToken()
  if (!token) return null
  const copy = kept()
  if (!fresh && copy?.token === token && Date.now() - copy.at < RECENT) return copy
  try {
    return keep(await api('/cart?token=' + enc(token)))
  } catch (error) {
    if (error.status !== 404) throw error
    return keep(null)
  }
}

// Replaces the cart's items (cart lines, or {variant_id, quantity}); a cart that is gone or
// already ordered gives way to a new one.
export async function saveItems (lines, fresh) {
  const token = fresh ? '' : cartToken()
  const items = lines.map(({ variant_id, quantity }) => ({ variant_id, quantity }))
  let cart
  try {
    cart = await send('/cart/items' + (token ? '?token=' + enc(token) : ''), { items }, 'PUT')
  } catch (error) {
    if (!token || ![404, 409].includes(error.status)) throw error
    return saveItems(lines, true)
  }
  return keep(cart)
}

// A script error, reported (as a 500) with its own text, which is never shown.
export const scriptError = (error) => report(500, null, location.pathname, 'JS: ' + (error && error.message))

// What a failure says on the page: for an API answer, the form's data-<code> if it words the
// answer's code (data-email_taken), else our message; a script error is reported and shown as
// the generic message, never its own (English) text.
export function said (error, form) {
  if (error && error.status !== undefined) return form?.getAttribute('data-' + error.body?.code) || error.message
  scriptError(error)
  return words.generic
}

export function failed (root, form) {
  return (error) => root.replaceChildren(h('p', { class: 'error', role: 'alert' }, said(error, form)))
}

// The page: script errors reported, the header's cart count, the page's islands, beacons.
addEventListener('error', scriptError)
addEventListener('unhandledrejection', (e) => scriptError(e.reason))
addEventListener('pagehide', flush)

// The count of the copy of the cookie's cart; none known (a cart another engine made), none shown.
const known = kept()
showCount(known?.token === cartToken() && known.item_count)

// Island name -> module; a module serving several islands exports {name: function}.
const MODULES = { search: 'listing', 'load-more': 'listing', recommendations: 'listing', cart: 'checkout', 'payment-return': 'checkout', suggest: 'find', 'search-index': 'find' }
for (const el of document.querySelectorAll('[data-island]')) {
  const name = el.dataset.island
  const run = () => import(`./${MODULES[name] || name}.js`).then(({ default: run }) => (run[name] || run)(el))
  // The header's suggestions load once its field is used, not with the page.
  if (name === 'suggest') el.addEventListener('focusin', run, { once: true })
  else if (name !== 'cart-link') run()
}

const page = document.body.dataset
const beacon = (path, body) => send(path, body, 'POST', { keepalive: true }).catch(() => {})
// One activity call a view: a logged-in customer's product view goes to their account (the
// session service sends it on as activity), any other view to the store's analytics.
const id = Number(page.entityId)
if (id) {
  if (page.entityType === 'product' && localStorage.sf_in) beacon('/customer/product-views', { product_id: id })
  else beacon('/analytics/entity-view', { entity_type: page.entityType, entity_id: id, session_token: visitor() })
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
