// The customer account: the page's <template data-part> "guest" (login, register) or
// "customer" (orders, addresses, saved products, points, logout), filled in from the API.
// Login and register go to the same-origin session endpoints, which keep the customer's token
// in an httpOnly cookie: this code never sees it.
import { api, enc, failed, fill, h, link, part, readCart, said, saveItems, send, session, src, vnd } from './main.js'

// A wire time (UTC, no Z) as the store's day: dd/mm/yyyy in Vietnam, whatever the browser's zone.
const date = (wire) => new Intl.DateTimeFormat('vi-VN', { timeZone: 'Asia/Ho_Chi_Minh', day: '2-digit', month: '2-digit', year: 'numeric' }).format(new Date(wire + 'Z'))
// What this device placed (islands/checkout.js keeps it; cleared on logout), by code.
const MINE = 'sf_orders'
const mine = () => JSON.parse(localStorage[MINE] || '[]')

// A form of the page: its fields go to `send`; once done it is cleared, else its status line
// says why, in our words.
function onSubmit (form, submit) {
  const status = form.querySelector('[role=status]')
  form.onsubmit = async (e) => {
    e.preventDefault()
    const body = Object.fromEntries(new FormData(form))
    for (const k in body) if (body[k] === '') delete body[k]
    try {
      await submit(body)
      form.reset()
      status.textContent = ''
    } catch (error) {
      status.textContent = said(error, form)
    }
  }
}

// A list of the account's page: the view's data-loading words, then its items, or data-none.
function list (view, name, load, show) {
  const body = view.querySelector(`[data-list=${name}] div`)
  body.replaceChildren(view.dataset.loading)
  load().then((page) => body.replaceChildren(page.items.length ? show(page.items) : view.dataset.none), failed(body))
}

// The orders (the account's, then this device's it lacks: `here`), newest first: the
// template's line for each, its details on demand, with this device's memory of the order (its
// items, address, shipping, payment) and a link to order its items again when it has them.
function orders (items, line, details) {
  const kept = Object.fromEntries(mine().map((o) => [o.code, o]))
  return h('ul', { class: 'orders' }, items.sort((a, b) => b.placed_at.localeCompare(a.placed_at)).map((o) => {
    const li = fill(line.cloneNode(true), { ...o, placed_at: date(o.placed_at) })
    const [button, detail] = li.querySelectorAll('button, div')
    li.dataset.code = o.code
    li.dataset.status = o.current_status
    li.querySelector('.order-here').hidden = !o.here
    button.onclick = () => (o.here ? Promise.resolve(o) : api(`/customer/orders/${o.id}`)).then((d) => {
      const order = { ...kept[o.code], ...d }
      const box = fill(details.cloneNode(true), order)
      const [list, again, none] = box.querySelectorAll('.done-items, .reorder, .reorder-none')
      if (order.items) {
        none.remove()
        list.append(...order.items.map((i) => h('li', null, i.image_url && h('img', { src: src(i.image_url), alt: '', width: 64, height: 64 }),
          link(i.url, i.name), h('small', null, i.variant_name), h('span', null, `${i.quantity} × ${vnd(i.unit_price)}`), h('b', null, vnd(i.line_total)))))
        again.onclick = (e) => {
          e.preventDefault()
          const count = {}
          readCart().then((cart) => {
            for (const i of [...(cart?.items || []), ...order.items]) count[i.variant_id] = (count[i.variant_id] || 0) + i.quantity
            return saveItems(Object.entries(count).map(([id, quantity]) => ({ variant_id: +id, quantity })))
          }).then(() => location.assign(again.href), failed(box))
        }
      } else list.remove(), again.remove()
      detail.replaceChildren(box)
    }).catch(failed(detail))
    return li
  }))
}

// This device's orders the account lacks, joined by proof (their code and phone: docs/orders.md)
// once each; those the backend does not join stay this device's (`here`).
async function withMine (page) {
  const listed = new Set(page.items.map((o) => o.code))
  const kept = mine()
  const joined = await Promise.all(kept.filter((o) => !listed.has(o.code)).map((o) => o.here ? o
    : send('/customer/orders/claim', { code: o.code, phone: o.phone }).catch(() => (o.here = 1) && o)))
  localStorage[MINE] = JSON.stringify(kept)
  return { items: [...page.items, ...joined] }
}

// The address form's province and ward pickers, as checkout's (the province's name is the
// spec's `city`; its code asks for its wards).
function pickers ({ city, ward }) {
  const codes = {}
  city.onchange = async () => {
    ward.length = 1
    if (codes[city.value]) ward.append(...(await api('/shipping/wards?province_code=' + enc(codes[city.value]))).items.map((w) => new Option(w.name, w.name)))
  }
  api('/shipping/provinces').then((p) => city.append(...p.items.map((p) => new Option(p.name, (codes[p.name] = p.code) && p.name))), failed(ward.parentNode))
}

export default function (root) {
  const guest = part(root, 'guest')
  const member = part(root, 'customer')
  const [login, register] = guest.querySelectorAll('form')
  const [greeting, logout] = member.querySelector('.greeting').children
  const line = part(member, 'order')
  const details = part(member, 'details')
  const addresses = () => list(member, 'addresses', () => api('/customer/addresses'), (items) =>
    h('ul', null, items.map((a) => h('li', null, [a.full_name, a.phone, a.street, a.ward, a.province, a.city].filter(Boolean).join(', ')))))
  const render = (customer) => {
    root.replaceChildren(customer ? member : guest)
    if (!customer) return
    if (book.elements.city.length < 2) pickers(book.elements)
    const words = greeting.dataset
    greeting.textContent = `${words.hello} ${customer.full_name || customer.email || words.you}. ` +
      (Number.isFinite(customer.points_balance) ? `${words.points} ${customer.points_balance}. ` : '')
    list(member, 'orders', () => api('/customer/orders?limit=20').then(withMine), (items) => orders(items, line, details))
    addresses()
    list(member, 'saved', () => api('/customer/saved-products?limit=20'), (items) =>
      h('ul', null, items.filter((s) => s.product).map((s) => h('li', null, link(s.product.url, s.product.name)))))
  }
  const signIn = (path) => async (body) => render((await session(path, body)).customer)
  onSubmit(login, signIn('/login'))
  onSubmit(register, signIn('/register'))
  const book = member.querySelector('form')
  onSubmit(book, async (body) => {
    await send('/customer/addresses', body)
    addresses()
  })
  logout.onclick = () => session('/logout', {}).then(() => {
    localStorage.removeItem(MINE)
    render(null)
  }).catch(failed(root))
  session('/me').then(({ customer }) => render(customer), failed(root))
}
