//! [`ToolDefinition`]: everything a model and a host know about one tool.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::validation::CompiledSchema;
use crate::{ToolError, ToolFacts, ToolName};

/// Where a tool comes from.
///
/// ```
/// use tool_core::ToolSource;
/// let s = ToolSource::mcp("github");
/// assert_eq!(serde_json::to_string(&s).unwrap(), r#"{"kind":"mcp","server":"github"}"#);
/// assert!(s.is_mcp());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum ToolSource {
    /// Shipped with the agent (one static list per host).
    BuiltIn,
    /// Defined in code by the host application; the default.
    #[default]
    Host,
    /// Served by an MCP server.
    Mcp {
        /// The server's configured name.
        server: String,
    },
    /// Provided by a skill.
    Skill {
        /// The skill's name.
        name: String,
    },
    /// Provided by a plugin.
    Plugin {
        /// The plugin's name.
        name: String,
    },
    /// A user's custom command.
    CustomCommand {
        /// The command's name.
        name: String,
    },
    /// Provided by an editor or host extension.
    Extension {
        /// The extension's name.
        name: String,
    },
    /// A subagent exposed as a tool.
    Subagent {
        /// The subagent's name.
        name: String,
    },
}

impl ToolSource {
    /// An MCP server source.
    pub fn mcp(server: impl Into<String>) -> Self {
        Self::Mcp {
            server: server.into(),
        }
    }

    /// True for MCP tools.
    pub fn is_mcp(&self) -> bool {
        matches!(self, Self::Mcp { .. })
    }

    /// A short label, e.g. `mcp:github` or `built_in`.
    pub fn label(&self) -> String {
        match self {
            Self::BuiltIn => "built_in".into(),
            Self::Host => "host".into(),
            Self::Mcp { server } => format!("mcp:{server}"),
            Self::Skill { name } => format!("skill:{name}"),
            Self::Plugin { name } => format!("plugin:{name}"),
            Self::CustomCommand { name } => format!("custom_command:{name}"),
            Self::Extension { name } => format!("extension:{name}"),
            Self::Subagent { name } => format!("subagent:{name}"),
        }
    }
}

impl fmt::Display for ToolSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// What kind of work a tool does; policy and scheduling read it.
///
/// ```
/// use tool_core::ToolCategory;
/// let shell = ToolCategory::Shell { command_arg: "command".into() };
/// assert_eq!(shell.command_arg(), Some("command"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum ToolCategory {
    /// Reads files or state.
    Read,
    /// Writes files or state.
    Write,
    /// Runs shell commands; `command_arg` names the argument holding the
    /// command line, which the command floor inspects.
    Shell {
        /// Argument that holds the command.
        command_arg: String,
    },
    /// Searches.
    Search,
    /// Talks to the network.
    Network,
    /// A meta tool (tool_search, get_tool_schema, shed).
    Meta,
    /// Anything else, by name.
    Other {
        /// The category's name.
        name: String,
    },
}

impl ToolCategory {
    /// For shell tools, the argument holding the command.
    pub fn command_arg(&self) -> Option<&str> {
        match self {
            Self::Shell { command_arg } => Some(command_arg),
            _ => None,
        }
    }
}

type Compiled = Result<Arc<CompiledSchema>, ToolError>;

/// Lazily compiled validators, shared by clones of one definition.
#[derive(Clone, Default)]
struct SchemaCache {
    input: Arc<OnceLock<Compiled>>,
    output: Arc<OnceLock<Option<Compiled>>>,
}

/// Everything known about one tool. Serde round-trips it exactly; the name
/// and the input schema are checked whenever one is built or deserialised.
/// The argument validator is compiled on first use and cached with the
/// definition (clones share it).
///
/// ```
/// use serde_json::json;
/// use tool_core::{ToolDefinition, ToolFacts};
///
/// let def = ToolDefinition::builder("read_file", "Read a UTF-8 file.")
///     .input_schema(json!({
///         "type": "object",
///         "properties": {"path": {"type": "string"}},
///         "required": ["path"]
///     }))
///     .facts(ToolFacts::read_only_tool())
///     .build()
///     .unwrap();
/// assert!(def.validate_input(&json!({"path": "a.txt"})).is_ok());
/// let err = def.validate_input(&json!({"path": 3})).unwrap_err();
/// assert!(err.to_string().contains("/path"));
/// ```
#[derive(Clone, Serialize, Deserialize)]
#[serde(try_from = "DefinitionRepr", into = "DefinitionRepr")]
pub struct ToolDefinition {
    /// Shared and copy-on-write: clones (snapshots, tool lists) are O(1).
    data: Arc<DefinitionRepr>,
    cache: SchemaCache,
}

/// The serialised shape of a definition (field order is the wire order).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DefinitionRepr {
    name: ToolName,
    #[serde(default)]
    description: String,
    input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    output_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    category: Option<ToolCategory>,
    #[serde(default)]
    source: ToolSource,
    #[serde(default, skip_serializing_if = "ToolFacts::is_unknown")]
    facts: ToolFacts,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    metadata: Map<String, Value>,
}

impl TryFrom<DefinitionRepr> for ToolDefinition {
    type Error = ToolError;
    fn try_from(r: DefinitionRepr) -> Result<Self, ToolError> {
        check_object_schema(&r.name, "input_schema", &r.input_schema)?;
        if let Some(out) = &r.output_schema {
            if !out.is_object() && !out.is_boolean() {
                return Err(ToolError::InvalidDefinition {
                    tool: r.name.to_string(),
                    reason: "output_schema must be a JSON Schema object".into(),
                });
            }
        }
        Ok(Self {
            data: Arc::new(r),
            cache: SchemaCache::default(),
        })
    }
}

impl From<ToolDefinition> for DefinitionRepr {
    fn from(d: ToolDefinition) -> Self {
        Arc::try_unwrap(d.data).unwrap_or_else(|shared| (*shared).clone())
    }
}

fn check_object_schema(name: &ToolName, field: &str, schema: &Value) -> Result<(), ToolError> {
    let fail = |reason: String| ToolError::InvalidDefinition {
        tool: name.to_string(),
        reason,
    };
    let Some(obj) = schema.as_object() else {
        return Err(fail(format!("{field} must be a JSON object, got {schema}")));
    };
    match obj.get("type") {
        None => Ok(()),
        Some(Value::String(t)) if t == "object" => Ok(()),
        Some(other) => Err(fail(format!(
            "{field} must describe an object (`\"type\": \"object\"`), got type {other}"
        ))),
    }
}

impl PartialEq for ToolDefinition {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.data, &other.data) || *self.data == *other.data
    }
}

impl fmt::Debug for ToolDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDefinition")
            .field("name", &self.data.name)
            .field("description", &self.data.description)
            .field("input_schema", &self.data.input_schema)
            .field("output_schema", &self.data.output_schema)
            .field("category", &self.data.category)
            .field("source", &self.data.source)
            .field("facts", &self.data.facts)
            .field("metadata", &self.data.metadata)
            .finish_non_exhaustive()
    }
}

impl ToolDefinition {
    /// Start a definition; the input schema defaults to an empty object.
    pub fn builder(name: impl Into<String>, description: impl Into<String>) -> DefinitionBuilder {
        DefinitionBuilder {
            name: name.into(),
            description: description.into(),
            input_schema: serde_json::json!({"type": "object", "properties": {}}),
            output_schema: None,
            category: None,
            source: ToolSource::default(),
            facts: ToolFacts::default(),
            metadata: Map::new(),
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.data.name
    }
    /// The validated name.
    pub fn tool_name(&self) -> &ToolName {
        &self.data.name
    }
    /// What the tool does, for the model.
    pub fn description(&self) -> &str {
        &self.data.description
    }
    /// JSON Schema of the arguments (an object schema).
    pub fn input_schema(&self) -> &Value {
        &self.data.input_schema
    }
    /// JSON Schema of the structured output, when declared.
    pub fn output_schema(&self) -> Option<&Value> {
        self.data.output_schema.as_ref()
    }
    /// The category, when declared.
    pub fn category(&self) -> Option<&ToolCategory> {
        self.data.category.as_ref()
    }
    /// Where the tool comes from.
    pub fn source(&self) -> &ToolSource {
        &self.data.source
    }
    /// Facts about its effects.
    pub fn facts(&self) -> &ToolFacts {
        &self.data.facts
    }
    /// Free metadata for hosts and other layers.
    pub fn metadata(&self) -> &Map<String, Value> {
        &self.data.metadata
    }

    /// A copy under another name (validated); the cache is shared because
    /// the schemas are unchanged.
    pub fn renamed(&self, name: impl Into<String>) -> Result<Self, ToolError> {
        let mut copy = self.clone();
        Arc::make_mut(&mut copy.data).name = ToolName::new(name)?;
        Ok(copy)
    }
    /// A copy with another description.
    pub fn with_description(&self, description: impl Into<String>) -> Self {
        let mut copy = self.clone();
        Arc::make_mut(&mut copy.data).description = description.into();
        copy
    }
    /// A copy with another input schema (validated; the cache is reset).
    pub fn with_input_schema(&self, schema: Value) -> Result<Self, ToolError> {
        check_object_schema(&self.data.name, "input_schema", &schema)?;
        let mut copy = self.clone();
        Arc::make_mut(&mut copy.data).input_schema = schema;
        copy.cache = SchemaCache::default();
        Ok(copy)
    }
    /// A copy with another source (sharing everything when it is the same).
    pub fn with_source(&self, source: ToolSource) -> Self {
        if self.data.source == source {
            return self.clone();
        }
        let mut copy = self.clone();
        Arc::make_mut(&mut copy.data).source = source;
        copy
    }
    /// A copy with other facts.
    pub fn with_facts(&self, facts: ToolFacts) -> Self {
        let mut copy = self.clone();
        Arc::make_mut(&mut copy.data).facts = facts;
        copy
    }
    /// A copy with one metadata entry set.
    pub fn with_metadata(&self, key: impl Into<String>, value: Value) -> Self {
        let mut copy = self.clone();
        Arc::make_mut(&mut copy.data)
            .metadata
            .insert(key.into(), value);
        copy
    }

    /// The compiled argument validator (compiled once, then cached).
    pub fn input_validator(&self) -> Result<Arc<CompiledSchema>, ToolError> {
        self.cache
            .input
            .get_or_init(|| {
                CompiledSchema::compile(self.name(), &self.data.input_schema).map(Arc::new)
            })
            .clone()
    }

    /// The compiled output validator, when an output schema is declared.
    pub fn output_validator(&self) -> Option<Result<Arc<CompiledSchema>, ToolError>> {
        self.cache
            .output
            .get_or_init(|| {
                self.data
                    .output_schema
                    .as_ref()
                    .map(|s| CompiledSchema::compile(self.name(), s).map(Arc::new))
            })
            .clone()
    }

    /// Validate arguments against the input schema.
    pub fn validate_input(&self, args: &Value) -> Result<(), ToolError> {
        self.input_validator()?
            .validate_arguments(self.name(), args)
    }

    /// Validate structured output against the output schema (a no-op when
    /// none is declared).
    pub fn validate_output(&self, output: &Value) -> Result<(), ToolError> {
        match self.output_validator() {
            None => Ok(()),
            Some(validator) => validator?.validate_output(self.name(), output),
        }
    }
}

/// Builds a [`ToolDefinition`]; see [`ToolDefinition::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct DefinitionBuilder {
    name: String,
    description: String,
    input_schema: Value,
    output_schema: Option<Value>,
    category: Option<ToolCategory>,
    source: ToolSource,
    facts: ToolFacts,
    metadata: Map<String, Value>,
}

impl DefinitionBuilder {
    /// Set the input schema (must be an object schema).
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = schema;
        self
    }
    /// Declare an output schema.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }
    /// Set the category.
    pub fn category(mut self, category: ToolCategory) -> Self {
        self.category = Some(category);
        self
    }
    /// Set the source.
    pub fn source(mut self, source: ToolSource) -> Self {
        self.source = source;
        self
    }
    /// Set the facts.
    pub fn facts(mut self, facts: ToolFacts) -> Self {
        self.facts = facts;
        self
    }
    /// Add one metadata entry.
    pub fn metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.metadata.insert(key.into(), value);
        self
    }
    /// Check the name and schemas and build.
    pub fn build(self) -> Result<ToolDefinition, ToolError> {
        ToolDefinition::try_from(DefinitionRepr {
            name: ToolName::new(self.name)?,
            description: self.description,
            input_schema: self.input_schema,
            output_schema: self.output_schema,
            category: self.category,
            source: self.source,
            facts: self.facts,
            metadata: self.metadata,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bad_name_is_a_typed_error_quoting_it() {
        let err = ToolDefinition::builder("no spaces", "x")
            .build()
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidName);
        assert!(err.to_string().contains("\"no spaces\""));
    }

    #[test]
    fn non_object_input_schema_is_refused() {
        let err = ToolDefinition::builder("t", "x")
            .input_schema(json!({"type": "string"}))
            .build()
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidDefinition);
    }

    #[test]
    fn serde_round_trip_keeps_every_field() {
        let def = ToolDefinition::builder("bash", "Run a command.")
            .input_schema(json!({"type":"object","properties":{"command":{"type":"string"}}}))
            .output_schema(json!({"type":"object"}))
            .category(ToolCategory::Shell {
                command_arg: "command".into(),
            })
            .source(ToolSource::Plugin { name: "p".into() })
            .facts(ToolFacts::default().with_destructive(true))
            .metadata("x", json!(1))
            .build()
            .unwrap();
        let text = serde_json::to_string(&def).unwrap();
        let back: ToolDefinition = serde_json::from_str(&text).unwrap();
        assert_eq!(def, back);
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
    }

    #[test]
    fn unknown_field_is_an_error() {
        let err = serde_json::from_value::<ToolDefinition>(
            json!({"name":"a","input_schema":{},"nme":"x"}),
        )
        .unwrap_err();
        assert!(err.to_string().contains("nme"), "{err}");
    }

    #[test]
    fn validator_is_compiled_once_and_shared_by_clones() {
        let def = ToolDefinition::builder("t", "").build().unwrap();
        let a = def.input_validator().unwrap();
        let b = def.clone().input_validator().unwrap();
        assert!(Arc::ptr_eq(&a, &b));
    }
}
