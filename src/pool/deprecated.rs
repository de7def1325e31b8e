//! Rayon's deprecated configuration API, kept so that code written for rayon-core 1.13
//! (and the `compat/rayon-core` crate that serves it) compiles unchanged: [`Configuration`],
//! [`initialize`], `ThreadPool::new` (in `thread_pool.rs`) and
//! [`ThreadPoolBuilder::breadth_first`]. Everything here forwards to [`ThreadPoolBuilder`].
#![allow(deprecated)] // this file defines the deprecated items and uses them

use std::any::Any;
use std::error::Error;
use std::fmt;

use super::{ThreadPool, ThreadPoolBuilder};

/// The thread pool configuration of Rayon's early API. Use [`ThreadPoolBuilder`] instead.
///
/// ```
/// #![allow(deprecated)]
/// let pool = weft::Configuration::new().num_threads(2).build().unwrap();
/// assert_eq!(pool.current_num_threads(), 2);
/// ```
#[deprecated(note = "Use `ThreadPoolBuilder`")]
#[derive(Default)]
pub struct Configuration {
    builder: ThreadPoolBuilder,
}

impl Configuration {
    /// A configuration with default settings.
    pub fn new() -> Configuration {
        Configuration {
            builder: ThreadPoolBuilder::new(),
        }
    }

    /// Deprecated in favor of [`ThreadPoolBuilder::build`].
    pub fn build(self) -> Result<ThreadPool, Box<dyn Error + 'static>> {
        self.builder.build().map_err(Box::from)
    }

    /// Deprecated in favor of [`ThreadPoolBuilder::thread_name`].
    pub fn thread_name<F>(self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.with(|builder| builder.thread_name(closure))
    }

    /// Deprecated in favor of [`ThreadPoolBuilder::num_threads`].
    pub fn num_threads(self, num_threads: usize) -> Configuration {
        self.with(|builder| builder.num_threads(num_threads))
    }

    /// Deprecated in favor of [`ThreadPoolBuilder::panic_handler`].
    pub fn panic_handler<H>(self, panic_handler: H) -> Configuration
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.with(|builder| builder.panic_handler(panic_handler))
    }

    /// Deprecated in favor of [`ThreadPoolBuilder::stack_size`].
    pub fn stack_size(self, stack_size: usize) -> Self {
        self.with(|builder| builder.stack_size(stack_size))
    }

    /// Deprecated in favor of [`ThreadPoolBuilder::breadth_first`].
    pub fn breadth_first(self) -> Self {
        self.with(ThreadPoolBuilder::breadth_first)
    }

    /// Deprecated in favor of [`ThreadPoolBuilder::start_handler`].
    pub fn start_handler<H>(self, start_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.with(|builder| builder.start_handler(start_handler))
    }

    /// Deprecated in favor of [`ThreadPoolBuilder::exit_handler`].
    pub fn exit_handler<H>(self, exit_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.with(|builder| builder.exit_handler(exit_handler))
    }

    fn with(self, set: impl FnOnce(ThreadPoolBuilder) -> ThreadPoolBuilder) -> Self {
        Configuration {
            builder: set(self.builder),
        }
    }

    pub(super) fn into_builder(self) -> ThreadPoolBuilder {
        self.builder
    }
}

impl fmt::Debug for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.builder.fmt(f)
    }
}

/// Deprecated in favor of [`ThreadPoolBuilder::build_global`].
///
/// ```
/// #![allow(deprecated)]
/// // The first call configures the global pool; any later one is an error.
/// let first = weft::initialize(weft::Configuration::new().num_threads(2));
/// let second = weft::initialize(weft::Configuration::new());
/// assert!(first.is_ok() && second.is_err());
/// assert_eq!(weft::current_num_threads(), 2);
/// ```
#[deprecated(note = "use `ThreadPoolBuilder::build_global`")]
pub fn initialize(config: Configuration) -> Result<(), Box<dyn Error>> {
    config.into_builder().build_global().map_err(Box::from)
}

impl<S> ThreadPoolBuilder<S> {
    /// Rayon's request that workers run their own spawned tasks oldest first. An execution
    /// hint in Rayon, deprecated there (use [`scope_fifo`](crate::scope_fifo) and
    /// [`spawn_fifo`](crate::spawn_fifo)); weft accepts it and changes nothing.
    ///
    /// ```
    /// #![allow(deprecated)]
    /// let pool = weft::ThreadPoolBuilder::new().breadth_first().num_threads(1).build().unwrap();
    /// assert_eq!(pool.install(|| 6 * 7), 42);
    /// ```
    #[deprecated(note = "use `scope_fifo` and `spawn_fifo` for similar effect")]
    pub fn breadth_first(self) -> Self {
        self
    }
}
