// `node bench/hook-ab.mjs ROUNDS NAME=BINARY[:VAR#VALUE,...][@RULES] ...`: builds
// of `wave-rules` side by side in one process, each hook event of
// bench/hook-project.mjs (a new session each round, after three warm rounds,
// so the saved rules are fresh and a watcher vouches) and `--version`, the
// configurations interleaved round by round; prints each cell's p50 and its
// ratio to the same configuration's `--version`. A configuration may set
// variables (`WAVE_RULES_WATCH#off`) and its project's rules (default 1,000).
// Each run is followed by a pause of $HOOK_AB_PAUSE_MS (default 20 ms), as an
// agent's events are apart: what a watcher does once a hook has exited (its
// spare session files) lands in no other run's time.
//   node bench/hook-ab.mjs 60 old=OLD/wave-rules new=target/release/wave-rules
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { hookEvents, writeRuleProject } from './hook-project.mjs'
const rounds = Number(process.argv[2])
const configs = process.argv.slice(3).map((a) => { const [name, rest0] = a.split('='); const [rest, nr] = rest0.split('@'); const [bin, kv] = rest.split(':'); return { name, n: Number(nr ?? 1000), bin: path.resolve(bin), env: kv ? Object.fromEntries(kv.split(',').map((x) => x.split('#'))) : {} } })
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-hook-ab-'))
configs.forEach((c, i) => { c.home = path.join(root, `home${i}`); fs.mkdirSync(c.home); c.work = path.join(root, `work${i}`); fs.mkdirSync(c.work); writeRuleProject(c.work, c.n) })
spawnSync('sleep', ['3'])
const events = hookEvents('WORK')
const input = (c, ev, s) => JSON.stringify({ ...ev[2], session_id: s, cwd: c.work, hook_event_name: ev[1] }).replaceAll('WORK', c.work)
const pauseMs = Number(process.env.HOOK_AB_PAUSE_MS ?? 20)
const pause = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pauseMs)
const run = (c, args, inp) => { const t = process.hrtime.bigint(); const r = spawnSync(c.bin, args, { cwd: c.work, env: { ...process.env, HOME: c.home, ...c.env }, input: inp }); const ms = Number(process.hrtime.bigint() - t) / 1e6; if (r.status !== 0) throw new Error(r.stderr.toString()); pause(); return ms }
for (const c of configs) for (let k = 0; k < 3; k++) { for (const ev of events) run(c, ['hook', ev[1]], input(c, ev, 'warm')); spawnSync('sleep', ['0.5']) }
const cells = [['--version', null], ...events.map((e) => [e[0], e])]
const times = cells.map(() => configs.map(() => []))
for (let r = 0; r < rounds; r++) cells.forEach(([, ev], ci) => {
  const order = configs.map((_, i) => (i + r) % configs.length)
  for (const i of order) times[ci][i].push(ev ? run(configs[i], ['hook', ev[1]], input(configs[i], ev, `s${r}`)) : run(configs[i], ['--version'], ''))
})
const p50 = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)] }
const v = configs.map((_, i) => p50(times[0][i]))
console.log(`load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; rounds ${rounds}; pause ${pauseMs} ms; p50 ms (ratio to the same config's --version)`)
console.log(`| cell | ${configs.map((c) => c.name).join(' | ')} |\n| --- |${configs.map(() => ' --- |').join('')}`)
cells.forEach(([name], ci) => console.log(`| ${name} | ${configs.map((_, i) => `${p50(times[ci][i]).toFixed(2)} (${(p50(times[ci][i]) / v[i]).toFixed(2)}x)`).join(' | ')} |`))
fs.rmSync(root, { recursive: true, force: true })
