// Listings: the search page, sort and "load more" on category and collection pages, and the
// product page's recommendations and recently viewed (an anonymous visitor id, no login).
import { api, card, enc, failed, h, send, visitor } from './main.js'

function search (form) {
  const out = form.nextElementSibling
  let query = ''
  const run = async (cursor) => {
    const page = await api(`/search?q=${enc(query)}&limit=24` + (cursor ? '&cursor=' + enc(cursor) : ''))
    let grid = out.querySelector('.grid')
    if (!cursor) {
      grid = h('ul', { class: 'grid' })
      out.replaceChildren(page.items.length ? grid : h('p', null, `Không tìm thấy sản phẩm nào cho "${query}".`))
    }
    grid.append(...page.items.map(card))
    out.querySelector('.more')?.remove()
    if (page.has_more && page.next_cursor) {
      out.append(h('button', { type: 'button', class: 'more', onclick: () => run(page.next_cursor).catch(failed(out)) }, 'Xem thêm'))
    }
  }
  const start = () => {
    query = form.q.value.trim()
    if (query) run(null).catch(failed(out))
  }
  form.addEventListener('submit', (e) => {
    e.preventDefault()
    history.replaceState(null, '', '?q=' + enc(form.q.value.trim()))
    start()
  })
  form.q.value = new URLSearchParams(location.search).get('q') || ''
  start()
}

const SORTS = { '': 'Mặc định', newest: 'Mới nhất', price_asc: 'Giá tăng dần', price_desc: 'Giá giảm dần' }
const PAGE = 24

function loadMore (el) {
  const grid = el.parentElement.querySelector('.grid')
  const filter = el.dataset.categoryId ? 'category=' + enc(el.dataset.categoryId) : 'collection=' + enc(el.dataset.collectionId)
  let shown = Number(el.dataset.shown) || 0
  let cursor = null
  // The sort lives in the url (?sap-xep=price_asc): a reload or a shared link keeps it.
  const url = new URL(location)
  let sort = SORTS[url.searchParams.get('sap-xep')] ? url.searchParams.get('sap-xep') : ''
  const button = h('button', { type: 'button', class: 'more' }, 'Xem thêm sản phẩm')
  const select = h('select', { id: 'sort' }, Object.entries(SORTS).map(([value, text]) => h('option', { value }, text)))
  grid.before(h('p', { class: 'sort' }, h('label', { for: 'sort' }, 'Sắp xếp '), select))
  select.value = sort

  const load = async (fresh) => {
    // The static page shows the first `shown` products without a cursor: skip them once.
    const skip = fresh || cursor ? 0 : shown
    const limit = Math.min(skip + PAGE, 100)
    const page = await api(`/products?${filter}&limit=${limit}` + (sort ? '&sort=' + sort : '') + (cursor && !fresh ? '&cursor=' + enc(cursor) : ''))
    if (fresh) {
      grid.replaceChildren()
      shown = 0
    }
    const items = page.items.slice(skip)
    grid.append(...items.map(card))
    shown += items.length
    cursor = page.next_cursor
    button.hidden = !(page.has_more && cursor)
  }
  button.hidden = el.dataset.hasMore === 'false'
  button.addEventListener('click', () => load(false).catch(failed(el)))
  const sorted = () => {
    cursor = null
    load(true).catch(failed(el))
  }
  select.addEventListener('change', () => {
    sort = select.value
    if (sort) url.searchParams.set('sap-xep', sort)
    else url.searchParams.delete('sap-xep')
    history.replaceState(null, '', url)
    sorted()
  })
  el.append(button)
  if (sort) sorted()
}

async function recommendations (el) {
  const id = Number(document.body.dataset.entityId)
  const token = visitor()
  const block = (title, items) => items.length ? h('section', null, h('h2', null, title), h('ul', { class: 'grid' }, items.slice(0, 4).map(card))) : null
  const other = (p) => p.id !== id
  try {
    // The page's own "Sản phẩm liên quan" (a build with --related-products) is not asked again.
    const [liked, seen] = await Promise.all([
      document.getElementById('related') ? { items: [] } : api(`/recommendations/product/${id}?limit=5`),
      api(`/recommendations/recently-viewed?session_token=${token}&limit=5`),
    ])
    el.replaceChildren(...[block('Sản phẩm liên quan', liked.items.filter(other)), block('Sản phẩm đã xem', seen.items.filter(other))].filter(Boolean))
  } catch {} // recommendations are extra: the page is complete without them
  send('/recommendations/view', { product_id: id, session_token: token }).catch(() => {})
}

export default { search, 'load-more': loadMore, recommendations }
