//! # tool-registry
//!
//! Planned (issue: tool-registry): `ToolCatalog` (sources, conflicts, health,
//! capability gating), scoped registrations, request snapshots and shed-style
//! activation.
