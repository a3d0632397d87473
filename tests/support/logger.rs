//! The importer's `fmi2CallbackLogger`, recording every message so that tests can assert on it.
//!
//! The callback is a plain (non-variadic) `extern "C"` function stored in the variadic
//! `fmi2CallbackLogger` slot. That is sound on the C ABIs this runs on (x86-64 System V and
//! Windows x64, AArch64 Linux) only as long as the FMU passes no variadic arguments, which is what
//! this FMU promises: it formats the text itself and passes it as the format string with every `%`
//! doubled. A lone `%` in a message therefore shows a broken promise, and is flagged in
//! [`LogRecord::lone_percent`].
//!
//! Each [`super::Instance`] owns a [`LogSink`] and passes its address as `componentEnvironment`, so
//! messages land with the instance they belong to and the test can check that the pointer came
//! back unchanged. A NULL `componentEnvironment` (what FMPy passes) sends them to [`global_sink`].

use std::ffi::{c_char, c_void, CStr};
use std::sync::{Mutex, MutexGuard, OnceLock};

use fmi_sys::fmi2;

use super::Status;

/// The start of the FMU's warning that the master's answers give another mass than the one in
/// use (with the right mass given, a false one).
pub const DISAGREEMENT_WARNING: &str = "the master's answer to the contact gives an effective mass";

/// One call of the logger.
#[derive(Clone, Debug)]
pub struct LogRecord {
    /// The `componentEnvironment` the FMU passed back, as an address.
    pub env: usize,
    /// `None` if the FMU passed NULL.
    pub instance_name: Option<String>,
    pub status: Status,
    /// `None` if the FMU passed NULL (which crashes OMSimulator).
    pub category: Option<String>,
    /// The format string exactly as passed (`None` for NULL).
    pub raw: Option<String>,
    /// The text a printf would print with no arguments: `%%` turned into `%`.
    pub message: String,
    /// The format string contains a `%` that is not part of `%%`, i.e. a conversion that would
    /// read a variadic argument the FMU did not pass.
    pub lone_percent: bool,
}

/// Where the messages of one instance go.
#[derive(Debug, Default)]
pub struct LogSink {
    records: Mutex<Vec<LogRecord>>,
}

impl LogSink {
    pub fn new() -> LogSink {
        LogSink::default()
    }

    pub fn records(&self) -> MutexGuard<'_, Vec<LogRecord>> {
        self.records.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A copy of everything recorded so far.
    pub fn snapshot(&self) -> Vec<LogRecord> {
        self.records().clone()
    }

    /// Removes and returns everything recorded so far.
    pub fn take(&self) -> Vec<LogRecord> {
        std::mem::take(&mut *self.records())
    }

    pub fn push(&self, record: LogRecord) {
        self.records().push(record);
    }
}

/// Messages that arrived with a NULL `componentEnvironment`. Shared by all instances and tests of
/// the process: filter by instance name.
pub fn global_sink() -> &'static LogSink {
    static GLOBAL: OnceLock<LogSink> = OnceLock::new();
    GLOBAL.get_or_init(LogSink::new)
}

/// Undo the `%%` escaping of a printf format that has no conversions. Returns the text and whether
/// a lone `%` was found.
pub fn unescape_percent(format: &str) -> (String, bool) {
    let mut out = String::with_capacity(format.len());
    let mut lone = false;
    let mut chars = format.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch == '%' {
            if chars.peek() == Some(&'%') {
                chars.next();
            } else {
                lone = true;
            }
        }
        out.push(ch);
    }
    (out, lone)
}

unsafe fn opt_string(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the FMU passes NUL-terminated strings that live for the duration of the call.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

/// The logger callback. Non-variadic on purpose; see the module documentation.
pub extern "C" fn record_log(
    component_environment: fmi2::fmi2ComponentEnvironment,
    instance_name: fmi2::fmi2String,
    status: fmi2::fmi2Status,
    category: fmi2::fmi2String,
    message: fmi2::fmi2String,
) {
    // SAFETY: string pointers come from the FMU and are valid or NULL during this call.
    let (instance_name, category, raw) = unsafe {
        (
            opt_string(instance_name),
            opt_string(category),
            opt_string(message),
        )
    };
    let (text, lone_percent) = raw.as_deref().map(unescape_percent).unwrap_or_default();
    let record = LogRecord {
        env: component_environment as usize,
        instance_name,
        status: Status::from(status),
        category,
        raw,
        message: text,
        lone_percent,
    };
    if std::env::var_os("ELASTOGAP_TEST_ECHO_LOG").is_some() {
        eprintln!(
            "[fmu log] {:?} {:?} {:?}: {}",
            record.instance_name, record.status, record.category, record.message
        );
    }
    let sink: &LogSink = if component_environment.is_null() {
        global_sink()
    } else {
        // SAFETY: a non-NULL componentEnvironment is only ever the address of the LogSink that
        // the owning Instance keeps boxed until after fmi2FreeInstance.
        unsafe { &*(component_environment as *const LogSink) }
    };
    sink.push(record);
}

/// [`record_log`] in the variadic type that `fmi2CallbackFunctions` declares.
pub fn logger_callback() -> fmi2::fmi2CallbackLogger {
    type NonVariadic = extern "C" fn(
        fmi2::fmi2ComponentEnvironment,
        fmi2::fmi2String,
        fmi2::fmi2Status,
        fmi2::fmi2String,
        fmi2::fmi2String,
    );
    type Variadic = unsafe extern "C" fn(
        fmi2::fmi2ComponentEnvironment,
        fmi2::fmi2String,
        fmi2::fmi2Status,
        fmi2::fmi2String,
        fmi2::fmi2String,
        ...
    );
    let f: NonVariadic = record_log;
    // SAFETY: same fixed arguments; the FMU passes no variadic ones (module documentation).
    Some(unsafe { std::mem::transmute::<NonVariadic, Variadic>(f) })
}

/// `calloc`/`free` for `fmi2CallbackFunctions`, when a test wants to pass memory callbacks.
pub mod memory {
    use std::ffi::c_void;

    extern "C" {
        fn calloc(nobj: usize, size: usize) -> *mut c_void;
        fn free(obj: *mut c_void);
    }

    pub unsafe extern "C" fn allocate(nobj: usize, size: usize) -> *mut c_void {
        // SAFETY: plain C calloc.
        unsafe { calloc(nobj, size) }
    }

    pub unsafe extern "C" fn release(obj: *mut c_void) {
        // SAFETY: plain C free of a pointer from `allocate` (or NULL).
        unsafe { free(obj) }
    }
}

/// The address a [`LogSink`] is passed as.
pub fn env_of(sink: &LogSink) -> *mut c_void {
    sink as *const LogSink as *mut c_void
}
