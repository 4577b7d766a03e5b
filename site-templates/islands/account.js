// The customer account: the page's <template data-part> "guest" (login, register) or
// "customer" (orders, addresses, saved products, points, logout), filled in from the API.
// Login and register go to the same-origin session endpoints, which keep the customer's token
// in an httpOnly cookie: this code never sees it.
import { api, failed, fill, h, link, part, said, send, session } from './main.js'

// A form of the page: its fields go to `send`; once done it is cleared, else its status line
// says why, in our words.
function onSubmit (form, submit) {
  const status = form.querySelector('[role=status]')
  form.onsubmit = async (e) => {
    e.preventDefault()
    const body = Object.fromEntries(new FormData(form))
    if (body.phone === '') delete body.phone
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

// The orders: the template's line for each, its details (the <dl> part) on demand. The date is
// dd/mm/yyyy in Vietnam's time (UTC+7), whatever the browser's: the UTC wire time read as if
// at UTC-7 is, in UTC, the wall clock in Vietnam.
function orders (items, line, details) {
  return h('ul', { class: 'orders' }, items.map((o) => {
    const li = fill(line.cloneNode(true), { ...o, placed_at: new Date(o.placed_at + '-07:00').toISOString().slice(0, 10).split('-').reverse().join('/') })
    const [button, detail] = li.querySelectorAll('button, div')
    li.dataset.code = o.code
    li.dataset.status = o.current_status
    button.onclick = () => api(`/customer/orders/${o.id}`).then((d) => detail.replaceChildren(fill(details.cloneNode(true), d))).catch(failed(detail))
    return li
  }))
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
    const words = greeting.dataset
    greeting.textContent = `${words.hello} ${customer.full_name || customer.email || words.you}. ` +
      (Number.isFinite(customer.points_balance) ? `${words.points} ${customer.points_balance}. ` : '')
    list(member, 'orders', () => api('/customer/orders?limit=20'), (items) => orders(items, line, details))
    addresses()
    list(member, 'saved', () => api('/customer/saved-products?limit=20'), (items) =>
      h('ul', null, items.filter((s) => s.product).map((s) => h('li', null, link(s.product.url, s.product.name)))))
  }
  const signIn = (path) => async (body) => render((await session(path, body)).customer)
  onSubmit(login, signIn('/login'))
  onSubmit(register, signIn('/register'))
  onSubmit(member.querySelector('form'), async (body) => {
    await send('/customer/addresses', body)
    addresses()
  })
  logout.onclick = () => session('/logout', {}).then(() => render(null)).catch(failed(root))
  session('/me').then(({ customer }) => render(customer), failed(root))
}
