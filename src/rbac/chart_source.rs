//! Loading a chart from the project (staged files included) and listing its objects with
//! the chart crate.
use crate::error::{Error, Result};
use crate::scaffold::Tree;

use super::chart::ChartObject;

/// Every object the chart in `chart_dir` (relative to the project root) can create.
pub fn chart_objects(tree: &Tree, chart_dir: &str) -> Result<Vec<ChartObject>> {
    let _ = tree;
    Err(Error::Project(format!(
        "{chart_dir}: rendering Helm charts is not available in this build yet"
    )))
}
