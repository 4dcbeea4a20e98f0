#include "static_data.h"

#include "../base/log.h"
#include "runtime.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <link.h>
#include <mutex>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace pgdds {
namespace static_data {

namespace {

struct range {
    uint8_t *start;
    size_t length;
    uint64_t offset;   // in the segment, once mirrored
};

// An executable has one or two writable PT_LOAD segments; more are refused.
constexpr unsigned max_ranges = 4;

struct executable_ranges {
    range r[max_ranges];
    unsigned n = 0;
    uint64_t link_address = 0;
    bool too_many = false;
};

// Process-wide: one executable, one holder at a time. The fork handler reads it without the
// lock (the child has one thread).
std::mutex lock;
std::atomic<const runtime *> holder{nullptr};
executable_ranges mapped;
bool fork_handler_set = false;

size_t page_size() { return size_t(sysconf(_SC_PAGESIZE)); }

// The first object dl_iterate_phdr reports is the executable. Its writable PT_LOAD segments
// hold .data and .bss; the part under RELRO becomes read-only after relocation, except the
// page holding RELRO's end when that end is not page-aligned (glibc rounds it down), which
// stays writable and is taken.
int on_executable(struct dl_phdr_info *info, size_t, void *arg)
{
    auto *out = static_cast<executable_ranges *>(arg);
    const uintptr_t page = page_size();
    uintptr_t relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_GNU_RELRO) relro_end = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    }
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W) || ph.p_memsz == 0) continue;
        uintptr_t start = info->dlpi_addr + ph.p_vaddr, end = start + ph.p_memsz;
        if (relro_end > start && relro_end <= end) start = relro_end;
        start &= ~(page - 1);
        end = (end + page - 1) & ~(page - 1);
        if (end <= start) continue;
        if (out->n == max_ranges) {
            out->too_many = true;
            break;
        }
        if (out->n == 0) out->link_address = start - info->dlpi_addr;
        out->r[out->n++] = range{reinterpret_cast<uint8_t *>(start), end - start, 0};
    }
    return 1;   // the executable only
}

executable_ranges find_ranges()
{
    executable_ranges e;
    dl_iterate_phdr(on_executable, &e);
    return e;
}

// Copies whole words without the address sanitizer's checks: the source holds an instrumented
// program's globals with their poisoned redzones. volatile keeps it a loop, not a memcpy call
// (which the sanitizer intercepts).
__attribute__((no_sanitize_address, noinline)) void copy_words(void *dst, const void *src, size_t bytes)
{
    auto *d = static_cast<volatile uint64_t *>(dst);
    auto *s = static_cast<const volatile uint64_t *>(src);
    for (size_t i = 0; i < bytes / sizeof(uint64_t); ++i) d[i] = s[i];
}

// mremap as the system call: a memory-event library that replaces the libc symbol (UCX's ucm)
// may drop the new address, the variadic fifth argument.
void *remap(void *old_address, size_t old_size, size_t new_size, void *new_address)
{
    long r = syscall(SYS_mremap, old_address, old_size, new_size, MREMAP_MAYMOVE | MREMAP_FIXED, new_address);
    return r == -1 ? MAP_FAILED : reinterpret_cast<void *>(r);
}

// Gives r private pages again, with the same contents: a copy in fresh anonymous memory moved
// over it. errno on failure.
int privatize(const range &r)
{
    void *copy = mmap(nullptr, r.length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy == MAP_FAILED) return errno;
    copy_words(copy, r.start, r.length);
    if (remap(copy, r.length, r.length, r.start) == MAP_FAILED) {
        int e = errno;
        munmap(copy, r.length);
        return e;
    }
    return 0;
}

// A child of fork() would otherwise share the static data with its parent (the pages are a
// shared mapping): it gets private copies, as a child of a program without the mapping does.
void on_fork_child()
{
    for (unsigned i = 0; i < mapped.n; ++i) (void)privatize(mapped.r[i]);
    mapped.n = 0;
    holder = nullptr;
}

}  // namespace

status measure(size_t &bytes, uint64_t &link_address, unsigned &ranges)
{
    executable_ranges e = find_ranges();
    if (e.too_many)
        return fail(PGDDS_ERR_UNSUPPORTED, "the executable has more than %u writable segments", max_ranges);
    if (e.n == 0) return fail(PGDDS_ERR_UNSUPPORTED, "the executable has no writable data segment");
    bytes = 0;
    for (unsigned i = 0; i < e.n; ++i) bytes += e.r[i].length;
    link_address = e.link_address;
    ranges = e.n;
    return PGDDS_OK;
}

status mirror(runtime &rt, uint64_t offset)
{
    std::lock_guard<std::mutex> g(lock);
    if (holder)
        return fail(PGDDS_ERR_STATE, "the static data is mapped by another live context; finalize it first");
    executable_ranges e = find_ranges();
    uint64_t off = offset;
    for (unsigned i = 0; i < e.n; ++i) {
        range &r = e.r[i];
        r.offset = off;
        uint8_t *block = rt.segment_base() + off;
        copy_words(block, r.start, r.length);
        // A second mapping of the block's pages, in place of the range's own.
        if (remap(block, 0, r.length, r.start) == MAP_FAILED) {
            int err = errno;
            for (unsigned j = 0; j < i; ++j) (void)privatize(e.r[j]);
            return fail(PGDDS_ERR_UNSUPPORTED, "cannot map the segment over the static data at %p (%zu bytes): %s%s",
                        static_cast<void *>(r.start), r.length, strerror(err),
                        err == EINVAL ? " (the segment is not a shared mapping)" : "");
        }
        off += r.length;
    }
    mapped = e;
    holder.store(&rt, std::memory_order_release);
    if (!fork_handler_set) fork_handler_set = pthread_atfork(nullptr, nullptr, on_fork_child) == 0;
    return PGDDS_OK;
}

bool held_by(const runtime *rt) { return holder.load(std::memory_order_acquire) == rt; }

bool held_by_other(const runtime *rt)
{
    const runtime *h = holder.load(std::memory_order_acquire);
    return h && h != rt;
}

bool offset_of(const runtime *rt, const void *addr, uint64_t &offset)
{
    // Unlocked: the mapping changes only in collective calls of its holder, and a reader asks
    // about its own context, which is not finalizing while it is in use.
    if (holder.load(std::memory_order_acquire) != rt) return false;
    const uint8_t *a = static_cast<const uint8_t *>(addr);
    for (unsigned i = 0; i < mapped.n; ++i) {
        const range &r = mapped.r[i];
        if (a >= r.start && a < r.start + r.length) {
            offset = r.offset + uint64_t(a - r.start);
            return true;
        }
    }
    return false;
}

void release(const runtime *rt)
{
    std::lock_guard<std::mutex> g(lock);
    if (holder != rt) return;
    // Private pages again: the segment's memory is released with it, not held by these pages.
    for (unsigned i = 0; i < mapped.n; ++i) {
        int e = privatize(mapped.r[i]);
        if (e) PGDDS_LOG(LOG_WARN, "the static data at %p keeps the segment's pages: %s",
                         static_cast<void *>(mapped.r[i].start), strerror(e));
    }
    mapped.n = 0;
    holder = nullptr;
}

}  // namespace static_data
}  // namespace pgdds
