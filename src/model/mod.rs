//! Validated values the commands work with.
pub mod api;
pub mod boilerplate;
pub mod builtin;
pub mod image_ref;
pub mod names;
pub mod plugin;
pub mod plural;

pub use api::ApiSpec;
pub use names::{Domain, Group, Kind, ProjectName, Repo, Version};
pub use plugin::{ApiPlugin, Layout};
