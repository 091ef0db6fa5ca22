//! [`ToolShed`]: tool constructors, one per name, called with a session's
//! parts to build that session's tools; [`Preset`]s bundle constructors and
//! compose with `+`.

use std::collections::HashSet;
use std::ops::Add;
use std::sync::Arc;

use tool_core::{Extensions, SharedTool, ToolError};

use crate::RegistryError;

/// Names reserved for meta tools.
pub const RESERVED_NAMES: &[&str] = &["shed", "tool_search", "get_tool_schema"];

/// Builds one tool for a session.
pub trait ToolConstructor: Send + Sync + 'static {
    /// The name of the tool it builds.
    fn name(&self) -> &str;
    /// Build the tool from the session's parts (typed host data).
    fn build(&self, parts: &Extensions) -> Result<SharedTool, ToolError>;
}

type BuildFn = dyn Fn(&Extensions) -> Result<SharedTool, ToolError> + Send + Sync;

struct FnConstructor {
    name: String,
    build: Box<BuildFn>,
}

impl ToolConstructor for FnConstructor {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self, parts: &Extensions) -> Result<SharedTool, ToolError> {
        (self.build)(parts)
    }
}

/// A constructor from a closure.
pub fn constructor(
    name: impl Into<String>,
    build: impl Fn(&Extensions) -> Result<SharedTool, ToolError> + Send + Sync + 'static,
) -> Arc<dyn ToolConstructor> {
    Arc::new(FnConstructor {
        name: name.into(),
        build: Box::new(build),
    })
}

/// A named bundle of constructors; `a + b` holds both, in order.
///
/// ```
/// use tool_core::{FnTool, ToolOutput};
/// use tool_registry::{constructor, Preset, ToolShed};
/// let tool = |name: &'static str| constructor(name, move |_| {
///     FnTool::builder(name, "A tool.").handler(|_, _| async { Ok(ToolOutput::text("ok")) })
/// });
/// let files = Preset::new("files").with(tool("read_file")).with(tool("write_file"));
/// let web = Preset::new("web").with(tool("fetch"));
/// let shed = ToolShed::from(files + web);
/// let tools = shed.build(&tool_core::Extensions::default()).unwrap();
/// assert_eq!(tools.len(), 3);
/// ```
#[derive(Clone, Default)]
pub struct Preset {
    name: String,
    constructors: Vec<Arc<dyn ToolConstructor>>,
}

impl std::fmt::Debug for Preset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.constructors.iter().map(|c| c.name()).collect();
        f.debug_struct("Preset")
            .field("name", &self.name)
            .field("tools", &names)
            .finish()
    }
}

impl Preset {
    /// An empty preset.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            constructors: Vec::new(),
        }
    }
    /// Add a constructor.
    pub fn with(mut self, constructor: Arc<dyn ToolConstructor>) -> Self {
        self.constructors.push(constructor);
        self
    }
    /// The preset's name (`a+b` for a sum).
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Add for Preset {
    type Output = Preset;
    fn add(mut self, rhs: Preset) -> Preset {
        self.name = format!("{}+{}", self.name, rhs.name);
        self.constructors.extend(rhs.constructors);
        self
    }
}

/// The constructors a host offers; [`ToolShed::build`] makes a session's
/// tools.
#[derive(Clone, Default, Debug)]
pub struct ToolShed {
    preset: Preset,
}

impl From<Preset> for ToolShed {
    fn from(preset: Preset) -> Self {
        Self { preset }
    }
}

impl ToolShed {
    /// An empty shed.
    pub fn new() -> Self {
        Self::default()
    }
    /// Add a constructor.
    pub fn with(mut self, constructor: Arc<dyn ToolConstructor>) -> Self {
        self.preset.constructors.push(constructor);
        self
    }
    /// Build every tool with the session's parts. Errors: a duplicate
    /// constructor name, a reserved name, a tool built under another name.
    pub fn build(&self, parts: &Extensions) -> Result<Vec<SharedTool>, RegistryError> {
        let mut seen = HashSet::new();
        let mut tools = Vec::with_capacity(self.preset.constructors.len());
        for c in &self.preset.constructors {
            let name = c.name();
            if RESERVED_NAMES.contains(&name) {
                return Err(RegistryError::ReservedName {
                    name: name.to_owned(),
                });
            }
            if !seen.insert(name.to_owned()) {
                return Err(RegistryError::DuplicateName {
                    name: name.to_owned(),
                    place: format!("shed `{}`", self.preset.name),
                });
            }
            let tool = c.build(parts)?;
            if tool.definition().name() != name {
                return Err(RegistryError::NameMismatch {
                    expected: name.to_owned(),
                    got: tool.definition().name().to_owned(),
                });
            }
            tools.push(tool);
        }
        Ok(tools)
    }
}
