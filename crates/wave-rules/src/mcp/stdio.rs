//! The stdio side of `wave-rules mcp`: the runtime, the pump that checks
//! every incoming line (`strict`) before the SDK sees it and writes whole
//! answer lines to stdout, and the poll that tells the client the rules
//! changed. The server itself (tools, resources) is `mod.rs`'s [`Server`].

// The WebAssembly build has no server (see `serve`).
#![cfg_attr(target_family = "wasm", allow(dead_code, unused_imports))]

#[cfg(not(target_family = "wasm"))]
use super::{strict, Server, WATCH_INTERVAL};
use crate::base::env::{Env, Output, EXIT_TROUBLE};
#[cfg(not(target_family = "wasm"))]
use rmcp::service::ServiceExt;
use std::sync::Arc;
use std::time::Duration;

/// Serves MCP on stdin/stdout until stdin closes.
#[cfg(not(target_family = "wasm"))]
pub(crate) fn serve(env: &Env, max_bytes: usize) -> Output {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return Output::fail(EXIT_TROUBLE, format!("mcp: cannot start the runtime: {e}")),
    };
    let server = Server::new(env, max_bytes);
    let ending = server.clone();
    let result = runtime.block_on(async move {
        // stdin -> strict check -> the SDK; the SDK's answers and ours -> stdout,
        // whole lines only (see `strict`).
        let (sdk_in, to_sdk) = tokio::io::simplex(PIPE_BYTES);
        let (from_sdk, sdk_out) = tokio::io::simplex(PIPE_BYTES);
        let stdout = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
        let input = tokio::spawn(pump_in(to_sdk, stdout.clone()));
        // The SDK never closes its end of the answer pipe: pump_out stops on
        // `done`, once the SDK has finished, with every answer it wrote.
        let (done, finished) = tokio::sync::oneshot::channel();
        let output = tokio::spawn(tokio::task::unconstrained(pump_out(
            from_sdk, stdout, finished,
        )));
        let running = server
            .clone()
            .serve((sdk_in, sdk_out))
            .await
            .map_err(|e| e.to_string())?;
        let _ = server.inner.peer.set(running.peer().clone());
        let watcher = tokio::spawn(watch(server.clone()));
        let quit = running.waiting().await.map_err(|e| e.to_string());
        watcher.abort();
        input.abort();
        // Every answer is in the pipe now (rmcp drains its in-flight answers
        // before it returns): they reach stdout, then the server exits at
        // once. The bound is for a client that stops reading stdout.
        let _ = done.send(());
        let _ = tokio::time::timeout(Duration::from_secs(2), output).await;
        quit.map(|_| ())
    });
    // Do not wait for a blocking stdin read that cannot be cancelled.
    runtime.shutdown_background();
    let mut out = match result {
        Ok(()) => Output::default(),
        // The client went away before `initialize`: nothing to serve.
        Err(e) if e.contains("connection closed") => Output::default(),
        Err(e) => Output::fail(EXIT_TROUBLE, format!("mcp: {e}")),
    };
    ending.flush_telemetry(Some(&mut out));
    out
}

/// The in-memory pipes between the stdio pump and the SDK hold this much.
#[cfg(not(target_family = "wasm"))]
const PIPE_BYTES: usize = 1 << 20;

/// Writes one answer line to stdout (the lock keeps lines whole).
#[cfg(not(target_family = "wasm"))]
async fn write_line(
    stdout: &tokio::sync::Mutex<tokio::io::Stdout>,
    line: &[u8],
) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    let mut out = stdout.lock().await;
    out.write_all(line).await?;
    if !line.ends_with(b"\n") {
        out.write_all(b"\n").await?;
    }
    out.flush().await
}

/// Reads stdin line by line (at most [`strict::MAX_MESSAGE_BYTES`] kept of
/// one), answers what the protocol refuses, passes the rest to the SDK.
/// Ends at end of input, which closes the SDK's input.
#[cfg(not(target_family = "wasm"))]
async fn pump_in(
    mut to_sdk: tokio::io::WriteHalf<tokio::io::SimplexStream>,
    stdout: Arc<tokio::sync::Mutex<tokio::io::Stdout>>,
) {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
    let mut line = Vec::new();
    loop {
        line.clear();
        let limit = strict::MAX_MESSAGE_BYTES as u64 + 2;
        match (&mut stdin).take(limit).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if !line.ends_with(b"\n") && line.len() as u64 >= limit {
            // Over the limit: drop the rest of the line unread.
            loop {
                let (used, done) = match stdin.fill_buf().await {
                    Ok([]) | Err(_) => break,
                    Ok(buf) => match buf.iter().position(|b| *b == b'\n') {
                        Some(i) => (i + 1, true),
                        None => (buf.len(), false),
                    },
                };
                stdin.consume(used);
                if done {
                    break;
                }
            }
        }
        while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            line.pop();
        }
        match strict::check(&line) {
            strict::Verdict::Pass => {
                line.push(b'\n');
                if to_sdk.write_all(&line).await.is_err() {
                    break;
                }
            }
            strict::Verdict::Answer(answer) => {
                if write_line(&stdout, answer.to_string().as_bytes())
                    .await
                    .is_err()
                {
                    break;
                }
            }
            strict::Verdict::Drop => {}
        }
    }
    let _ = to_sdk.shutdown().await;
}

/// Copies the SDK's answers to stdout, line by line, until the pipe ends or,
/// once `done` fires (the SDK has written its last answer), until nothing is
/// left in it. Run unconstrained: a read of buffered bytes is never put off
/// by tokio's cooperative budget, so "nothing ready" means an empty pipe.
#[cfg(not(target_family = "wasm"))]
async fn pump_out(
    from_sdk: tokio::io::ReadHalf<tokio::io::SimplexStream>,
    stdout: Arc<tokio::sync::Mutex<tokio::io::Stdout>>,
    mut done: tokio::sync::oneshot::Receiver<()>,
) {
    use std::future::Future;
    use std::task::Poll;
    use tokio::io::AsyncBufReadExt;
    let mut reader = tokio::io::BufReader::new(from_sdk);
    let mut line = Vec::new();
    let mut finishing = false;
    loop {
        line.clear();
        // `read_until` is cancel safe: bytes of a line read so far stay in
        // `line` until the line is whole.
        let next = {
            let mut read = std::pin::pin!(reader.read_until(b'\n', &mut line));
            std::future::poll_fn(|cx| {
                if let Poll::Ready(r) = read.as_mut().poll(cx) {
                    return Poll::Ready(Some(r));
                }
                if !finishing && std::pin::Pin::new(&mut done).poll(cx).is_ready() {
                    finishing = true;
                    // Poll the read once more now that the SDK is done.
                    if let Poll::Ready(r) = read.as_mut().poll(cx) {
                        return Poll::Ready(Some(r));
                    }
                }
                if finishing {
                    Poll::Ready(None)
                } else {
                    Poll::Pending
                }
            })
            .await
        };
        match next {
            None | Some(Ok(0) | Err(_)) => break,
            Some(Ok(_)) => {
                if write_line(&stdout, &line).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// The WebAssembly build has no MCP server: rmcp's stdio transport runs on
/// tokio's I/O driver, which tokio does not build for WASI.
#[cfg(target_family = "wasm")]
pub(crate) fn serve(_env: &Env, _max_bytes: usize) -> Output {
    Output::fail(
        EXIT_TROUBLE,
        "mcp: the MCP server is not in the WebAssembly build; install the native package for this platform, or run the wave-rules binary".to_string(),
    )
}

/// Polls the rule files and tells the client when they changed.
#[cfg(not(target_family = "wasm"))]
async fn watch(server: Server) {
    loop {
        tokio::time::sleep(WATCH_INTERVAL).await;
        server.refresh_and_notify(None).await;
        server.flush_telemetry(None);
    }
}
