//! A `HelmClient` that records every call and answers from a script.
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Mutex;

use async_trait::async_trait;
use serde_json::Value;

use crate::helm::{
    HelmClient, HelmError, InstallOptions, Release, ReleaseRevision, ReleaseTarget,
    RollbackOptions, UninstallOptions, UpgradeOptions,
};

#[derive(Clone, Debug, PartialEq)]
pub enum HelmCall {
    Get,
    Install {
        values: Value,
        options: InstallOptions,
    },
    Upgrade {
        values: Value,
        options: UpgradeOptions,
    },
    Uninstall(UninstallOptions),
    History,
    Rollback {
        revision: Option<u32>,
        options: RollbackOptions,
    },
}

/// The answer to the next call.
pub enum Reply {
    Get(Option<Release>),
    Release(Release),
    Done,
    History(Vec<ReleaseRevision>),
    Fail(&'static str, String),
}

pub struct FakeHelm {
    calls: Mutex<Vec<HelmCall>>,
    replies: Mutex<VecDeque<Reply>>,
}

impl FakeHelm {
    pub fn new(replies: Vec<Reply>) -> Self {
        FakeHelm {
            calls: Mutex::new(Vec::new()),
            replies: Mutex::new(replies.into()),
        }
    }

    pub fn calls(&self) -> Vec<HelmCall> {
        self.calls.lock().unwrap().clone()
    }

    fn next(&self, call: HelmCall, target: &ReleaseTarget) -> Reply {
        assert_eq!(
            target,
            &ReleaseTarget::new("mc", "default"),
            "release target of {call:?}"
        );
        let reply = self.replies.lock().unwrap().pop_front();
        let reply = reply.unwrap_or_else(|| panic!("unexpected helm call {call:?}"));
        self.calls.lock().unwrap().push(call);
        reply
    }
}

/// A scripted call the code under test never made fails the test as an extra call does
/// (a reconciler that skipped the uninstall must not pass the delete tests).
impl Drop for FakeHelm {
    fn drop(&mut self) {
        let left = self.replies.get_mut().unwrap_or_else(|p| p.into_inner());
        if !left.is_empty() && !std::thread::panicking() {
            let calls = self.calls.get_mut().unwrap_or_else(|p| p.into_inner());
            panic!(
                "{} scripted helm call(s) never made, the next answering {}; calls made: {calls:?}",
                left.len(),
                left[0].answers()
            );
        }
    }
}

impl Reply {
    /// The calls this reply can answer, for messages.
    fn answers(&self) -> &'static str {
        match self {
            Reply::Get(_) => "get",
            Reply::Release(_) => "install or upgrade",
            Reply::Done => "uninstall or rollback",
            Reply::History(_) => "history",
            Reply::Fail(operation, _) => operation,
        }
    }
}

fn failure(operation: &'static str, stderr: String) -> HelmError {
    HelmError::Release {
        operation,
        release: ReleaseTarget::new("mc", "default"),
        reason: stderr,
    }
}

#[async_trait]
impl HelmClient for FakeHelm {
    async fn install(
        &self,
        target: &ReleaseTarget,
        chart: &Path,
        values: &Value,
        options: &InstallOptions,
    ) -> Result<Release, HelmError> {
        assert_eq!(chart, Path::new("helm-charts/memcached"));
        match self.next(
            HelmCall::Install {
                values: values.clone(),
                options: options.clone(),
            },
            target,
        ) {
            Reply::Release(release) => Ok(release),
            Reply::Fail(operation, stderr) => Err(failure(operation, stderr)),
            _ => panic!("install needs a Release or Fail reply"),
        }
    }

    async fn upgrade(
        &self,
        target: &ReleaseTarget,
        chart: &Path,
        values: &Value,
        options: &UpgradeOptions,
    ) -> Result<Release, HelmError> {
        assert_eq!(chart, Path::new("helm-charts/memcached"));
        match self.next(
            HelmCall::Upgrade {
                values: values.clone(),
                options: options.clone(),
            },
            target,
        ) {
            Reply::Release(release) => Ok(release),
            Reply::Fail(operation, stderr) => Err(failure(operation, stderr)),
            _ => panic!("upgrade needs a Release or Fail reply"),
        }
    }

    async fn uninstall(
        &self,
        target: &ReleaseTarget,
        options: &UninstallOptions,
    ) -> Result<(), HelmError> {
        match self.next(HelmCall::Uninstall(options.clone()), target) {
            Reply::Done => Ok(()),
            Reply::Fail(operation, stderr) => Err(failure(operation, stderr)),
            _ => panic!("uninstall needs a Done or Fail reply"),
        }
    }

    async fn get(&self, target: &ReleaseTarget) -> Result<Option<Release>, HelmError> {
        match self.next(HelmCall::Get, target) {
            Reply::Get(release) => Ok(release),
            Reply::Fail(operation, stderr) => Err(failure(operation, stderr)),
            _ => panic!("get needs a Get or Fail reply"),
        }
    }

    async fn history(&self, target: &ReleaseTarget) -> Result<Vec<ReleaseRevision>, HelmError> {
        match self.next(HelmCall::History, target) {
            Reply::History(history) => Ok(history),
            _ => panic!("history needs a History reply"),
        }
    }

    async fn rollback(
        &self,
        target: &ReleaseTarget,
        revision: Option<u32>,
        options: &RollbackOptions,
    ) -> Result<(), HelmError> {
        match self.next(
            HelmCall::Rollback {
                revision,
                options: options.clone(),
            },
            target,
        ) {
            Reply::Done => Ok(()),
            Reply::Fail(operation, stderr) => Err(failure(operation, stderr)),
            _ => panic!("rollback needs a Done or Fail reply"),
        }
    }
}
