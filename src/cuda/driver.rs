//! The CUDA driver API and NVRTC, loaded at run time with `dlopen`: the
//! program builds and runs where no CUDA is installed, and says in one line
//! what is missing where a GPU is asked for. Only entry points that kept
//! their signatures from CUDA 11 to 13 are used (the primary context, not
//! `cuCtxCreate`, whose signature CUDA 13 changed).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};

type CuResult = c_int;
type CuDevice = c_int;
pub(crate) type CuContext = *mut c_void;
type CuModule = *mut c_void;
pub(crate) type CuFunction = *mut c_void;
pub(crate) type DevicePtr = u64;

const CU_DEVICE_ATTRIBUTE_CLOCK_RATE: c_int = 13;
const CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: c_int = 16;
const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: c_int = 75;
const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: c_int = 76;
/// The host thread sleeps while it waits for the GPU, instead of spinning
/// on a core the CPU workers count on.
const CU_CTX_SCHED_BLOCKING_SYNC: c_uint = 0x04;

/// A shared library opened with `dlopen`, never closed (its functions are
/// kept for the life of the process).
pub(super) struct Library {
    handle: *mut c_void,
    name: String,
}

// SAFETY: a dlopen handle is a process-wide token; dlsym may be called
// from any thread.
unsafe impl Send for Library {}
// SAFETY: as for Send: the handle is only read.
unsafe impl Sync for Library {}

impl Library {
    /// The first of `names` that opens, or why none did.
    pub(super) fn open(names: &[String]) -> Result<Library, String> {
        let mut first = None;
        for name in names {
            let Ok(c_name) = CString::new(name.as_str()) else {
                continue;
            };
            // SAFETY: a valid C string; RTLD_NOW resolves every symbol now.
            let handle =
                unsafe { libc::dlopen(c_name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
            if !handle.is_null() {
                return Ok(Library {
                    handle,
                    name: name.clone(),
                });
            }
            let error = dl_error();
            first.get_or_insert(error);
        }
        Err(first.unwrap_or_else(|| "no name to try".to_string()))
    }

    /// The function `name`, as the type `F` (an `extern "C" fn`).
    ///
    /// # Safety
    /// `F` must be the symbol's true signature.
    pub(super) unsafe fn get<F: Copy>(&self, name: &str) -> Result<F, String> {
        assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
        let c_name = CString::new(name).expect("symbol names have no NUL");
        // SAFETY: a live handle and a valid C string.
        let symbol = unsafe { libc::dlsym(self.handle, c_name.as_ptr()) };
        if symbol.is_null() {
            return Err(format!("{} has no {name}", self.name));
        }
        // SAFETY: the caller names the symbol's signature; a function
        // pointer has a data pointer's size (asserted above).
        Ok(unsafe { std::mem::transmute_copy(&symbol) })
    }
}

fn dl_error() -> String {
    // SAFETY: dlerror returns a thread-local message or null.
    let message = unsafe { libc::dlerror() };
    if message.is_null() {
        "not found".to_string()
    } else {
        // SAFETY: a NUL-terminated message owned by the loader.
        unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned()
    }
}

/// Names a library may go by: an explicit path from `variable` first, then
/// the sonames the loader finds, then the toolkit's usual place.
pub(super) fn candidates(variable: &str, names: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = std::env::var(variable).into_iter().collect();
    all.extend(names.iter().map(|name| name.to_string()));
    all.extend(
        names
            .iter()
            .map(|name| format!("/usr/local/cuda/lib64/{name}")),
    );
    all
}

/// The driver API's entry points this program uses.
pub(crate) struct Cuda {
    _library: Library,
    init: unsafe extern "C" fn(c_uint) -> CuResult,
    driver_get_version: unsafe extern "C" fn(*mut c_int) -> CuResult,
    device_get_count: unsafe extern "C" fn(*mut c_int) -> CuResult,
    device_get: unsafe extern "C" fn(*mut CuDevice, c_int) -> CuResult,
    device_get_name: unsafe extern "C" fn(*mut c_char, c_int, CuDevice) -> CuResult,
    device_get_attribute: unsafe extern "C" fn(*mut c_int, c_int, CuDevice) -> CuResult,
    device_total_mem: unsafe extern "C" fn(*mut usize, CuDevice) -> CuResult,
    primary_ctx_set_flags: unsafe extern "C" fn(CuDevice, c_uint) -> CuResult,
    primary_ctx_retain: unsafe extern "C" fn(*mut CuContext, CuDevice) -> CuResult,
    ctx_set_current: unsafe extern "C" fn(CuContext) -> CuResult,
    ctx_synchronize: unsafe extern "C" fn() -> CuResult,
    module_load_data: unsafe extern "C" fn(*mut CuModule, *const c_void) -> CuResult,
    module_get_function: unsafe extern "C" fn(*mut CuFunction, CuModule, *const c_char) -> CuResult,
    mem_alloc: unsafe extern "C" fn(*mut DevicePtr, usize) -> CuResult,
    mem_free: unsafe extern "C" fn(DevicePtr) -> CuResult,
    memcpy_htod: unsafe extern "C" fn(DevicePtr, *const c_void, usize) -> CuResult,
    memcpy_dtoh: unsafe extern "C" fn(*mut c_void, DevicePtr, usize) -> CuResult,
    memset_d32: unsafe extern "C" fn(DevicePtr, u32, usize) -> CuResult,
    memcpy_dtod: unsafe extern "C" fn(DevicePtr, DevicePtr, usize) -> CuResult,
    mem_get_info: unsafe extern "C" fn(*mut usize, *mut usize) -> CuResult,
    #[allow(clippy::type_complexity)]
    launch_kernel: unsafe extern "C" fn(
        CuFunction,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        *mut c_void,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> CuResult,
    get_error_string: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult,
}

/// What a GPU is, as the driver tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Its index among the driver's devices.
    pub index: u32,
    /// Its name (`NVIDIA H100 80GB HBM3`).
    pub name: String,
    /// Compute capability, major and minor.
    pub capability: (u32, u32),
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// Its clock in kHz (0 where the driver no longer says).
    pub clock_khz: u32,
    /// Memory in bytes.
    pub memory: u64,
    /// The driver's CUDA version, as 13000 for 13.0.
    pub driver_version: u32,
}

impl DeviceInfo {
    /// `cuda:0, NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB, driver 13.0)`.
    pub fn describe(&self) -> String {
        format!(
            "cuda:{}, {} (sm_{}{}, {} SMs, {:.1} GiB, driver {}.{})",
            self.index,
            self.name,
            self.capability.0,
            self.capability.1,
            self.multiprocessors,
            self.memory as f64 / (1u64 << 30) as f64,
            self.driver_version / 1000,
            self.driver_version % 1000 / 10
        )
    }
}

impl Cuda {
    /// Loads the driver library (`NQUEENS_CUDA_DRIVER` names it where the
    /// loader does not find it) and initialises it.
    pub(crate) fn load() -> Result<Cuda, String> {
        let library = Library::open(&candidates(
            "NQUEENS_CUDA_DRIVER",
            &["libcuda.so.1", "libcuda.so"],
        ))
        .map_err(|err| format!("no NVIDIA driver here (libcuda.so.1 did not load: {err})"))?;
        // SAFETY: each type is the entry point's signature in cuda.h
        // (the _v2 names are the 64-bit ones every driver since CUDA 4 has).
        let cuda = unsafe {
            Cuda {
                init: library.get("cuInit")?,
                driver_get_version: library.get("cuDriverGetVersion")?,
                device_get_count: library.get("cuDeviceGetCount")?,
                device_get: library.get("cuDeviceGet")?,
                device_get_name: library.get("cuDeviceGetName")?,
                device_get_attribute: library.get("cuDeviceGetAttribute")?,
                device_total_mem: library.get("cuDeviceTotalMem_v2")?,
                primary_ctx_set_flags: library.get("cuDevicePrimaryCtxSetFlags_v2")?,
                primary_ctx_retain: library.get("cuDevicePrimaryCtxRetain")?,
                ctx_set_current: library.get("cuCtxSetCurrent")?,
                ctx_synchronize: library.get("cuCtxSynchronize")?,
                module_load_data: library.get("cuModuleLoadData")?,
                module_get_function: library.get("cuModuleGetFunction")?,
                mem_alloc: library.get("cuMemAlloc_v2")?,
                mem_free: library.get("cuMemFree_v2")?,
                // Copies, clears and launches on the calling thread's own
                // default stream (the "_ptds"/"_ptsz" entry points, as
                // CUDA's per-thread default stream builds call them): the
                // host threads feeding one GPU each wait for their own
                // work only, so one's round trip overlaps another's
                // kernels, where the context's one shared stream made
                // every copy wait for every thread's launches.
                memcpy_htod: library.get("cuMemcpyHtoD_v2_ptds")?,
                memcpy_dtoh: library.get("cuMemcpyDtoH_v2_ptds")?,
                memset_d32: library.get("cuMemsetD32_v2_ptds")?,
                memcpy_dtod: library.get("cuMemcpyDtoD_v2_ptds")?,
                mem_get_info: library.get("cuMemGetInfo_v2")?,
                launch_kernel: library.get("cuLaunchKernel_ptsz")?,
                get_error_string: library.get("cuGetErrorString")?,
                _library: library,
            }
        };
        // SAFETY: cuInit takes flags 0.
        cuda.check(unsafe { (cuda.init)(0) }, "initialise the driver")?;
        Ok(cuda)
    }

    /// `Ok` for CUDA_SUCCESS, else the driver's words for `result`.
    pub(crate) fn check(&self, result: CuResult, doing: &str) -> Result<(), String> {
        if result == 0 {
            return Ok(());
        }
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: cuGetErrorString writes a static string's address.
        let named = unsafe { (self.get_error_string)(result, &mut text) } == 0 && !text.is_null();
        let words = if named {
            // SAFETY: a static NUL-terminated string of the driver's.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        } else {
            "unknown error".to_string()
        };
        Err(format!("cannot {doing}: {words} (CUDA error {result})"))
    }

    /// How many GPUs the driver sees.
    pub(crate) fn device_count(&self) -> Result<u32, String> {
        let mut count = 0;
        // SAFETY: writes one int.
        let result = unsafe { (self.device_get_count)(&mut count) };
        self.check(result, "count the GPUs")?;
        Ok(count.max(0) as u32)
    }

    /// GPU `index`, described.
    pub(crate) fn device(&self, index: u32) -> Result<(CuDevice, DeviceInfo), String> {
        let mut device = 0;
        // SAFETY: writes one device handle.
        let result = unsafe { (self.device_get)(&mut device, index as c_int) };
        self.check(result, "open the GPU")?;
        let mut name = [0 as c_char; 256];
        // SAFETY: the buffer holds the length given.
        let result =
            unsafe { (self.device_get_name)(name.as_mut_ptr(), name.len() as c_int, device) };
        self.check(result, "name the GPU")?;
        // SAFETY: the driver NUL-terminates within the length given.
        let name = unsafe { CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let attribute = |which: c_int| {
            let mut value = 0;
            // SAFETY: writes one int.
            let result = unsafe { (self.device_get_attribute)(&mut value, which, device) };
            (result == 0).then_some(value.max(0) as u32)
        };
        let mut memory = 0usize;
        // SAFETY: writes one size.
        let result = unsafe { (self.device_total_mem)(&mut memory, device) };
        self.check(result, "size the GPU's memory")?;
        let mut version = 0;
        // SAFETY: writes one int.
        let result = unsafe { (self.driver_get_version)(&mut version) };
        self.check(result, "read the driver's version")?;
        let info = DeviceInfo {
            index,
            name,
            capability: (
                attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR).unwrap_or(0),
                attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR).unwrap_or(0),
            ),
            multiprocessors: attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).unwrap_or(0),
            clock_khz: attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE).unwrap_or(0),
            memory: memory as u64,
            driver_version: version.max(0) as u32,
        };
        Ok((device, info))
    }

    /// The GPU's primary context, made current on this thread; its host
    /// thread sleeps while waiting.
    pub(crate) fn context(&self, device: CuDevice) -> Result<CuContext, String> {
        // Fails harmlessly where the context is already active.
        // SAFETY: a device handle from cuDeviceGet.
        let _ = unsafe { (self.primary_ctx_set_flags)(device, CU_CTX_SCHED_BLOCKING_SYNC) };
        let mut context = std::ptr::null_mut();
        // SAFETY: writes one context handle.
        let result = unsafe { (self.primary_ctx_retain)(&mut context, device) };
        self.check(result, "create a context on the GPU")?;
        self.make_current(context)?;
        Ok(context)
    }

    /// Makes `context` current on the calling thread.
    pub(crate) fn make_current(&self, context: CuContext) -> Result<(), String> {
        // SAFETY: a context retained from the driver.
        let result = unsafe { (self.ctx_set_current)(context) };
        self.check(result, "use the GPU's context")
    }

    /// Free and total memory of the current context's GPU.
    pub(crate) fn memory(&self) -> Result<(u64, u64), String> {
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: writes two sizes.
        let result = unsafe { (self.mem_get_info)(&mut free, &mut total) };
        self.check(result, "read the GPU's free memory")?;
        Ok((free as u64, total as u64))
    }

    /// Loads a compiled module (a cubin or PTX image) and finds its
    /// `kernels`.
    pub(crate) fn functions<const K: usize>(
        &self,
        image: &[u8],
        kernels: [&str; K],
    ) -> Result<[CuFunction; K], String> {
        let mut module = std::ptr::null_mut();
        // SAFETY: the image is NUL-terminated where it is PTX (see
        // Nvrtc::compile) and whole where it is a cubin.
        let result = unsafe { (self.module_load_data)(&mut module, image.as_ptr().cast()) };
        self.check(result, "load the kernel onto the GPU")?;
        let mut functions = [std::ptr::null_mut(); K];
        for (function, kernel) in functions.iter_mut().zip(kernels) {
            let name = CString::new(kernel).expect("kernel names have no NUL");
            // SAFETY: a loaded module and a valid name.
            let result = unsafe { (self.module_get_function)(function, module, name.as_ptr()) };
            self.check(result, &format!("find the kernel {kernel}"))?;
        }
        Ok(functions)
    }

    /// `bytes` of GPU memory.
    pub(crate) fn alloc(&self, bytes: usize) -> Result<DevicePtr, String> {
        let mut pointer = 0;
        // SAFETY: writes one device pointer.
        let result = unsafe { (self.mem_alloc)(&mut pointer, bytes.max(8)) };
        self.check(result, &format!("take {bytes} bytes of GPU memory"))?;
        Ok(pointer)
    }

    /// Frees what [`Cuda::alloc`] gave, once the GPU is done with it.
    pub(crate) fn free(&self, pointer: DevicePtr) {
        if pointer != 0 {
            // Launches do not wait (see `launch`), and the driver only
            // "may" wait for them before freeing: a queued kernel may
            // still read this buffer. Frees are rare (a buffer grown, a
            // row set's cells dropped), so waiting costs little.
            // SAFETY: no arguments.
            let _ = unsafe { (self.ctx_synchronize)() };
            // SAFETY: a pointer from cuMemAlloc, freed once.
            let _ = unsafe { (self.mem_free)(pointer) };
        }
    }

    /// Copies `data` to the GPU at `to` (which holds at least as much).
    pub(crate) fn upload<T: Copy>(&self, to: DevicePtr, data: &[T]) -> Result<(), String> {
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: `data` is live for the copy, `to` large enough (callers
        // size it first).
        let result =
            unsafe { (self.memcpy_htod)(to, data.as_ptr().cast(), std::mem::size_of_val(data)) };
        self.check(result, "copy to the GPU (or run a kernel before it)")
    }

    /// Sets `words` 32-bit words at `to` to zero, in order with the
    /// launches and without waiting (a copy of zeros from the host would
    /// wait for every launch before it).
    pub(crate) fn zero(&self, to: DevicePtr, words: usize) -> Result<(), String> {
        if words == 0 {
            return Ok(());
        }
        // SAFETY: `to` holds at least `words` words (callers size it).
        let result = unsafe { (self.memset_d32)(to, 0, words) };
        self.check(result, "clear GPU memory (or run a kernel before it)")
    }

    /// Copies `bytes` from `from` to `to`, both on the GPU, in order with
    /// the launches and without waiting.
    pub(crate) fn copy_on_device(
        &self,
        to: DevicePtr,
        from: DevicePtr,
        bytes: usize,
    ) -> Result<(), String> {
        // SAFETY: both hold at least `bytes` (callers size them).
        let result = unsafe { (self.memcpy_dtod)(to, from, bytes) };
        self.check(result, "copy on the GPU (or run a kernel before it)")
    }

    /// Copies from the GPU at `from` into `data`.
    pub(crate) fn download<T: Copy>(&self, data: &mut [T], from: DevicePtr) -> Result<(), String> {
        // SAFETY: as for upload, the other way.
        let result = unsafe {
            (self.memcpy_dtoh)(data.as_mut_ptr().cast(), from, std::mem::size_of_val(data))
        };
        self.check(result, "copy from the GPU (or run a kernel before it)")
    }

    /// Launches `function` on `blocks` blocks of `threads` threads with the
    /// arguments `params` (each a pointer to an argument's value), without
    /// waiting: launches and copies go in order on the context's one
    /// stream, and a copy from the GPU waits for every launch before it
    /// (and reports a kernel's failure), so the host reads results only
    /// after the kernels that make them. Not waiting here saves a round
    /// trip a launch (a task makes hundreds).
    pub(crate) fn launch(
        &self,
        function: CuFunction,
        blocks: u32,
        threads: u32,
        params: &mut [*mut c_void],
    ) -> Result<(), String> {
        // SAFETY: `params` point at live values of the kernel's argument
        // types, in order (the driver copies them before returning); the
        // default stream, no shared memory.
        let result = unsafe {
            (self.launch_kernel)(
                function,
                blocks,
                1,
                1,
                threads,
                1,
                1,
                0,
                std::ptr::null_mut(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        self.check(result, "launch the kernel")
    }
}
