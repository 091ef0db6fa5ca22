//! Tool traits: typed ([`Tool`]), untyped ([`DynTool`]), closures
//! ([`FnTool`]) and multi-command tools ([`MultiCommandTool`]).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::{
    CallContext, CompiledSchema, DefinitionBuilder, ToolCategory, ToolDefinition, ToolError,
    ToolFacts, ToolOutput,
};

/// A boxed, sendable future, as returned by closure tools.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A tool whose arguments and output are Rust types. Schemas are derived
/// with schemars: doc comments become descriptions and `#[serde(default)]`
/// fields are optional. Turn it into a [`DynTool`] with [`TypedTool::new`]
/// or [`IntoDynTool::into_dyn`].
///
/// ```
/// use async_trait::async_trait;
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
/// use tool_core::{CallContext, IntoDynTool, Tool, ToolError};
///
/// /// Add two numbers.
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs {
///     /// The first addend.
///     a: i64,
///     /// The second addend.
///     #[serde(default)]
///     b: i64,
/// }
///
/// #[derive(Serialize, JsonSchema)]
/// struct Sum {
///     sum: i64,
/// }
///
/// struct Add;
///
/// #[async_trait]
/// impl Tool for Add {
///     type Args = AddArgs;
///     type Output = Sum;
///     fn name(&self) -> &str { "add" }
///     fn description(&self) -> &str { "Add two integers." }
///     async fn call(&self, args: AddArgs, _ctx: &CallContext) -> Result<Sum, ToolError> {
///         Ok(Sum { sum: args.a + args.b })
///     }
/// }
///
/// let tool = Add.into_dyn().unwrap();
/// let schema = tool.definition().input_schema();
/// assert_eq!(schema["required"], serde_json::json!(["a"]));
/// assert_eq!(schema["properties"]["a"]["description"], "The first addend.");
/// # tokio_test_block_on(async {
/// let out = tool.call(serde_json::json!({"a": 2, "b": 3}), &CallContext::new("c1")).await.unwrap();
/// assert_eq!(out.structured, Some(serde_json::json!({"sum": 5})));
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
#[async_trait]
pub trait Tool: Send + Sync + 'static {
    /// The arguments the model sends.
    type Args: DeserializeOwned + JsonSchema + Send;
    /// The result.
    type Output: Serialize + JsonSchema + Send;
    /// The tool's name (checked when the definition is built).
    fn name(&self) -> &str;
    /// What the tool does, for the model.
    fn description(&self) -> &str;
    /// Facts about its effects (default: unknown, read fail-closed).
    fn facts(&self) -> ToolFacts {
        ToolFacts::default()
    }
    /// Its category, if any.
    fn category(&self) -> Option<ToolCategory> {
        None
    }
    /// Run the tool.
    async fn call(&self, args: Self::Args, ctx: &CallContext) -> Result<Self::Output, ToolError>;
}

/// A tool over raw JSON: the shape every layer above tool-core handles
/// (MCP tools, plugins, and typed tools through [`TypedTool`]).
#[async_trait]
pub trait DynTool: Send + Sync + 'static {
    /// The tool's definition.
    fn definition(&self) -> &ToolDefinition;
    /// Run the tool with arguments already validated by the caller (the
    /// service validates against the cached validator before calling).
    async fn call(&self, args: Value, ctx: &CallContext) -> Result<ToolOutput, ToolError>;
}

/// A shared, type-erased tool.
pub type SharedTool = Arc<dyn DynTool>;

impl std::fmt::Debug for dyn DynTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynTool")
            .field("name", &self.definition().name())
            .finish_non_exhaustive()
    }
}

/// The JSON Schema of a Rust type, as tool-core renders it: schemars 1
/// output without `$schema` and `title` keys (providers reject or ignore
/// them).
///
/// ```
/// #[derive(schemars::JsonSchema)]
/// struct A { x: u8 }
/// let s = tool_core::schema_for_type::<A>();
/// assert_eq!(s["type"], "object");
/// assert!(s.get("$schema").is_none());
/// ```
pub fn schema_for_type<T: JsonSchema>() -> Value {
    let mut value = schemars::schema_for!(T).to_value();
    if let Some(obj) = value.as_object_mut() {
        obj.remove("$schema");
        obj.remove("title");
    }
    value
}

fn typed_definition<A: JsonSchema, O: JsonSchema>(
    builder: DefinitionBuilder,
) -> Result<ToolDefinition, ToolError> {
    let mut builder = builder.input_schema(schema_for_type::<A>());
    let output = schema_for_type::<O>();
    // MCP and providers accept only object output schemas; other shapes are
    // still returned, just not declared.
    if output.get("type").and_then(Value::as_str) == Some("object") {
        builder = builder.output_schema(output);
    }
    builder.build()
}

fn parse_args<A: DeserializeOwned>(tool: &str, args: Value) -> Result<A, ToolError> {
    serde_json::from_value(args).map_err(|e| ToolError::invalid_argument(tool, "", e.to_string()))
}

fn output_of<O: Serialize>(tool: &str, out: &O) -> Result<ToolOutput, ToolError> {
    let value = serde_json::to_value(out).map_err(|e| ToolError::InvalidOutput {
        tool: tool.to_owned(),
        violations: vec![crate::Violation::new(
            "",
            format!("output does not serialise: {e}"),
        )],
    })?;
    Ok(match value {
        Value::String(text) => ToolOutput::text(text),
        other => ToolOutput::json(other),
    })
}

/// Adapter that makes a typed [`Tool`] a [`DynTool`].
pub struct TypedTool<T: Tool> {
    inner: T,
    definition: ToolDefinition,
}

impl<T: Tool> TypedTool<T> {
    /// Derive the definition from the tool's types and wrap it.
    pub fn new(tool: T) -> Result<Self, ToolError> {
        let mut builder =
            ToolDefinition::builder(tool.name(), tool.description()).facts(tool.facts());
        if let Some(category) = tool.category() {
            builder = builder.category(category);
        }
        let definition = typed_definition::<T::Args, T::Output>(builder)?;
        Ok(Self {
            inner: tool,
            definition,
        })
    }
    /// The wrapped tool.
    pub fn inner(&self) -> &T {
        &self.inner
    }
}

#[async_trait]
impl<T: Tool> DynTool for TypedTool<T> {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }
    async fn call(&self, args: Value, ctx: &CallContext) -> Result<ToolOutput, ToolError> {
        let name = self.definition.name();
        let args = parse_args::<T::Args>(name, args)?;
        let out = self.inner.call(args, ctx).await?;
        output_of(name, &out)
    }
}

/// Turn a typed tool into a shared untyped one.
pub trait IntoDynTool {
    /// Build the definition and erase the type.
    fn into_dyn(self) -> Result<SharedTool, ToolError>;
}

impl<T: Tool> IntoDynTool for T {
    fn into_dyn(self) -> Result<SharedTool, ToolError> {
        Ok(Arc::new(TypedTool::new(self)?))
    }
}

type Handler =
    Arc<dyn Fn(Value, CallContext) -> BoxFuture<Result<ToolOutput, ToolError>> + Send + Sync>;

/// A tool made from a closure, for quick tools.
///
/// ```
/// use serde_json::json;
/// use tool_core::{CallContext, FnTool, ToolOutput};
/// let echo = FnTool::builder("echo", "Echo the text back.")
///     .input_schema(json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}))
///     .handler(|args, _ctx| async move {
///         Ok(ToolOutput::text(args["text"].as_str().unwrap_or_default()))
///     })
///     .unwrap();
/// assert_eq!(echo.definition().name(), "echo");
/// ```
pub struct FnTool {
    definition: ToolDefinition,
    handler: Handler,
}

impl FnTool {
    /// Start a closure tool.
    pub fn builder(name: impl Into<String>, description: impl Into<String>) -> FnToolBuilder {
        FnToolBuilder {
            definition: ToolDefinition::builder(name, description),
        }
    }
}

#[async_trait]
impl DynTool for FnTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }
    async fn call(&self, args: Value, ctx: &CallContext) -> Result<ToolOutput, ToolError> {
        (self.handler)(args, ctx.clone()).await
    }
}

/// Builds an [`FnTool`].
#[must_use]
pub struct FnToolBuilder {
    definition: DefinitionBuilder,
}

impl FnToolBuilder {
    /// Set the input schema.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.definition = self.definition.input_schema(schema);
        self
    }
    /// Set the output schema.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.definition = self.definition.output_schema(schema);
        self
    }
    /// Set the facts.
    pub fn facts(mut self, facts: ToolFacts) -> Self {
        self.definition = self.definition.facts(facts);
        self
    }
    /// Set the category.
    pub fn category(mut self, category: ToolCategory) -> Self {
        self.definition = self.definition.category(category);
        self
    }
    /// Add a metadata entry.
    pub fn metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.definition = self.definition.metadata(key, value);
        self
    }
    /// Finish with an untyped handler.
    pub fn handler<F, Fut>(self, f: F) -> Result<SharedTool, ToolError>
    where
        F: Fn(Value, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let definition = self.definition.build()?;
        Ok(Arc::new(FnTool {
            definition,
            handler: Arc::new(move |args, ctx| Box::pin(f(args, ctx))),
        }))
    }
    /// Finish with a typed handler; the schemas are derived from `A` and `O`
    /// (replacing any schema set before).
    pub fn typed<A, O, F, Fut>(self, f: F) -> Result<SharedTool, ToolError>
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        O: Serialize + JsonSchema + Send + 'static,
        F: Fn(A, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        let definition = typed_definition::<A, O>(self.definition)?;
        let name = definition.name().to_owned();
        let f = Arc::new(f);
        Ok(Arc::new(FnTool {
            definition,
            handler: Arc::new(move |args, ctx| {
                let f = Arc::clone(&f);
                let name = name.clone();
                Box::pin(async move {
                    let args = parse_args::<A>(&name, args)?;
                    let out = f(args, ctx).await?;
                    output_of(&name, &out)
                })
            }),
        }))
    }
}

struct Command {
    description: String,
    schema: Value,
    validator: CompiledSchema,
    handler: Handler,
}

/// One tool name, several commands chosen by a `command` argument, each
/// with its own schema and validated against it.
///
/// ```
/// use serde_json::json;
/// use tool_core::{CallContext, MultiCommandTool, ToolOutput};
/// let notes = MultiCommandTool::builder("notes", "Keep notes.")
///     .command("add", "Add a note.",
///         json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}),
///         |args, _| async move { Ok(ToolOutput::text(format!("added {}", args["text"]))) })
///     .command("clear", "Remove every note.", json!({"type":"object"}),
///         |_, _| async move { Ok(ToolOutput::text("cleared")) })
///     .build()
///     .unwrap();
/// let schema = notes.definition().input_schema();
/// assert_eq!(schema["properties"]["command"]["enum"], json!(["add", "clear"]));
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let err = notes.call(json!({"command": "add"}), &CallContext::new("c")).await.unwrap_err();
/// assert!(err.to_string().contains("text"));
/// # });
/// ```
pub struct MultiCommandTool {
    definition: ToolDefinition,
    commands: BTreeMap<String, Command>,
}

impl MultiCommandTool {
    /// Start a multi-command tool.
    pub fn builder(name: impl Into<String>, description: impl Into<String>) -> MultiCommandBuilder {
        MultiCommandBuilder {
            name: name.into(),
            description: description.into(),
            facts: ToolFacts::default(),
            commands: Vec::new(),
        }
    }

    /// The names of its commands, sorted.
    pub fn commands(&self) -> impl Iterator<Item = &str> {
        self.commands.keys().map(String::as_str)
    }

    /// The schema of one command.
    pub fn command_schema(&self, command: &str) -> Option<&Value> {
        self.commands.get(command).map(|c| &c.schema)
    }
}

#[async_trait]
impl DynTool for MultiCommandTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }
    async fn call(&self, args: Value, ctx: &CallContext) -> Result<ToolOutput, ToolError> {
        let tool = self.definition.name();
        let names = || self.commands.keys().cloned().collect::<Vec<_>>().join(", ");
        let Value::Object(mut map) = args else {
            return Err(ToolError::invalid_argument(
                tool,
                "",
                "arguments must be a JSON object",
            ));
        };
        let command = match map.remove("command") {
            Some(Value::String(c)) => c,
            Some(_) => {
                return Err(ToolError::invalid_argument(
                    tool,
                    "/command",
                    format!("expected a string, one of: {}", names()),
                ))
            }
            None => {
                return Err(ToolError::invalid_argument(
                    tool,
                    "/command",
                    format!("required field is missing; one of: {}", names()),
                ))
            }
        };
        let Some(cmd) = self.commands.get(&command) else {
            return Err(ToolError::invalid_argument(
                tool,
                "/command",
                format!("unknown command {command:?}; one of: {}", names()),
            ));
        };
        let args = Value::Object(map);
        cmd.validator.validate_arguments(tool, &args)?;
        (cmd.handler)(args, ctx.clone()).await
    }
}

/// Builds a [`MultiCommandTool`].
#[must_use]
pub struct MultiCommandBuilder {
    name: String,
    description: String,
    facts: ToolFacts,
    commands: Vec<(String, String, Value, Handler)>,
}

impl MultiCommandBuilder {
    /// Set the facts (of the tool as a whole: the most dangerous command).
    pub fn facts(mut self, facts: ToolFacts) -> Self {
        self.facts = facts;
        self
    }

    /// Add a command with its own object schema and handler.
    pub fn command<F, Fut>(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        schema: Value,
        f: F,
    ) -> Self
    where
        F: Fn(Value, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        self.commands.push((
            name.into(),
            description.into(),
            schema,
            Arc::new(move |args, ctx| Box::pin(f(args, ctx))),
        ));
        self
    }

    /// Check every command and build the combined definition.
    pub fn build(self) -> Result<SharedTool, ToolError> {
        let invalid = |reason: String| ToolError::InvalidDefinition {
            tool: self.name.clone(),
            reason,
        };
        if self.commands.is_empty() {
            return Err(invalid(
                "a multi-command tool needs at least one command".into(),
            ));
        }
        let mut commands = BTreeMap::new();
        let mut properties = Map::new();
        let mut lines = Vec::new();
        for (name, description, schema, handler) in self.commands {
            if schema
                .get("properties")
                .and_then(|p| p.get("command"))
                .is_some()
            {
                return Err(invalid(format!(
                    "command {name:?} declares its own `command` property"
                )));
            }
            let validator = CompiledSchema::compile(&self.name, &schema)?;
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, v) in props {
                    properties.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            lines.push(if required.is_empty() {
                format!("- {name}: {description}")
            } else {
                format!(
                    "- {name}: {description} (requires: {})",
                    required.join(", ")
                )
            });
            let command = Command {
                description,
                schema,
                validator,
                handler,
            };
            if commands.insert(name.clone(), command).is_some() {
                return Err(invalid(format!("command {name:?} is declared twice")));
            }
        }
        let names: Vec<&String> = commands.keys().collect();
        let command_descriptions: Vec<String> = commands
            .iter()
            .map(|(n, c)| format!("{n}: {}", c.description))
            .collect();
        let mut all = Map::new();
        all.insert(
            "command".into(),
            json!({"type": "string", "enum": names, "description": command_descriptions.join("; ")}),
        );
        all.extend(properties);
        let definition = ToolDefinition::builder(
            self.name.clone(),
            format!("{}\nCommands:\n{}", self.description, lines.join("\n")),
        )
        .input_schema(json!({"type": "object", "properties": all, "required": ["command"]}))
        .facts(self.facts)
        .build()?;
        Ok(Arc::new(MultiCommandTool {
            definition,
            commands,
        }))
    }
}
