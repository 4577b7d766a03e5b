// The buying path: cart, checkout and payment return. Their forms and sections are the pages'
// own markup, kept in <template data-part> until the data is in; this fills them in.
import { api, enc, failed, fill, h, keep, link, part, readCart, said, saveItems, send, session, sitePath, sleep, src, track, vnd } from './main.js'

const COUPON = 'sf_coupon'
// The order being paid online and its cart token ("code token"): a failed payment is tried
// again from the return page, which needs the token /checkout/pay takes.
const PAYING = 'sf_paying'

const pay = async (token) => location.assign((await send(`/checkout/pay?cart_token=${enc(token)}`,
  { return_url: location.origin + sitePath('/thanh-toan/ket-qua') })).payment_url)

const quoted = (token, code) => api(`/cart/quote?token=${enc(token)}` + (code ? '&coupon_code=' + enc(code) : ''))

// The amount the order is charged: the quote's total where the backend declares
// `order_discounts`; else (the spec) goods + added VAT + shipping, no order-level discount.
function orderAmount (quote) {
  if (quote.order_discounts === true) return Number(quote.total)
  const addedTax = quote.tax_lines.reduce((sum, t) => sum + (t.included ? 0 : Number(t.amount || 0)), 0)
  return Number(quote.subtotal) + addedTax + Number(quote.shipping_total || 0)
}

const discountsLeftOut = (quote) => quote.order_discounts !== true && quote.discount_lines.length > 0

// The quote's lines in the words of the page's <dl class="totals"> (our own labels, never the
// API's): the cart's total, or at checkout the amount the order is charged (and no discount
// the backend leaves out of it).
function totals (dl, quote, checkout) {
  const w = dl.dataset
  const row = (label, value, cls) => [h('dt', { class: cls }, label), h('dd', { class: cls }, value)]
  dl.replaceChildren(...[
    row(w.subtotal, vnd(quote.subtotal)),
    checkout && discountsLeftOut(quote) ? [] : quote.discount_lines.map((d) => row(d.code ? `${w.coupon} ${d.code}` : w.promo, '-' + vnd(d.amount))),
    quote.tax_lines.map((t) => row(t.included ? w.vatIn : w.vat, vnd(t.amount))),
    row(w.shipping, Number(quote.shipping_total) ? vnd(quote.shipping_total) : w.noFee),
    row(w.total, vnd(checkout ? orderAmount(quote) : quote.total), 'total')].flat(9))
}

// Cart page: quantities, remove, coupon (its message from the quote), totals from /cart/quote.
function cart (root) {
  const empty = part(root, 'empty')
  const box = part(root, 'cart')
  const line = part(root, 'line')
  const [lines, summary] = box.children
  const [coupon, dl, leftOut, pay] = summary.children
  const says = coupon.dataset
  const render = async () => {
    let cart = await readCart()
    if (!cart?.items.length) return root.replaceChildren(empty)
    const quote = await quoted(cart.token, sessionStorage.getItem(COUPON))
    // The quote prices the API's cart: lines of a copy it disagrees with (changed on another
    // device, prices changed since) are read again, once.
    if (+quote.subtotal !== cart.items.reduce((sum, i) => sum + i.unit_price * i.quantity, 0)) cart = await readCart(1)
    if (!cart?.items.length) return root.replaceChildren(empty)
    const code = quote.coupon
    if (code && !code.valid) sessionStorage.removeItem(COUPON)
    const change = (index, quantity) =>
      saveItems(cart.items.map((i, n) => (n === index ? { ...i, quantity } : i)).filter((i) => i.quantity > 0)).then(render).catch(failed(root))
    // A line: the template's, its parts filled in (the unit price's text says so without one).
    lines.replaceChildren(...cart.items.map((item, n) => {
      const li = line.cloneNode(true)
      const [thumb, name, stepper, total] = li.children
      const [less, quantity, more] = stepper.children
      const [title, variant, unit, remove] = name.children
      if (item.image_url) thumb.replaceWith(h('img', { class: 'cart-thumb', src: src(item.image_url), alt: '', width: 80, height: 80 }))
      title.replaceWith(link(item.url, item.name))
      if (item.variant_name) variant.textContent = item.variant_name
      else variant.remove()
      unit.textContent = vnd(item.unit_price) || unit.textContent
      total.textContent = vnd(item.line_total)
      less.disabled = item.quantity < 2
      quantity.value = item.quantity
      quantity.ariaLabel += ' ' + item.name
      remove.onclick = () => change(n, 0)
      less.onclick = () => change(n, item.quantity - 1)
      more.onclick = () => change(n, item.quantity + 1)
      quantity.onchange = () => change(n, Math.max(1, Number(quantity.value) || 1))
      return li
    }))
    coupon.code.value = code ? code.code : ''
    summary.replaceChildren(...[coupon,
      code && h('p', { class: code.valid ? 'coupon-ok' : 'coupon-bad', role: 'status' }, code.valid ? `${says.valid} ${code.code}.` : says[code.reason] || says.invalid),
      dl, discountsLeftOut(quote) && leftOut, pay].filter(Boolean))
    totals(dl, quote)
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
  root.replaceChildren(fill(section, order))
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
  const place = button.textContent // "Đặt hàng", then "Đặt hàng · 250.000 ₫"
  try {
    const cart = await readCart()
    if (!cart?.items.length) return root.replaceChildren(empty)
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
    city.append(...provinces.items.map((p) => new Option(p.name, p.code)))
    const loadWards = async () => {
      ward.length = 1 // "Chọn phường/xã"
      if (!city.value) return
      const wards = await api('/shipping/wards?province_code=' + enc(city.value)).catch(() => ({ items: [] }))
      ward.append(...wards.items.map((w) => new Option(w.name, w.name)))
    }
    city.onchange = loadWards
    form.querySelector('.checkout-items').append(...cart.items.map((item) =>
      h('li', null, h('span', null, item.name, item.variant_name ? ` (${item.variant_name})` : '', ` × ${item.quantity}`), ' ', h('span', null, vnd(item.line_total)))))
    form.querySelector('.co-shipping').append(...shipping.map((m, n) => choice('shipping', m.code, `${m.name} - ${Number(m.fee) ? vnd(m.fee) : lines.dataset.noFee}`, n === 0)))
    form.querySelector('.co-payment').append(...payments.items.map((p, n) => choice('payment', p.code, p.name, n === 0)))
    const show = (quote) => {
      const amount = orderAmount(quote)
      totals(lines, quote, true)
      warning.hidden = !discountsLeftOut(quote)
      button.dataset.amount = amount
      button.textContent = `${place} · ${vnd(amount)}`
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
      for (const name of ['full_name', 'phone', 'street']) f[name].value = saved[name] || ''
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
        status.replaceChildren(h('p', { class: 'error', role: 'alert' }, form.dataset.incomplete))
        // From now on each message goes as soon as its field is right.
        form.onchange = () => invalidFields(form).length || status.replaceChildren()
        return wrong[0].focus()
      }
      button.disabled = true
      status.textContent = form.dataset.placing
      try {
        const address = { city: city.selectedOptions[0].text } // the province's name, not its code
        for (const name of ['full_name', 'phone', 'email', 'ward', 'street']) address[name] = f[name].value.trim() || null
        const order = await send(`/checkout/place-order?cart_token=${enc(token)}`,
          { address, payment: { payment_method: f.payment.value }, note: f.note.value || null }, 'POST', { headers: { 'Idempotency-Key': key } })
        keep(null)
        sessionStorage.removeItem(COUPON)
        const online = payments.items.find((p) => p.code === f.payment.value)?.online
        // Counted once paid: an online payment's on the return page.
        track(online ? 'pending' : 'purchase', cart.items, { transaction_id: order.code, value: Number(order.total) })
        if (!online) return done(root, placed, order)
        status.textContent = form.dataset.paying
        sessionStorage.setItem(PAYING, order.code + ' ' + token)
        await pay(token)
      } catch (error) {
        button.disabled = false
        failed(status, form)(error)
      }
    })
    root.replaceChildren(form)
    if (shipping.length) await choose(shipping[0].code)
    else show(await quoted(token, coupon))
  } catch (error) {
    failed(root, form)(error)
  }
}

// Where the gateway sends the customer back: the raw query goes to /checkout/payment-return,
// which only verifies it; the order's status shows once the gateway's IPN has decided.
async function paymentReturn (root) {
  const paid = part(root, 'done')
  const says = root.dataset
  const query = location.search.slice(1)
  const say = (text) => root.replaceChildren(h('p', null, text))
  if (!query) return say(says.noQuery)
  say(says.checking)
  try {
    for (let n = 10; n--;) {
      const answer = await send('/checkout/payment-return', { query_string: query })
      if (!answer.valid) return say(says.invalid)
      const order = answer.order
      const status = order?.current_status
      if (status && status !== 'pending') {
        if (status === 'paid') track('purchase', null, { transaction_id: order.code })
        done(root, paid, order)
        const [code, token] = (sessionStorage.getItem(PAYING) || '').split(' ')
        const again = root.querySelector('.pay-again')
        if (status === 'payment_failed' && code === order.code && again) {
          again.hidden = false
          again.onclick = () => pay(token).catch(failed(root))
        }
        return
      }
      say(says.waiting)
      await sleep(2000)
    }
    say(says.late)
  } catch (error) {
    say(said(error))
  }
}

export default { cart, checkout, 'payment-return': paymentReturn }
