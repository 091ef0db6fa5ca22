//! Working built-in tools over one workspace folder: read, write, edit,
//! list, grep and shell. The workspace root comes from the call context
//! ([`WorkspaceRoot`] in its extensions); paths may not leave it.
//!
//! [`BUILTINS`] is the static list, the single source of their names and
//! descriptions (see `tool_registry::BuiltinSpec`).

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use tool_core::{
    CallContext, FnTool, SharedTool, ToolArgs, ToolCategory, ToolError, ToolFacts, ToolOutput,
};
use tool_registry::BuiltinSpec;

use crate::FOOTPRINT_KEY;

/// The workspace folder built-in tools work in (put it in the call
/// context's extensions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceRoot(pub PathBuf);

fn root(ctx: &CallContext, tool: &str) -> Result<PathBuf, ToolError> {
    ctx.extensions()
        .get::<WorkspaceRoot>()
        .map(|r| r.0.clone())
        .ok_or_else(|| ToolError::execution(tool, "no workspace root in the call context"))
}

/// Resolve `path` inside `root`, lexically; leaving the root is refused.
fn inside(root: &Path, path: &str, tool: &str) -> Result<PathBuf, ToolError> {
    let mut out = PathBuf::new();
    for c in Path::new(path).components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return Err(ToolError::invalid_argument(
                        tool,
                        "/path",
                        format!("{path:?} leaves the workspace"),
                    ));
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(ToolError::invalid_argument(
                    tool,
                    "/path",
                    format!("{path:?} is absolute; give a path inside the workspace"),
                ))
            }
        }
    }
    Ok(root.join(out))
}

fn io_err(tool: &str, path: &str, e: &std::io::Error) -> ToolError {
    ToolError::execution(tool, format!("{path}: {e}"))
}

fn paths_footprint(read_only: bool) -> Value {
    json!({"paths": ["path"], "read_only": read_only})
}

async fn read_file(args: Value, ctx: CallContext) -> Result<ToolOutput, ToolError> {
    let a = ToolArgs::new("read_file", &args);
    let path = a.str("path")?;
    let offset = a.opt_i64("offset")?.unwrap_or(0).max(0) as usize;
    let limit = a.opt_i64("limit")?.map(|l| l.max(0) as usize);
    let file = inside(&root(&ctx, "read_file")?, path, "read_file")?;
    let text = tokio::fs::read_to_string(&file)
        .await
        .map_err(|e| io_err("read_file", path, &e))?;
    let lines: Vec<&str> = text
        .lines()
        .skip(offset)
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    Ok(ToolOutput::text(lines.join("\n")))
}

async fn write_file(args: Value, ctx: CallContext) -> Result<ToolOutput, ToolError> {
    let a = ToolArgs::new("write_file", &args);
    let path = a.str("path")?;
    let content = a.str("content")?;
    let file = inside(&root(&ctx, "write_file")?, path, "write_file")?;
    if let Some(parent) = file.parent() {
        tokio::fs::create_dir_all(parent)
            .await
            .map_err(|e| io_err("write_file", path, &e))?;
    }
    tokio::fs::write(&file, content)
        .await
        .map_err(|e| io_err("write_file", path, &e))?;
    Ok(ToolOutput::text(format!(
        "wrote {} bytes to {path}",
        content.len()
    )))
}

async fn edit_file(args: Value, ctx: CallContext) -> Result<ToolOutput, ToolError> {
    let a = ToolArgs::new("edit_file", &args);
    let path = a.str("path")?;
    let old = a.str("old")?;
    let new = a.str("new")?;
    let all = a.opt_bool("replace_all")?.unwrap_or(false);
    let file = inside(&root(&ctx, "edit_file")?, path, "edit_file")?;
    let text = tokio::fs::read_to_string(&file)
        .await
        .map_err(|e| io_err("edit_file", path, &e))?;
    let count = text.matches(old).count();
    if count == 0 || old.is_empty() {
        return Err(ToolError::invalid_argument(
            "edit_file",
            "/old",
            format!("the text to replace does not occur in {path}"),
        ));
    }
    if count > 1 && !all {
        return Err(ToolError::invalid_argument(
            "edit_file",
            "/old",
            format!(
                "the text occurs {count} times in {path}; give more context or set replace_all"
            ),
        ));
    }
    let edited = if all {
        text.replace(old, new)
    } else {
        text.replacen(old, new, 1)
    };
    tokio::fs::write(&file, edited)
        .await
        .map_err(|e| io_err("edit_file", path, &e))?;
    Ok(ToolOutput::text(format!(
        "replaced {} occurrence(s) in {path}",
        if all { count } else { 1 }
    )))
}

async fn list_dir(args: Value, ctx: CallContext) -> Result<ToolOutput, ToolError> {
    let a = ToolArgs::new("list_dir", &args);
    let path = a.str("path")?;
    let dir = inside(&root(&ctx, "list_dir")?, path, "list_dir")?;
    let mut entries = tokio::fs::read_dir(&dir)
        .await
        .map_err(|e| io_err("list_dir", path, &e))?;
    let mut names = Vec::new();
    while let Some(entry) = entries
        .next_entry()
        .await
        .map_err(|e| io_err("list_dir", path, &e))?
    {
        let is_dir = entry.file_type().await.is_ok_and(|t| t.is_dir());
        names.push(format!(
            "{}{}",
            entry.file_name().to_string_lossy(),
            if is_dir { "/" } else { "" }
        ));
    }
    names.sort();
    Ok(ToolOutput::text(names.join("\n")))
}

async fn grep(args: Value, ctx: CallContext) -> Result<ToolOutput, ToolError> {
    let a = ToolArgs::new("grep", &args);
    let pattern = a.str("pattern")?;
    let path = a.str("path")?;
    let base = root(&ctx, "grep")?;
    let start = inside(&base, path, "grep")?;
    let mut stack = vec![start];
    let mut hits = Vec::new();
    while let Some(p) = stack.pop() {
        if ctx.is_cancelled() {
            return Err(ToolError::Cancelled {
                tool: "grep".into(),
            });
        }
        let meta = tokio::fs::metadata(&p)
            .await
            .map_err(|e| io_err("grep", path, &e))?;
        if meta.is_dir() {
            let mut entries = tokio::fs::read_dir(&p)
                .await
                .map_err(|e| io_err("grep", path, &e))?;
            while let Some(e) = entries
                .next_entry()
                .await
                .map_err(|e| io_err("grep", path, &e))?
            {
                stack.push(e.path());
            }
        } else if let Ok(text) = tokio::fs::read_to_string(&p).await {
            let shown = p.strip_prefix(&base).unwrap_or(&p).display().to_string();
            for (n, line) in text.lines().enumerate() {
                if line.contains(pattern) {
                    hits.push(format!("{shown}:{}: {line}", n + 1));
                }
            }
        }
    }
    hits.sort();
    Ok(ToolOutput::text(if hits.is_empty() {
        "no matches".to_owned()
    } else {
        hits.join("\n")
    }))
}

async fn shell(args: Value, ctx: CallContext) -> Result<ToolOutput, ToolError> {
    let a = ToolArgs::new("shell", &args);
    let command = a.str("command")?;
    let timeout = Duration::from_secs(a.opt_i64("timeout_s")?.unwrap_or(60).clamp(1, 3600) as u64);
    let dir = root(&ctx, "shell")?;
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(&dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ToolError::execution("shell", format!("cannot start sh: {e}")))?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let read = |pipe: Option<tokio::process::ChildStdout>| async move {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = tokio::io::AsyncReadExt::read_to_end(&mut p, &mut buf).await;
        }
        buf
    };
    let read_err = |pipe: Option<tokio::process::ChildStderr>| async move {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = tokio::io::AsyncReadExt::read_to_end(&mut p, &mut buf).await;
        }
        buf
    };
    let status = tokio::select! {
        s = child.wait() => s.map_err(|e| ToolError::execution("shell", e.to_string()))?,
        () = tokio::time::sleep(timeout) => {
            let _ = child.kill().await;
            return Err(ToolError::Timeout { tool: "shell".into(), after: timeout });
        }
        () = ctx.cancellation().cancelled() => {
            let _ = child.kill().await;
            return Err(ToolError::Cancelled { tool: "shell".into() });
        }
    };
    let (out, err) = tokio::join!(read(stdout), read_err(stderr));
    let mut text = String::from_utf8_lossy(&out).into_owned();
    let err = String::from_utf8_lossy(&err);
    if !err.is_empty() {
        text.push_str("\n[stderr]\n");
        text.push_str(&err);
    }
    let code = status.code().unwrap_or(-1);
    let output = ToolOutput::text(format!("{}\n[exit code {code}]", text.trim_end()))
        .with_metadata("exit_code", json!(code));
    Ok(if status.success() {
        output
    } else {
        ToolOutput {
            is_error: true,
            ..output
        }
    })
}

/// An object schema. Schemas are written by hand here: short, stable and
/// exactly what the model sees.
fn obj(props: Value, required: &[&str]) -> Value {
    let mut schema = json!({"type": "object", "required": required});
    schema["properties"] = props;
    schema
}

/// The built-in tools, one static list: the single source of their names
/// and descriptions.
pub static BUILTINS: &[BuiltinSpec] = &[
    BuiltinSpec {
        name: "read_file",
        description: "Read a UTF-8 text file of the workspace, optionally a range of lines.",
        build: |s| {
            FnTool::builder(s.name, s.description)
                .input_schema(obj(json!({"path": {"type": "string", "description": "Path inside the workspace."}, "offset": {"type": "integer", "minimum": 0, "description": "First line, 0-based."}, "limit": {"type": "integer", "minimum": 1, "description": "Lines at most."}}), &["path"]))
                .facts(ToolFacts::read_only_tool())
                .category(ToolCategory::Read)
                .metadata(FOOTPRINT_KEY, paths_footprint(true))
                .handler(read_file)
        },
    },
    BuiltinSpec {
        name: "write_file",
        description: "Create or overwrite a file of the workspace with the given content.",
        build: |s| {
            FnTool::builder(s.name, s.description)
                .input_schema(obj(json!({"path": {"type": "string", "description": "Path inside the workspace."}, "content": {"type": "string", "description": "The whole new content."}}), &["path", "content"]))
                .facts(ToolFacts::default().with_read_only(false).with_destructive(true).with_idempotent(true).with_open_world(false))
                .category(ToolCategory::Write)
                .metadata(FOOTPRINT_KEY, paths_footprint(false))
                .handler(write_file)
        },
    },
    BuiltinSpec {
        name: "edit_file",
        description:
            "Replace exact text in a file of the workspace (once, or everywhere with replace_all).",
        build: |s| {
            FnTool::builder(s.name, s.description)
                .input_schema(obj(json!({"path": {"type": "string"}, "old": {"type": "string", "description": "Exact text to replace."}, "new": {"type": "string", "description": "Replacement."}, "replace_all": {"type": "boolean"}}), &["path", "old", "new"]))
                .facts(ToolFacts::default().with_read_only(false).with_destructive(true).with_idempotent(false).with_open_world(false))
                .category(ToolCategory::Write)
                .metadata(FOOTPRINT_KEY, paths_footprint(false))
                .handler(edit_file)
        },
    },
    BuiltinSpec {
        name: "list_dir",
        description: "List a folder of the workspace (folders end with /).",
        build: |s| {
            FnTool::builder(s.name, s.description)
                .input_schema(obj(json!({"path": {"type": "string", "description": "Folder inside the workspace; \".\" for the root."}}), &["path"]))
                .facts(ToolFacts::read_only_tool())
                .category(ToolCategory::Read)
                .metadata(FOOTPRINT_KEY, paths_footprint(true))
                .handler(list_dir)
        },
    },
    BuiltinSpec {
        name: "grep",
        description: "Find lines containing a text in the files under a path of the workspace.",
        build: |s| {
            FnTool::builder(s.name, s.description)
                .input_schema(obj(json!({"pattern": {"type": "string", "description": "Text to find (not a regex)."}, "path": {"type": "string", "description": "File or folder inside the workspace."}}), &["pattern", "path"]))
                .facts(ToolFacts::read_only_tool())
                .category(ToolCategory::Search)
                .metadata(FOOTPRINT_KEY, paths_footprint(true))
                .handler(grep)
        },
    },
    BuiltinSpec {
        name: "shell",
        description: "Run a shell command in the workspace and return its output and exit code.",
        build: |s| {
            FnTool::builder(s.name, s.description)
                .input_schema(obj(json!({"command": {"type": "string", "description": "The command line (sh -c)."}, "timeout_s": {"type": "integer", "minimum": 1, "maximum": 3600}}), &["command"]))
                .facts(ToolFacts::default().with_read_only(false).with_destructive(true).with_idempotent(false).with_open_world(true))
                .category(ToolCategory::Shell { command_arg: "command".into() })
                .handler(shell)
        },
    },
];

/// Build every built-in (for hosts not using a catalog).
pub fn builtin_tools() -> Result<Vec<SharedTool>, ToolError> {
    BUILTINS.iter().map(|s| (s.build)(s)).collect()
}
