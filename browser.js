export * from 'wave-memory-rules-wasm32-wasi'
