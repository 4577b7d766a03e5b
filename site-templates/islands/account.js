// The customer account: the page's <template data-part> "guest" (login, register) or
// "customer" (orders, addresses, saved products, points, logout), filled in from the API.
// Login and register go to the same-origin session endpoints, which keep the customer's token
// in an httpOnly cookie: this code never sees it.
import { api, failed, h, link, part, said, send, session, statusOf, vnd } from './api.js'

const date = (wire) => new Date(wire + 'Z').toLocaleDateString('vi-VN')

// A form of the page: its fields go to `send`; once done it is cleared, else its status line
// says why, in our words.
function onSubmit (form, send) {
  const status = form.querySelector('[role=status]')
  form.onsubmit = async (e) => {
    e.preventDefault()
    const body = Object.fromEntries(new FormData(form))
    if (body.phone === '') delete body.phone
    try {
      await send(body)
      form.reset()
      status.textContent = ''
    } catch (error) {
      status.textContent = said(error)
    }
  }
}

// A list of the account's page: "Đang tải…", then its items, or "Chưa có.".
function list (view, name, load, show) {
  const body = view.querySelector(`[data-list=${name}] div`)
  body.replaceChildren('Đang tải…')
  load().then((page) => body.replaceChildren(page.items.length ? show(page.items) : 'Chưa có.'), failed(body))
}

function orders (items) {
  return h('ul', { class: 'orders' }, items.map((o) => {
    const detail = h('div')
    const open = async () => {
      const d = await api(`/customer/orders/${o.id}`)
      detail.replaceChildren(h('dl', null,
        [['Tạm tính', vnd(d.subtotal)], ['Giảm giá', vnd(d.discount_total)], ['Vận chuyển', vnd(d.shipping_total)],
          ['Tổng cộng', vnd(d.total)], ['Ghi chú', d.note || '']].map(([k, v]) => [h('dt', null, k), h('dd', null, v)])))
    }
    return h('li', { class: 'order', 'data-code': o.code, 'data-status': o.current_status },
      h('strong', null, o.code), ` - ${date(o.placed_at)} - ${vnd(o.total)} - ${statusOf(o)} `,
      h('button', { type: 'button', class: 'secondary', onclick: () => open().catch(failed(detail)) }, 'Chi tiết'), detail)
  }))
}

export default function (root) {
  const guest = part(root, 'guest')
  const member = part(root, 'customer')
  const [login, register] = guest.querySelectorAll('form')
  const [greeting, logout] = member.querySelector('.greeting').children
  const addresses = () => list(member, 'addresses', () => api('/customer/addresses'), (items) =>
    h('ul', null, items.map((a) => h('li', null, [a.full_name, a.phone, a.street, a.ward, a.province, a.city].filter(Boolean).join(', ')))))
  const render = (customer) => {
    root.replaceChildren(customer ? member : guest)
    if (!customer) return
    greeting.textContent = `Xin chào, ${customer.full_name || customer.email || 'bạn'}. ` +
      (Number.isFinite(customer.points_balance) ? `Điểm tích lũy: ${customer.points_balance}. ` : '')
    list(member, 'orders', () => api('/customer/orders?limit=20'), orders)
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
  logout.onclick = () => session('/logout', {}).then(() => {
    sessionStorage.removeItem('sf_count')
    render(null)
  }).catch(failed(root))
  session('/me').then(({ customer }) => render(customer), failed(root))
}
