// The package-side hostile inputs of issue 9 (findings 6, 8, 10, 13), timed
// in process. Run under /usr/bin/time -v for the peak memory:
//   /usr/bin/time -v node scripts/measure-hostile.mjs 8
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'

const { RuleManager, MemoryStore } = createRequire(import.meta.url)('..')
const which = process.argv[2]
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wave-hostile-'))
const workdir = path.join(root, 'p')
const homeDir = path.join(root, 'h')
const rules = path.join(workdir, '.wave/rules')
fs.mkdirSync(rules, { recursive: true })
fs.mkdirSync(homeDir, { recursive: true })
const ms = (t) => `${(performance.now() - t).toFixed(1)} ms`

try {
  if (which === '8') {
    // 1,000 topics that all overlap: a, aa, ... (250 of them, up to the
    // topic length limit) and the same followed by b, c, d.
    for (let n = 0; n < 1000; n++) {
      const topic = 'a'.repeat(1 + (n % 250)) + (n < 250 ? '' : 'abcd'[Math.floor(n / 250)])
      fs.writeFileSync(path.join(rules, `t${n}.md`), `---\ntopics: ${topic}\n---\nx`)
    }
    const m = new RuleManager({ workdir, homeDir })
    await m.discoverRules()
    const prompt = 'a'.repeat(1 << 20)
    let t = performance.now()
    const active = m.getActiveRules([], prompt)
    console.log(`finding 8: 1,000 topics x 1 MB prompt: ${active.length} active in ${ms(t)}`)
    t = performance.now()
    const words = m.getActiveRules([], 'a '.repeat(1 << 19))
    console.log(`finding 8: 1,000 topics x 1 MB of 'a ': ${words.length} active in ${ms(t)}`)
  } else if (which === '6') {
    const text = (k, v) => `---\npaths: d${k}/**\n---\nrule ${k} v${v}`
    for (let k = 0; k < 12; k++) fs.writeFileSync(path.join(rules, `r${k}.md`), text(k, 0))
    const m = new RuleManager({ workdir, homeDir })
    await m.discoverRules()
    let stop = false, wrong = 0, undef = 0, calls = 0, reloads = 0
    const t = performance.now()
    const loops = Array.from({ length: 4 }, async () => { while (!stop) { await m.reload(); reloads++ } })
    const churn = (async () => { for (let i = 0; !stop; i++) { const f = path.join(rules, `r${i % 12}.md`); if (i % 3 === 0) fs.rmSync(f, { force: true }); else { fs.writeFileSync(f + '.tmp', text(i % 12, i)); fs.renameSync(f + '.tmp', f) } await new Promise((r) => setImmediate(r)) } })()
    for (let i = 0; i < 200000; i++) {
      const k = i % 12
      for (const r of m.getActiveRules([`d${k}/x`], 'p')) { calls++; if (!r) undef++; else if (r.metadata.paths?.[0] !== `d${k}/**`) wrong++ }
      if (i % 20 === 0) await new Promise((r) => setImmediate(r))
    }
    stop = true
    await Promise.all([...loops, churn])
    console.log(`finding 6: ${calls} results, ${wrong} wrong, ${undef} undefined, ${reloads} reloads, in ${ms(t)}`)
  } else if (which === '10') {
    const store = new MemoryStore({ workdir, homeDir })
    let t = performance.now()
    const err = await store.writeTopic('project', 'big', 'x'.repeat(50 << 20)).catch((e) => e.message)
    console.log(`finding 10: 50 MB topic write: ${String(err).slice(0, 90)} (${ms(t)})`)
    for (let i = 0; i < 8; i++) await store.writeTopic('project', `t${i}`, 'y'.repeat(250 * 1024))
    fs.writeFileSync(path.join(store.projectDir, 't0.md'), 'z'.repeat(50 << 20))
    t = performance.now()
    const text = await store.loadForPrompt({ maxLines: 120 })
    console.log(`finding 10: loadForPrompt({ maxLines: 120 }) over 8 big topics (one 50 MB behind our back): ${text.length} characters (${ms(t)})`)
  } else if (which === '13') {
    const store = new MemoryStore({ workdir, homeDir })
    await store.writeTopic('project', 'a', 'x')
    const holder = spawn('python3', ['-c', `import fcntl,sys,time\nf=open(sys.argv[1],'w')\nfcntl.flock(f,fcntl.LOCK_EX)\nprint('held',flush=True)\ntime.sleep(30)`, path.join(store.projectDir, '.lock')])
    await new Promise((r) => holder.stdout.once('data', r))
    let ticks = 0
    const timer = setInterval(() => ticks++, 10)
    const t = performance.now()
    const err = await store.writeTopic('project', 'a', 'y').catch((e) => e.message)
    clearInterval(timer)
    holder.kill()
    console.log(`finding 13: writeTopic with the lock held elsewhere: rejected after ${ms(t)} ("${String(err).slice(0, 80)}..."); event loop ticked ${ticks} times meanwhile`)
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}
