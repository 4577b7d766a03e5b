// GA4-style ecommerce events to window.dataLayer, when theme.toml turns them on (<html
// data-ecommerce>); loaded by main.js's track() only then. Lines are cart lines (product_id,
// name, variant_name, unit_price, quantity). A purchase is pushed once per order: its code is
// remembered in localStorage, so a reload or a gateway's return does not count it again; an
// online payment's lines and total wait in sessionStorage for the return page.
const KEY = 'sf_purchased'
const dl = (window.dataLayer = window.dataLayer || [])
const store = (s, k, v) => { try { return v === undefined ? JSON.parse(s.getItem(k)) : s.setItem(k, JSON.stringify(v)) } catch { return null } }
const item = (l) => ({ item_id: String(l.product_id), item_name: l.name, item_variant: l.variant_name || undefined, price: Number(l.unit_price), quantity: l.quantity })

export function push (event, lines, extra = {}) {
  const code = extra.transaction_id
  if (event === 'pending') return store(sessionStorage, 'sf_order_' + code, { lines, extra })
  if (event === 'purchase') {
    const done = store(localStorage, KEY) || []
    if (done.includes(code)) return
    store(localStorage, KEY, [...done, code].slice(-50))
    const saved = lines ? {} : store(sessionStorage, 'sf_order_' + code) || {}
    lines = lines || saved.lines || []
    extra = { ...saved.extra, ...extra }
  }
  const items = lines.map(item)
  dl.push({ ecommerce: null })
  dl.push({ event, ecommerce: { currency: 'VND', value: items.reduce((s, i) => s + i.price * i.quantity, 0), ...extra, items } })
}
