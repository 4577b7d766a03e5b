// The customer account. Login and register go to the same-origin session endpoints, which keep
// the customer's token in an httpOnly cookie: this code never sees it.
import { SESSION, STATUS, api, failed, h, link, said, sitePath, vnd } from './api.js'

const session = (path, body) => api(path, { base: SESSION, method: body ? 'POST' : 'GET', body })
const input = (id, label, props) => h('p', { class: 'field' }, h('label', { for: id }, label), h('input', { id, required: true, ...props }))
const date = (wire) => new Date(wire + 'Z').toLocaleDateString('vi-VN')

function authForm (root, title, path, fields) {
  const status = h('p', { role: 'status' })
  const form = h('form', { class: 'auth', 'data-form': path.slice(1) }, h('h2', null, title), fields, h('button', { type: 'submit' }, title), status)
  form.addEventListener('submit', async (e) => {
    e.preventDefault()
    const body = Object.fromEntries(new FormData(form))
    if (body.phone === '') delete body.phone
    try {
      const { customer } = await session(path, body)
      render(root, customer)
    } catch (error) {
      status.textContent = said(error)
    }
  })
  return form
}

function section (title, load, show) {
  const body = h('div', null, 'Đang tải…')
  load().then((page) => body.replaceChildren(page.items.length ? show(page.items) : 'Chưa có.'), failed(body))
  return h('section', { class: 'account-part' }, h('h2', null, title), body)
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
      h('strong', null, o.code), ` - ${date(o.placed_at)} - ${vnd(o.total)} - ${STATUS[o.current_status] || 'Đang xử lý'} `,
      h('button', { type: 'button', class: 'secondary', onclick: () => open().catch(failed(detail)) }, 'Chi tiết'), detail)
  }))
}

function addresses () {
  const part = section('Sổ địa chỉ', () => api('/customer/addresses'), (items) =>
    h('ul', null, items.map((a) => h('li', null, [a.full_name, a.phone, a.street, a.ward, a.province, a.city].filter(Boolean).join(', ')))))
  const status = h('p', { role: 'status' })
  const form = h('form', { class: 'address' }, h('h3', null, 'Thêm địa chỉ'),
    input('ad-name', 'Họ và tên', { name: 'full_name' }), input('ad-phone', 'Số điện thoại', { name: 'phone', type: 'tel' }),
    input('ad-city', 'Tỉnh/thành phố', { name: 'city' }), input('ad-street', 'Địa chỉ', { name: 'street' }),
    h('button', { type: 'submit' }, 'Lưu địa chỉ'), status)
  form.addEventListener('submit', async (e) => {
    e.preventDefault()
    try {
      await api('/customer/addresses', { method: 'POST', body: Object.fromEntries(new FormData(form)) })
      part.replaceWith(addresses())
    } catch (error) {
      status.textContent = said(error)
    }
  })
  part.append(form)
  return part
}

function render (root, customer) {
  if (!customer) {
    return root.replaceChildren(
      authForm(root, 'Đăng nhập', '/login', [input('li-email', 'Email', { name: 'email', type: 'email', autocomplete: 'email' }),
        input('li-password', 'Mật khẩu', { name: 'password', type: 'password', autocomplete: 'current-password' })]),
      authForm(root, 'Đăng ký', '/register', [input('re-name', 'Họ và tên', { name: 'full_name', autocomplete: 'name' }),
        input('re-email', 'Email', { name: 'email', type: 'email', autocomplete: 'email' }),
        input('re-phone', 'Số điện thoại', { name: 'phone', type: 'tel', required: false, autocomplete: 'tel' }),
        input('re-password', 'Mật khẩu (ít nhất 8 ký tự)', { name: 'password', type: 'password', minlength: 8, autocomplete: 'new-password' })]))
  }
  const logout = async () => {
    await session('/logout', {})
    sessionStorage.removeItem('sf_count')
    render(root, null)
  }
  root.replaceChildren(
    h('p', { class: 'greeting' }, `Xin chào, ${customer.full_name || customer.email || 'bạn'}. `,
      Number.isFinite(customer.points_balance) ? `Điểm tích lũy: ${customer.points_balance}. ` : '',
      h('button', { type: 'button', class: 'secondary', onclick: () => logout().catch(failed(root)) }, 'Đăng xuất')),
    section('Đơn hàng', () => api('/customer/orders?limit=20'), orders),
    addresses(),
    section('Sản phẩm đã lưu', () => api('/customer/saved-products?limit=20'), (items) =>
      h('ul', null, items.filter((s) => s.product).map((s) => h('li', null, link(s.product.url, s.product.name))))))
}

export default function (root) {
  session('/me').then(({ customer }) => render(root, customer), failed(root))
}
