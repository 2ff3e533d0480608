'use strict'
// The wave-rules report page. The data is `wave-rules report --json`,
// gzipped and base64-encoded in #report-data; everything below draws it with
// DOM calls (text is never parsed as HTML) and makes no request.
;(async () => {
  const app = document.getElementById('app')
  let R
  try {
    R = await load()
  } catch (e) {
    app.textContent = 'This report could not be read: ' + e
    return
  }
  app.textContent = ''
  app.removeAttribute('aria-busy')
  draw(app, R)
  document.documentElement.dataset.ready = 'true'
})()

async function load() {
  const el = document.getElementById('report-data')
  const bin = atob(el.textContent.trim())
  const bytes = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i)
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))
  return JSON.parse(await new Response(stream).text())
}

// ---- small helpers --------------------------------------------------------

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue
    if (k === 'class') el.className = v
    else if (k === 'text') el.textContent = v
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v)
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const kid of kids.flat()) {
    if (kid == null || kid === false) continue
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)))
  }
  return el
}
const fmt = (n) => Number(n).toLocaleString('en-US')
const pct = (a, b) => (b ? Math.round((100 * a) / b) + '%' : '-')
const when = (ms) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC'
const plural = (n, one, many) => fmt(n) + ' ' + (n === 1 ? one : many)

// ---- the page ---------------------------------------------------------------

function draw(app, R) {
  const T = R.totals
  const state = { zoom: null, sel: null, mode: 'coverage', rule: null, onRule: [] }
  const folders = index(R.tree)
  state.zoom = state.sel = R.tree
  const maxTokens = Math.max(1, ...R.set_tokens)

  app.append(
    h('h1', { text: 'Rules report' }),
    h('div', { class: 'muted mono', text: R.root }),
    h(
      'p',
      { class: 'help' },
      `Tokens are counted with ${R.tokenizer.encoding} (${R.tokenizer.library}), the tokenizer of ${R.tokenizer.models}; other model families count somewhat differently.`,
    ),
  )
  if (R.truncated) app.append(h('p', { class: 'sev-warning', text: 'Note: ' + R.truncated }))

  const card = (key, n, label, warn) =>
    h('div', { class: 'card' + (warn ? ' warn' : ''), 'data-total': key }, h('span', { class: 'n', text: fmt(n) }), h('span', { class: 'l', text: label }))
  app.append(
    h(
      'div',
      { class: 'cards' },
      card('files', T.files, 'files'),
      card('folders', T.folders, 'folders'),
      card('rules', T.rules, 'rules'),
      card('always_tokens', T.always_tokens, `always-on tokens (${plural(T.always_rules, 'rule', 'rules')}), every conversation`),
      card('max_file_tokens', T.max_file_tokens, 'tokens for the costliest file'),
      card('governed_files', T.governed_files, 'files a path rule governs'),
      card('problems', T.problems, 'problems', T.problems > 0),
      card('sessions', R.sessions.sessions.length, 'sessions logged (30 days)'),
    ),
  )
  if (R.check) {
    app.append(
      h('p', { class: R.check.ok ? 'st-kept' : 'sev-error', 'data-check': R.check.ok ? 'ok' : 'over' },
        R.check.ok ? `Within the budget of ${fmt(R.check.budget)} tokens.` : `Over the budget of ${fmt(R.check.budget)} tokens: ` + R.check.over.map(([w, t]) => `${w} (${fmt(t)})`).join(', ')),
    )
  }
  app.append(
    h('nav', { class: 'jump', 'aria-label': 'Sections' },
      h('a', { href: '#map', text: 'Map' }),
      h('a', { href: '#rules', text: 'Rules' }),
      h('a', { href: '#problems', text: `Problems (${fmt(R.problems.length)})` }),
      h('a', { href: '#agents', text: 'Agents' }),
      h('a', { href: '#sessions', text: 'Sessions' }),
    ),
  )

  // ---- map ----
  const crumbs = h('div', { class: 'crumbs', 'aria-label': 'Zoomed folder' })
  const ice = h('div', {
    class: 'icicle',
    id: 'icicle',
    role: 'tree',
    tabindex: '0',
    'aria-label': 'The repository by folder: width is files, colour is the chosen measure. Arrow keys move, Enter zooms in, Escape zooms out.',
  })
  const legend = h('div', { class: 'legend' })
  const folderPanel = h('div', { class: 'panel', id: 'folder', 'aria-live': 'polite' })
  const mode = h(
    'select',
    { id: 'mode', 'aria-label': 'Colour by', onchange: () => { state.mode = mode.value; drawMap() } },
    h('option', { value: 'coverage', text: 'Colour by coverage (share of files a path rule governs)' }),
    h('option', { value: 'cost', text: 'Colour by cost (tokens of the costliest file)' }),
    h('option', { value: 'rule', text: 'Colour by the selected rule (share of files it governs)' }),
  )
  app.append(
    h('h2', { id: 'map', text: 'Where the rules apply' }),
    h('p', { class: 'help', text: 'Each box is a folder, as wide as its share of the files. Select one to see the rules that apply in it and what a conversation that touches it is given.' }),
    h('div', { class: 'controls' }, mode, legend),
    crumbs,
    h('div', { class: 'split' }, ice, folderPanel),
  )

  function colour(share) {
    const s = Math.max(0, Math.min(1, share))
    if (state.mode === 'cost') return `hsl(${40 - 40 * s}, 85%, ${92 - 45 * s}%)`
    if (state.mode === 'rule') return `hsl(280, 60%, ${95 - 50 * s}%)`
    return `hsl(210, 75%, ${95 - 50 * s}%)`
  }
  function measure(f) {
    if (state.mode === 'cost') return f.max / maxTokens
    if (state.mode === 'rule') {
      if (state.rule == null) return 0
      const hit = f.rules.find((r) => r[0] === state.rule)
      return hit ? hit[1] / Math.max(1, f.files) : 0
    }
    return f.governed / Math.max(1, f.files)
  }
  function filesHere(f) {
    const e = f.entries
    let governed = 0, max = 0, ruleN = 0
    for (const [, s] of e) {
      if (R.sets[s].length) governed++
      max = Math.max(max, R.set_tokens[s])
      if (state.rule != null && R.sets[s].includes(state.rule)) ruleN++
    }
    return { name: `${fmt(e.length)} files here`, files: e.length, governed, max, ruleN, isFiles: true, owner: f }
  }
  function drawMap() {
    ice.textContent = ''
    const width = ice.clientWidth || 600
    const rowH = 26
    let rows = 0
    const place = (f, depth, x0, x1) => {
      rows = Math.max(rows, depth + 1)
      const w = x1 - x0
      let share
      if (f.isFiles) {
        share = state.mode === 'cost' ? f.max / maxTokens : state.mode === 'rule' ? f.ruleN / Math.max(1, f.files) : f.governed / Math.max(1, f.files)
      } else {
        share = measure(f)
      }
      const el = h('div', {
        class: 'cell' + (f.isFiles ? ' files' : '') + (f === state.sel ? ' sel' : ''),
        id: f.isFiles ? null : 'folder-' + f.id,
        role: f.isFiles ? 'none' : 'treeitem',
        'aria-selected': f.isFiles ? null : String(f === state.sel),
        'aria-label': f.isFiles ? null : `${f.path || '(root)'}: ${plural(f.files, 'file', 'files')}, ${pct(f.governed, f.files)} governed, ${fmt(f.tokens)} tokens`,
        title: f.isFiles ? `${f.name} in ${f.owner.path || '(root)'}` : `${f.path || '(root)'}/\n${plural(f.files, 'file', 'files')}, ${pct(f.governed, f.files)} governed by a path rule\n${fmt(f.tokens)} tokens to touch all; costliest file ${fmt(f.max)}`,
        style: `left:${x0 * 100}%;width:${w * 100}%;top:${depth * rowH}px;height:${rowH}px;background:${colour(share)}`,
        text: f.isFiles ? f.name : depth === 0 ? (f.path || '(root)') + '/' : f.name,
      })
      if (!f.isFiles) el.addEventListener('click', () => { select(f); if (f.folders.length) zoomTo(f) })
      ice.append(el)
      if (f.isFiles || depth >= 6) return
      const kids = f.folders.slice()
      if (f.entries.length) kids.push(filesHere(f))
      let x = x0
      for (const k of kids) {
        const kw = (w * k.files) / Math.max(1, f.files)
        if (kw * width >= 3) place(k, depth + 1, x, x + kw)
        x += kw
      }
    }
    place(state.zoom, 0, 0, 1)
    ice.style.height = rows * rowH + 2 + 'px'
    ice.setAttribute('aria-activedescendant', 'folder-' + state.sel.id)
    crumbs.textContent = ''
    const chain = []
    for (let f = state.zoom; f; f = f.parent) chain.unshift(f)
    chain.forEach((f, i) => {
      if (i) crumbs.append(h('span', { class: 'sep', text: ' / ' }))
      crumbs.append(h('button', { type: 'button', text: f.parent ? f.name : '(root)', onclick: () => { zoomTo(f); select(f) } }))
    })
    legend.textContent = ''
    const label = state.mode === 'cost' ? `0 to ${fmt(maxTokens)} tokens` : state.mode === 'rule' ? (state.rule == null ? 'select a rule below' : R.rules[state.rule].id + ': 0 to 100% of files') : '0 to 100% of files governed'
    legend.append(h('span', { class: 'ramp', style: `background:linear-gradient(90deg,${colour(0)},${colour(1)})` }), h('span', { text: label }))
  }
  function zoomTo(f) { state.zoom = f; drawMap() }
  function select(f) {
    state.sel = f
    let inside = false
    for (let p = f; p; p = p.parent) if (p === state.zoom) inside = true
    if (!inside) state.zoom = f.parent || f
    drawMap()
    showFolder(f)
  }
  ice.addEventListener('keydown', (e) => {
    const f = state.sel
    const sib = f.parent ? f.parent.folders : [f]
    const at = sib.indexOf(f)
    let next = null
    if (e.key === 'ArrowDown') next = f.folders[0]
    else if (e.key === 'ArrowUp') next = f.parent
    else if (e.key === 'ArrowRight') next = sib[at + 1]
    else if (e.key === 'ArrowLeft') next = sib[at - 1]
    else if (e.key === 'Home') next = R.tree
    else if (e.key === 'Enter') { if (f.folders.length) zoomTo(f); e.preventDefault(); return }
    else if (e.key === 'Escape' || e.key === 'Backspace') { if (state.zoom.parent) { zoomTo(state.zoom.parent) } e.preventDefault(); return }
    else return
    e.preventDefault()
    if (next) select(next)
  })
  new ResizeObserver(() => drawMap()).observe(ice)

  function showFolder(f) {
    folderPanel.textContent = ''
    folderPanel.append(
      h('h3', { class: 'mono', text: (f.path || '(root)') + '/' }),
      h('dl', { class: 'facts' },
        h('dt', { text: 'Files' }), h('dd', { 'data-folder': 'files', text: fmt(f.files) }),
        h('dt', { text: 'Governed by a path rule' }), h('dd', { 'data-folder': 'governed', text: `${fmt(f.governed)} (${pct(f.governed, f.files)})` }),
        h('dt', { text: 'Tokens to touch every file' }), h('dd', { 'data-folder': 'tokens', text: fmt(f.tokens) }),
        h('dt', { text: 'Costliest file' }), h('dd', { 'data-folder': 'max', text: fmt(f.max) + ' tokens' }),
      ),
    )
    if (f.rules.length) {
      const body = h('tbody')
      for (const [r, n] of f.rules.slice().sort((a, b) => b[1] - a[1] || a[0] - b[0])) {
        body.append(h('tr', {}, h('td', {}, ruleButton(r)), h('td', { class: 'num', text: fmt(n) }), h('td', { class: 'num', text: fmt(R.rules[r].tokens) })))
      }
      folderPanel.append(h('h3', { text: 'Path rules that apply here' }), h('table', {}, h('thead', {}, h('tr', {}, h('th', { text: 'Rule' }), h('th', { class: 'num', text: 'Files here' }), h('th', { class: 'num', text: 'Tokens' }))), body))
    } else {
      folderPanel.append(h('p', { class: 'muted', text: 'No path rule applies to a file here: only the always-on rules.' }))
    }
    if (f.entries.length) {
      const body = h('tbody')
      for (const [name, s] of f.entries.slice(0, 300)) {
        body.append(h('tr', {}, h('td', { class: 'mono', text: name }), h('td', { class: 'num', text: fmt(R.set_tokens[s]) }), h('td', {}, R.sets[s].length ? R.sets[s].map((r) => R.rules[r].id).join(', ') : h('span', { class: 'muted', text: 'always-on only' }))))
      }
      folderPanel.append(
        h('h3', { text: `Files directly here (${fmt(f.entries.length)})` }),
        h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, h('tr', {}, h('th', { text: 'File' }), h('th', { class: 'num', text: 'Tokens' }), h('th', { text: 'Path rules' }))), body)),
      )
      if (f.entries.length > 300) folderPanel.append(h('p', { class: 'muted', text: `and ${fmt(f.entries.length - 300)} more (every file is in --json)` }))
    }
  }

  // ---- rules ----
  const maxReach = Math.max(1, ...R.rules.map((r) => r.reach))
  const maxRuleTokens = Math.max(1, ...R.rules.map((r) => r.tokens))
  const list = h('ul', { class: 'rules-list', role: 'listbox', id: 'rules-list', 'aria-label': 'Rules: arrow keys move, the selected rule is shown beside' })
  const rulePanel = h('div', { class: 'panel', id: 'rule', 'aria-live': 'polite' }, h('p', { class: 'muted', text: 'Select a rule to see where it applies, what it costs, what each agent keeps and when it was given.' }))
  const filter = h('input', { type: 'search', id: 'rule-filter', placeholder: 'Filter by id, kind, path or topic', 'aria-label': 'Filter rules', oninput: () => fillList() })
  const sort = h('select', { 'aria-label': 'Order rules', onchange: () => fillList() },
    h('option', { value: 'order', text: 'In result order' }),
    h('option', { value: 'weight', text: 'By files governed x tokens' }),
    h('option', { value: 'tokens', text: 'By tokens' }),
    h('option', { value: 'reach', text: 'By files governed' }),
  )
  app.append(
    h('h2', { id: 'rules', text: `Rules (${fmt(R.rules.length)})` }),
    h('p', { class: 'help', text: 'Blue: the files of this tree the rule governs (every file for an always-on rule). Orange: the tokens it adds to a conversation.' }),
    h('div', { class: 'controls' }, filter, sort),
    h('div', { class: 'split' }, list, rulePanel),
  )
  let options = []
  function fillList() {
    const q = filter.value.trim().toLowerCase()
    let idx = R.rules.map((_, i) => i)
    if (q) idx = idx.filter((i) => { const r = R.rules[i]; return [r.id, r.kind, r.file, ...r.paths, ...r.topics].some((s) => s.toLowerCase().includes(q)) })
    const by = sort.value
    if (by !== 'order') idx.sort((a, b) => { const x = R.rules[a], y = R.rules[b]; const k = (r) => (by === 'tokens' ? r.tokens : by === 'reach' ? r.reach : r.reach * r.tokens); return k(y) - k(x) || a - b })
    list.textContent = ''
    list.append(h('li', { class: 'head', role: 'presentation' }, h('span', { text: 'Rule' }), h('span', { text: 'Kind' }), h('span', { text: 'Files governed' }), h('span', { text: 'Tokens' })))
    options = idx.map((i) => {
      const r = R.rules[i]
      const li = h('li', {
        role: 'option', id: 'rule-' + i, tabindex: '-1', 'data-rule': i, 'data-rule-id': r.id,
        'aria-selected': String(state.rule === i),
        onclick: () => chooseRule(i, true),
      },
      h('span', { class: 'rid mono', title: r.id, text: r.id }),
      h('span', { class: 'kind', title: r.kind, text: r.kind }),
      h('span', { class: 'bar' }, h('span', { class: 'n-reach', text: fmt(r.reach) }), h('i', { class: 'reach', style: `width:${(100 * r.reach) / maxReach}%` })),
      h('span', { class: 'bar' }, h('span', { class: 'n-tokens', text: fmt(r.tokens) }), h('i', { class: 'cost', style: `width:${(100 * r.tokens) / maxRuleTokens}%` })),
      )
      return li
    })
    list.append(...options)
    const current = options.find((o) => Number(o.dataset.rule) === state.rule) || options[0]
    if (current) current.tabIndex = 0
  }
  list.addEventListener('keydown', (e) => {
    const at = options.indexOf(document.activeElement)
    let to = null
    if (e.key === 'ArrowDown') to = Math.min(options.length - 1, at + 1)
    else if (e.key === 'ArrowUp') to = Math.max(0, at - 1)
    else if (e.key === 'Home') to = 0
    else if (e.key === 'End') to = options.length - 1
    else if (e.key === 'PageDown') to = Math.min(options.length - 1, at + 10)
    else if (e.key === 'PageUp') to = Math.max(0, at - 10)
    else return
    e.preventDefault()
    if (to >= 0 && options[to]) chooseRule(Number(options[to].dataset.rule), true)
  })
  function chooseRule(i, focus) {
    state.rule = i
    for (const o of options) {
      const on = Number(o.dataset.rule) === i
      o.setAttribute('aria-selected', String(on))
      o.tabIndex = on ? 0 : -1
      if (on && focus) { o.focus(); o.scrollIntoView({ block: 'nearest' }) }
    }
    list.setAttribute('aria-activedescendant', 'rule-' + i)
    showRule(i)
    if (state.mode === 'rule') drawMap()
  }
  function ruleButton(i) {
    return h('button', { type: 'button', class: 'linkish mono', text: R.rules[i].id, onclick: () => { chooseRule(i, true); document.getElementById('rules').scrollIntoView() } })
  }
  const points = (x) => `${x >= 0 ? '+' : ''}${Math.round(x * 100)}`
  function effectText(e) {
    if (!e) return 'not measured (wave-rules eval)'
    return `${points(e.uplift)} points (95% interval ${points(e.interval[0])} to ${points(e.interval[1])}): passed ${e.with[0]}/${e.with[1]} with it, ${e.without[0]}/${e.without[1]} without; ${e.agent}${e.model ? ' ' + e.model : ''}, scenario ${e.scenario}, ${new Date(e.measured * 1000).toISOString().slice(0, 10)}`
  }
  const given = new Map(R.sessions.by_rule.map(([i, times, tokens]) => [i, { times, tokens }]))
  const never = new Set(R.sessions.never_fired)
  function showRule(i) {
    const r = R.rules[i]
    rulePanel.textContent = ''
    const chips = (xs) => h('div', { class: 'chips' }, xs.map((x) => h('code', { text: x })))
    const g = given.get(i)
    rulePanel.append(
      h('h3', { class: 'mono', text: r.id }),
      h('dl', { class: 'facts' },
        h('dt', { text: 'File' }), h('dd', { class: 'mono', text: r.file }),
        h('dt', { text: 'Scope, format' }), h('dd', { text: `${r.scope}, ${r.format}` + (r.pack ? `, from ${r.pack}` : '') + (r.locked ? ' (policy: locked)' : '') }),
        h('dt', { text: 'Activation' }), h('dd', { text: r.kind }),
        h('dt', { text: 'Tokens' }), h('dd', { 'data-rule-field': 'tokens', text: `${fmt(r.tokens)} (${fmt(r.bytes)} bytes)` }),
        h('dt', { text: 'Measured effect' }), h('dd', { 'data-rule-field': 'effect', text: effectText(r.effect) }),
        h('dt', { text: 'Files governed' }), h('dd', { 'data-rule-field': 'reach', text: `${fmt(r.reach)} of ${fmt(T.files)}` }),
        r.paths.length ? [h('dt', { text: 'Paths' }), h('dd', {}, chips(r.paths))] : null,
        r.topics.length ? [h('dt', { text: 'Topics' }), h('dd', {}, chips(r.topics))] : null,
        r.description ? [h('dt', { text: 'Description' }), h('dd', { text: r.description })] : null,
        h('dt', { text: 'Delivered' }), h('dd', { text: g ? `${plural(g.times, 'time', 'times')}, ${fmt(g.tokens)} tokens (30 days)` + (never.has(i) ? `; in none of the last ${R.sessions.window} sessions` : '') : R.sessions.sessions.length ? 'never, in the logged sessions' : 'no session logged' }),
      ),
      h('button', { type: 'button', class: 'linkish', text: 'Show on the map', onclick: () => { state.mode = 'rule'; mode.value = 'rule'; drawMap(); document.getElementById('map').scrollIntoView() } }),
    )
    if (r.problems.length) {
      rulePanel.append(h('h3', { text: 'Problems' }), h('ul', {}, r.problems.map((p) => h('li', { class: 'sev-' + R.problems[p].severity, text: `${R.problems[p].kind}: ${R.problems[p].message}` }))))
    }
    const rows = R.agents.map((a) => {
      const x = a.rules[i]
      if (!x) return h('tr', {}, h('td', { text: a.tool }), h('td', { class: 'muted', text: 'not exported (a user rule)' }), h('td'), h('td'))
      return h('tr', {}, h('td', { text: a.tool }), h('td', { class: 'st-' + x.status, text: statusWord(x.status) + (x.kind ? ': ' + x.kind : '') }), h('td', { class: 'num', text: x.status === 'skipped' ? '' : fmt(x.reach) }), h('td', { class: 'muted', text: x.notes.join(' ') }))
    })
    rulePanel.append(h('h3', { text: 'What each agent keeps' }), h('table', {}, h('thead', {}, h('tr', {}, h('th', { text: 'Agent' }), h('th', { text: 'Kept as' }), h('th', { class: 'num', text: 'Files' }), h('th', { text: 'Notes' }))), h('tbody', {}, rows)))
  }
  const statusWord = (s) => ({ kept: 'kept', lossy: 'closer form', skipped: 'left out', native: 'its own file' })[s] || s

  // ---- problems ----
  app.append(h('h2', { id: 'problems', text: `Problems (${fmt(R.problems.length)})` }))
  if (!R.problems.length) app.append(h('p', { class: 'muted', text: 'No problem found.' }))
  else {
    const body = h('tbody')
    for (const p of R.problems) {
      body.append(h('tr', { 'data-kind': p.kind }, h('td', { class: 'sev-' + p.severity, text: p.severity }), h('td', { text: p.kind }), h('td', { class: 'mono', text: p.file + (p.line ? ':' + p.line : '') }), h('td', { text: p.message }), h('td', {}, p.rules.map((r) => ruleButton(r)))))
    }
    app.append(h('div', { class: 'scroll' }, h('table', { id: 'problems-table' }, h('thead', {}, h('tr', {}, h('th', { text: 'Severity' }), h('th', { text: 'Kind' }), h('th', { text: 'Where' }), h('th', { text: 'What' }), h('th', { text: 'Rules' }))), body)))
  }

  // ---- agents ----
  app.append(
    h('h2', { id: 'agents', text: 'What each agent keeps' }),
    h('p', { class: 'help', text: 'From the same code as `wave-rules export`: each target\'s files read back by our reader for that tool. "Closer form": the tool cannot express the rule exactly and gets the closest form that never fires more widely. "Left out": the tool cannot express it safely.' }),
  )
  const sumBody = h('tbody')
  for (const a of R.agents) {
    sumBody.append(h('tr', { 'data-target': a.target }, h('td', { text: a.tool }), h('td', { class: 'num', text: fmt(a.kept) }), h('td', { class: 'num', text: fmt(a.lossy) }), h('td', { class: 'num', text: fmt(a.skipped) }), h('td', { class: 'num', text: fmt(a.native) }), h('td', { class: 'num', 'data-agent-field': 'always_tokens', text: fmt(a.always_tokens) })))
  }
  app.append(h('table', { class: 'agents' }, h('thead', {}, h('tr', {}, h('th', { text: 'Agent' }), h('th', { class: 'num', text: 'Kept' }), h('th', { class: 'num', text: 'Closer form' }), h('th', { class: 'num', text: 'Left out' }), h('th', { class: 'num', text: 'Its own files' }), h('th', { class: 'num', text: 'Always-on tokens there' }))), sumBody))
  const mark = { kept: '✓', lossy: '≈', skipped: '✗', native: '●' }
  const head = h('tr', {}, h('th', { text: 'Rule' }), R.agents.map((a) => h('th', { text: a.target })))
  const matrix = h('tbody')
  R.rules.forEach((r, i) => {
    matrix.append(h('tr', {}, h('td', {}, ruleButton(i)), R.agents.map((a) => {
      const x = a.rules[i]
      if (!x) return h('td', { class: 'muted', text: '–', title: 'not exported (a user rule)' })
      return h('td', { class: 'st-' + x.status, title: statusWord(x.status) + (x.file ? ' → ' + x.file : '') + (x.notes.length ? '\n' + x.notes.join('\n') : '') }, `${mark[x.status]} ${x.kind || statusWord(x.status)}`)
    })))
  })
  app.append(h('h3', { text: 'Rule by rule (✓ kept, ≈ closer form, ✗ left out, ● its own file)' }), h('div', { class: 'scroll' }, h('table', { class: 'agents' }, h('thead', {}, head), matrix)))

  // ---- sessions ----
  const S = R.sessions
  app.append(h('h2', { id: 'sessions', text: 'Sessions: what was given' }))
  if (!S.enabled) app.append(h('p', { class: 'muted', text: 'The delivery log is off (WAVE_RULES_LOG).' }))
  app.append(h('p', { class: 'help' }, `From the delivery log (${S.log}), this project only, the last 30 days: ${plural(S.sessions.length, 'session', 'sessions')}, ${plural(S.deliveries, 'delivery', 'deliveries')}, ${fmt(S.tokens)} tokens.`))
  if (S.sessions.length) {
    app.append(h('h3', { text: `Rules given in none of the last ${plural(Math.min(S.window, S.sessions.length), 'session', 'sessions')} (${fmt(S.never_fired.length)})` }))
    app.append(S.never_fired.length ? h('div', { class: 'chips', id: 'never-fired' }, S.never_fired.map((i) => ruleButton(i))) : h('p', { class: 'muted', text: 'Every rule was given at least once.' }))
    const top = Math.max(1, ...S.by_rule.map((x) => x[2]))
    const byRule = h('tbody')
    for (const [i, times, tokens] of S.by_rule) {
      byRule.append(h('tr', {}, h('td', {}, ruleButton(i)), h('td', { class: 'num', text: fmt(times) }), h('td', {}, h('span', { class: 'bar' }, h('span', { text: fmt(tokens) }), h('i', { class: 'cost', style: `width:${(100 * tokens) / top}%` })))))
    }
    for (const [id, times, tokens] of S.gone) byRule.append(h('tr', {}, h('td', { class: 'mono muted', text: id + ' (no longer loaded)' }), h('td', { class: 'num', text: fmt(times) }), h('td', { class: 'num', text: fmt(tokens) })))
    app.append(h('h3', { text: 'Rules by tokens delivered' }), h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, h('tr', {}, h('th', { text: 'Rule' }), h('th', { class: 'num', text: 'Times given' }), h('th', { text: 'Tokens' }))), byRule)))
    const ses = h('tbody')
    for (const s of S.sessions.slice().sort((a, b) => b.rules - a.rules || b.tokens - a.tokens || b.last - a.last)) {
      ses.append(h('tr', { 'data-session': s.session }, h('td', { class: 'mono', text: s.session }), h('td', { text: s.agent }), h('td', { text: when(s.first) }), h('td', { text: when(s.last) }), h('td', { class: 'num', text: fmt(s.deliveries) }), h('td', { class: 'num', text: fmt(s.rules) }), h('td', { class: 'num', text: fmt(s.tokens) })))
    }
    app.append(h('h3', { text: 'Sessions by rules given' }), h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, h('tr', {}, h('th', { text: 'Session' }), h('th', { text: 'Agent' }), h('th', { text: 'First' }), h('th', { text: 'Last' }), h('th', { class: 'num', text: 'Deliveries' }), h('th', { class: 'num', text: 'Rules' }), h('th', { class: 'num', text: 'Tokens' }))), ses)))
  }
  if (S.problems.length) app.append(h('p', { class: 'sev-warning', text: `${plural(S.problems.length, 'log line', 'log lines')} could not be read.` }))

  fillList()
  drawMap()
  showFolder(R.tree)
  void folders
}

/** Gives every folder an id, its parent and its path; returns them in order. */
function index(root) {
  const all = []
  const stack = [[root, null, '']]
  while (stack.length) {
    const [f, parent, path] = stack.pop()
    f.id = all.length
    f.parent = parent
    f.path = path
    all.push(f)
    for (let i = f.folders.length - 1; i >= 0; i--) {
      const c = f.folders[i]
      stack.push([c, f, path ? path + '/' + c.name : c.name])
    }
  }
  return all
}
