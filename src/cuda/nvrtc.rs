//! NVRTC, the runtime compiler, loaded with `dlopen` beside the driver
//! (`driver.rs`): the kernels are compiled for the GPU met at run time.

use std::ffi::{c_char, c_int, CString};

use super::driver::{candidates, Library};

type NvrtcProgram = *mut std::ffi::c_void;

/// NVRTC, the runtime compiler: the kernel is compiled for the GPU met.
pub(crate) struct Nvrtc {
    library: Library,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int,
    create_program: unsafe extern "C" fn(
        *mut NvrtcProgram,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> c_int,
    compile_program: unsafe extern "C" fn(NvrtcProgram, c_int, *const *const c_char) -> c_int,
    program_log_size: unsafe extern "C" fn(NvrtcProgram, *mut usize) -> c_int,
    program_log: unsafe extern "C" fn(NvrtcProgram, *mut c_char) -> c_int,
    cubin_size: unsafe extern "C" fn(NvrtcProgram, *mut usize) -> c_int,
    cubin: unsafe extern "C" fn(NvrtcProgram, *mut c_char) -> c_int,
    ptx_size: unsafe extern "C" fn(NvrtcProgram, *mut usize) -> c_int,
    ptx: unsafe extern "C" fn(NvrtcProgram, *mut c_char) -> c_int,
    destroy_program: unsafe extern "C" fn(*mut NvrtcProgram) -> c_int,
    /// The architectures this NVRTC compiles for (CUDA 11.2 on; absent
    /// before).
    supported_count: Option<unsafe extern "C" fn(*mut c_int) -> c_int>,
    supported: Option<unsafe extern "C" fn(*mut c_int) -> c_int>,
}

impl Nvrtc {
    /// Loads NVRTC (`NQUEENS_NVRTC` names it where the loader does not
    /// find it).
    pub(crate) fn load() -> Result<Nvrtc, String> {
        let names = [
            "libnvrtc.so",
            "libnvrtc.so.13",
            "libnvrtc.so.12",
            "libnvrtc.so.11.2",
        ];
        let library = Library::open(&candidates("NQUEENS_NVRTC", &names)).map_err(|err| {
            format!("NVRTC, the CUDA runtime compiler, did not load ({err}); install the CUDA toolkit or name it with NQUEENS_NVRTC=/path/libnvrtc.so")
        })?;
        // SAFETY: each type is the entry point's signature in nvrtc.h.
        unsafe {
            Ok(Nvrtc {
                version: library.get("nvrtcVersion")?,
                create_program: library.get("nvrtcCreateProgram")?,
                compile_program: library.get("nvrtcCompileProgram")?,
                program_log_size: library.get("nvrtcGetProgramLogSize")?,
                program_log: library.get("nvrtcGetProgramLog")?,
                cubin_size: library.get("nvrtcGetCUBINSize")?,
                cubin: library.get("nvrtcGetCUBIN")?,
                ptx_size: library.get("nvrtcGetPTXSize")?,
                ptx: library.get("nvrtcGetPTX")?,
                destroy_program: library.get("nvrtcDestroyProgram")?,
                supported_count: library.get("nvrtcGetNumSupportedArchs").ok(),
                supported: library.get("nvrtcGetSupportedArchs").ok(),
                library,
            })
        }
    }

    /// NVRTC's version, as (major, minor).
    pub(crate) fn version(&self) -> (i32, i32) {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: writes two ints.
        unsafe { (self.version)(&mut major, &mut minor) };
        (major, minor)
    }

    /// Compiles `source` for compute capability `capability`: a cubin for
    /// the GPU itself, or, where this NVRTC does not know the GPU's
    /// architecture, PTX (NUL-terminated) for the driver to finish: for
    /// the GPU's architecture, or else the newest older one this NVRTC
    /// knows (a GPU newer than the toolkit runs PTX of older ones).
    pub(crate) fn compile(&self, source: &str, capability: (u32, u32)) -> Result<Vec<u8>, String> {
        let (major, minor) = capability;
        let wanted = major * 10 + minor;
        let cubin_err =
            match self.compile_as(source, &format!("--gpu-architecture=sm_{wanted}"), true) {
                Ok(cubin) => return Ok(cubin),
                Err(err) => err,
            };
        let older = self
            .supported_architectures()
            .into_iter()
            .filter(|&arch| arch < wanted)
            .max();
        for arch in std::iter::once(wanted).chain(older) {
            let ptx = format!("--gpu-architecture=compute_{arch}");
            if let Ok(image) = self.compile_as(source, &ptx, false) {
                return Ok(image);
            }
        }
        Err(cubin_err)
    }

    /// The compute capabilities this NVRTC compiles for, as 10 * major +
    /// minor (empty where it cannot say).
    fn supported_architectures(&self) -> Vec<u32> {
        let (Some(count_of), Some(list_of)) = (self.supported_count, self.supported) else {
            return Vec::new();
        };
        let mut count = 0;
        // SAFETY: writes one int.
        if unsafe { count_of(&mut count) } != 0 || count <= 0 {
            return Vec::new();
        }
        let mut list = vec![0 as c_int; count as usize];
        // SAFETY: the buffer holds `count` ints, as asked.
        if unsafe { list_of(list.as_mut_ptr()) } != 0 {
            return Vec::new();
        }
        list.into_iter()
            .filter_map(|arch| u32::try_from(arch).ok())
            .collect()
    }

    fn compile_as(&self, source: &str, architecture: &str, cubin: bool) -> Result<Vec<u8>, String> {
        let source = CString::new(source).expect("the kernel source has no NUL");
        let name = CString::new("pairs.cu").expect("no NUL");
        let mut program = std::ptr::null_mut();
        // SAFETY: valid strings, no headers.
        let created = unsafe {
            (self.create_program)(
                &mut program,
                source.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        if created != 0 {
            return Err(format!("NVRTC could not take the kernel (error {created})"));
        }
        let options = [
            CString::new(architecture).expect("no NUL"),
            CString::new("--std=c++17").expect("no NUL"),
        ];
        let pointers: Vec<*const c_char> = options.iter().map(|option| option.as_ptr()).collect();
        // SAFETY: a live program and options.
        let compiled =
            unsafe { (self.compile_program)(program, pointers.len() as c_int, pointers.as_ptr()) };
        let result = if compiled != 0 {
            let mut size = 0;
            // SAFETY: writes one size, then fills a buffer of that size.
            unsafe { (self.program_log_size)(program, &mut size) };
            let mut log = vec![0u8; size.max(1)];
            // SAFETY: the buffer holds the log's size.
            unsafe { (self.program_log)(program, log.as_mut_ptr().cast()) };
            let log = String::from_utf8_lossy(&log);
            let first = log
                .lines()
                .find(|line| !line.trim().is_empty())
                .unwrap_or("");
            Err(format!(
                "NVRTC {}.{} could not compile the kernel for {architecture}: {first}",
                self.version().0,
                self.version().1
            ))
        } else {
            let (size_of, image_of) = if cubin {
                (self.cubin_size, self.cubin)
            } else {
                (self.ptx_size, self.ptx)
            };
            let mut size = 0;
            // SAFETY: writes one size, then fills a buffer of that size
            // (PTX's includes its NUL).
            unsafe { size_of(program, &mut size) };
            let mut image = vec![0u8; size];
            // SAFETY: the buffer holds the image's size.
            unsafe { image_of(program, image.as_mut_ptr().cast()) };
            Ok(image)
        };
        // SAFETY: a program created above, destroyed once.
        unsafe { (self.destroy_program)(&mut program) };
        let _ = &self.library;
        result
    }
}
