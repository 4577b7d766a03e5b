// Search from the index the build publishes under /_search/ (docs/search.md): the header's
// suggestions as the shopper types (loaded when the field is first used) and the search page's
// results. No API request: a query fetches the manifest, the shard of each word (by its first
// letters) and the record chunks of what it shows; a sort or a filter, its results' light
// records (column chunks) first. Words and markup are the theme's.
import { card, h, part, price, src } from './main.js'

const ROOT = new URL(import.meta.url).pathname.split('/_assets/')[0]
const got = {}
const get = (name, v) => (got[name + v] ||= fetch(`${ROOT}/_search/${name}?v=${v}`).then((r) => (r.ok ? r.json() : null), () => null))
const manifest = () => get('index.json', Math.floor(Date.now() / 3e5))

// As the build folds: no tone marks, đ as d, lower case ("Áo thun nữ" -> "ao thun nu").
export const words = (text) => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/\u0111/gi, 'd').toLowerCase().match(/[a-z0-9]+/g) || []

// One typo apart: a letter changed, missing, added, or two swapped.
function near (a, b) {
  let i = 0
  while (a[i] && a[i] === b[i]) i++
  const rest = (x, y) => a.slice(i + x) === b.slice(i + y)
  return rest(1, 1) || rest(1, 0) || rest(0, 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && rest(2, 2))
}

// The shard holding `word` (the build's shard_key: its first two letters; past a prefix the
// index split, as a store's SKUs share their first letters, the part holding its next letter),
// fetched; nothing when the index has none.
function shardOf (m, word) {
  const split = m.s || {} // a manifest of format 3, cached across a deploy, splits none
  let key = word.slice(0, 2)
  // An array: a key named like a property every object has ("constructor") is no split prefix.
  while (Array.isArray(split[key]) && word.length > key.length) {
    const next = word.slice(0, key.length + 1)
    key = split[key].findLast((start) => start <= next) || next
  }
  return m.t[key] && get(`t/${key}.json`, m.t[key])
}

// Products holding `word`, the query's `n`th (a prefix too when `prefix`; one typo off from 5
// letters), with a score: an exact word over a prefix over a typo; in the name where the query
// has it (first, second) over elsewhere in the name over the other words (brand, category
// path, SKUs, options). Only those `keep` has, when given (the earlier words' products).
async function scored (m, word, prefix, n, keep) {
  const shard = await shardOf(m, word)
  const out = new Map()
  for (const term in shard) {
    const kind = term === word ? 6 : prefix && term.startsWith(word) ? 4 - (term.length - word.length) / 99 : word.length > 4 && near(term, word) ? 2 : 0
    if (kind) {
      shard[term].forEach((deltas, field) => {
        const s = kind * (field === n ? 3 : field < 3 ? 2 : 1)
        let id = 0
        for (const d of deltas) if ((id += d), !keep || keep.has(id)) out.get(id) >= s || out.set(id, s)
      })
    }
  }
  return out
}

// The products of both, their scores added (the smaller one walked).
function both (a, b) {
  if (a.size > b.size) [a, b] = [b, a]
  const out = new Map()
  for (const [id, s] of a) b.has(id) && out.set(id, s + b.get(id))
  return out
}

// The ids of the products matching every word of `query`, best first (the last word may be
// unfinished); a word of a synonym group also finds the group's other words.
export async function find (query) {
  const m = await manifest()
  const typed = words(query)
  let found = null
  for (const w of typed) shardOf(m, w) // fetched together
  for (const [n, word] of typed.entries()) {
    const last = n === typed.length - 1
    const alike = m.synonyms.filter((g) => g.some((w) => w.join() === word)).flat().filter((w) => w.join() !== word)
    let any = await scored(m, word, last, n, found)
    for (const alt of alike) {
      let all = null
      for (const w of alt) {
        const s = await scored(m, w, false, -1, found)
        all = all ? both(all, s) : s
      }
      for (const [id, s] of all) if (!(any.get(id) >= s / alt.length)) any.set(id, s / alt.length)
    }
    found = found ? both(found, any) : any
  }
  return [...(found || [])].sort((a, b) => b[1] - a[1] || b[0] - a[0]).map(([id]) => id)
}

// What the files of `dir` (one each `size` products by id, each decoded by `decode` into a
// list of records) hold of `ids`, in their order.
async function held (ids, size, dir, decode) {
  const m = await manifest()
  const files = {}
  for (const id of ids) {
    const n = Math.floor(id / m[size])
    files[n] ||= get(`${dir}/${n}.json`, m[dir][n]).then(decode)
  }
  const byId = {}
  for (const list of await Promise.all(Object.values(files))) for (const r of list || []) byId[r.id] = r
  return ids.map((id) => byId[id]).filter(Boolean)
}

// The records of `ids` (the shape of generator/search_index/records.py), in their order.
export const records = (ids) => held(ids, 'chunk', 'r', (list) => list)

// What a sort and the filters read of `ids` ({id, p, t, b, o, s}), in their order: from the
// column chunks (generator/search_index/layout.py columns) when the results spread over many
// record chunks, else from those.
export async function light (ids) {
  const m = await manifest()
  const span = (size) => new Set(ids.map((id) => Math.floor(id / size))).size
  return span(m.chunk) > 2 * span(m.columns)
    ? held(ids, 'columns', 'f', (c) => {
      let id = 0
      let t = 0
      return c && c.i.map((d, j) => {
        const o = {}
        for (const v of c.o[j]) (o[c.O[v][0]] ||= []).push(c.O[v][1])
        t += c.t[j]
        return { id: (id += d), p: c.p[j], t: c.t[j] == null ? null : t, b: c.B[c.b[j]] ?? null, o, s: !!c.s[j] }
      })
    })
    : records(ids)
}

// The categories, collections and articles whose name holds every word of `query`.
export async function pages (query) {
  const m = await manifest()
  const typed = words(query)
  const all = await get('pages.json', m.pages) || []
  const fits = (p) => typed.every((w) => p[3].split(' ').some((x) => x.startsWith(w) || (w.length > 4 && near(x, w))))
  return { found: typed.length ? all.filter(fits) : [], top: all.filter((p) => p[0] === 'k' && p[4]) }
}

// A record as the card partial and the price markup read a product.
const asCard = (r) => ({ name: r.n, url: r.u, image_url: r.i, effective_price: r.p, price: r.p, compare_at_price: r.c, in_stock: r.s })
const go = (url) => url && (location.href = ROOT + url)

// The header's field: a combobox whose listbox groups products, categories, collections and
// articles; arrows move, Enter opens, Escape closes; the status says how many.
function suggest (form) {
  const input = form.q
  const list = form.querySelector('[role=listbox]')
  const status = form.querySelector('[role=status]')
  const say = list.dataset
  let options = []
  let active = -1
  let asked = 0
  const mark = (n) => {
    options.forEach((o, i) => o.setAttribute('aria-selected', i === n))
    active = n
    if (options[n]) input.setAttribute('aria-activedescendant', options[n].id), options[n].scrollIntoView({ block: 'nearest' })
    else input.removeAttribute('aria-activedescendant')
  }
  const show = (on) => {
    list.hidden = !on
    input.setAttribute('aria-expanded', on)
    if (!on) mark(-1)
  }
  const option = (url, ...kids) => h('li', { role: 'option', 'data-url': url }, kids)
  const group = (label, items) => items.length && h('ul', { role: 'group', 'aria-label': label }, items)
  const update = async () => {
    const query = input.value.trim()
    const mine = ++asked
    if (!words(query).length) return show(false)
    const [ids, other] = await Promise.all([find(query), pages(query)])
    const found = await records(ids.slice(0, 5))
    if (mine !== asked) return
    const products = found.map((r) => option(r.u, r.i && h('img', { src: src(r.i), alt: '', width: 48, height: 48 }), h('span', null, r.n), price(asCard(r))))
    const kinds = ['k', 'l', 'a'].map((k) => group(say[k], other.found.filter((p) => p[0] === k).slice(0, 4).map((p) => option(p[2], p[1]))))
    const none = !products.length && h('li', { role: 'presentation', class: 'suggest-none' }, say.none)
    list.replaceChildren(group(say.p, products) || '', ...kinds.filter(Boolean), none || '', (none && group(say.k, other.top.map((p) => option(p[2], p[1])))) || '')
    options = [...list.querySelectorAll('[role=option]')]
    options.forEach((o, i) => (o.id = input.id + '-o' + i))
    status.textContent = status.dataset.count.replace('{n}', options.length)
    mark(-1)
    show(true)
  }
  input.addEventListener('input', update)
  input.addEventListener('keydown', (e) => {
    const n = options.length
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      if (list.hidden) return update()
      mark(n ? (active + (e.key === 'ArrowDown' ? 1 : n - 1 + (active < 0))) % n : -1)
    } else if (e.key === 'Escape' && !list.hidden) {
      e.preventDefault()
      show(false)
    } else if (e.key === 'Enter' && options[active]) {
      e.preventDefault()
      go(options[active].dataset.url)
    }
  })
  list.addEventListener('mousedown', (e) => e.preventDefault())
  list.addEventListener('click', (e) => go(e.target.closest('[role=option]')?.dataset.url))
  form.addEventListener('focusout', (e) => form.contains(e.relatedTarget) || show(false))
  update()
}

// The search page: every result of its query (?q=, the form's submit loads the page again),
// 24 at a time; the sort and the filters of a category's page (filters.js, loaded on first use
// or when the url carries a choice) over the results' light records.
const PAGE = 24

async function searchPage (form) {
  const out = form.parentElement.querySelector('.search-results')
  const el = out.querySelector('.search-more')
  const url = new URL(location)
  const query = (form.q.value = url.searchParams.get('q') || '').trim()
  if (!query) return
  const ids = await find(query)
  if (!ids.length) {
    const { top } = await pages(query)
    return out.replaceChildren(h('p', { role: 'status' }, out.dataset.none.replace('{query}', query)), h('ul', { class: 'suggest-top' }, top.map((p) => h('li', null, h('a', { href: ROOT + p[2] }, p[1])))))
  }
  const tools = part(el, 'tools')
  const more = part(el, 'more')
  const grid = h('ul', { class: 'grid' })
  const found = tools.querySelector('.found')
  found.textContent = found.dataset.text.replace('{n}', ids.length)
  el.before(tools, grid)
  el.append(more)
  let shown = 0
  let ready
  const next = async () => {
    grid.append(...(await records(ids.slice(shown, (shown += PAGE)))).map((r) => card(asCard(r))))
    more.hidden = shown >= ids.length
  }
  const use = (e) => (ready ||= Promise.all([import('./filters.js'), light(ids)])
    .then(([f, list]) => f.listing(el, tools, more, { r: list }, (list) => records(list.map((r) => r.id)))))
    .then((run) => run(e))
  tools.addEventListener('change', use)
  tools.addEventListener('click', (e) => e.target.closest('.filter-open') && use(e))
  more.addEventListener('click', (e) => (ready ? use(e) : next()))
  ;[...url.searchParams.keys()].some((k) => k !== 'q') ? use() : next()
}

export default { suggest, 'search-index': searchPage }
