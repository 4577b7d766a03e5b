// The buying path: cart, checkout and payment return.
import { SESSION, STATUS, api, enc, failed, h, link, readCart, said, saveItems, setCartToken, showCount, sitePath, sleep, src, track, vnd } from './api.js'

const COUPON = 'sf_coupon'

// Coupon verdicts and discount lines in our own words.
const COUPON_SAYS = {
  unknown: 'Mã giảm giá không tồn tại.',
  inactive: 'Mã giảm giá không còn hiệu lực.',
  not_started: 'Mã giảm giá chưa đến thời gian áp dụng.',
  expired: 'Mã giảm giá đã hết hạn.',
  below_minimum: 'Đơn hàng chưa đạt giá trị tối thiểu để dùng mã này.',
  usage_limit_reached: 'Mã giảm giá đã hết lượt sử dụng.',
}
export function couponMessage (coupon) {
  if (coupon.valid) return `Đã áp dụng mã ${coupon.code}.`
  return COUPON_SAYS[coupon.reason] || 'Không dùng được mã giảm giá này.'
}
export const discountLabel = (line) => (line.code ? `Mã giảm giá ${line.code}` : 'Khuyến mãi')

const empty = (root) => root.replaceChildren(h('p', null, 'Giỏ hàng đang trống. ', h('a', { href: sitePath('/') }, 'Tiếp tục mua sắm')))
const quoted = (token, code) => api(`/cart/quote?token=${enc(token)}` + (code ? '&coupon_code=' + enc(code) : ''))
const row = (label, value, cls) => [h('dt', { class: cls }, label), h('dd', { class: cls }, value)]

// The quote's lines, the cart's total; at checkout, the amount the order is charged (and no
// discount the backend leaves out of it).
const totals = (quote, checkout) => [
  row('Tạm tính', vnd(quote.subtotal)),
  checkout && discountsLeftOut(quote) ? [] : quote.discount_lines.map((d) => row(discountLabel(d), '-' + vnd(d.amount))),
  quote.tax_lines.map((t) => row(t.included ? 'Thuế VAT (đã gồm trong giá)' : 'Thuế VAT', vnd(t.amount))),
  row('Phí vận chuyển', Number(quote.shipping_total) ? vnd(quote.shipping_total) : checkout ? 'Miễn phí' : 'Tính ở bước thanh toán'),
  checkout ? row('Tổng thanh toán', vnd(orderAmount(quote)), 'total') : row('Tổng cộng', vnd(quote.total), 'total')].flat(9)

// Cart page: quantities, remove, coupon (its message from the quote), totals from /cart/quote.
function cart (root) {
  const render = async () => {
    const cart = await readCart()
    showCount(cart ? cart.item_count : 0)
    if (!cart || !cart.items.length) return empty(root)
    const quote = await quoted(cart.token, sessionStorage.getItem(COUPON))
    if (quote.coupon && !quote.coupon.valid) sessionStorage.removeItem(COUPON)
    const items = cart.items.map((i) => ({ variant_id: i.variant_id, quantity: i.quantity }))
    const change = (index, quantity) => {
      const next = items.map((i, n) => (n === index ? { ...i, quantity } : i)).filter((i) => i.quantity > 0)
      saveItems(next).then(render).catch(failed(root))
    }
    const lines = cart.items.map((item, n) => h('li', { class: 'cart-line' },
      item.image_url ? h('img', { class: 'cart-thumb', src: src(item.image_url), alt: '', width: 80, height: 80 }) : h('span', { class: 'cart-thumb' }),
      h('span', { class: 'cart-name' }, link(item.url, item.name), item.variant_name && h('small', null, item.variant_name), h('small', null, vnd(item.unit_price) || 'Tạm ngừng bán'),
        h('button', { type: 'button', class: 'secondary', onclick: () => change(n, 0) }, 'Xóa')),
      h('span', { class: 'stepper' },
        h('button', { type: 'button', class: 'secondary', 'aria-label': 'Bớt 1', disabled: item.quantity < 2, onclick: () => change(n, item.quantity - 1) }, '−'),
        h('input', { type: 'number', min: 1, max: 999, value: item.quantity, 'aria-label': `Số lượng ${item.name}`, onchange: (e) => change(n, Math.max(1, Number(e.target.value) || 1)) }),
        h('button', { type: 'button', class: 'secondary', 'aria-label': 'Thêm 1', onclick: () => change(n, item.quantity + 1) }, '+')),
      h('strong', { class: 'line-total' }, vnd(item.line_total))))
    const coupon = h('form', { class: 'coupon', onsubmit: (e) => {
      e.preventDefault()
      sessionStorage.setItem(COUPON, e.target.code.value.trim())
      render().catch(failed(root))
    } },
    h('label', { for: 'coupon-code' }, 'Mã giảm giá'), ' ',
    h('input', { id: 'coupon-code', name: 'code', value: quote.coupon ? quote.coupon.code : '', maxlength: 50 }), ' ',
    h('button', { type: 'submit' }, 'Áp dụng'))
    const message = quote.coupon && h('p', { class: quote.coupon.valid ? 'coupon-ok' : 'coupon-bad', role: 'status' }, couponMessage(quote.coupon))
    const leftOut = discountsLeftOut(quote) && h('p', { class: 'coupon-bad', role: 'status' }, LEFT_OUT)
    root.replaceChildren(h('div', { class: 'cart' }, h('ul', { class: 'cart-lines' }, lines),
      h('div', { class: 'cart-summary' }, coupon, message, h('dl', { class: 'totals' }, totals(quote)), leftOut,
        h('a', { class: 'button', href: sitePath('/thanh-toan') }, 'Thanh toán'))))
  }
  render().catch(failed(root))
}

const field = (label, input) => h('p', { class: 'field' }, h('label', { for: input.id }, label), input, h('span', { class: 'field-error', role: 'alert' }))
const choice = (name, value, text, checked) =>
  h('label', { class: 'variant' }, h('input', { type: 'radio', name, value, checked, required: true }), h('span', null, text))
const sum = (lines) => lines.reduce((total, line) => total + Number(line.amount || 0), 0)

// The amount the order is charged: the quote's total where the backend declares
// `order_discounts`; else (the spec) goods + added VAT + shipping, no order-level discount.
export function orderAmount (quote) {
  if (quote.order_discounts === true) return Number(quote.total)
  const addedTax = sum(quote.tax_lines.filter((t) => !t.included))
  return Number(quote.subtotal) + addedTax + Number(quote.shipping_total || 0)
}

export const discountsLeftOut = (quote) => quote.order_discounts !== true && quote.discount_lines.length > 0
export const LEFT_OUT = 'Lưu ý: cửa hàng chưa trừ mã giảm giá và khuyến mãi vào đơn hàng. Số tiền thanh toán chưa gồm các khoản giảm này.'

// What a delivery needs; the first field wrong gets focus.
const PHONE = /^(0|\+84)[0-9]{9,10}$/
const REQUIRED = {
  full_name: 'Vui lòng nhập họ và tên người nhận.',
  phone: 'Vui lòng nhập số điện thoại.',
  city: 'Vui lòng chọn tỉnh/thành phố.',
  ward: 'Vui lòng chọn phường/xã.',
  street: 'Vui lòng nhập số nhà, tên đường.',
}

function invalidFields (form) {
  const wrong = []
  for (const [name, message] of Object.entries(REQUIRED)) {
    const el = form.elements[name]
    const value = el.value.trim()
    let text = value ? '' : message
    if (!text && name === 'phone' && !PHONE.test(value.replace(/[\s.-]/g, ''))) text = 'Số điện thoại chưa đúng (10 số, bắt đầu bằng 0).'
    el.closest('.field').querySelector('.field-error').textContent = text
    el.setAttribute('aria-invalid', text ? 'true' : 'false')
    if (text) wrong.push(el)
  }
  return wrong
}

// A logged-in shopper's default address (else the first), or nothing.
async function savedAddress () {
  try {
    const { customer } = await api('/me', { base: SESSION })
    if (!customer) return null
    const book = await api('/customer/addresses')
    return book.items.find((a) => a.is_default) || book.items[0] || null
  } catch {
    return null
  }
}

// Checkout: items, address, shipping (its fee priced as soon as chosen), payment (COD first),
// and one amount: the order's; a gateway payment then follows /checkout/pay's redirect.
async function checkout (root) {
  try {
    const cart = await readCart()
    if (!cart || !cart.items.length) return empty(root)
    const token = cart.token
    track('begin_checkout', cart.items)
    const coupon = sessionStorage.getItem(COUPON) || ''
    const [provinces, methods, payments, started, saved] = await Promise.all([
      api('/shipping/provinces'),
      api('/shipping-methods', { method: 'POST', body: { cart_token: token } }),
      api('/checkout/payment-methods'),
      api(`/checkout?cart_token=${enc(token)}`, { method: 'POST', body: { email: null, coupon_code: coupon || null } }),
      savedAddress(),
    ])
    const shipping = methods.items.filter((m) => m.kind !== 'pickup')
    const city = h('select', { id: 'co-city', name: 'city' },
      h('option', { value: '' }, 'Chọn tỉnh/thành phố'),
      provinces.items.map((p) => h('option', { value: p.code }, p.name)))
    const ward = h('select', { id: 'co-ward', name: 'ward' }, h('option', { value: '' }, 'Chọn phường/xã'))
    const loadWards = async () => {
      ward.replaceChildren(h('option', { value: '' }, 'Chọn phường/xã'))
      if (!city.value) return
      const wards = await api('/shipping/wards?province_code=' + enc(city.value)).catch(() => ({ items: [] }))
      ward.append(...wards.items.map((w) => h('option', { value: w.name }, w.name)))
    }
    city.addEventListener('change', loadWards)
    const items = h('ul', { class: 'checkout-items' }, cart.items.map((item) =>
      h('li', null, h('span', null, item.name, item.variant_name ? ` (${item.variant_name})` : '', ` × ${item.quantity}`), ' ', h('span', null, vnd(item.line_total)))))
    const lines = h('dl', { class: 'totals' })
    const warning = h('p', { class: 'coupon-bad', role: 'status', hidden: true })
    const button = h('button', { type: 'submit', class: 'place-order' }, 'Đặt hàng')
    const status = h('div', { role: 'status' })
    let amount = null
    const show = (quote) => {
      amount = orderAmount(quote)
      const left = discountsLeftOut(quote)
      lines.replaceChildren(...totals(quote, true))
      warning.hidden = !left
      warning.textContent = left ? LEFT_OUT : ''
      button.dataset.amount = String(amount)
      button.textContent = 'Đặt hàng · ' + vnd(amount)
    }
    const choose = async (code) => {
      button.disabled = true
      await api(`/checkout/${enc(started.checkout_id)}/shipping`, { method: 'PUT', body: { shipping_method: code } })
      show(await quoted(token, coupon))
      button.disabled = false
    }
    const form = h('form', { class: 'checkout', novalidate: true },
      h('fieldset', null, h('legend', null, 'Sản phẩm'), items),
      h('fieldset', null, h('legend', null, 'Địa chỉ nhận hàng'),
        field('Họ và tên người nhận', h('input', { id: 'co-name', name: 'full_name', autocomplete: 'name', maxlength: 200 })),
        field('Số điện thoại', h('input', { id: 'co-phone', name: 'phone', type: 'tel', autocomplete: 'tel', maxlength: 20 })),
        field('Email (không bắt buộc)', h('input', { id: 'co-email', name: 'email', type: 'email', autocomplete: 'email' })),
        field('Tỉnh/thành phố', city), field('Phường/xã', ward),
        field('Địa chỉ (số nhà, đường)', h('input', { id: 'co-street', name: 'street', autocomplete: 'street-address', maxlength: 300 }))),
      h('fieldset', null, h('legend', null, 'Vận chuyển'),
        shipping.map((m, n) => choice('shipping', m.code, `${m.name} - ${Number(m.fee) ? vnd(m.fee) : 'Miễn phí'}`, n === 0))),
      h('fieldset', null, h('legend', null, 'Thanh toán'),
        payments.items.map((p, n) => choice('payment', p.code, p.name, n === 0))),
      field('Ghi chú', h('textarea', { id: 'co-note', name: 'note', rows: 2, maxlength: 1000 })),
      lines, warning, button, status)
    form.addEventListener('change', (e) => {
      if (e.target.name === 'shipping') choose(e.target.value).catch(failed(status))
    })
    if (saved) {
      form.elements.full_name.value = saved.full_name || ''
      form.elements.phone.value = saved.phone || ''
      form.elements.street.value = saved.street || ''
      const option = [...city.options].find((o) => o.value && o.text === saved.city)
      if (option) {
        city.value = option.value
        await loadWards()
        if ([...ward.options].some((o) => o.value === saved.ward)) ward.value = saved.ward
      }
    }
    const key = crypto.randomUUID() // one order per visit of this page, even if the answer is lost
    form.addEventListener('submit', async (e) => {
      e.preventDefault()
      const wrong = invalidFields(form)
      if (wrong.length) {
        status.replaceChildren(h('p', { class: 'error', role: 'alert' }, 'Vui lòng điền đủ thông tin nhận hàng.'))
        return wrong[0].focus()
      }
      const f = form.elements
      button.disabled = true
      status.textContent = 'Đang đặt hàng…'
      try {
        const address = {
          full_name: f.full_name.value.trim(), phone: f.phone.value.trim(), email: f.email.value.trim() || null,
          city: city.selectedOptions[0].text, ward: ward.value, street: f.street.value.trim(),
        }
        const order = await api(`/checkout/place-order?cart_token=${enc(token)}`, {
          method: 'POST', headers: { 'Idempotency-Key': key },
          body: { address, payment: { payment_method: f.payment.value }, note: f.note.value || null },
        })
        setCartToken('')
        showCount(0)
        sessionStorage.removeItem(COUPON)
        const method = payments.items.find((p) => p.code === f.payment.value)
        const online = method && method.online
        // Counted once paid: an online payment's on the return page.
        track(online ? 'pending' : 'purchase', cart.items, { transaction_id: order.code, value: Number(order.total) })
        if (online) {
          status.textContent = 'Đang chuyển đến cổng thanh toán…'
          const pay = await api(`/checkout/pay?cart_token=${enc(token)}`, { method: 'POST', body: { return_url: location.origin + sitePath('/thanh-toan/ket-qua') } })
          return location.assign(pay.payment_url)
        }
        root.replaceChildren(h('section', { class: 'order-done', 'data-status': order.current_status, 'data-total': String(order.total) },
          h('h2', null, 'Đặt hàng thành công'),
          h('p', null, 'Mã đơn hàng: ', h('strong', { class: 'order-code' }, order.code)),
          h('p', null, 'Tổng tiền: ', h('span', { class: 'order-total' }, vnd(order.total))),
          h('p', null, 'Trạng thái: ', STATUS[order.current_status] || 'Đang xử lý'),
          h('p', null, h('a', { href: sitePath('/tai-khoan') }, 'Xem đơn hàng trong tài khoản'))))
      } catch (error) {
        button.disabled = false
        status.replaceChildren(h('p', { class: 'error', role: 'alert' }, said(error)))
      }
    })
    root.replaceChildren(form)
    if (shipping.length) await choose(shipping[0].code)
    else show(await quoted(token, coupon))
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
        if (order.current_status === 'paid') track('purchase', null, { transaction_id: order.code })
        return root.replaceChildren(h('section', { class: 'order-done', 'data-status': order.current_status },
          h('p', null, 'Đơn hàng ', h('strong', { class: 'order-code' }, order.code)),
          h('p', { class: 'order-status' }, 'Trạng thái: ', STATUS[order.current_status] || 'Đang xử lý'),
          h('p', null, h('a', { href: sitePath('/tai-khoan') }, 'Xem đơn hàng trong tài khoản'))))
      }
      say('Đang chờ cổng thanh toán xác nhận…')
      await sleep(2000)
    }
    say('Cổng thanh toán chưa xác nhận. Trạng thái đơn hàng sẽ cập nhật trong mục Tài khoản.')
  } catch (error) {
    say(said(error))
  }
}

export default { cart, checkout, 'payment-return': paymentReturn }
