//! What the machine offers: memory available now, the CPU's model and its
//! physical cores, read through `sysinfo` so that they work off Linux too.

use sysinfo::{CpuRefreshKind, MemoryRefreshKind, RefreshKind, System};

/// Memory the system could give this process now without swapping (Linux's
/// MemAvailable), or `None` where the system does not say.
pub(crate) fn available_memory() -> Option<u64> {
    let mut system = System::new();
    system.refresh_memory_specifics(MemoryRefreshKind::nothing().with_ram());
    Some(system.available_memory()).filter(|&bytes| bytes > 0)
}

/// The CPU's model name as the operating system reports it.
pub(crate) fn cpu_model() -> String {
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
pub(crate) fn physical_cores() -> usize {
    System::physical_core_count().unwrap_or_else(available_cores)
}

/// The cores this process may run on (its CPU affinity and quota).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |cores| cores.get())
}

/// The 1-minute load average (runnable processes), where the system keeps
/// one; `None` elsewhere.
pub(crate) fn load_average() -> Option<f64> {
    let load = System::load_average().one;
    (load > 0.0 || cfg!(target_os = "linux")).then_some(load)
}

/// The CPU features the searches choose their builds by, of those this CPU
/// has.
pub(crate) fn cpu_features() -> Vec<String> {
    // Only x86-64 CPUs are probed; elsewhere the list stays empty.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut found = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! probe {
            ($($name:tt),*) => {
                $(if std::arch::is_x86_feature_detected!($name) {
                    found.push($name.to_string());
                })*
            };
        }
        probe!(
            "popcnt",
            "bmi1",
            "bmi2",
            "avx2",
            "avx512f",
            "avx512bw",
            "avx512vpopcntdq"
        );
    }
    found
}

/// Whether this CPU has BMI2 with a fast `pext` and `pdep`: not on AMD
/// before Zen 3 (family 0x19), where they are microcoded at a step per set
/// bit of the mask, tens of times the other paths' cost; the searches
/// take their other loops there.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn fast_bit_gather() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *FAST.get_or_init(|| {
            let signature = std::arch::x86_64::__cpuid(1).eax;
            let amd = cpu_vendor() == *b"AuthenticAMD";
            std::arch::is_x86_feature_detected!("bmi2") && bit_gather_is_fast(amd, signature)
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether AVX-512 masked stores are known to be as fast as whole ones
/// here: on Intel's cores. AMD's Zen 4 and 5 keep the whole-vector stores
/// until measured (their AVX2 masked stores are microcoded; the AVX-512
/// ones are not known to be).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn masked_stores_fast() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *FAST.get_or_init(|| cpu_vendor() == *b"GenuineIntel")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The CPU's vendor string (CPUID leaf 0: EBX, EDX, ECX).
#[cfg(target_arch = "x86_64")]
fn cpu_vendor() -> [u8; 12] {
    let leaf = std::arch::x86_64::__cpuid(0);
    let mut vendor = [0; 12];
    for (bytes, register) in vendor
        .chunks_exact_mut(4)
        .zip([leaf.ebx, leaf.edx, leaf.ecx])
    {
        bytes.copy_from_slice(&register.to_le_bytes());
    }
    vendor
}

/// Whether a CPU with BMI2, of CPUID leaf 1 `signature`, gathers bits
/// fast: every one but AMD's before family 0x19.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn bit_gather_is_fast(amd: bool, signature: u32) -> bool {
    let base = (signature >> 8) & 0xf;
    let family = if base == 0xf {
        base + ((signature >> 20) & 0xff)
    } else {
        base
    };
    !amd || family >= 0x19
}

/// Now as an RFC 3339 UTC timestamp, to the second.
pub(crate) fn timestamp_utc() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (H. Hinnant's
/// days-to-civil algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * shifted_month + 2) / 5 + 1) as u32;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Seconds of CPU time the calling thread has run: unlike a wall clock,
/// not run up while the thread waits for a core (another process, or the
/// host of a virtual machine, holding it). Falls back to a wall clock
/// where there is no thread clock.
// Public for the benches, through `testing`.
#[cfg_attr(not(feature = "testing"), allow(unreachable_pub))]
pub fn thread_cpu_seconds() -> f64 {
    #[cfg(unix)]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid, writable timespec for the call, and
        // CLOCK_THREAD_CPUTIME_ID is a clock every Unix this builds on has.
        let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
        if status == 0 {
            return now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9;
        }
    }
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}

/// How often a thread gives free memory back at most. Each time, what
/// it gives back is faulted in again as the next tasks grow their buffers:
/// once a second cost N = 24's tasks of 12 ms 3 to 5% on 2 threads (Zen
/// 5); the creep it stops takes hundreds of tasks of N = 28 (seconds each).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);

/// Has the allocator give the memory it holds free back to the system
/// (glibc's `malloc_trim`, every arena), at most once per [`TRIM_INTERVAL`]
/// per thread:
/// the join's workers call it after each task from N = 24. A no-op
/// elsewhere than glibc.
pub(crate) fn give_back_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::cell::Cell;
        use std::time::Instant;
        thread_local! {
            static LAST: Cell<Option<Instant>> = const { Cell::new(None) };
        }
        let now = Instant::now();
        let due = LAST.with(|last| match last.get() {
            Some(then) if now.duration_since(then) < TRIM_INTERVAL => false,
            _ => {
                last.set(Some(now));
                true
            }
        });
        if due {
            // SAFETY: malloc_trim only returns free pages to the system;
            // it takes each arena's lock itself.
            unsafe {
                libc::malloc_trim(0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_gathers_are_slow_on_amd_before_zen_3_only() {
        // CPUID leaf 1 signatures: Zen 2 (EPYC Rome), Zen 3, Zen 5, and an
        // Intel Ice Lake.
        let (zen2, zen3, zen5, intel) = (0x0083_0f10, 0x00a0_0f11, 0x00b0_0f20, 0x0006_06a6);
        assert!(!bit_gather_is_fast(true, zen2));
        assert!(bit_gather_is_fast(true, zen3));
        assert!(bit_gather_is_fast(true, zen5));
        assert!(bit_gather_is_fast(false, intel));
        // The family only counts on AMD.
        assert!(bit_gather_is_fast(false, zen2));
    }

    /// The vendor string reads as the kernel reports it, where it does.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_cpu_vendor_is_the_kernels() {
        let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
            return;
        };
        let reported = info
            .lines()
            .find_map(|line| line.strip_prefix("vendor_id"))
            .map(|rest| rest.trim_start_matches([' ', '\t', ':']).trim());
        if let Some(reported) = reported {
            assert_eq!(String::from_utf8_lossy(&cpu_vendor()), reported);
        }
    }

    #[test]
    fn dates_come_out_as_calendars_have_them() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_415), (2025, 11, 23));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }
}
