// Product page: live price and stock per variant (the static page may be stale), add to cart,
// save for later. Without JS the form only reloads the page.
import { UNAVAILABLE, api, h, priceOf, readCart, said, saveItems, sitePath, track, vnd } from './api.js'

export default async function (form) {
  const status = h('p', { class: 'cart-status', role: 'status' })
  const save = h('button', { type: 'button', class: 'secondary' }, 'Lưu sản phẩm')
  form.append(status, save)
  const productId = Number(form.dataset.productId)
  const now = document.querySelector('.product-info .price-now')
  const buy = form.querySelector('button[type=submit]')
  let variants = []
  // No session service: the page reads on, the button says ordering is unavailable for now.
  const closed = () => {
    if (buy) {
      buy.disabled = true
      buy.textContent = 'Tạm thời chưa đặt hàng được'
    }
    save.hidden = true
    status.textContent = UNAVAILABLE
  }

  const chosen = () => {
    const radio = form.querySelector('input[name=variant_id]:checked')
    return radio ? Number(radio.value) : variants.length ? variants[0].id : null
  }
  // A variant as a cart line, for the ecommerce events.
  const asLine = (id, quantity) => {
    const v = variants.find((x) => x.id === id) || {}
    return [{ product_id: productId, name: document.querySelector('h1').textContent, variant_name: v.name, unit_price: priceOf(v), quantity }]
  }
  const showPrice = () => {
    const variant = variants.find((v) => v.id === chosen())
    if (variant && now && priceOf(variant) != null) now.textContent = vnd(priceOf(variant))
  }

  form.addEventListener('change', showPrice)
  form.addEventListener('submit', async (e) => {
    e.preventDefault()
    const variantId = chosen()
    const quantity = Math.max(1, Number(form.quantity.value) || 1)
    if (!variantId) return (status.textContent = 'Vui lòng chọn phân loại.')
    status.textContent = 'Đang thêm…'
    try {
      const cart = await readCart()
      const items = cart ? cart.items.map((i) => ({ variant_id: i.variant_id, quantity: i.quantity })) : []
      const line = items.find((i) => i.variant_id === variantId)
      if (line) line.quantity += quantity
      else items.push({ variant_id: variantId, quantity })
      await saveItems(items)
      track('add_to_cart', asLine(variantId, quantity))
      status.replaceChildren('Đã thêm vào giỏ hàng. ', h('a', { href: sitePath('/gio-hang') }, 'Xem giỏ hàng'))
    } catch (error) {
      if (error.unavailable) closed()
      else status.textContent = said(error)
    }
  })
  save.addEventListener('click', async () => {
    try {
      await api('/customer/saved-products', { method: 'POST', body: { product_id: productId } })
      status.textContent = 'Đã lưu sản phẩm vào tài khoản.'
    } catch (error) {
      if (error.status === 401) status.replaceChildren(h('a', { href: sitePath('/tai-khoan') }, 'Đăng nhập'), ' để lưu sản phẩm.')
      else status.textContent = said(error)
    }
  })
  // Listeners first (a click must never fall through to a native submit), then live prices.
  try {
    variants = (await api(`/products/${productId}/variants`)).items
    for (const v of variants) {
      const radio = form.querySelector(`input[name=variant_id][value="${v.id}"]`)
      if (!radio) continue
      const price = priceOf(v)
      radio.disabled = !v.in_stock
      radio.nextElementSibling.textContent = v.name + (price != null ? ' - ' + vnd(price) : '') + (v.in_stock ? '' : ' (Hết hàng)')
    }
    showPrice()
    track('view_item', asLine(chosen(), 1))
  } catch (error) {
    if (error.unavailable) closed() // else the static prices stay
  }
}
