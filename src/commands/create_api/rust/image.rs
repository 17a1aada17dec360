//! kubebuilder's deploy-image options (`--image` and friends): validation, the image env
//! var in config/manager/manager.yaml, and the record PROJECT keeps of them.
use crate::cli::CreateApiArgs;
use crate::error::{Error, Result};
use crate::model::ApiSpec;
use crate::model::plugin::DEPLOY_IMAGE_DATA;
use crate::project::Project;
use crate::scaffold::Tree;
use crate::yaml::{Mapping, Value};

const MANAGER: &str = "config/manager/manager.yaml";

/// The container a deploy-image controller runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageOptions {
    pub image: String,
    pub command: Vec<String>,
    pub port: Option<u16>,
    pub run_as_user: Option<i64>,
}

impl ImageOptions {
    /// `None` without `--image`; the other image flags alone are an error.
    pub fn from_args(args: &CreateApiArgs) -> Result<Option<Self>> {
        let Some(image) = &args.image else {
            let stray = [
                (
                    "--image-container-command",
                    args.image_container_command.is_some(),
                ),
                (
                    "--image-container-port",
                    args.image_container_port.is_some(),
                ),
                ("--run-as-user", args.run_as_user.is_some()),
            ];
            if let Some((flag, _)) = stray.iter().find(|(_, given)| *given) {
                return Err(Error::invalid(format!(
                    "{flag} only works with --image (the container the controller deploys); add --image <image> or drop {flag}"
                )));
            }
            return Ok(None);
        };
        let image = image.trim();
        if let Some(why) = crate::model::image_ref::problem(image) {
            return Err(Error::invalid(format!(
                "invalid --image {}: {why}; give an image reference such as memcached:1.4.36-alpine",
                crate::model::names::shown(image)
            )));
        }
        let command = args.image_container_command.clone().unwrap_or_default();
        if command.iter().any(|part| part.trim().is_empty()) {
            return Err(Error::invalid(
                "invalid --image-container-command: an empty part between commas; write it like memcached,-m=64,-o,modern,-v",
            ));
        }
        if args.image_container_port == Some(0) {
            return Err(Error::invalid(
                "invalid --image-container-port 0: give the port the container listens on (1-65535)",
            ));
        }
        // The API server takes runAsUser from 0 to 2147483647.
        if args
            .run_as_user
            .is_some_and(|uid| !(0..=i64::from(i32::MAX)).contains(&uid))
        {
            return Err(Error::invalid(
                "invalid --run-as-user: a user id is from 0 to 2147483647 (1001, for example)",
            ));
        }
        Ok(Some(ImageOptions {
            image: image.to_string(),
            command,
            port: args.image_container_port,
            run_as_user: args.run_as_user,
        }))
    }

    /// The image as a YAML value: plain, or quoted when YAML would read it as a number
    /// (`--image 1234`), which an env value of the Deployment cannot be.
    fn yaml_value(&self) -> String {
        let plain = crate::yaml::from_str::<crate::yaml::Value>(&self.image)
            .is_ok_and(|v| v.as_str() == Some(self.image.as_str()));
        if plain {
            self.image.clone()
        } else {
            format!("{:?}", self.image)
        }
    }

    /// `MEMCACHED_IMAGE`: the variable the controller reads the image from.
    pub fn env_var(spec: &ApiSpec) -> String {
        format!("{}_IMAGE", spec.kind.screaming())
    }

    /// Set `<KIND>_IMAGE` in the manager's container: insert it at the manager-env marker,
    /// or update its value if the variable is already there.
    pub fn stage_manager_env(&self, tree: &mut Tree, spec: &ApiSpec) -> Result<()> {
        let var = Self::env_var(spec);
        let text = tree.read(MANAGER)?.unwrap_or_default();
        let name_line = format!("- name: {var}");
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let Some(at) = lines.iter().position(|l| l.trim() == name_line) else {
            let fragment = format!("{name_line}\n  value: {}\n", self.yaml_value());
            tree.insert_at_marker(MANAGER, "manager-env", &fragment)?;
            return Ok(());
        };
        let value_at = at + 1;
        let Some(value_line) = lines
            .get(value_at)
            .filter(|l| l.trim().starts_with("value:"))
        else {
            return Err(Error::Project(format!(
                "{MANAGER}: the env entry {var} has no `value:` line right below its name; set it to {} by hand or remove the entry",
                self.image
            )));
        };
        let indent = &value_line[..value_line.len() - value_line.trim_start().len()];
        let replacement = format!("{indent}value: {}\n", self.yaml_value());
        tree.edit(MANAGER, |_| {
            Ok(lines
                .iter()
                .enumerate()
                .map(|(i, line)| {
                    if i == value_at {
                        replacement.clone()
                    } else {
                        (*line).to_string()
                    }
                })
                .collect())
        })
    }

    /// Record the options under `plugins."deploy-image.rust.rusty-sdk.dev/v1".resources`.
    pub fn record(&self, project: &mut Project, spec: &ApiSpec) {
        let mut options = Mapping::new();
        if !self.command.is_empty() {
            insert(&mut options, "containerCommand", self.command.join(","));
        }
        if let Some(port) = self.port {
            insert(&mut options, "containerPort", port.to_string());
        }
        insert(&mut options, "image", self.image.clone());
        if let Some(uid) = self.run_as_user {
            insert(&mut options, "runAsUser", uid.to_string());
        }
        let mut entry = Mapping::new();
        insert(&mut entry, "domain", spec.domain.to_string());
        insert(&mut entry, "group", spec.group.to_string());
        insert(&mut entry, "kind", spec.kind.to_string());
        entry.insert(Value::from("options"), Value::Mapping(options));
        insert(&mut entry, "version", spec.version.to_string());

        let data = project.plugin_data_mut(DEPLOY_IMAGE_DATA);
        let resources = data
            .entry(Value::from("resources"))
            .or_insert_with(|| Value::Sequence(Vec::new()));
        if !resources.is_sequence() {
            *resources = Value::Sequence(Vec::new());
        }
        if let Value::Sequence(list) = resources {
            let same = |v: &Value| {
                ["group", "version", "kind"]
                    .iter()
                    .all(|k| v.get(*k) == entry.get(*k))
            };
            match list.iter_mut().find(|v| same(v)) {
                Some(existing) => *existing = Value::Mapping(entry),
                None => list.push(Value::Mapping(entry)),
            }
        }
    }
}

fn insert(map: &mut Mapping, key: &str, value: String) {
    map.insert(Value::from(key), Value::from(value));
}
