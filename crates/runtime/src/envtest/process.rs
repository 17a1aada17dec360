//! The control plane's processes: started with their output in a log file, tied to the
//! thread that started them so none outlives the test process, and stopped in reverse order.
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;

/// One running binary of the control plane.
pub(super) struct Process {
    pub name: &'static str,
    child: Child,
    log: PathBuf,
}

impl Process {
    /// Start `binary` with `args`, its output going to `<dir>/<name>.log`.
    ///
    /// On Linux the child is killed when the thread that starts it ends: a control plane
    /// shared by a test binary lives in a static that is never dropped, and its keeper
    /// thread ends only when the test process does, however it ends.
    pub fn start(
        name: &'static str,
        binary: &Path,
        args: &[String],
        dir: &Path,
    ) -> anyhow::Result<Process> {
        let log = dir.join(format!("{name}.log"));
        let out = File::create(&log).with_context(|| format!("cannot create {}", log.display()))?;
        let mut command = Command::new(binary);
        command
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out);
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::process::CommandExt as _;
            // SAFETY: prctl is async-signal-safe and touches only the new process.
            unsafe {
                command.pre_exec(|| {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let child = command.spawn().with_context(|| {
            format!(
                "cannot start {name} from {}; is KUBEBUILDER_ASSETS the folder hack/control-plane.sh printed?",
                binary.display()
            )
        })?;
        Ok(Process { name, child, log })
    }

    /// An error if the process has exited, with the end of its log.
    pub fn check_running(&mut self) -> anyhow::Result<()> {
        match self.child.try_wait()? {
            None => Ok(()),
            Some(status) => anyhow::bail!(
                "{} exited with {status}; the end of {}:\n{}",
                self.name,
                self.log.display(),
                self.log_tail()
            ),
        }
    }

    /// The last lines of the process's log, for error messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// SIGTERM, then SIGKILL if it has not exited within `grace`.
    pub fn stop(mut self, grace: Duration) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: sending a signal to a child we own and have not reaped.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port on 127.0.0.1 that nobody listened on a moment ago.
pub(super) fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("cannot bind 127.0.0.1")?;
    Ok(listener.local_addr()?.port())
}
