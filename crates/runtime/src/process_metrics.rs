//! The process metrics of Prometheus' Go client (`process_cpu_seconds_total`,
//! `process_resident_memory_bytes`, `process_virtual_memory_bytes`,
//! `process_start_time_seconds`, `process_open_fds`, `process_max_fds`), which every
//! controller-runtime manager exposes and dashboards for operators chart.
//!
//! They are read from `/proc` at scrape time, as the Go client's procfs collector reads
//! them (times in the kernel's `USER_HZ` of 100 ticks per second, as procfs assumes). On a
//! system without `/proc` nothing is exposed.
use std::path::{Path, PathBuf};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

/// Clock ticks per second of `/proc/<pid>/stat` times (Linux' `USER_HZ`).
const USER_HZ: f64 = 100.0;

/// Register the process metrics of this process in `registry`.
pub fn register(registry: &mut Registry) {
    registry.register_collector(Box::new(ProcessCollector {
        proc: PathBuf::from("/proc"),
        pid: "self".into(),
    }));
}

/// Reads one process' metrics from a procfs mount.
#[derive(Debug)]
struct ProcessCollector {
    proc: PathBuf,
    pid: String,
}

/// One reading; a value the system did not give is left out.
#[derive(Debug, Default, PartialEq)]
struct Reading {
    cpu_seconds: Option<f64>,
    resident_bytes: Option<i64>,
    virtual_bytes: Option<i64>,
    start_time_seconds: Option<f64>,
    open_fds: Option<i64>,
    max_fds: Option<i64>,
}

impl ProcessCollector {
    #[expect(
        clippy::cast_precision_loss,
        reason = "Prometheus samples are f64, as in client_golang; these counts stay far below 2^52"
    )]
    fn read(&self) -> Reading {
        let process = self.proc.join(&self.pid);
        let stat = std::fs::read_to_string(process.join("stat")).ok();
        let stat = stat.as_deref().and_then(Stat::parse);
        let boot_time = std::fs::read_to_string(self.proc.join("stat"))
            .ok()
            .and_then(|text| boot_time(&text));
        Reading {
            cpu_seconds: stat.as_ref().map(|s| (s.utime + s.stime) as f64 / USER_HZ),
            resident_bytes: std::fs::read_to_string(process.join("status"))
                .ok()
                .and_then(|text| resident_bytes(&text)),
            virtual_bytes: stat.as_ref().and_then(|s| i64::try_from(s.vsize).ok()),
            start_time_seconds: stat
                .as_ref()
                .zip(boot_time)
                .map(|(s, boot)| boot as f64 + s.starttime as f64 / USER_HZ),
            open_fds: open_fds(&process),
            max_fds: std::fs::read_to_string(process.join("limits"))
                .ok()
                .and_then(|text| max_fds(&text)),
        }
    }
}

/// The fields of `/proc/<pid>/stat` these metrics use.
struct Stat {
    utime: u64,
    stime: u64,
    starttime: u64,
    vsize: u64,
}

impl Stat {
    fn parse(text: &str) -> Option<Stat> {
        // The command (field 2) is in parentheses and may hold spaces and parentheses:
        // the fields after it start after the last `)`.
        let rest = &text[text.rfind(')')? + 1..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // `rest` starts at field 3 (state): field n is fields[n - 3].
        let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
        Some(Stat {
            utime: field(14)?,
            stime: field(15)?,
            starttime: field(22)?,
            vsize: field(23)?,
        })
    }
}

/// `btime` of `/proc/stat`: when the system booted, in seconds since the epoch.
fn boot_time(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix("btime "))
        .and_then(|value| value.trim().parse().ok())
}

/// `VmRSS` of `/proc/<pid>/status` (in kB) in bytes: the resident set that `stat`'s `rss`
/// counts in pages, without needing the page size.
fn resident_bytes(text: &str) -> Option<i64> {
    let line = text.lines().find_map(|line| line.strip_prefix("VmRSS:"))?;
    let kilobytes: i64 = line.trim().trim_end_matches("kB").trim().parse().ok()?;
    kilobytes.checked_mul(1024)
}

/// The soft limit of `Max open files` in `/proc/<pid>/limits`.
fn max_fds(text: &str) -> Option<i64> {
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix("Max open files"))?;
    line.split_whitespace().next()?.parse().ok()
}

fn open_fds(process: &Path) -> Option<i64> {
    let entries = std::fs::read_dir(process.join("fd")).ok()?;
    i64::try_from(entries.count()).ok()
}

impl Collector for ProcessCollector {
    #[expect(
        clippy::cast_precision_loss,
        reason = "Prometheus samples are f64, as in client_golang; these counts stay far below 2^52"
    )]
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let reading = self.read();
        if let Some(seconds) = reading.cpu_seconds {
            let counter = ConstCounter::new(seconds);
            let metric = encoder.encode_descriptor(
                "process_cpu_seconds",
                "Total user and system CPU time spent in seconds",
                None,
                counter.metric_type(),
            )?;
            counter.encode(metric)?;
        }
        let gauges = [
            (
                "process_resident_memory_bytes",
                "Resident memory size in bytes",
                reading.resident_bytes.map(|v| v as f64),
            ),
            (
                "process_virtual_memory_bytes",
                "Virtual memory size in bytes",
                reading.virtual_bytes.map(|v| v as f64),
            ),
            (
                "process_start_time_seconds",
                "Start time of the process since unix epoch in seconds",
                reading.start_time_seconds,
            ),
            (
                "process_open_fds",
                "Number of open file descriptors",
                reading.open_fds.map(|v| v as f64),
            ),
            (
                "process_max_fds",
                "Maximum number of open file descriptors",
                reading.max_fds.map(|v| v as f64),
            ),
        ];
        for (name, help, value) in gauges {
            if let Some(value) = value {
                let metric = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
                ConstGauge::new(value).encode(metric)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A procfs with one process, as Linux writes it (a command with a space and a `)`).
    fn fake_proc() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let process = dir.path().join("42");
        std::fs::create_dir_all(process.join("fd")).unwrap();
        for fd in ["0", "1", "2"] {
            std::fs::write(process.join("fd").join(fd), "").unwrap();
        }
        // Fields: 1 pid, 2 comm, 3 state, ..., 14 utime 250, 15 stime 50, ...,
        // 22 starttime 12345, 23 vsize 1000000.
        let stat = "42 (my op) x) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 12345 1000000 2048 18446744073709551615";
        std::fs::write(process.join("stat"), stat).unwrap();
        std::fs::write(
            process.join("status"),
            "Name:\tmy op\nVmPeak:\t  20000 kB\nVmRSS:\t    8192 kB\nThreads:\t8\n",
        )
        .unwrap();
        std::fs::write(
            process.join("limits"),
            "Limit                     Soft Limit           Hard Limit           Units     \nMax cpu time              unlimited            unlimited            seconds   \nMax open files            1048576              1048576              files     \n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("stat"),
            "cpu  1 2 3\nbtime 1764201600\nprocesses 9\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn reads_what_procfs_says() {
        let proc = fake_proc();
        let collector = ProcessCollector {
            proc: proc.path().to_path_buf(),
            pid: "42".into(),
        };
        assert_eq!(
            collector.read(),
            Reading {
                cpu_seconds: Some(3.0),
                resident_bytes: Some(8192 * 1024),
                virtual_bytes: Some(1_000_000),
                start_time_seconds: Some(1_764_201_600.0 + 123.45),
                open_fds: Some(3),
                max_fds: Some(1_048_576),
            }
        );
        let mut registry = Registry::default();
        registry.register_collector(Box::new(collector));
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        for line in [
            "# TYPE process_cpu_seconds counter\nprocess_cpu_seconds_total 3.0\n",
            "process_resident_memory_bytes 8388608.0\n",
            "process_start_time_seconds 1764201723.45\n",
            "process_open_fds 3.0\n",
            "process_max_fds 1048576.0\n",
        ] {
            assert!(text.contains(line), "{line} missing in\n{text}");
        }
    }

    #[test]
    fn this_process_has_its_metrics() {
        if !Path::new("/proc/self/stat").exists() {
            return;
        }
        let mut registry = Registry::default();
        register(&mut registry);
        let scrape = || {
            let mut text = String::new();
            prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
            text
        };
        // The kernel counts CPU time in ticks of 10 ms, and a test run alone may not have
        // used one yet: work until it has (or 10 s of wall time pass).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut text = scrape();
        let mut work = 0u64;
        while text.contains("process_cpu_seconds_total 0.0\n")
            && std::time::Instant::now() < deadline
        {
            for i in 0..1_000_000u64 {
                work = std::hint::black_box(work.wrapping_mul(31).wrapping_add(i));
            }
            text = scrape();
        }
        let value = |name: &str| -> f64 {
            text.lines()
                .find_map(|line| line.strip_prefix(&format!("{name} ")))
                .and_then(|value| value.parse().ok())
                .unwrap_or_else(|| panic!("no {name} in\n{text}"))
        };
        assert!(value("process_resident_memory_bytes") > 1_000_000.0);
        assert!(value("process_open_fds") >= 3.0);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        let started = value("process_start_time_seconds");
        assert!(
            started <= now + 1.0 && started > now - 24.0 * 3600.0,
            "{started} vs {now}"
        );
        assert!(value("process_cpu_seconds_total") > 0.0);
    }
}
