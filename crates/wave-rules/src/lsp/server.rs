//! The message loop: `initialize`, then each request answered and each
//! notification handled in turn, until `shutdown` and `exit`. A panic while
//! handling one message is caught: a request is answered with an internal
//! error, a notification is dropped, and the server goes on.

use super::workspace::Workspace;
use super::{code_actions, completion, diagnostics, hover, symbols};
use crate::base::env::Env;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest,
    Request as _,
};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    HoverProviderCapability, OneOf, PublishDiagnosticsParams, SaveOptions, ServerCapabilities,
    ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A request that panics on purpose, answered only when the variable
/// `WAVE_RULES_LSP_CRASH_TEST=1` is set: how the tests show that a panic
/// answers its request with an error and the server goes on.
const CRASH_METHOD: &str = "wave-rules/crashTest";

pub(super) fn run(env: &Env) -> Result<(), String> {
    let (connection, io) = Connection::stdio();
    let capabilities = serde_json::to_value(capabilities()).map_err(|e| e.to_string())?;
    let initialize = serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": ServerInfo { name: "wave-rules".into(), version: Some(env!("CARGO_PKG_VERSION").into()) },
    });
    let (id, _params) = connection.initialize_start().map_err(|e| e.to_string())?;
    connection
        .initialize_finish(id, initialize)
        .map_err(|e| e.to_string())?;
    let mut ws = Workspace::new(env.config.clone(), env.home.clone());
    let served = serve(&connection, &mut ws);
    drop(connection);
    io.join().map_err(|e| e.to_string())?;
    served
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..Default::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), " ".into()]),
            ..Default::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..Default::default()
        })),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        ..Default::default()
    }
}

fn serve(connection: &Connection, ws: &mut Workspace) -> Result<(), String> {
    let send = |m: Message| connection.sender.send(m).map_err(|e| e.to_string());
    for message in &connection.receiver {
        match message {
            Message::Request(req) => {
                if connection
                    .handle_shutdown(&req)
                    .map_err(|e| e.to_string())?
                {
                    return Ok(());
                }
                let id = req.id.clone();
                let response =
                    catch_unwind(AssertUnwindSafe(|| answer(ws, req))).unwrap_or_else(|payload| {
                        let why = panic_text(payload.as_ref());
                        Response::new_err(
                            id,
                            ErrorCode::InternalError as i32,
                            format!("internal error (a bug; please report it): {why}"),
                        )
                    });
                send(response.into())?;
            }
            Message::Notification(n) => {
                let published =
                    catch_unwind(AssertUnwindSafe(|| notify(ws, n))).unwrap_or_default();
                for p in published {
                    send(Notification::new(PublishDiagnostics::METHOD.into(), p).into())?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// A request's params, or an invalid-params error.
fn params<P: DeserializeOwned>(req: Request) -> Result<P, (ErrorCode, String)> {
    serde_json::from_value(req.params)
        .map_err(|e| (ErrorCode::InvalidParams, format!("{}: {e}", req.method)))
}

fn to_value<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn answer(ws: &mut Workspace, req: Request) -> Response {
    let id = req.id.clone();
    let result = match req.method.as_str() {
        HoverRequest::METHOD => params(req).map(|p| to_value(hover::hover(ws, &p))),
        Completion::METHOD => params(req).map(|p| to_value(completion::complete(ws, &p))),
        CodeActionRequest::METHOD => params(req).map(|p| to_value(code_actions::actions(ws, &p))),
        GotoDefinition::METHOD => params(req).map(|p| to_value(symbols::definition(ws, &p))),
        DocumentSymbolRequest::METHOD => params(req).map(|p| to_value(symbols::symbols(ws, &p))),
        CRASH_METHOD if std::env::var("WAVE_RULES_LSP_CRASH_TEST").as_deref() == Ok("1") => {
            panic!("{CRASH_METHOD} was asked to panic")
        }
        other => Err((ErrorCode::MethodNotFound, format!("unknown method {other}"))),
    };
    match result {
        Ok(value) => Response::new_ok(id, value),
        Err((code, message)) => Response::new_err(id, code as i32, message),
    }
}

/// Handles a notification; gives the diagnostics to publish.
fn notify(ws: &mut Workspace, n: Notification) -> Vec<PublishDiagnosticsParams> {
    let method = n.method.clone();
    let params = n.params;
    match method.as_str() {
        DidOpenTextDocument::METHOD => {
            let Some(p): Option<lsp_types::DidOpenTextDocumentParams> = parse(params) else {
                return Vec::new();
            };
            ws.refresh();
            ws.open(p.text_document.uri, p.text_document.text);
            publish_all(ws)
        }
        DidChangeTextDocument::METHOD => {
            let Some(p): Option<lsp_types::DidChangeTextDocumentParams> = parse(params) else {
                return Vec::new();
            };
            let uri = p.text_document.uri;
            let Some(doc) = ws.document_mut(&uri) else {
                return Vec::new();
            };
            doc.apply(p.content_changes);
            diagnostics::publish(ws, &uri).into_iter().collect()
        }
        DidSaveTextDocument::METHOD => {
            ws.refresh();
            publish_all(ws)
        }
        DidCloseTextDocument::METHOD => {
            let Some(p): Option<lsp_types::DidCloseTextDocumentParams> = parse(params) else {
                return Vec::new();
            };
            ws.close(&p.text_document.uri);
            vec![PublishDiagnosticsParams {
                uri: p.text_document.uri,
                diagnostics: Vec::new(),
                version: None,
            }]
        }
        _ => Vec::new(),
    }
}

fn publish_all(ws: &mut Workspace) -> Vec<PublishDiagnosticsParams> {
    ws.uris()
        .iter()
        .filter_map(|uri| diagnostics::publish(ws, uri))
        .collect()
}

fn parse<P: DeserializeOwned>(params: Value) -> Option<P> {
    serde_json::from_value(params).ok()
}
