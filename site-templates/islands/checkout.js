// The buying path: cart, checkout and payment return.
import { STATUS, api, enc, failed, h, link, readCart, saveItems, setCartToken, showCount, sitePath, sleep, vnd } from './api.js'

const COUPON = 'sf_coupon'

// Cart page: quantities, remove, coupon (its message from the quote), totals from /cart/quote.
function cart (root) {
  const render = async () => {
    const cart = await readCart()
    if (!cart || !cart.items.length) {
      showCount(0)
      return root.replaceChildren(h('p', null, 'Giỏ hàng đang trống. ', h('a', { href: sitePath('/') }, 'Tiếp tục mua sắm')))
    }
    showCount(cart.item_count)
    const code = sessionStorage.getItem(COUPON) || ''
    const quote = await api(`/cart/quote?token=${enc(cart.token)}` + (code ? '&coupon_code=' + enc(code) : ''))
    if (quote.coupon && !quote.coupon.valid) sessionStorage.removeItem(COUPON)
    const items = cart.items.map((i) => ({ variant_id: i.variant_id, quantity: i.quantity }))
    const change = (index, quantity) => {
      const next = items.map((i, n) => (n === index ? { ...i, quantity } : i)).filter((i) => i.quantity > 0)
      saveItems(next).then(render).catch(failed(root))
    }
    const lines = cart.items.map((item, n) => h('li', { class: 'cart-line' },
      h('span', { class: 'cart-name' }, link(item.url, item.name), item.variant_name ? ` (${item.variant_name})` : ''),
      h('span', null, vnd(item.unit_price)),
      h('input', { type: 'number', min: 1, max: 999, value: item.quantity, 'aria-label': `Số lượng ${item.name}`, onchange: (e) => change(n, Math.max(1, Number(e.target.value) || 1)) }),
      h('button', { type: 'button', class: 'secondary', onclick: () => change(n, 0) }, 'Xóa')))
    const coupon = h('form', { class: 'coupon', onsubmit: (e) => {
      e.preventDefault()
      sessionStorage.setItem(COUPON, e.target.code.value.trim())
      render().catch(failed(root))
    } },
    h('label', { for: 'coupon-code' }, 'Mã giảm giá'), ' ',
    h('input', { id: 'coupon-code', name: 'code', value: quote.coupon ? quote.coupon.code : '', maxlength: 50 }), ' ',
    h('button', { type: 'submit' }, 'Áp dụng'))
    const message = quote.coupon && h('p', { class: quote.coupon.valid ? 'coupon-ok' : 'coupon-bad', role: 'status' }, quote.coupon.message)
    const row = (label, amount, cls) => [h('dt', { class: cls }, label), h('dd', { class: cls }, amount)]
    const totals = h('dl', { class: 'totals' },
      row('Tạm tính', vnd(quote.subtotal)),
      quote.discount_lines.map((d) => row(d.label, '-' + vnd(d.amount))),
      quote.tax_lines.map((t) => row(t.label + (t.included ? ' (đã gồm trong giá)' : ''), vnd(t.amount))),
      row('Phí vận chuyển', vnd(quote.shipping_total)),
      row('Tổng cộng', vnd(quote.total), 'total'))
    root.replaceChildren(h('ul', { class: 'cart-lines' }, lines), coupon, message, totals,
      h('p', null, h('a', { class: 'button', href: sitePath('/thanh-toan') }, 'Thanh toán')))
  }
  render().catch(failed(root))
}

const field = (label, input) => h('p', { class: 'field' }, h('label', { for: input.id }, label), input)
const choice = (name, value, text, checked) =>
  h('label', { class: 'variant' }, h('input', { type: 'radio', name, value, checked, required: true }), h('span', null, text))

// Checkout: address (province -> ward from the API), shipping method, payment method (COD
// first), place the order; a gateway payment then goes to /checkout/pay's redirect.
async function checkout (root) {
  try {
    const cart = await readCart()
    if (!cart || !cart.items.length) {
      return root.replaceChildren(h('p', null, 'Giỏ hàng đang trống. ', h('a', { href: sitePath('/') }, 'Tiếp tục mua sắm')))
    }
    const token = cart.token
    const coupon = sessionStorage.getItem(COUPON) || ''
    const [provinces, methods, payments, quote] = await Promise.all([
      api('/shipping/provinces'),
      api('/shipping-methods', { method: 'POST', body: { cart_token: token } }),
      api('/checkout/payment-methods'),
      api(`/cart/quote?token=${enc(token)}` + (coupon ? '&coupon_code=' + enc(coupon) : '')),
    ])
    const city = h('select', { id: 'co-city', name: 'city', required: true },
      h('option', { value: '' }, 'Chọn tỉnh/thành phố'),
      provinces.items.map((p) => h('option', { value: p.code }, p.name)))
    const ward = h('select', { id: 'co-ward', name: 'ward' }, h('option', { value: '' }, 'Chọn phường/xã'))
    city.addEventListener('change', async () => {
      ward.replaceChildren(h('option', { value: '' }, 'Chọn phường/xã'))
      if (!city.value) return
      const wards = await api('/shipping/wards?province_code=' + enc(city.value)).catch(() => ({ items: [] }))
      ward.append(...wards.items.map((w) => h('option', { value: w.name }, w.name)))
    })
    const status = h('div', { role: 'status' })
    const form = h('form', { class: 'checkout' },
      h('fieldset', null, h('legend', null, 'Địa chỉ nhận hàng'),
        field('Họ và tên', h('input', { id: 'co-name', name: 'full_name', required: true, autocomplete: 'name' })),
        field('Số điện thoại', h('input', { id: 'co-phone', name: 'phone', type: 'tel', required: true, autocomplete: 'tel' })),
        field('Email', h('input', { id: 'co-email', name: 'email', type: 'email', autocomplete: 'email' })),
        field('Tỉnh/thành phố', city), field('Phường/xã', ward),
        field('Địa chỉ (số nhà, đường)', h('input', { id: 'co-street', name: 'street', autocomplete: 'street-address' }))),
      h('fieldset', null, h('legend', null, 'Vận chuyển'),
        methods.items.map((m, n) => choice('shipping', m.code, `${m.name} - ${Number(m.fee) ? vnd(m.fee) : 'Miễn phí'}`, n === 0))),
      h('fieldset', null, h('legend', null, 'Thanh toán'),
        payments.items.map((p, n) => choice('payment', p.code, p.name, n === 0))),
      field('Ghi chú', h('textarea', { id: 'co-note', name: 'note', rows: 2, maxlength: 1000 })),
      h('p', { class: 'total' }, 'Tổng cộng (chưa gồm phí vận chuyển): ', vnd(quote.total)),
      h('button', { type: 'submit' }, 'Đặt hàng'), status)
    const key = crypto.randomUUID() // one order per visit of this page, even if the answer is lost
    form.addEventListener('submit', async (e) => {
      e.preventDefault()
      const f = form.elements
      const button = form.querySelector('button[type=submit]')
      button.disabled = true
      status.textContent = 'Đang đặt hàng…'
      try {
        const checkout = await api(`/checkout?cart_token=${enc(token)}`, { method: 'POST', body: { email: f.email.value || null, coupon_code: coupon || null } })
        await api(`/checkout/${enc(checkout.checkout_id)}/shipping`, { method: 'PUT', body: { shipping_method: f.shipping.value } })
        const address = {
          full_name: f.full_name.value, phone: f.phone.value, email: f.email.value || null,
          city: city.selectedOptions[0].text, ward: ward.value || null, street: f.street.value || null,
        }
        const order = await api(`/checkout/place-order?cart_token=${enc(token)}`, {
          method: 'POST', headers: { 'Idempotency-Key': key },
          body: { address, payment: { payment_method: f.payment.value }, note: f.note.value || null },
        })
        setCartToken('')
        showCount(0)
        sessionStorage.removeItem(COUPON)
        const method = payments.items.find((p) => p.code === f.payment.value)
        if (method && method.online) {
          status.textContent = 'Đang chuyển đến cổng thanh toán…'
          const pay = await api(`/checkout/pay?cart_token=${enc(token)}`, { method: 'POST', body: { return_url: location.origin + sitePath('/thanh-toan/ket-qua') } })
          return location.assign(pay.payment_url)
        }
        root.replaceChildren(h('section', { class: 'order-done', 'data-status': order.current_status },
          h('h2', null, 'Đặt hàng thành công'),
          h('p', null, 'Mã đơn hàng: ', h('strong', { class: 'order-code' }, order.code)),
          h('p', null, 'Tổng tiền: ', vnd(order.total)),
          h('p', null, 'Trạng thái: ', STATUS[order.current_status] || order.current_status),
          h('p', null, h('a', { href: sitePath('/tai-khoan') }, 'Xem đơn hàng trong tài khoản'))))
      } catch (error) {
        button.disabled = false
        status.replaceChildren(h('p', { class: 'error', role: 'alert' }, error.message))
      }
    })
    root.replaceChildren(form)
  } catch (error) {
    failed(root)(error)
  }
}

// Where the gateway sends the customer back: the raw query goes to /checkout/payment-return,
// which only verifies it; the order's status shows once the gateway's IPN has decided.

async function paymentReturn (root) {
  const query = location.search.slice(1)
  const say = (...kids) => root.replaceChildren(h('p', null, ...kids))
  if (!query) return say('Không có thông tin thanh toán để xác minh.')
  say('Đang xác minh thanh toán…')
  try {
    for (let attempt = 0; attempt < 10; attempt++) {
      const answer = await api('/checkout/payment-return', { method: 'POST', body: { query_string: query } })
      if (!answer.valid) return say('Không xác minh được kết quả thanh toán này.')
      const order = answer.order
      if (order && order.current_status !== 'pending') {
        return root.replaceChildren(h('section', { class: 'order-done', 'data-status': order.current_status },
          h('p', null, 'Đơn hàng ', h('strong', { class: 'order-code' }, order.code)),
          h('p', { class: 'order-status' }, 'Trạng thái: ', STATUS[order.current_status] || order.current_status),
          h('p', null, h('a', { href: sitePath('/tai-khoan') }, 'Xem đơn hàng trong tài khoản'))))
      }
      say('Đang chờ cổng thanh toán xác nhận…')
      await sleep(2000)
    }
    say('Cổng thanh toán chưa xác nhận. Trạng thái đơn hàng sẽ cập nhật trong mục Tài khoản.')
  } catch (error) {
    say(error.message)
  }
}

export default { cart, checkout, 'payment-return': paymentReturn }
