//! Built-in tools: one static list, the single source of their names and
//! descriptions.

use tool_core::SharedTool;

use crate::RegistryError;

/// One built-in tool: its name and description, and a constructor that
/// builds it from this spec (so the tool cannot disagree with the list).
///
/// ```
/// use tool_core::{FnTool, ToolOutput};
/// use tool_registry::{BuiltinSpec, ToolCatalog};
/// static BUILTINS: &[BuiltinSpec] = &[BuiltinSpec {
///     name: "ping",
///     description: "Answer pong.",
///     build: |spec| FnTool::builder(spec.name, spec.description)
///         .handler(|_, _| async { Ok(ToolOutput::text("pong")) }),
/// }];
/// let catalog = ToolCatalog::with_builtins(BUILTINS).unwrap();
/// assert!(catalog.snapshot().get("ping").is_some());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct BuiltinSpec {
    /// The tool's name.
    pub name: &'static str,
    /// The tool's description.
    pub description: &'static str,
    /// Builds the tool from this spec.
    pub build: fn(&BuiltinSpec) -> Result<SharedTool, tool_core::ToolError>,
}

pub(crate) fn build_all(specs: &'static [BuiltinSpec]) -> Result<Vec<SharedTool>, RegistryError> {
    specs
        .iter()
        .map(|spec| {
            let tool = (spec.build)(spec)?;
            let def = tool.definition();
            if def.name() != spec.name {
                return Err(RegistryError::NameMismatch {
                    expected: spec.name.to_owned(),
                    got: def.name().to_owned(),
                });
            }
            if def.description() != spec.description {
                return Err(RegistryError::BuiltinMismatch {
                    name: spec.name.to_owned(),
                    reason: "its description differs from the static list".into(),
                });
            }
            Ok(tool)
        })
        .collect()
}
