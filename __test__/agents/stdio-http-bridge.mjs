// A small Streamable HTTP front for a stdio MCP server, for the official
// conformance suite (it speaks HTTP only). One child per bridge; each POST
// body is written to the child's stdin as one line, and the answers with the
// ids it carried come back as one JSON body. Messages the child sends on its
// own (notifications) are dropped: the suite does not open a GET stream here.
// Loopback only; every wait is bounded.
import http from 'node:http'
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'

const ANSWER_TIMEOUT_MS = 10_000

export async function startBridge(command, args, options = {}) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], ...options })
  const waiting = new Map() // id (JSON) -> resolve
  const log = []
  let buffered = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk) => {
    buffered += chunk
    let nl
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl)
      buffered = buffered.slice(nl + 1)
      if (!line.trim()) continue
      log.push(['out', line])
      let msg
      try { msg = JSON.parse(line) } catch { continue }
      for (const m of Array.isArray(msg) ? msg : [msg]) {
        const key = JSON.stringify(m.id ?? null)
        const resolve = waiting.get(key)
        if (resolve && !('method' in m)) {
          waiting.delete(key)
          resolve(m)
        }
      }
    }
  })
  let stderr = ''
  child.stderr.on('data', (d) => { stderr += d })
  const session = randomUUID()

  const server = http.createServer(async (req, res) => {
    // DNS rebinding: only a loopback Host (and Origin, when sent) is served.
    const loopback = (value) => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(value ?? '')
    const origin = req.headers.origin
    if (!loopback(req.headers.host) || (origin && !loopback(origin.replace(/^https?:\/\//, '')))) {
      res.writeHead(403).end()
      return
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end()
      return
    }
    let body = ''
    for await (const chunk of req) body += chunk
    let msg
    try { msg = JSON.parse(body) } catch {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }))
      return
    }
    const items = Array.isArray(msg) ? msg : [msg]
    const requests = items.filter((m) => m && typeof m === 'object' && 'method' in m && 'id' in m)
    const answers = requests.map((m) => new Promise((resolve) => {
      const key = JSON.stringify(m.id)
      waiting.set(key, resolve)
      setTimeout(() => {
        if (waiting.delete(key)) resolve({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'bridge: no answer in time' } })
      }, ANSWER_TIMEOUT_MS)
    }))
    log.push(['in', body])
    child.stdin.write(JSON.stringify(msg) + '\n')
    if (requests.length === 0) {
      res.writeHead(202, { 'mcp-session-id': session }).end()
      return
    }
    const got = await Promise.all(answers)
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': session })
    res.end(JSON.stringify(Array.isArray(msg) ? got : got[0]))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}/mcp`
  return {
    url,
    log,
    stderr: () => stderr,
    async close() {
      server.close()
      child.stdin.end()
      await new Promise((resolve) => {
        const t = setTimeout(() => { child.kill(); resolve() }, 3000)
        child.on('exit', () => { clearTimeout(t); resolve() })
      })
    },
  }
}
