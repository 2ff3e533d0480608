//! Where rules come from: the sources, the walker that finds rule files,
//! the nested project walk and the project root.

pub mod discover;
pub mod nested;
pub mod packs;
pub mod project_root;
pub mod source;
