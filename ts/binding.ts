/**
 * Loads the engine: the loader `napi build` generates (../index.js), which
 * picks the prebuilt binary package for this platform or, failing that, the
 * WebAssembly (WASI) fallback. The loader stays generated; this file only
 * adds what the package promises around it:
 *
 * - `NAPI_RS_FORCE_WASI=1` forces the WASI build, as `true` does (the
 *   generated loader only knows `true` and `error`).
 * - When nothing can be loaded, the error names the platform, the
 *   architecture (and the libc on Linux), the packages tried and what to do,
 *   instead of the loader's generic "Cannot find native binding".
 *
 * The package entry imports this module first, so this error is the one a
 * user sees whichever part of the package is loaded.
 */
import type * as Native from '../index'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const pkg: { name: string; version: string; optionalDependencies?: Record<string, string> } = require('../package.json')

/** The C library of a Linux host: `glibc 2.36`, `musl`, or undefined elsewhere. */
export function hostLibc(): string | undefined {
  if (process.platform !== 'linux') return undefined
  try {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string }; sharedObjects?: string[] } | undefined
    const glibc = report?.header?.glibcVersionRuntime
    if (glibc) return `glibc ${glibc}`
    if (report?.sharedObjects?.some((f) => f.includes('musl'))) return 'musl'
  } catch {
    // fall through: the report is optional (Node can be built without it)
  }
  return 'unknown libc'
}

/** The binary packages that could serve this host, then the WASI fallback. */
export function candidatePackages(): string[] {
  const all = Object.keys(pkg.optionalDependencies ?? {})
  const prefix = `${pkg.name}-${process.platform}-${process.arch}`
  const libc = hostLibc()
  const native = all.filter((name) => {
    if (name !== prefix && !name.startsWith(prefix + '-')) return false
    if (libc === 'musl') return name.endsWith('-musl')
    if (libc?.startsWith('glibc')) return name.endsWith('-gnu')
    return true
  })
  return [...native, ...all.filter((name) => name.endsWith('-wasm32-wasi'))]
}

function causes(error: unknown): string[] {
  const out: string[] = []
  for (let e: unknown = error, n = 0; e && n < 20; e = (e as { cause?: unknown }).cause, n++) {
    const message = (e instanceof Error ? e.message : String(e)).split('\n')[0]
    // The loader's own summary points at an npm bug; this error replaces it.
    if (!message.startsWith('Cannot find native binding')) out.push(message)
  }
  return out
}

/** The message for "no binary and no fallback could be loaded". */
export function loadErrorMessage(error: unknown): string {
  const libc = hostLibc()
  const host = `${process.platform} ${process.arch}${libc ? ` (${libc})` : ''}, Node ${process.version}`
  const tried = candidatePackages()
  const wasi = tried.find((name) => name.endsWith('-wasm32-wasi')) ?? `${pkg.name}-wasm32-wasi`
  const lines = [
    `${pkg.name}: could not load the engine on ${host}.`,
    tried.length > 1
      ? `Tried the packages ${tried.join(', ')} (and the binaries next to the loader).`
      : `No prebuilt binary matches ${process.platform} ${process.arch}; tried ${tried.join(', ') || 'no package'}.`,
    'To fix it:',
    `- install with optional dependencies on (not --omit=optional / --no-optional), e.g. remove node_modules and the lockfile and run \`npm install\` again, so npm fetches the package for this platform;`,
    `- or use the WebAssembly fallback: \`npm install ${wasi}@${pkg.version} --cpu=wasm32\` (Node ^20.19, ^22.13 or >=23.5), set NAPI_RS_FORCE_WASI=1 to prefer it;`,
    '- a bundled program needs the binding next to it: see "Bundling" in docs/platforms.md.',
    'What the loader reported:',
    ...causes(error).map((line) => `  ${line}`),
  ]
  return lines.join('\n')
}

function load(): typeof Native {
  if (process.env.NAPI_RS_FORCE_WASI === '1') process.env.NAPI_RS_FORCE_WASI = 'true'
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('../index.js')
  } catch (error) {
    const wrapped = new Error(loadErrorMessage(error)) as Error & { code?: string; cause?: unknown }
    wrapped.code = 'ERR_WAVE_MEMORY_RULES_LOAD'
    // The loader's reasons, without its summary (which this one replaces).
    const summary = error instanceof Error && error.message.startsWith('Cannot find native binding')
    wrapped.cause = summary ? (error as { cause?: unknown }).cause : error
    throw wrapped
  }
}

/** The native (or WASI) module: `RuleEngine`, `NativeMemoryStore`, `runCli`, ... */
export const native: typeof Native = load()

/** Which artifact loaded: `native` or `wasm32-wasi`. */
export const bindingTarget: string = (native as { __napiBindingTarget?: string }).__napiBindingTarget ?? 'native'

/**
 * Gives the WASI build this process's working directory (it has none of its
 * own); call again after `process.chdir`. A no-op for the native build.
 */
export function syncWorkingDir(): void {
  if (bindingTarget !== 'native') native.setWorkingDir(process.cwd())
}

syncWorkingDir()

// Telemetry (docs/telemetry.md): the records this process holds are spooled
// every 500 ms, and the last ones here, when it exits; the next road that
// ships (this process's thread, a hook's shipper) sends them.
process.once('exit', () => {
  try {
    native.flushTelemetry?.()
  } catch {
    // never in the way of the process's exit
  }
})
