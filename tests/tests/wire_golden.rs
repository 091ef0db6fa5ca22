//! Golden files for each provider's wire format of a fixed set of tools.

use serde_json::json;
use tool_core::{render_tools, Provider, RenderOptions, ToolCategory, ToolDefinition, ToolFacts};
use toolstack_tests::assert_golden;

fn fixed_tools() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition::builder("read_file", "Read a UTF-8 text file from the workspace.")
            .input_schema(json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Path relative to the workspace."},
                    "offset": {"type": "integer", "minimum": 0, "description": "First line, 0-based."},
                    "limit": {"type": "integer", "minimum": 1}
                },
                "required": ["path"]
            }))
            .output_schema(json!({"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]}))
            .facts(ToolFacts::read_only_tool())
            .build()
            .unwrap(),
        ToolDefinition::builder("bash", "Run a shell command in the workspace.")
            .input_schema(json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string"},
                    "timeout_s": {"type": ["integer", "null"]}
                },
                "required": ["command"]
            }))
            .category(ToolCategory::Shell { command_arg: "command".into() })
            .build()
            .unwrap(),
        ToolDefinition::builder("create_issue", "Create an issue with labels.")
            .input_schema(json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "labels": {"type": "array", "items": {"$ref": "#/$defs/Label"}}
                },
                "required": ["title"],
                "$defs": {"Label": {"type": "object", "properties": {"name": {"type": "string"}, "color": {"const": "red"}}, "required": ["name"]}}
            }))
            .build()
            .unwrap(),
    ]
}

fn pretty(provider: Provider, options: RenderOptions) -> String {
    match render_tools(provider, &fixed_tools(), options).unwrap() {
        serde_json::Value::String(text) => text + "\n",
        other => serde_json::to_string_pretty(&other).unwrap() + "\n",
    }
}

#[test]
fn openai_chat_golden() {
    assert_golden(
        "openai-chat.json",
        &pretty(Provider::OpenAiChat, RenderOptions::default()),
    );
}

#[test]
fn openai_chat_strict_golden() {
    assert_golden(
        "openai-chat-strict.json",
        &pretty(Provider::OpenAiChat, RenderOptions { strict: true }),
    );
}

#[test]
fn openai_responses_golden() {
    assert_golden(
        "openai-responses.json",
        &pretty(Provider::OpenAiResponses, RenderOptions::default()),
    );
}

#[test]
fn anthropic_golden() {
    assert_golden(
        "anthropic.json",
        &pretty(Provider::Anthropic, RenderOptions::default()),
    );
}

#[test]
fn gemini_golden() {
    assert_golden(
        "gemini.json",
        &pretty(Provider::Gemini, RenderOptions::default()),
    );
}

#[test]
fn text_golden() {
    assert_golden(
        "text.txt",
        &pretty(Provider::Text, RenderOptions::default()),
    );
}
