//! What the machine offers: memory available now, the CPU's model and its
//! physical cores, read through `sysinfo` so that they work off Linux too.

use sysinfo::{CpuRefreshKind, MemoryRefreshKind, RefreshKind, System};

/// Memory the system could give this process now without swapping (Linux's
/// MemAvailable), or `None` where the system does not say.
pub fn available_memory() -> Option<u64> {
    let mut system = System::new();
    system.refresh_memory_specifics(MemoryRefreshKind::nothing().with_ram());
    Some(system.available_memory()).filter(|&bytes| bytes > 0)
}

/// The CPU's model name as the operating system reports it.
pub fn cpu_model() -> String {
    let system =
        System::new_with_specifics(RefreshKind::nothing().with_cpu(CpuRefreshKind::nothing()));
    system
        .cpus()
        .first()
        .map(|cpu| cpu.brand().trim().to_string())
        .filter(|brand| !brand.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

/// Physical cores, or the logical ones where the system does not say.
pub fn physical_cores() -> usize {
    System::physical_core_count().unwrap_or_else(available_cores)
}

/// The cores this process may run on (its CPU affinity and quota).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |cores| cores.get())
}
