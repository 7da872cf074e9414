//! Python bindings: thin wrappers that convert types and map errors. All logic
//! lives in `ssdlab-core`; long runs release the GIL.
//!
//! Errors: a bad input is `ConfigError` (or ValueError for a bad request); a panic
//! that escapes the core is caught in every binding (`guard`) and becomes
//! `InternalError` with a short message and a request to report it, never pyo3's
//! `PanicException`. A `Session` that panicked refuses further requests.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use ssdlab_core::config::{self, presets as core_presets, DeviceSpec};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

create_exception!(
    _core,
    ConfigError,
    PyValueError,
    "A device or workload description is invalid."
);

create_exception!(
    ssdlab,
    InternalError,
    PyRuntimeError,
    "A bug in the simulator (a panic in the Rust core): please report it."
);

/// `SSDLAB_TEST_PANIC=NAME` makes the binding NAME panic inside its guard (read once):
/// how the tests check that every binding turns a panic into InternalError.
fn test_panic(name: &str) {
    static AT: OnceLock<Option<String>> = OnceLock::new();
    if AT
        .get_or_init(|| std::env::var("SSDLAB_TEST_PANIC").ok())
        .as_deref()
        == Some(name)
    {
        panic!("a deliberate panic for tests in {name}");
    }
}

fn internal_error(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    let msg: String = msg.chars().take(300).collect();
    InternalError::new_err(format!(
        "internal error in the simulator: {msg} (please report it with the device, workload and command)"
    ))
}

/// Run a binding's body; a panic in it becomes InternalError.
fn guard<T>(name: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(|| {
        test_panic(name);
        f()
    }))
    .unwrap_or_else(|p| Err(internal_error(p)))
}

fn spec(kind: &str, text: String, origin: String) -> PyResult<DeviceSpec> {
    Ok(match kind {
        "preset" => DeviceSpec::Preset(text),
        "toml" => DeviceSpec::Toml { origin, text },
        "json" => DeviceSpec::Json { origin, text },
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown device kind '{kind}'"
            )))
        }
    })
}

/// Check for Ctrl-C (Python's signal handlers) at most every 50 ms of wall time; the
/// error is kept so that the run stops and raises it (KeyboardInterrupt).
/// Set while `run_many` cancels its runs (signals reach only the main thread; runs on
/// worker threads see this flag at their next signal check).
static CANCEL: AtomicBool = AtomicBool::new(false);

/// Stop (true) every run in progress and any run started until it is cleared (false).
#[pyfunction]
fn cancel_runs(on: bool) -> PyResult<()> {
    guard("cancel_runs", || {
        CANCEL.store(on, Ordering::Relaxed);
        Ok(())
    })
}

struct Signals {
    last: Instant,
    err: Option<PyErr>,
}

impl Signals {
    fn new() -> Arc<Mutex<Signals>> {
        Arc::new(Mutex::new(Signals {
            last: Instant::now(),
            err: None,
        }))
    }

    fn ok(&mut self) -> bool {
        if self.err.is_none() && CANCEL.load(Ordering::Relaxed) {
            // `run_many`'s main thread took the Ctrl-C: its worker threads stop too.
            self.err = Some(pyo3::exceptions::PyKeyboardInterrupt::new_err(()));
        }
        if self.err.is_none() && self.last.elapsed().as_millis() >= 50 {
            self.last = Instant::now();
            self.err = Python::with_gil(|py| py.check_signals()).err();
        }
        self.err.is_none()
    }
}

fn signals_ok(s: &Mutex<Signals>) -> bool {
    s.lock().unwrap_or_else(|e| e.into_inner()).ok()
}

/// Run `f` (GIL released by the caller) so that Ctrl-C also stops the work that has
/// no progress callback (preparing an aged drive: `ssdlab_core::interrupt`); then
/// the KeyboardInterrupt (or other signal handler error), if any, wins over the result.
fn interruptible<T>(signals: &Arc<Mutex<Signals>>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    let hook = signals.clone();
    let r = ssdlab_core::interrupt::with_hook(Box::new(move || signals_ok(&hook)), f);
    if let Some(e) = signals.lock().unwrap_or_else(|e| e.into_inner()).err.take() {
        return Err(e); // interrupted: no partial result
    }
    r.unwrap_or_else(|_| Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(())))
}

fn cfg_err(e: config::ConfigError) -> PyErr {
    ConfigError::new_err(e.to_string())
}

/// A whole number of bytes from Python: any `int` 0 to 2^64-1 (not a bool); anything
/// else (2^64 and beyond, negative, another type) a ConfigError naming `field`, not
/// pyo3's OverflowError or TypeError.
fn bytes_arg(v: &Bound<'_, PyAny>, field: &str) -> PyResult<u64> {
    let n = if v.is_instance_of::<pyo3::types::PyBool>() {
        None
    } else {
        v.extract::<u64>().ok()
    };
    n.ok_or_else(|| {
        let shown = v
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| "the value".into());
        let n = shown.chars().count();
        let shown = if n > 80 {
            format!(
                "{}… ({n} chars)",
                shown.chars().take(80).collect::<String>()
            )
        } else {
            shown
        };
        ConfigError::new_err(format!(
            "{field}: {shown} is not allowed (a number of bytes from 0 to 2^64-1)"
        ))
    })
}

/// A progress bar on stderr, shown only once a run has taken more than a second.
struct Progress {
    start: Instant,
    shown: bool,
    enabled: bool,
}

impl Progress {
    fn update(&mut self, frac: f64) -> bool {
        if self.enabled && self.start.elapsed().as_secs_f64() > 1.0 {
            let width = 40;
            let filled = ((frac.clamp(0.0, 1.0)) * width as f64) as usize;
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r[{}{}] {:5.1}%  {:.1}s",
                "#".repeat(filled),
                ".".repeat(width - filled),
                frac * 100.0,
                self.start.elapsed().as_secs_f64()
            );
            let _ = err.flush();
            self.shown = true;
        }
        true
    }
    fn finish(&self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}\r", " ".repeat(60));
            let _ = err.flush();
        }
    }
}

/// Run one simulation; returns the report as JSON text.
#[pyfunction]
#[pyo3(signature = (device_kind, device_text, device_origin, device_overrides, workload_json, workload_overrides, state, seed, verify=false, progress=false, reuse_prep=false, max_memory=None, threads=0))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    device_kind: &str,
    device_text: String,
    device_origin: String,
    device_overrides: Vec<String>,
    workload_json: String,
    workload_overrides: Vec<String>,
    state: String,
    seed: u64,
    verify: bool,
    progress: bool,
    reuse_prep: bool,
    max_memory: Option<Bound<'_, PyAny>>,
    threads: usize,
) -> PyResult<String> {
    guard("run", || {
        let max_memory = match &max_memory {
            Some(v) => bytes_arg(v, "max_memory")?,
            None => 0,
        };
        let spec = spec(device_kind, device_text, device_origin)?;
        let signals = Signals::new();
        let sig = signals.clone();
        py.allow_threads(move || {
            interruptible(&signals, || {
                let mut bar = Progress {
                    start: Instant::now(),
                    shown: false,
                    enabled: progress,
                };
                let r = ssdlab_core::run_from_specs_threads(
                    &spec,
                    &device_overrides,
                    &workload_json,
                    &workload_overrides,
                    &state,
                    seed,
                    verify,
                    reuse_prep,
                    max_memory,
                    threads,
                    &mut |f| bar.update(f) && signals_ok(&sig),
                );
                bar.finish();
                r.map(|r| r.to_json_string()).map_err(cfg_err)
            })
        })
    })
}

/// Drop the process's cached prepared drive (see `run(..., reuse_prep=True)`).
#[pyfunction]
fn clear_prepared() -> PyResult<()> {
    guard("clear_prepared", || {
        ssdlab_core::clear_prepared();
        Ok(())
    })
}

/// The device of the bindings' four device arguments, resolved and checked.
fn load_device(
    device_kind: &str,
    device_text: String,
    device_origin: String,
    device_overrides: &[String],
) -> PyResult<config::DeviceConfig> {
    let spec = spec(device_kind, device_text, device_origin)?;
    config::load_device(&spec, device_overrides).map_err(cfg_err)
}

/// What preparing the device reads of its config (`ssdlab_core::prep_key`): devices
/// with the same key share a prepared drive in a sweep.
#[pyfunction]
fn prep_key(
    device_kind: &str,
    device_text: String,
    device_origin: String,
    device_overrides: Vec<String>,
) -> PyResult<String> {
    guard("prep_key", || {
        if device_kind == "toml" && ssdlab_core::system::config_is_system(&device_text) {
            return ssdlab_core::system_prep_key(&device_origin, &device_text, &device_overrides)
                .map_err(cfg_err);
        }
        let dev = load_device(device_kind, device_text, device_origin, &device_overrides)?;
        Ok(ssdlab_core::prep_key(&dev))
    })
}

/// Resolve and validate a device; returns the resolved config as JSON text.
#[pyfunction]
#[pyo3(signature = (device_kind, device_text, device_origin, device_overrides))]
fn validate(
    device_kind: &str,
    device_text: String,
    device_origin: String,
    device_overrides: Vec<String>,
) -> PyResult<String> {
    guard("validate", || {
        if device_kind == "toml" && ssdlab_core::system::config_is_system(&device_text) {
            // A system file: its hosts, targets, fabric and every drive's resolved config.
            return ssdlab_core::resolve_system(&device_origin, &device_text, &device_overrides)
                .map(|v| v.to_string())
                .map_err(cfg_err);
        }
        let dev = load_device(device_kind, device_text, device_origin, &device_overrides)?;
        let mut v = serde_json::to_value(&dev).expect("config serialises");
        v["capacity_bytes"] = dev.capacity_bytes().into();
        v["raw_bytes"] = dev.raw_bytes().into();
        v["warnings"] = dev.warnings().into();
        v["derived"] = dev.derived();
        Ok(v.to_string())
    })
}

/// Check a workload (JSON, fio option names) against a device capacity.
#[pyfunction]
fn validate_workload(
    workload_json: String,
    overrides: Vec<String>,
    capacity: u64,
) -> PyResult<String> {
    guard("validate_workload", || {
        let jobs = config::load_jobs(&workload_json, &overrides, capacity).map_err(cfg_err)?;
        Ok(match jobs.as_slice() {
            [w] if !workload_json.contains("\"jobs\"") => serde_json::to_string(w),
            _ => serde_json::to_string(&jobs),
        }
        .expect("workload serialises"))
    })
}

/// The I/Os a synthetic job issues, in order, as (kind, offset, length), kind 0 read,
/// 1 write, 2 trim: clone `index` (numbered over the whole workload, as the simulator
/// numbers them) of the one job in `workload_json`, at most `count` or until its stop
/// rule. The sequence does not depend on timing, so it is the one a run issued (fio's
/// `write_iolog`).
#[pyfunction]
fn job_ios(
    workload_json: String,
    capacity: u64,
    seed: u64,
    index: u32,
    count: u64,
) -> PyResult<Vec<(u8, u64, u64)>> {
    guard("job_ios", || {
        let jobs = config::load_jobs(&workload_json, &[], capacity).map_err(cfg_err)?;
        let w = jobs
            .first()
            .ok_or_else(|| PyValueError::new_err("job_ios: no job"))?;
        let mut g = ssdlab_core::workload::JobGen::new(w, capacity, seed, index);
        let mut out = Vec::new();
        while (out.len() as u64) < count && g.can_issue(0) {
            let io = g.next_io(0);
            out.push((io.kind.index() as u8, io.offset, io.len));
        }
        Ok(out)
    })
}

/// Statistics of a block trace from one streaming pass; returns JSON text.
#[pyfunction]
#[pyo3(signature = (path, format=None, skip_bad_lines=0, device=None))]
fn trace_stats(
    py: Python<'_>,
    path: String,
    format: Option<String>,
    skip_bad_lines: u64,
    device: Option<u64>,
) -> PyResult<String> {
    guard("trace_stats", || {
        let fmt = format
            .as_deref()
            .map(ssdlab_core::trace::TraceFormat::parse)
            .transpose()
            .map_err(|m| ConfigError::new_err(format!("--format: {m}")))?;
        let stats =
            py.allow_threads(move || ssdlab_core::trace::scan(&path, fmt, skip_bad_lines, device));
        stats
            .map(|s| serde_json::to_string(&s).expect("stats serialise"))
            .map_err(|e| ConfigError::new_err(e.message))
    })
}

/// A host-driven session on one simulated device (seed 002's probes): requests are
/// timed one at a time in simulated nanoseconds.
#[pyclass(name = "Session", module = "ssdlab._core")]
struct PySession {
    inner: ssdlab_core::Session,
    /// Set when a request panicked: the drive's state is not to be trusted.
    broken: bool,
}

impl PySession {
    /// A request on the session: guarded, and refused after a panic.
    fn call<T>(
        &mut self,
        name: &str,
        f: impl FnOnce(&mut ssdlab_core::Session) -> PyResult<T>,
    ) -> PyResult<T> {
        if self.broken {
            return Err(InternalError::new_err(
                "this Session stopped at an internal error (reported before); make a new one",
            ));
        }
        let inner = &mut self.inner;
        let r = guard(name, || f(inner));
        if r.as_ref()
            .is_err_and(|e| Python::with_gil(|py| e.is_instance_of::<InternalError>(py)))
        {
            self.broken = true;
        }
        r
    }
}

fn req_err(m: String) -> PyErr {
    PyValueError::new_err(m)
}

#[pymethods]
impl PySession {
    #[new]
    #[pyo3(signature = (device_kind, device_text, device_origin, device_overrides, state, seed))]
    fn new(
        py: Python<'_>,
        device_kind: &str,
        device_text: String,
        device_origin: String,
        device_overrides: Vec<String>,
        state: &str,
        seed: u64,
    ) -> PyResult<Self> {
        guard("Session", || {
            let spec = spec(device_kind, device_text, device_origin)?;
            let dev = config::load_device(&spec, &device_overrides).map_err(cfg_err)?;
            let state = ssdlab_core::DriveState::parse(state).map_err(ConfigError::new_err)?;
            let signals = Signals::new();
            let inner = py.allow_threads(move || {
                interruptible(&signals, || {
                    ssdlab_core::Session::new(dev, state, seed).map_err(cfg_err)
                })
            })?;
            Ok(PySession {
                inner,
                broken: false,
            })
        })
    }

    #[getter]
    fn capacity_bytes(&mut self) -> PyResult<u64> {
        self.call("capacity_bytes", |s| Ok(s.capacity_bytes()))
    }

    #[getter]
    fn now_ns(&mut self) -> PyResult<u64> {
        self.call("now_ns", |s| Ok(s.now_ns()))
    }

    #[getter]
    fn hmb_granted_bytes(&mut self) -> PyResult<u64> {
        self.call("hmb_granted_bytes", |s| Ok(s.hmb_granted_bytes()))
    }

    #[getter]
    fn get_max_io_bytes(&self) -> u64 {
        self.inner.max_io_bytes
    }

    #[setter]
    fn set_max_io_bytes(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = bytes_arg(v, "max_io_bytes")?;
        self.call("max_io_bytes", |s| {
            if v == 0 || !v.is_multiple_of(512) {
                return Err(ConfigError::new_err(format!(
                    "max_io_bytes: {v} must be a positive multiple of 512"
                )));
            }
            s.max_io_bytes = v;
            Ok(())
        })
    }

    fn read(&mut self, py: Python<'_>, offset: u64, length: u64) -> PyResult<u64> {
        use ssdlab_core::workload::OpKind;
        self.call("read", |s| {
            py.allow_threads(|| s.request(OpKind::Read, offset, length))
                .map_err(req_err)
        })
    }

    fn write(&mut self, py: Python<'_>, offset: u64, length: u64) -> PyResult<u64> {
        use ssdlab_core::workload::OpKind;
        self.call("write", |s| {
            py.allow_threads(|| s.request(OpKind::Write, offset, length))
                .map_err(req_err)
        })
    }

    fn deallocate(&mut self, py: Python<'_>, offset: u64, length: u64) -> PyResult<u64> {
        use ssdlab_core::workload::OpKind;
        self.call("deallocate", |s| {
            py.allow_threads(|| s.request(OpKind::Trim, offset, length))
                .map_err(req_err)
        })
    }

    fn read_many(&mut self, py: Python<'_>, offsets: Vec<u64>, length: u64) -> PyResult<Vec<u64>> {
        self.call("read_many", |s| {
            py.allow_threads(|| s.read_many(&offsets, length))
                .map_err(req_err)
        })
    }

    fn flush(&mut self, py: Python<'_>) -> PyResult<u64> {
        self.call("flush", |s| Ok(py.allow_threads(|| s.flush())))
    }

    fn idle_ns(&mut self, py: Python<'_>, ns: u64) -> PyResult<()> {
        self.call("idle_ns", |s| {
            py.allow_threads(|| s.idle(ns));
            Ok(())
        })
    }

    /// The device's report so far, as JSON text (for inspection, not for probes).
    fn report(&mut self) -> PyResult<String> {
        self.call("report", |s| Ok(s.report().to_string()))
    }
}

/// Serve the device over NBD until SIGINT/SIGTERM (GIL released); returns JSON text
/// `{"serve": lateness and counts, "report": the drive's report}`.
#[pyfunction]
#[pyo3(signature = (device_kind, device_text, device_origin, device_overrides, state, seed, socket=None, port=None, time_scale=1.0, backing=None, late_tolerance_ns=20_000, reply_bytes_per_client=ssdlab_serve::DEFAULT_CLIENT_REPLY_BYTES, reply_bytes_total=ssdlab_serve::DEFAULT_TOTAL_REPLY_BYTES, max_clients=ssdlab_serve::DEFAULT_MAX_CLIENTS, client_timeout_s=ssdlab_serve::DEFAULT_CLIENT_TIMEOUT_S, realtime=false, placement=None))]
#[allow(clippy::too_many_arguments)]
fn serve(
    py: Python<'_>,
    device_kind: &str,
    device_text: String,
    device_origin: String,
    device_overrides: Vec<String>,
    state: &str,
    seed: u64,
    socket: Option<String>,
    port: Option<u16>,
    time_scale: f64,
    backing: Option<String>,
    late_tolerance_ns: u64,
    reply_bytes_per_client: u64,
    reply_bytes_total: u64,
    max_clients: u32,
    client_timeout_s: u64,
    realtime: bool,
    placement: Option<String>,
) -> PyResult<String> {
    guard("serve", || {
        use ssdlab_serve::{Listen, ServeError, ServeOptions};
        let spec = spec(device_kind, device_text, device_origin)?;
        let dev = config::load_device(&spec, &device_overrides).map_err(cfg_err)?;
        let state = ssdlab_core::DriveState::parse(state).map_err(ConfigError::new_err)?;
        let listen = match (socket, port) {
            (Some(s), None) => Listen::Unix(s),
            (None, Some(p)) => Listen::Tcp(p),
            (None, None) => Listen::Tcp(10809),
            (Some(_), Some(_)) => {
                return Err(ConfigError::new_err(
                    "--socket and --port: give one of them, not both",
                ))
            }
        };
        let opts = ServeOptions {
            listen,
            time_scale,
            backing,
            late_tolerance_ns,
            client_reply_bytes: reply_bytes_per_client,
            total_reply_bytes: reply_bytes_total,
            max_clients,
            client_timeout: (client_timeout_s > 0)
                .then(|| std::time::Duration::from_secs(client_timeout_s)),
            realtime,
        };
        let label = dev.name.clone();
        let run_opts = ssdlab_core::RunOptions {
            state,
            seed,
            verify: false,
        };
        let r = py.allow_threads(move || {
            let t0 = Instant::now();
            let mut sess = ssdlab_core::AsyncSession::new(dev, run_opts)
                .map_err(|e| ServeError::Usage(e.to_string()))?;
            if let Some(p) = placement {
                let job: ssdlab_core::config::fdp::FdpJob = serde_json::from_str(&p)
                    .map_err(|e| ServeError::Usage(format!("placement: {e}")))?;
                sess.set_placement(&job, seed).map_err(ServeError::Usage)?;
            }
            let prep_s = t0.elapsed().as_secs_f64();
            let mut v = ssdlab_serve::serve(sess, &opts, &label)?;
            // As `run`'s report: preparation apart, the serving time as the simulation's.
            let r = &mut v["report"];
            r["prep_wall_time_s"] = prep_s.into();
            r["sim_wall_time_s"] = r["wall_time_s"].clone();
            Ok(v)
        });
        match r {
            Ok(v) => Ok(v.to_string()),
            Err(ServeError::Usage(m)) => Err(ConfigError::new_err(m)),
            Err(ServeError::Model(m)) => Err(pyo3::exceptions::PyRuntimeError::new_err(m)),
        }
    })
}

/// (name, description) of every shipped device preset.
#[pyfunction]
fn presets() -> PyResult<Vec<(String, String)>> {
    guard("presets", || Ok(core_presets::describe()))
}

/// The TOML text of a shipped preset, or None.
#[pyfunction]
fn preset_toml(name: &str) -> PyResult<Option<String>> {
    guard("preset_toml", || {
        Ok(core_presets::device_toml(name).map(str::to_string))
    })
}

/// Bytes of the memory limit reserved by the runs in progress in this process (runs
/// in parallel share `max_memory`).
#[pyfunction]
fn _memory_reserved() -> PyResult<u64> {
    guard("_memory_reserved", || {
        Ok(ssdlab_core::config::limits::reserved_bytes())
    })
}

/// Panic, for the test that a panic reaches Python as `ssdlab.InternalError`.
#[pyfunction]
fn _panic_for_tests() -> PyResult<()> {
    guard("_panic_for_tests", || {
        panic!("a deliberate panic for tests")
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", ssdlab_core::VERSION)?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    // Every binding turns a panic into InternalError (`guard`); keep Rust's panic
    // report off the user's terminal unless SSDLAB_DEBUG=1.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::env::var_os("SSDLAB_DEBUG").is_some() {
            default_hook(info);
        }
    }));
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(clear_prepared, m)?)?;
    m.add_function(wrap_pyfunction!(cancel_runs, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(prep_key, m)?)?;
    m.add_function(wrap_pyfunction!(validate_workload, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(job_ios, m)?)?;
    m.add_class::<PySession>()?;
    m.add_function(wrap_pyfunction!(preset_toml, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(_memory_reserved, m)?)?;
    m.add_function(wrap_pyfunction!(serve, m)?)?;
    Ok(())
}
