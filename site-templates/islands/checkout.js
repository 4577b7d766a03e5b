// The buying path: cart, checkout and payment return. Their forms and sections are the pages'
// own markup, kept in <template data-part> until the data is in; this fills them in.
import { api, cartToken, enc, failed, fill, h, keep, link, part, readCart, said, saveItems, send, session, sitePath, sleep, src, track, vnd } from './main.js'

// The coupon the cart's checkout holds on the server, as this device last knew it, shared by
// the tabs and kept across visits: {token, code} ('' none); not known for another cart (one
// made on another device): the checkout's answer says. An empty code takes a coupon off.
const COUPON = 'sf_coupon'
const held = (token) => {
  try {
    const kept = JSON.parse(localStorage[COUPON])
    if (kept.token === token) return kept.code
  } catch {}
}
const hold = (token, code) => { localStorage[COUPON] = JSON.stringify({ token, code }) }
// Starts (or resumes) the cart's checkout with a code (null: the one it holds), and learns it.
const start = async (token, code) => {
  const started = await send(`/checkout?cart_token=${enc(token)}`, { email: null, coupon_code: code })
  if ('coupon_code' in started) hold(token, started.coupon_code || '')
  return started
}
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
  const applied = part(root, 'applied')
  const [lines, summary] = box.children
  const [coupon, dl, leftOut, pay] = summary.children
  const says = coupon.dataset
  let token
  const render = async () => {
    // This device's own cart (its copy's): no code known is none; another's: the checkout says.
    const own = localStorage.sf_cart?.includes(`"token":"${cartToken()}"`)
    let cart = await readCart()
    if (!cart?.items.length) return root.replaceChildren(empty)
    token = cart.token
    if (held(token) == null && !own) await start(token, null)
    const quote = await quoted(token, held(token))
    // The quote prices the API's cart: lines of a copy it disagrees with (changed on another
    // device, prices changed since) are read again, once.
    if (+quote.subtotal !== cart.items.reduce((sum, i) => sum + i.unit_price * i.quantity, 0)) cart = await readCart(1)
    if (!cart?.items.length) return root.replaceChildren(empty)
    const code = quote.coupon
    if (code && !code.valid) hold(token, '')
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
    coupon.code.value = code?.valid ? code.code : ''
    applied.children[0].textContent = code?.code
    summary.replaceChildren(...[coupon,
      code && (code.valid ? applied : h('p', { class: 'coupon-bad', role: 'status' }, says[code.reason] || says.invalid)),
      dl, discountsLeftOut(quote) && leftOut, pay].filter(Boolean))
    totals(dl, quote)
    root.replaceChildren(box)
  }
  const use = (code) => {
    hold(token, code)
    render().catch(failed(root))
  }
  coupon.onsubmit = (e) => {
    e.preventDefault()
    use(coupon.code.value.trim())
  }
  applied.children[1].onclick = () => use('')
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

// What this device placed (the spec's order detail has no items), newest first: the
// confirmation again on reload, the account's order detail and "order again" (docs/islands.md).
const mine = () => JSON.parse(localStorage.sf_orders || '[]')

// The order placed, or paid: the page's section for it, filled in (with what this device
// kept of it), in place of the rest. A new order (its items given) is kept first with what the
// form chose, and named in the page's address (?don=CODE) unless it is paid online now.
function done (root, section, order, items, online) {
  if (items) {
    const f = root.querySelector('form').elements
    const chosen = (name) => root.querySelector(`[name=${name}]:checked + span`)?.textContent
    order = { ...order, items, pay: f.payment.value, payment: chosen('payment'), shipping: chosen('shipping'), phone: f.phone.value,
      to: [f.full_name.value, f.phone.value, f.street.value, f.ward.value, f.city.selectedOptions[0].text].join(', ') }
    localStorage.sf_orders = JSON.stringify([order, ...mine().filter((o) => o.code !== order.code)].slice(0, 20))
    if (online) return
    history.replaceState(null, '', '?don=' + enc(order.code))
  }
  order = { ...mine().find((o) => o.code === order.code), ...order }
  const next = section.querySelector('.next')
  section.dataset.status = order.current_status
  if (order.total != null) section.dataset.total = order.total
  if (next) next.textContent = next.dataset[order.pay] || next.dataset.online
  section.querySelector('.done-items')?.replaceChildren(...(order.items || []).map((item) =>
    h('li', null, item.image_url && h('img', { src: src(item.image_url), alt: '', width: 64, height: 64 }), link(item.url, item.name),
      h('small', null, item.variant_name), h('span', null, `${item.quantity} × ${vnd(item.unit_price)}`), h('b', null, vnd(item.line_total)))))
  root.replaceChildren(fill(section, order))
}

const choice = (name, value, text, checked, note) =>
  h('label', { class: 'variant' }, h('input', { type: 'radio', name, value, checked, required: true }), h('span', null, text, note && [' ', h('small', null, note)]))

// Checkout: items, address, shipping (its fee priced as soon as chosen), payment (COD first),
// and one amount: the order's; a gateway payment then follows /checkout/pay's redirect.
async function checkout (root) {
  const form = part(root, 'form')
  const placed = part(root, 'done')
  const empty = part(root, 'empty')
  const item = part(root, 'item')
  const f = form.elements
  const { city, ward } = f
  const [lines, warning, button, status, fold, sum, applied, ship] = ['.totals', '.coupon-bad', '.place-order', '.co-status', '.co-summary', '.co-summary summary strong', '.co-coupon', '.co-shipping']
    .map((s) => form.querySelector(s))
  // The summary: beside the form on a wide screen, folded above it on a phone.
  fold.open = matchMedia('(min-width:60rem)').matches
  try {
    const cart = await readCart()
    if (!cart?.items.length) return root.replaceChildren(empty)
    const token = cart.token
    track('begin_checkout', cart.items)
    // The code this device knows (or its removal) goes to the checkout; none known, the
    // checkout answers the one it holds.
    const [provinces, methods, payments, started, saved] = await Promise.all([
      api('/shipping/provinces'),
      send('/shipping-methods', { cart_token: token }),
      api('/checkout/payment-methods'),
      start(token, held(token) ?? null),
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
    // A line: picture with its quantity, name, variant, "2 × 377.300 ₫", and the line's total.
    form.querySelector('.co-items').append(...cart.items.map((i) => {
      const li = fill(item.cloneNode(true), { ...i, unit: `${i.quantity} × ${vnd(i.unit_price)}` })
      if (i.image_url) li.firstChild.prepend(h('img', { src: src(i.image_url), alt: '', width: 64, height: 64 }))
      return li
    }))
    ship.append(...shipping.map((m, n) => choice('shipping', m.code, `${m.name} - ${Number(m.fee) ? vnd(m.fee) : lines.dataset.noFee}`, n === 0,
      m.estimated_days && ship.dataset.days.replace('{days}', m.estimated_days))))
    form.querySelector('.co-payment').append(...payments.items.map((p, n) => choice('payment', p.code, p.name, n === 0)))
    // The quote with the checkout's coupon: shown (or said to be off) and the one amount.
    const show = async () => {
      button.disabled = true
      const quote = await quoted(token, held(token))
      const code = quote.coupon
      // A code no longer valid is taken off the checkout, so the order is not priced with it.
      if (code && !code.valid) return drop()
      const amount = orderAmount(quote)
      totals(lines, quote, true)
      applied.hidden = !code
      applied.children[0].textContent = code?.code
      warning.hidden = !discountsLeftOut(quote)
      button.dataset.amount = amount
      sum.textContent = button.lastChild.textContent = vnd(amount)
      button.disabled = false
    }
    const drop = async () => {
      button.disabled = true
      await start(token, '')
      hold(token, '')
      await show()
    }
    applied.children[1].onclick = () => drop().catch(failed(status))
    const choose = async (code) => {
      button.disabled = true
      await send(`/checkout/${enc(started.checkout_id)}/shipping`, { shipping_method: code }, 'PUT')
      await show()
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
        localStorage.removeItem(COUPON)
        const online = payments.items.find((p) => p.code === f.payment.value)?.online
        // Counted once paid: an online payment's on the return page.
        track(online ? 'pending' : 'purchase', cart.items, { transaction_id: order.code, value: Number(order.total) })
        done(root, placed, order, cart.items, online) // kept on this device; shown unless paid online
        if (!online) return
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
    else await show()
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
        done(root, paid, answer.amount == null ? order : { ...order, total: answer.amount })
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

// The confirmation's address (?don=CODE) shows the order this device placed again, else checkout.
function checkoutPage (root) {
  const code = new URLSearchParams(location.search).get('don')
  const order = code && mine().find((o) => o.code === code)
  order ? done(root, part(root, 'done'), order) : checkout(root)
}

export default { cart, checkout: checkoutPage, 'payment-return': paymentReturn }
