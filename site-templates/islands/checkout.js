// The buying path: cart, checkout and payment return. Their forms and sections are the pages'
// own markup, kept in <template data-part> until the data is in; this fills them in.
import { api, enc, failed, h, link, part, readCart, said, saveItems, send, session, setCartToken, showCount, sitePath, sleep, src, statusOf, track, vnd } from './api.js'

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

const quoted = (token, code) => api(`/cart/quote?token=${enc(token)}` + (code ? '&coupon_code=' + enc(code) : ''))
const row = (label, value, cls) => [h('dt', { class: cls }, label), h('dd', { class: cls }, value)]
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
  const empty = part(root, 'empty')
  const box = part(root, 'cart')
  const [lines, summary] = box.children
  const [coupon, pay] = summary.children
  const render = async () => {
    const cart = await readCart()
    showCount(cart ? cart.item_count : 0)
    if (!cart || !cart.items.length) return root.replaceChildren(empty)
    const quote = await quoted(cart.token, sessionStorage.getItem(COUPON))
    const code = quote.coupon
    if (code && !code.valid) sessionStorage.removeItem(COUPON)
    const change = (index, quantity) =>
      saveItems(cart.items.map((i, n) => (n === index ? { ...i, quantity } : i)).filter((i) => i.quantity > 0)).then(render).catch(failed(root))
    lines.replaceChildren(...cart.items.map((item, n) => h('li', { class: 'cart-line' },
      item.image_url ? h('img', { class: 'cart-thumb', src: src(item.image_url), alt: '', width: 80, height: 80 }) : h('span', { class: 'cart-thumb' }),
      h('span', { class: 'cart-name' }, link(item.url, item.name), item.variant_name && h('small', null, item.variant_name), h('small', null, vnd(item.unit_price) || 'Tạm ngừng bán'),
        h('button', { type: 'button', class: 'secondary', onclick: () => change(n, 0) }, 'Xóa')),
      h('span', { class: 'stepper' },
        h('button', { type: 'button', class: 'secondary', 'aria-label': 'Bớt 1', disabled: item.quantity < 2, onclick: () => change(n, item.quantity - 1) }, '−'),
        h('input', { type: 'number', min: 1, max: 999, value: item.quantity, 'aria-label': `Số lượng ${item.name}`, onchange: (e) => change(n, Math.max(1, Number(e.target.value) || 1)) }),
        h('button', { type: 'button', class: 'secondary', 'aria-label': 'Thêm 1', onclick: () => change(n, item.quantity + 1) }, '+')),
      h('strong', { class: 'line-total' }, vnd(item.line_total)))))
    coupon.code.value = code ? code.code : ''
    summary.replaceChildren(...[coupon,
      code && h('p', { class: code.valid ? 'coupon-ok' : 'coupon-bad', role: 'status' }, couponMessage(code)),
      h('dl', { class: 'totals' }, totals(quote)),
      discountsLeftOut(quote) && h('p', { class: 'coupon-bad', role: 'status' }, LEFT_OUT), pay].filter(Boolean))
    root.replaceChildren(box)
  }
  coupon.onsubmit = (e) => {
    e.preventDefault()
    sessionStorage.setItem(COUPON, coupon.code.value.trim())
    render().catch(failed(root))
  }
  render().catch(failed(root))
}

// What a delivery needs: the fields the template marks data-missing, a phone that is one; the
// template's messages go in the slot after each field; the first field wrong gets focus.
const PHONE = /^(0|\+84)[0-9]{9,10}$/
const invalidFields = (form) => [...form.querySelectorAll('[data-missing]')].filter((el) => {
  const value = el.value.trim()
  const text = !value ? el.dataset.missing : el.type === 'tel' && !PHONE.test(value.replace(/[\s.-]/g, '')) ? el.dataset.wrong : ''
  el.nextElementSibling.textContent = text
  el.setAttribute('aria-invalid', !!text)
  return text
})

// A logged-in shopper's default address (else the first), or nothing.
async function savedAddress () {
  try {
    if (!(await session('/me')).customer) return null
    const book = await api('/customer/addresses')
    return book.items.find((a) => a.is_default) || book.items[0] || null
  } catch {
    return null
  }
}

// The order placed, or paid: the page's section for it, filled in, in place of the rest.
function done (root, section, order) {
  section.dataset.status = order.current_status
  if (order.total != null) section.dataset.total = order.total
  for (const [name, text] of [['code', order.code], ['total', vnd(order.total)], ['status', statusOf(order)]]) {
    const el = section.querySelector('.order-' + name)
    if (el) el.textContent = text
  }
  root.replaceChildren(section)
}

const choice = (name, value, text, checked) =>
  h('label', { class: 'variant' }, h('input', { type: 'radio', name, value, checked, required: true }), h('span', null, text))

// Checkout: items, address, shipping (its fee priced as soon as chosen), payment (COD first),
// and one amount: the order's; a gateway payment then follows /checkout/pay's redirect.
async function checkout (root) {
  const form = part(root, 'form')
  const placed = part(root, 'done')
  const empty = part(root, 'empty')
  const f = form.elements
  const { city, ward } = f
  const [lines, warning, button, status] = ['.totals', '.coupon-bad', '.place-order', '.co-status'].map((s) => form.querySelector(s))
  try {
    const cart = await readCart()
    if (!cart || !cart.items.length) return root.replaceChildren(empty)
    const token = cart.token
    track('begin_checkout', cart.items)
    const coupon = sessionStorage.getItem(COUPON) || ''
    const [provinces, methods, payments, started, saved] = await Promise.all([
      api('/shipping/provinces'),
      send('/shipping-methods', { cart_token: token }),
      api('/checkout/payment-methods'),
      send(`/checkout?cart_token=${enc(token)}`, { email: null, coupon_code: coupon || null }),
      savedAddress(),
    ])
    const shipping = methods.items.filter((m) => m.kind !== 'pickup')
    city.append(...provinces.items.map((p) => h('option', { value: p.code }, p.name)))
    const loadWards = async () => {
      ward.length = 1 // "Chọn phường/xã"
      if (!city.value) return
      const wards = await api('/shipping/wards?province_code=' + enc(city.value)).catch(() => ({ items: [] }))
      ward.append(...wards.items.map((w) => h('option', { value: w.name }, w.name)))
    }
    city.onchange = loadWards
    form.querySelector('.checkout-items').append(...cart.items.map((item) =>
      h('li', null, h('span', null, item.name, item.variant_name ? ` (${item.variant_name})` : '', ` × ${item.quantity}`), ' ', h('span', null, vnd(item.line_total)))))
    form.querySelector('.co-shipping').append(...shipping.map((m, n) => choice('shipping', m.code, `${m.name} - ${Number(m.fee) ? vnd(m.fee) : 'Miễn phí'}`, n === 0)))
    form.querySelector('.co-payment').append(...payments.items.map((p, n) => choice('payment', p.code, p.name, n === 0)))
    const show = (quote) => {
      const amount = orderAmount(quote)
      lines.replaceChildren(...totals(quote, true))
      warning.hidden = !discountsLeftOut(quote)
      warning.textContent = warning.hidden ? '' : LEFT_OUT
      button.dataset.amount = amount
      button.textContent = 'Đặt hàng · ' + vnd(amount)
    }
    const choose = async (code) => {
      button.disabled = true
      await send(`/checkout/${enc(started.checkout_id)}/shipping`, { shipping_method: code }, 'PUT')
      show(await quoted(token, coupon))
      button.disabled = false
    }
    form.addEventListener('change', (e) => {
      if (e.target.name === 'shipping') choose(e.target.value).catch(failed(status))
    })
    if (saved) {
      f.full_name.value = saved.full_name || ''
      f.phone.value = saved.phone || ''
      f.street.value = saved.street || ''
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
      button.disabled = true
      status.textContent = 'Đang đặt hàng…'
      try {
        const address = {
          full_name: f.full_name.value.trim(), phone: f.phone.value.trim(), email: f.email.value.trim() || null,
          city: city.selectedOptions[0].text, ward: ward.value, street: f.street.value.trim(),
        }
        const order = await send(`/checkout/place-order?cart_token=${enc(token)}`,
          { address, payment: { payment_method: f.payment.value }, note: f.note.value || null }, 'POST', { headers: { 'Idempotency-Key': key } })
        setCartToken('')
        showCount(0)
        sessionStorage.removeItem(COUPON)
        const method = payments.items.find((p) => p.code === f.payment.value)
        const online = method && method.online
        // Counted once paid: an online payment's on the return page.
        track(online ? 'pending' : 'purchase', cart.items, { transaction_id: order.code, value: Number(order.total) })
        if (!online) return done(root, placed, order)
        status.textContent = 'Đang chuyển đến cổng thanh toán…'
        const pay = await send(`/checkout/pay?cart_token=${enc(token)}`, { return_url: location.origin + sitePath('/thanh-toan/ket-qua') })
        location.assign(pay.payment_url)
      } catch (error) {
        button.disabled = false
        failed(status)(error)
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
  const paid = part(root, 'done')
  const query = location.search.slice(1)
  const say = (text) => root.replaceChildren(h('p', null, text))
  if (!query) return say('Không có thông tin thanh toán để xác minh.')
  say('Đang xác minh thanh toán…')
  try {
    for (let attempt = 0; attempt < 10; attempt++) {
      const answer = await send('/checkout/payment-return', { query_string: query })
      if (!answer.valid) return say('Không xác minh được kết quả thanh toán này.')
      const order = answer.order
      if (order && order.current_status !== 'pending') {
        if (order.current_status === 'paid') track('purchase', null, { transaction_id: order.code })
        return done(root, paid, order)
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
