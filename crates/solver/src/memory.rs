//! The solver's big tables and the memory: huge pages and prefetches.
//!
//! The transposition table and the endgame database are gigabytes read at
//! random: with 4 KiB pages nearly every probe also misses the TLB and
//! walks the page tables. Backed by 2 MiB pages, Kalah(6,4) solved about
//! 1.35 times faster (measured with `mancala solve --bench`, one thread).
//! Linux gives huge pages to anonymous memory when asked with `madvise`
//! (the default "madvise" setting of transparent huge pages); elsewhere,
//! or when the kernel says no, the tables simply keep small pages.

/// Size of a transparent huge page on x86-64 and most aarch64 kernels.
const HUGE_PAGE: usize = 2 << 20;

/// Asks the kernel to back `memory` with huge pages when it is first
/// touched. Call it on a fresh allocation before writing to it.
pub(crate) fn advise<T>(memory: &[T]) {
    let start = memory.as_ptr() as usize;
    let end = start + std::mem::size_of_val(memory);
    // Only whole huge pages inside the allocation.
    let (first, last) = (
        start.next_multiple_of(HUGE_PAGE),
        end / HUGE_PAGE * HUGE_PAGE,
    );
    if last > first {
        madvise_huge(first, last - first);
    }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn madvise_huge(addr: usize, len: usize) {
    // SAFETY: MADV_HUGEPAGE is only a hint on how to back the range's
    // pages; it changes neither the mapping nor its contents, and the range
    // lies inside an allocation the caller owns. Its result is ignored on
    // purpose: without huge pages the table works the same, more slowly.
    unsafe {
        libc::madvise(addr as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn madvise_huge(_addr: usize, _len: usize) {}

/// Asks the CPU to start loading the cache line holding `value`, so that a
/// read of it a little later does not wait on memory. The search prefetches
/// the database entries of a node's children (and their table buckets where
/// it reads them all) before it looks at any of them: their loads then
/// overlap instead of queueing.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: a prefetch is only a hint to the cache: it never faults, even
    // on a bad address, and changes no memory; `value` is a live reference
    // besides, and SSE, which the instruction needs, is part of x86-64.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
