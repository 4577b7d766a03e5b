// Listings: the search page, sort, filters and "load more" on category and collection pages, and the
// product page's recently viewed (kept in this browser).
import { api, card, enc, failed, h, part, say, words } from './main.js'

function search (form) {
  const out = form.nextElementSibling
  let query = ''
  const run = async (cursor) => {
    const page = await api(`/search?q=${enc(query)}&limit=24` + (cursor ? '&cursor=' + enc(cursor) : ''))
    let grid = out.querySelector('.grid')
    if (!cursor) {
      grid = h('ul', { class: 'grid' })
      out.replaceChildren(page.items.length ? grid : h('p', null, say(words.no_results, { query })))
    }
    grid.append(...page.items.map(card))
    out.querySelector('.more')?.remove()
    if (page.has_more && page.next_cursor) {
      out.append(h('button', { type: 'button', class: 'more', onclick: () => run(page.next_cursor).catch(failed(out)) }, words.more))
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

const SORTS = ['', 'newest', 'price_asc', 'price_desc']
const PAGE = 24

function loadMore (el) {
  if (el.dataset.facets) return listed(el)
  const grid = el.parentElement.querySelector('.grid')
  const filter = el.dataset.categoryId ? 'category=' + enc(el.dataset.categoryId) : 'collection=' + enc(el.dataset.collectionId)
  let shown = Number(el.dataset.shown) || 0
  let cursor = null
  // The sort lives in the url (?sap-xep=price_asc): a reload or a shared link keeps it.
  const url = new URL(location)
  let sort = SORTS.includes(url.searchParams.get('sap-xep')) ? url.searchParams.get('sap-xep') : ''
  const button = h('button', { type: 'button', class: 'more' }, words.more_products)
  const select = h('select', { id: 'sort' }, SORTS.map((value) => h('option', { value }, words['sort_' + (value || 'default')])))
  grid.before(h('p', { class: 'sort' }, h('label', { for: 'sort' }, words.sort + ' '), select))
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

// A category or collection with the build's facet data: its sort, filters and "more" work on
// that file's records (filters.js, loaded when first used, or at once when the url carries a
// choice): the API is never asked. The controls are the theme's parts (partials/filters.html).
function listed (el) {
  const tools = part(el, 'tools')
  const more = el.dataset.hasMore === 'false' ? null : part(el, 'more')
  el.parentElement.querySelector('.grid').before(tools)
  if (more) el.append(more)
  let ready
  const use = (e) => (ready ||= import('./filters.js').then((m) => m.listing(el, tools, more)))
    .then((run) => run(e)).catch(failed(el))
  tools.addEventListener('change', use)
  tools.addEventListener('click', (e) => e.target.closest('.filter-open') && use(e))
  more?.addEventListener('click', use)
  if (location.search) use()
}

// Recently viewed: this browser's own list (the last 12 products' cards as their pages drew
// them, newest first: each product page's <template data-part=mine>, the build's markup),
// under the words of the island's <template data-part=seen>. Nothing is asked: the related
// products are the page's own, from the build.
function recommendations (el) {
  try {
    const id = document.body.dataset.entityId
    const seen = (JSON.parse(localStorage.getItem('sf_seen')) || []).filter((p) => p.html && p.id !== id)
    if (seen.length) {
      const block = part(el, 'seen')
      const cards = h('template')
      cards.innerHTML = seen.slice(0, 4).map((p) => p.html).join('')
      block.querySelector('ul').append(cards.content)
      el.append(block)
    }
    localStorage.setItem('sf_seen', JSON.stringify([{ id, html: part(el, 'mine').outerHTML }, ...seen].slice(0, 12)))
  } catch {} // recently viewed is extra: the page is complete without it
}

export default { search, 'load-more': loadMore, recommendations }
