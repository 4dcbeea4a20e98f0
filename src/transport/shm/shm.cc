#include "shm.h"

#include "../../base/bulk_copy.h"
#include "../../base/log.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace pgdds {

namespace {
constexpr uint64_t file_magic = 0x7067646473686d31ull;  // "pgddshm1"

struct file_header {
    uint64_t magic;
    uint32_t endpoints;
    uint32_t slots;
    uint64_t mailbox_offset;
    uint64_t mailbox_bytes;
    uint64_t segment_offset;
    uint64_t segment_size;
};

// One packet slot of a mailbox: Vyukov's bounded queue, with many producers (any local rank)
// and one consumer (the owner's VCI). seq == position: free for the producer of `position`;
// seq == position + 1: holds that packet.
struct slot {
    std::atomic<uint64_t> seq;
    uint32_t len;
    uint32_t pad;
    uint8_t data[transport_shm::slot_bytes - 16];
};
static_assert(sizeof(slot) == transport_shm::slot_bytes, "slot layout");
}  // namespace

struct shm_mailbox {
    alignas(cache_line) std::atomic<uint64_t> tail;
    alignas(cache_line) slot slots[transport_shm::slots_per_mailbox];
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "cross-process atomics must be lock-free");

transport_caps transport_shm::caps() const
{
    transport_caps c;
    c.needs_target_progress = false;
    c.amo_ops[0] = c.amo_ops[1] = amo_all_ops;
    c.amo_domain = atomicity_domain::target_cpu;
    c.atomics = "native (CPU atomics on mapped memory)";
    return c;
}

status transport_shm::open(transport_host &host)
{
    host_ = &host;
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    header_bytes_ = (sizeof(file_header) + page - 1) / page * page;
    peers_.assign(host.nranks(), peer_map{});
    heads_.assign(host.endpoints(), 0);
    return PGDDS_OK;
}

status transport_shm::alloc_segment(size_t size, void **base)
{
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    unsigned endpoints = host_->endpoints();
    size_t mailbox_bytes = (sizeof(shm_mailbox) + page - 1) / page * page;
    size_t segment_offset = header_bytes_ + endpoints * mailbox_bytes;
    size_t length = segment_offset + size;

    // A random part in the name: another local user cannot pre-create it and fail the job
    // (the name reaches the peers through the bootstrap).
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 8; ++attempt) {
        uint64_t nonce = 0;
        if (getrandom(&nonce, sizeof nonce, 0) != ssize_t(sizeof nonce))
            nonce = uint64_t(now_seconds() * 1e9) ^ (uint64_t(getpid()) << 32) ^ uint64_t(attempt);
        char suffix[24];
        snprintf(suffix, sizeof suffix, "-%016llx", (unsigned long long)nonce);
        file_name_ = "/pgdds-" + host_->job_id() + "-" + std::to_string(host_->rank()) + suffix;
        fd = shm_open(file_name_.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0)
        return fail(PGDDS_ERR_NO_MEMORY, "shm: cannot create /dev/shm%s: %s", file_name_.c_str(), strerror(errno));
    linked_ = true;
    // A tmpfs short of space kills a rank with SIGBUS at the first touch of a page it cannot
    // supply, so every page is backed before anyone may touch it: the header and mailboxes now,
    // the segment's ranges as the runtime hands them out (back_segment). Backing all of it here
    // cost start-up time in proportion to PGDDS_SEGMENT_SIZE (tmpfs zeroes each page: 0.26 s for
    // four 256 MiB segments on two cores) whatever the program used. A segment that does not fit
    // in the free space at all fails here, as before.
    struct statvfs fs;
    int e = ftruncate(fd, off_t(length)) == 0 ? 0 : errno;
    if (e == 0 && fstatvfs(fd, &fs) == 0 && double(fs.f_bavail) * double(fs.f_frsize) < double(length)) e = ENOSPC;
    if (e == 0) e = posix_fallocate(fd, 0, off_t(segment_offset));
    if (e != 0) {
        ::close(fd);
        unlink_own();
        return fail(PGDDS_ERR_NO_MEMORY, "shm: cannot reserve %.1f MiB of /dev/shm for this rank (%s; /dev/shm "
                    "has %.1f MiB free): the segment (PGDDS_SEGMENT_SIZE, %.1f MiB) plus %u mailbox%s of "
                    "%.1f MiB (PGDDS_NUM_VCIS=%u, plus one) per rank on this node; lower "
                    "PGDDS_SEGMENT_SIZE or PGDDS_NUM_VCIS, or enlarge /dev/shm",
                    double(length) / 1048576.0, strerror(e), dev_shm_free_mib(), double(size) / 1048576.0, endpoints,
                    endpoints == 1 ? "" : "es", double(mailbox_bytes) / 1048576.0, host_->endpoints() - 1);
    }
    void *p = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (p == MAP_FAILED) {
        int map_errno = errno;
        ::close(fd);
        return fail(PGDDS_ERR_NO_MEMORY, "shm: cannot map %zu bytes of /dev/shm%s: %s", length, file_name_.c_str(),
                    strerror(map_errno));
    }
    fd_ = fd;
    segment_offset_ = segment_offset;
    uint8_t *file = static_cast<uint8_t *>(p);
    auto *h = reinterpret_cast<file_header *>(file);
    h->endpoints = endpoints;
    h->slots = slots_per_mailbox;
    h->mailbox_offset = header_bytes_;
    h->mailbox_bytes = mailbox_bytes;
    h->segment_offset = segment_offset;
    h->segment_size = size;
    for (unsigned e = 0; e < endpoints; ++e) {
        auto *mb = reinterpret_cast<shm_mailbox *>(file + header_bytes_ + e * mailbox_bytes);
        mb->tail.store(0, std::memory_order_relaxed);
        for (uint32_t i = 0; i < slots_per_mailbox; ++i) mb->slots[i].seq.store(i, std::memory_order_relaxed);
    }
    std::atomic_thread_fence(std::memory_order_release);
    h->magic = file_magic;

    peer_map &me = peers_[host_->rank()];
    me.base = file;
    me.length = length;
    me.segment = file + segment_offset;
    me.segment_size = size;
    me.endpoints = endpoints;
    *base = me.segment;
    return PGDDS_OK;
}

status transport_shm::address(std::vector<uint8_t> &blob)
{
    blob.assign(file_name_.begin(), file_name_.end());
    return PGDDS_OK;
}

status transport_shm::connect(const std::vector<std::vector<uint8_t>> &peers)
{
    for (int r = 0; r < host_->nranks(); ++r) {
        if (r == host_->rank() || peers[r].empty()) continue;
        std::string name(peers[r].begin(), peers[r].end());
        int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
        if (fd < 0)
            return fail(PGDDS_ERR_TRANSPORT, "shm: cannot open rank %d's /dev/shm%s: %s", r, name.c_str(),
                        strerror(errno));
        struct stat sb;
        void *p = MAP_FAILED;
        if (fstat(fd, &sb) == 0)
            p = mmap(nullptr, size_t(sb.st_size), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
        int e = errno;
        ::close(fd);
        if (p == MAP_FAILED)
            return fail(PGDDS_ERR_NO_MEMORY, "shm: cannot map rank %d's /dev/shm%s: %s", r, name.c_str(), strerror(e));
        auto *h = static_cast<file_header *>(p);
        peer_map &pm = peers_[r];
        pm.base = static_cast<uint8_t *>(p);
        pm.length = size_t(sb.st_size);
        if (h->magic != file_magic || h->segment_offset + h->segment_size > pm.length)
            return fail(PGDDS_ERR_TRANSPORT, "shm: rank %d's /dev/shm%s is not a pgdds segment", r, name.c_str());
        pm.segment = pm.base + h->segment_offset;
        pm.segment_size = h->segment_size;
        pm.endpoints = h->endpoints;
    }
    return PGDDS_OK;
}

double transport_shm::dev_shm_free_mib()
{
    struct statvfs fs;
    return statvfs("/dev/shm", &fs) == 0 ? double(fs.f_bavail) * double(fs.f_frsize) / 1048576.0 : 0;
}

void *transport_shm::peer_pointer(int rank) { return peers_[rank].segment; }

void transport_shm::unlink_own()
{
    if (linked_) shm_unlink(file_name_.c_str());
    linked_ = false;
}

status transport_shm::back_segment(uint64_t offset, uint64_t len)
{
    const peer_map &me = peers_[host_->rank()];
    if (fd_ < 0 || offset > me.segment_size || len > me.segment_size - offset)
        return fail(PGDDS_ERR_STATE, "shm: no segment of this rank holds offsets %llu..%llu",
                    (unsigned long long)offset, (unsigned long long)(offset + len));
    int e = posix_fallocate(fd_, off_t(segment_offset_ + offset), off_t(len));
    if (e == 0) return PGDDS_OK;
    return fail(PGDDS_ERR_NO_MEMORY, "shm: cannot back %.1f MiB of this rank's segment in /dev/shm (%s; /dev/shm has "
                "%.1f MiB free): the segments of this node's ranks (PGDDS_SEGMENT_SIZE, %.1f MiB each) hold more "
                "than /dev/shm does; use less of them, or enlarge /dev/shm",
                double(len) / 1048576.0, strerror(e), dev_shm_free_mib(), double(me.segment_size) / 1048576.0);
}

void transport_shm::close()
{
    unlink_own();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    for (auto &pm : peers_) {
        if (pm.base) munmap(pm.base, pm.length);
        pm = peer_map{};
    }
}

transport_shm::~transport_shm() { close(); }

shm_mailbox *transport_shm::mailbox(int rank, unsigned vci)
{
    peer_map &pm = peers_[rank];
    auto *h = reinterpret_cast<file_header *>(pm.base);
    return reinterpret_cast<shm_mailbox *>(pm.base + h->mailbox_offset + (vci % pm.endpoints) * h->mailbox_bytes);
}

// --- data path: direct access (the runtime normally does this itself) -------------------------
// The core checks every access before it calls; the backend still refuses a range outside a
// mapped segment rather than touch memory that is not the segment's.
status transport_shm::check_range(int rank, uint64_t offset, size_t n, const char *what) const
{
    const size_t size = rank >= 0 && size_t(rank) < peers_.size() && peers_[rank].segment ? peers_[rank].segment_size : 0;
    if (PGDDS_LIKELY(size && offset <= size && n <= size - offset)) return PGDDS_OK;
    return fail(PGDDS_ERR_OUT_OF_BOUNDS, "shm: %s of %zu bytes at offset %llu of rank %d: %s", what, n,
                (unsigned long long)offset, rank, size ? "outside its segment" : "not a mapped segment");
}

status transport_shm::put(unsigned, int rank, uint64_t offset, const void *src, size_t n, op_completion *done)
{
    status st = check_range(rank, offset, n, "put");
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    bulk_copy(peers_[rank].segment + offset, src, n);
    if (done) done->complete(PGDDS_OK);
    return PGDDS_OK;
}

status transport_shm::get(unsigned, int rank, uint64_t offset, void *dst, size_t n, op_completion *done)
{
    status st = check_range(rank, offset, n, "get");
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    bulk_copy(dst, peers_[rank].segment + offset, n);
    if (done) done->complete(PGDDS_OK);
    return PGDDS_OK;
}

status transport_shm::amo(unsigned, int rank, uint64_t offset, const amo_args &args, op_completion *done)
{
    if (PGDDS_UNLIKELY((args.width != 4 && args.width != 8) || offset % args.width))
        return fail(PGDDS_ERR_INVALID_ARG, "shm: an atomic of width %u at offset %llu", args.width,
                    (unsigned long long)offset);
    status st = check_range(rank, offset, args.width, "atomic");
    if (PGDDS_UNLIKELY(st != PGDDS_OK)) return st;
    cpu_amo(peers_[rank].segment + offset, args);
    if (done) done->complete(PGDDS_OK);
    return PGDDS_OK;
}

status transport_shm::flush(unsigned, op_completion *done)
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
    done->complete(PGDDS_OK);
    return PGDDS_OK;
}

// --- active messages ---------------------------------------------------------------------------
size_t transport_shm::am_max_packet() const { return sizeof(slot::data); }

status transport_shm::am_send(unsigned vci, int rank, const void *packet, size_t len)
{
    if (PGDDS_UNLIKELY(len > sizeof(slot::data)))
        return fail(PGDDS_ERR_INVALID_ARG, "shm: a packet of %zu bytes exceeds the %zu this transport carries", len,
                    sizeof(slot::data));
    shm_mailbox *mb = mailbox(rank, vci);
    uint64_t pos = mb->tail.load(std::memory_order_relaxed);
    for (;;) {
        slot &s = mb->slots[pos % slots_per_mailbox];
        uint64_t seq = s.seq.load(std::memory_order_acquire);
        int64_t dif = int64_t(seq) - int64_t(pos);
        if (dif == 0) {
            if (mb->tail.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
                s.len = uint32_t(len);
                memcpy(s.data, packet, len);
                s.seq.store(pos + 1, std::memory_order_release);
                return PGDDS_OK;
            }
        } else if (dif < 0) {
            return PGDDS_ERR_AGAIN;  // full: the consumer has not caught up
        } else {
            pos = mb->tail.load(std::memory_order_relaxed);
        }
    }
}

status transport_shm::progress(unsigned vci)
{
    shm_mailbox *mb = mailbox(host_->rank(), vci);
    uint64_t &head = heads_[vci];
    for (int budget = 64; budget > 0; --budget) {
        slot &s = mb->slots[head % slots_per_mailbox];
        if (s.seq.load(std::memory_order_acquire) != head + 1) break;
        host_->am_incoming(vci, s.data, s.len);
        s.seq.store(head + slots_per_mailbox, std::memory_order_release);
        ++head;
    }
    return PGDDS_OK;
}

status transport_create_shm(std::unique_ptr<transport> &out)
{
    out = std::make_unique<transport_shm>();
    return PGDDS_OK;
}

}  // namespace pgdds
