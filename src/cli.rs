//! The `wave-rules` command line in this process (`runCli`, `runCliAsync`).

use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[napi(object)]
pub struct CliOutput {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

/// Runs the `wave-rules` command line (`args` without the program name) in
/// this process: the same code as the Rust binary, so the same output.
/// `stdin` is what a `hook <event>` reads as its standard input.
#[napi(catch_unwind)]
pub fn run_cli(args: Vec<String>, stdin: Option<Buffer>) -> CliOutput {
    let argv = std::iter::once("wave-rules".to_string()).chain(args);
    let out =
        wave_rules::run_with_input(argv, || Ok(stdin.map(|b| b.to_vec()).unwrap_or_default()));
    CliOutput {
        stdout: out.stdout,
        stderr: out.stderr,
        exit_code: out.code,
    }
}

/// The command line on a worker thread: [`run_cli_async`].
pub struct CliTask {
    args: Vec<String>,
}

impl Task for CliTask {
    type Output = wave_rules::Output;
    type JsValue = CliOutput;

    fn compute(&mut self) -> Result<Self::Output> {
        let argv: Vec<String> = std::iter::once("wave-rules".to_string())
            .chain(std::mem::take(&mut self.args))
            .collect();
        catch_unwind(AssertUnwindSafe(|| wave_rules::run(argv)))
            .map_err(|_| Error::from_reason("wave-rules: the command failed unexpectedly (a bug)"))
    }

    fn resolve(&mut self, _env: Env, out: Self::Output) -> Result<Self::JsValue> {
        Ok(CliOutput {
            stdout: out.stdout,
            stderr: out.stderr,
            exit_code: out.code,
        })
    }
}

/// [`run_cli`] on a worker thread, so Node's event loop stays free. `mcp`
/// runs this way: the server reads stdin and writes stdout itself, on that
/// thread, until stdin closes, and the promise then resolves.
#[napi(ts_return_type = "Promise<CliOutput>")]
pub fn run_cli_async(args: Vec<String>) -> AsyncTask<CliTask> {
    AsyncTask::new(CliTask { args })
}
