//! The working directory and typed arrays of the WebAssembly (WASI) build.

use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Makes `dir` the working directory of the WASI build, which has none of
/// its own (it starts at `/`): relative paths in `runCli` arguments and
/// relative workdirs then mean what they mean to the caller. The package's
/// loader calls it with `process.cwd()`. Natively a no-op: the engine shares
/// the process's working directory.
#[napi(catch_unwind)]
pub fn set_working_dir(dir: String) -> Result<()> {
    shim::set_working_dir(&dir)
        .map_err(|e| Error::from_reason(format!("cannot use {dir} as the working directory: {e}")))
}

/// What the WebAssembly (WASI) build needs that the native one does not.
pub(crate) mod shim {
    use napi::bindgen_prelude::*;

    #[cfg(target_family = "wasm")]
    extern "C" {
        // emnapi's (linked into every napi-rs WASI build).
        fn emnapi_sync_memory(
            env: napi::sys::napi_env,
            js_to_wasm: bool,
            view: *mut napi::sys::napi_value,
            offset: usize,
            len: usize,
        ) -> napi::sys::napi_status;
    }

    /// Under WASI a typed array from JS is a copy in wasm memory (emnapi), so
    /// the `len` elements written into it are copied back to JS. Natively the
    /// slice is the JS memory itself: nothing to do.
    #[cfg(target_family = "wasm")]
    pub fn write_back(env: &Env, out: &Uint32ArraySlice, len: usize) {
        if len == 0 {
            return;
        }
        // SAFETY: `out` came from JS in this same synchronous call.
        if let Ok(mut raw) = unsafe { ToNapiValue::to_napi_value(env.raw(), out) } {
            unsafe {
                emnapi_sync_memory(
                    env.raw(),
                    false,
                    &mut raw,
                    0,
                    len * std::mem::size_of::<u32>(),
                )
            };
        }
    }

    #[cfg(not(target_family = "wasm"))]
    pub fn write_back(_: &Env, _: &Uint32ArraySlice, _: usize) {}

    #[cfg(target_family = "wasm")]
    pub fn set_working_dir(dir: &str) -> std::io::Result<()> {
        std::env::set_current_dir(dir)
    }

    #[cfg(not(target_family = "wasm"))]
    pub fn set_working_dir(_: &str) -> std::io::Result<()> {
        Ok(())
    }
}
