//! # tool-service
//!
//! Planned (issue: tool-service): `ToolService` and `ScopedToolService`, the
//! one chokepoint that composes the layers and executes single calls and
//! batches.
