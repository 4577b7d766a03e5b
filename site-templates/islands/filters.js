// Filters and sorts of a list of product records in the browser: nothing is asked. Loaded on
// first use (listing.js and find.js import it): the category, collection and search pages'
// facets. A record is the shape the build writes (generator/plan/product_records.py):
// {id, n: name, u: url, i: image, p: effective price, c: earlier price, b: brand,
//  o: {option: [values]}, s: in stock, t: published ISO, k: [category ids], l: [collection ids]};
// what is filtered and sorted needs only id, p, b, o, s and t (a number or ISO text).
//
//   const f = filtering(records, config, words)
//     config: the /filters configuration ({brands, attributes: [{name, values}],
//       price_ranges: [[min, max]]}) or null: the facets then come from the records;
//     words: the filters part's dataset (data-brand, data-param-brand, ...: partials/filters.html).
//   f.facets: [{param, name, values: [{value, label, has(record)}]}]
//   f.match(chosen) -> the records chosen; chosen: {param: Set of values}, OR within a facet,
//     AND across facets
//   f.counts(chosen) -> {param: {value: count}}, each facet counted with the others' choices
//   sorted(records, sort) -> a copy in a spec's sort (newest, price_asc, price_desc; '' keeps
//     the list's order)
//   mount(root, tools, records, config, draw) -> run(event): the panel, the sort and the url's
//     state on a page whose `root` holds the template parts of partials/filters.html, `tools`
//     its tools part; draw(list, active) shows the list.
//   listing(el, tools, more, data, full) -> run(event): a page's list drawn a page at a time,
//     data {f: config, r: records} (a category's file when not given), full(records) -> the
//     complete records of those shown (the search page's come from its index).
import { card, h, part, vnd } from './main.js'

const fold = (s) => String(s).normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/\u0111/gi, 'd')
  .toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')
const uniq = (values) => [...new Set(values)]
const collate = new Intl.Collator('vi').compare

// 0, 100k, 200k, 500k, 1M, 2M, 5M... : the ranges that hold the prices.
function ladder (prices) {
  if (!prices.length) return []
  const low = Math.min(...prices)
  const high = Math.max(...prices)
  const steps = [0]
  for (let base = 1e5; steps.at(-1) <= high; base *= 10) {
    for (const m of [1, 2, 5]) if (steps.at(-1) <= high) steps.push(base * m)
  }
  return steps.slice(1).map((end, i) => [steps[i], end]).filter(([start, end]) => low < end && high >= start)
}

export function filtering (records, config, words) {
  const facets = []
  const taken = new Set()
  const add = (param, name, values) => {
    while (taken.has(param)) param += '-2'
    taken.add(param)
    if (values.length) facets.push({ param, name, values })
  }
  const brands = config?.brands?.length ? config.brands : uniq(records.map((r) => r.b).filter(Boolean)).sort(collate)
  add(words.paramBrand, words.brand, brands.map((b) => ({ value: b, label: b, has: (r) => r.b === b })))
  let attributes = config?.attributes
  if (!attributes?.length) {
    const found = {}
    for (const r of records) for (const [name, values] of Object.entries(r.o || {})) values.forEach((v) => (found[name] ||= new Set()).add(v))
    attributes = Object.entries(found).map(([name, values]) => ({ name, values: [...values].sort(collate) }))
  }
  for (const { name, values } of attributes) {
    add(fold(name) || 'o', name, uniq(values).map((v) => ({ value: v, label: v, has: (r) => !!r.o?.[name]?.includes(v) })))
  }
  // Ranges on the effective price; the outer ones open when a price lies beyond them.
  const prices = records.map((r) => r.p).filter((p) => p != null)
  const ranges = (config?.price_ranges?.length ? config.price_ranges : ladder(prices)).map(([a, b]) => [a, b]).sort((x, y) => (x[0] ?? -1) - (y[0] ?? -1))
  if (ranges.length) {
    if (prices.some((p) => p < ranges[0][0])) ranges[0][0] = null
    if (prices.some((p) => p >= ranges.at(-1)[1])) ranges.at(-1)[1] = null
  }
  add(words.paramPrice, words.price, ranges.map(([low, high]) => ({
    value: `${low ?? ''}-${high ?? ''}`,
    label: (low == null ? words.below : high == null ? words.above : words.between).replace('{min}', vnd(low)).replace('{max}', vnd(high)),
    has: (r) => r.p != null && !(r.p < low) && !(r.p >= high),
  })))
  add(words.paramStock, words.stock, [{ value: '1', label: words.inStock, has: (r) => r.s }])

  const passes = (r, chosen, except) => facets.every((f) => {
    const values = chosen[f.param]
    return f === except || !values?.size || f.values.some((v) => values.has(v.value) && v.has(r))
  })
  return {
    facets,
    match: (chosen) => records.filter((r) => passes(r, chosen)),
    counts: (chosen) => Object.fromEntries(facets.map((f) => {
      const base = records.filter((r) => passes(r, chosen, f))
      return [f.param, Object.fromEntries(f.values.map((v) => [v.value, base.filter(v.has).length]))]
    })),
  }
}

const t = (r) => r.t || ''
const ORDER = {
  newest: (a, b) => (t(b) > t(a)) - (t(b) < t(a)),
  price_asc: (a, b) => (a.p ?? Infinity) - (b.p ?? Infinity),
  price_desc: (a, b) => (b.p ?? -1) - (a.p ?? -1),
}

export const sorted = (records, sort) => ORDER[sort] ? [...records].sort(ORDER[sort]) : records

// A record as the islands' cards draw it (main.js card, as partials/product_card.html).
const toCard = (r) => card({ name: r.n, url: r.u, image_url: r.i, effective_price: r.p, compare_at_price: r.c, in_stock: r.s })

export function mount (root, tools, records, config, draw) {
  const panel = part(root, 'filters')
  const words = panel.dataset
  const f = filtering(records, config, words)
  const select = tools.querySelector('select')
  const opener = tools.querySelector('.filter-open')
  const boxes = []
  let chosen = {}
  let sort = ''

  panel.hidden = true
  tools.after(panel)
  panel.querySelector('.facets').append(...f.facets.map((facet) => {
    const set = part(root, 'facet').cloneNode(true)
    set.querySelector('[data-field=name]').textContent = facet.name
    set.querySelector('ul').append(...facet.values.map((v) => {
      const li = part(root, 'choice').cloneNode(true)
      const box = li.querySelector('input')
      box.value = v.value
      box.name = facet.param
      li.querySelector('[data-field=label]').textContent = v.label
      boxes.push([box, facet, v, li.querySelector('[data-field=count]')])
      return li
    }))
    return set
  }))

  const count = () => Object.values(chosen).reduce((n, values) => n + values.size, 0)
  const fromUrl = () => {
    const params = new URL(location).searchParams
    chosen = {}
    for (const facet of f.facets) {
      const known = new Set(facet.values.map((v) => v.value))
      const values = params.getAll(facet.param).filter((v) => known.has(v))
      if (values.length) chosen[facet.param] = new Set(values)
    }
    sort = ORDER[params.get(words.paramSort)] ? params.get(words.paramSort) : ''
    select.value = sort
  }
  const toUrl = () => {
    const url = new URL(location)
    for (const facet of f.facets) url.searchParams.delete(facet.param)
    url.searchParams.delete(words.paramSort)
    for (const [param, values] of Object.entries(chosen)) values.forEach((v) => url.searchParams.append(param, v))
    if (sort) url.searchParams.set(words.paramSort, sort)
    if (url.href !== location.href) history.pushState(null, '', url)
  }
  const render = () => {
    const list = sorted(f.match(chosen), sort)
    const counts = f.counts(chosen)
    for (const [box, facet, v, label] of boxes) {
      const n = counts[facet.param][v.value]
      box.checked = !!chosen[facet.param]?.has(v.value)
      box.disabled = !n && !box.checked
      label.textContent = `(${n})`
    }
    const n = count()
    opener.querySelector('.filter-count').textContent = n ? `(${n})` : ''
    for (const el of [tools.querySelector('.found'), panel.querySelector('.filters-done')]) el.textContent = el.dataset.text.replace('{n}', list.length)
    // A filtered url is not a page of its own for search engines (its canonical is the listing).
    let robots = document.querySelector('meta[name=robots][data-filters]')
    if (n && !robots) document.head.append(robots = h('meta', { name: 'robots', content: 'noindex', 'data-filters': '' }))
    if (!n) robots?.remove()
    draw(list, !!(n || sort))
  }
  const open = (on) => {
    panel.hidden = !on
    opener.setAttribute('aria-expanded', on)
    document.body.classList.toggle('filtering', on)
    ;(on ? panel : opener).focus()
  }
  const changed = () => {
    toUrl()
    render()
  }

  panel.addEventListener('change', (e) => {
    const found = boxes.find(([box]) => box === e.target)
    if (!found) return
    const [box, facet, v] = found
    const values = chosen[facet.param] ||= new Set()
    values[box.checked ? 'add' : 'delete'](v.value)
    if (!values.size) delete chosen[facet.param]
    changed()
  })
  panel.addEventListener('click', (e) => {
    if (e.target.closest('.filters-clear')) {
      chosen = {}
      changed()
    } else if (e.target.closest('.filters-close, .filters-done')) open(false)
  })
  panel.addEventListener('keydown', (e) => e.key === 'Escape' && open(false))
  addEventListener('popstate', () => {
    fromUrl()
    render()
  })
  // The url's choices; a sort chosen before this module came is the shopper's (run below).
  const picked = select.value
  fromUrl()
  select.value ||= picked
  render()
  // What the page's own controls ask (listing.js hands over their events).
  return (e) => {
    if (e?.target === select) {
      sort = select.value
      changed()
    } else if (e?.target.closest?.('.filter-open')) open(panel.hidden)
  }
}

// A category's or collection's page: its records from the build's file (data-facets), drawn
// into the page's grid a page at a time; "more" shows the next from the same records. The
// search page's: its results, given.
export async function listing (el, tools, more, data, full = (list) => list) {
  if (!data) {
    const res = await fetch(el.dataset.facets)
    if (!res.ok) throw new Error('facets ' + res.status)
    data = await res.json()
  }
  const grid = el.parentElement.querySelector('.grid')
  const pager = el.parentElement.querySelector('.pagination')
  const step = Number(el.dataset.shown) || 24
  let shown = 0
  let list = []
  const none = part(el, 'none')
  const show = async (from) => {
    const drawn = list
    const batch = await full(list.slice(from, shown))
    if (drawn === list) grid.append(...batch.map(toCard)) // else a newer choice redrew it
    if (more) more.hidden = list.length <= shown
  }
  const run = mount(el, tools, data.r, data.f, (found, active) => {
    list = found
    shown = step
    grid.replaceChildren()
    grid.after(none)
    none.hidden = found.length > 0
    if (pager) pager.hidden = active
    show(0)
  })
  return (e) => {
    if (e?.target === more) {
      shown += step
      show(shown - step)
    } else run(e)
  }
}
