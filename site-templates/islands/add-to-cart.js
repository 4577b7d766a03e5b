// Product page: the options pick a variant, whose price, saving and stock the page carries
// from its build (#product-data: showing the page asks nothing); add to cart, which has the
// live truth (the API refuses what is sold out), save for later. Without JS the form only
// reloads the page. Stock words and the low-stock number as generator/render/buying.py.
import { UNAVAILABLE, api, h, link, price, priceOf, readCart, said, saveItems, send, track, words } from './main.js'

const stockOf = (v) => !v.in_stock ? 'out' : v.stock != null && v.stock <= 5 ? 'low' : 'in'

export default async function (form) {
  const status = h('p', { class: 'cart-status', role: 'status' })
  const save = h('button', { type: 'button', class: 'secondary' }, words.save)
  form.append(status, save)
  const productId = Number(form.dataset.productId)
  const info = form.parentElement
  const buy = form.querySelector('[type=submit]')
  // variant_id: a hidden input the options set, or the variants' own radios.
  const picked = form.elements.variant_id
  let variants = []
  const variant = () => variants.find((v) => v.id === Number(picked.value))
  // No session service: the page reads on, the button says ordering is unavailable for now.
  const closed = () => {
    buy.disabled = true
    buy.textContent = words.closed
    save.hidden = true
    status.textContent = UNAVAILABLE
  }
  // Whether v has the options chosen (those of every group but `skip`).
  const fits = (v, skip) => Object.entries(v.options || {}).every(([k, x]) => k === skip || !form.elements[k] || form.elements[k].value === x)
  const show = () => {
    if (picked.type === 'hidden') {
      // An option is open while some variant in stock has it with the other choices.
      for (const r of form.querySelectorAll('fieldset input[type=radio]')) r.disabled = !variants.some((v) => v.in_stock && v.options[r.name] === r.value && fits(v, r.name))
      picked.value = (variants.find((v) => fits(v)) || {}).id || ''
    }
    const v = variant() || {}
    const state = stockOf(v)
    const ok = v.in_stock && priceOf(v) != null
    const stock = info.querySelector('.stock')
    if (v.id) info.querySelector('.price').replaceWith(price(v, true))
    stock.className = 'stock stock-' + state
    stock.textContent = words.stock[state]
    buy.disabled = !ok
    buy.textContent = ok ? words.add : words.stock.out
  }
  // A variant as a cart line, for the ecommerce events.
  const asLine = (quantity) => {
    const v = variant() || {}
    return [{ product_id: productId, name: document.querySelector('h1').textContent, variant_name: v.name, unit_price: priceOf(v), quantity }]
  }

  form.addEventListener('change', (e) => e.target.name !== 'quantity' && show())
  form.addEventListener('submit', async (e) => {
    e.preventDefault()
    const variantId = Number(picked.value)
    const quantity = Math.max(1, Number(form.quantity.value) || 1)
    if (!variantId) return (status.textContent = words.pick)
    status.textContent = words.adding
    try {
      const cart = await readCart()
      const items = cart ? cart.items : []
      const line = items.find((i) => i.variant_id === variantId)
      if (line) line.quantity += quantity
      else items.push({ variant_id: variantId, quantity })
      await saveItems(items)
      track('add_to_cart', asLine(quantity))
      status.replaceChildren(words.added + ' ', link('/gio-hang', words.see_cart))
    } catch (error) {
      // The cart refuses a line sold out since the build (422): in the form's words for it.
      if (error.unavailable) closed()
      else status.textContent = said(error, form)
    }
  })
  save.addEventListener('click', async () => {
    try {
      await send('/customer/saved-products', { product_id: productId })
      status.textContent = words.saved
    } catch (error) {
      if (error.status === 401) status.replaceChildren(link('/tai-khoan', words.login), ' ' + words.login_to_save)
      else status.textContent = said(error)
    }
  })
  // Listeners first (a click must never fall through to a native submit), then the variants:
  // the page's own; asked only of a theme whose product page carries none.
  try {
    const data = document.getElementById('product-data')
    variants = data ? JSON.parse(data.textContent).variants : (await api(`/products/${productId}/variants`)).items
    for (const r of form.querySelectorAll('[name=variant_id][type=radio]')) {
      const v = variants.find((x) => x.id === Number(r.value))
      r.disabled = !(v && v.in_stock)
    }
    show()
    track('view_item', asLine(1))
  } catch (error) {
    if (error.unavailable) closed() // else the static prices stay
  }
}
