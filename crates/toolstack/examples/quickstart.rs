//! Define a typed tool, validate a call, run it, and print the tool as
//! OpenAI and Anthropic would receive it.
//!
//! Run: `cargo run -p toolstack --example quickstart`

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolstack::prelude::*;

/// Arguments of `word_count`.
#[derive(Deserialize, JsonSchema)]
struct WordCountArgs {
    /// The text to count words in.
    text: String,
    /// Count only words at least this long.
    #[serde(default)]
    min_len: usize,
}

/// The result of `word_count`.
#[derive(Serialize, JsonSchema)]
struct WordCount {
    /// Number of words counted.
    words: usize,
}

struct WordCounter;

#[async_trait]
impl Tool for WordCounter {
    type Args = WordCountArgs;
    type Output = WordCount;
    fn name(&self) -> &str {
        "word_count"
    }
    fn description(&self) -> &str {
        "Count the words in a text."
    }
    fn facts(&self) -> ToolFacts {
        ToolFacts::read_only_tool()
    }
    async fn call(&self, args: WordCountArgs, _ctx: &CallContext) -> Result<WordCount, ToolError> {
        let words = args
            .text
            .split_whitespace()
            .filter(|w| w.chars().count() >= args.min_len)
            .count();
        Ok(WordCount { words })
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), ToolError> {
    let tool = WordCounter.into_dyn()?;
    let def = tool.definition();

    // A call as OpenAI sends it: arguments arrive as a JSON string.
    let message = json!({"tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "word_count", "arguments": "{\"text\": \"the quick brown fox\", \"min_len\": 4}"}
    }]});
    let call = tool_core::parse_tool_calls(Provider::OpenAiChat, &message)?.remove(0);
    def.validate_input(&call.arguments)?;
    let output = tool
        .call(call.arguments, &CallContext::new(call.id))
        .await?;
    println!("call_1 -> {}", output.to_text());

    // A bad call gets a typed error that names the field.
    let bad = json!({"text": 42});
    let err = def.validate_input(&bad).unwrap_err();
    println!("bad call -> {}\n", err.model_message());

    for provider in [Provider::OpenAiChat, Provider::Anthropic] {
        let rendered = tool_core::render_tools(
            provider,
            std::slice::from_ref(def),
            RenderOptions::default(),
        )?;
        println!(
            "{provider}:\n{}\n",
            serde_json::to_string_pretty(&rendered).expect("JSON")
        );
    }
    Ok(())
}
