// The hash map buffer (BCL paper §5.3, thesis §6.1): inserts are gathered per owner rank and
// shipped in messages to a FastQueue on the owner, which inserts them into its own part with
// local CPU operations when the buffer is flushed. A latency-bound insert becomes a share of a
// bandwidth-bound message.
//
// Nothing is lost when an owner's queue is full: the message stays in the local buffer (which
// keeps growing in host memory) and the collective flush repeats rounds of "push what fits,
// barrier, every owner drains its queue" until no rank has anything left. message_size <=
// queue_capacity guarantees every round delivers at least one message to each owner that has
// mail waiting.
//
// A combining buffer (options COMBINE, UPDATE_ONLY) drains differently: an entry whose key is
// present is combined into the stored value in place, so counting needs no read-modify-write
// across ranks; with UPDATE_ONLY an absent key is dropped at the owner instead of inserted.
#include "hashmap.h"
#include "queue.h"

#include <algorithm>

#include <sys/mman.h>

namespace pgdds::containers {
class hash_map_buffer;
}

struct pgdds_hashmap_buffer {
    uint64_t magic;
    pgdds::containers::hash_map_buffer *impl;
};

namespace pgdds::containers {

constexpr uint64_t hashmap_buffer_magic = 0x706748427566ull;  // "pgHBuf"

// A growable byte array that appends without filling new space first. It lives in its own
// anonymous mapping: growing moves page tables (mremap), not bytes, and transparent huge pages
// take one fault per 2 MiB where 4 KiB pages took 512 (a rank's own entries wait here until the
// flush, so the buffer reaches the size of that share of the inserts).
class byte_buffer {
  public:
    byte_buffer() = default;
    byte_buffer(const byte_buffer &) = delete;
    byte_buffer &operator=(const byte_buffer &) = delete;
    ~byte_buffer()
    {
        if (data_) munmap(data_, capacity_);
    }
    size_t size() const { return size_; }
    uint8_t *data() { return data_; }
    // Appends a then b; std::bad_alloc when host memory runs out.
    void append(const void *a, size_t na, const void *b, size_t nb)
    {
        if (size_ + na + nb > capacity_) grow(size_ + na + nb);
        copy_bytes(data_ + size_, a, na);
        copy_bytes(data_ + size_ + na, b, nb);
        size_ += na + nb;
    }
    void drop_front(size_t n)
    {
        if (n == 0) return;  // also: an empty buffer has no storage to move
        memmove(data_, data_ + n, size_ - n);
        size_ -= n;
    }
    void clear() { size_ = 0; }

  private:
    void grow(size_t need)
    {
        constexpr size_t huge = size_t(2) << 20;
        size_t cap = std::max({need, 2 * capacity_, size_t(64) << 10});
        if (cap >= huge) cap = (cap + huge - 1) & ~(huge - 1);
        void *p = data_ ? mremap(data_, capacity_, cap, MREMAP_MAYMOVE)
                        : mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        if (cap >= huge) (void)madvise(p, cap, MADV_HUGEPAGE);  // a hint; 4 KiB pages work too
        data_ = static_cast<uint8_t *>(p);
        capacity_ = cap;
    }

    uint8_t *data_ = nullptr;
    size_t size_ = 0, capacity_ = 0;
};

class hash_map_buffer : public container {
  public:
    static status create(const char *who, runtime *rt, pgdds_hashmap *map, size_t queue_capacity,
                         size_t message_size, const pgdds_hashmap_buffer_options_t *options, hash_map_buffer *&out);
    status destroy(const char *who);
    status insert(const char *who, const void *key, const void *value);
    status flush(const char *who);
    // The hash map behind the buffer, or a status if it has been destroyed.
    status map(const char *who, hash_map *&out) const;

  private:
    explicit hash_map_buffer(runtime *rt) : container(rt) {}

    // Entries (key then value, packed) waiting for one owner rank.
    struct outbox {
        std::mutex lock;
        byte_buffer entries;
        bool stalled = false;  // the owner's queue was full: keep everything until flush
    };
    // Pushes the waiting entries in messages of at most message_size entries (only whole
    // messages unless `all`). A full queue stops it and stalls the outbox; not an error.
    status send(const char *who, int owner, outbox &o, bool all);
    // Puts `count` records this rank owns into the map, as the options say.
    status drain(const char *who, hash_map *m, size_t count, const uint8_t *records, uint64_t &dropped) const;

    pgdds_hashmap *map_handle_ = nullptr;
    size_t entry_bytes_ = 0, message_entries_ = 0;
    pgdds_hashmap_combine_t combine_ = nullptr;
    void *combine_arg_ = nullptr;
    bool update_only_ = false;
    std::vector<std::unique_ptr<queue>> queues_;  // queues_[r] is hosted by rank r
    std::unique_ptr<outbox[]> outboxes_;          // per owner rank; this rank's own never leaves
};

status hash_map_buffer::map(const char *who, hash_map *&out) const
{
    if (map_handle_->magic != hashmap_magic)
        return fail(PGDDS_ERR_INVALID_ARG, "%s: the hash map of this buffer has been destroyed", who);
    out = map_handle_->impl;
    return PGDDS_OK;
}

status hash_map_buffer::create(const char *who, runtime *rt, pgdds_hashmap *map_handle, size_t queue_capacity,
                               size_t message_size, const pgdds_hashmap_buffer_options_t *options,
                               hash_map_buffer *&out)
{
    const uint64_t known = PGDDS_HASHMAP_BUFFER_OPTION_COMBINE | PGDDS_HASHMAP_BUFFER_OPTION_UPDATE_ONLY;
    const uint64_t mask = options ? options->field_mask : 0;
    const bool combining = mask & PGDDS_HASHMAP_BUFFER_OPTION_COMBINE;
    const bool update_only = (mask & PGDDS_HASHMAP_BUFFER_OPTION_UPDATE_ONLY) && options->update_only;
    hash_map *m = map_handle->impl;
    status st = PGDDS_OK;
    if (queue_capacity == 0) st = fail(PGDDS_ERR_INVALID_ARG, "%s: queue_capacity is 0", who);
    else if (message_size == 0 || message_size > queue_capacity)
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: message_size %zu is not in 1..queue_capacity (%zu)", who, message_size,
                  queue_capacity);
    else if (mask & ~known)
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: options->field_mask has unknown bits 0x%llx", who,
                  (unsigned long long)(mask & ~known));
    else if (combining && !options->combine) st = fail(PGDDS_ERR_INVALID_ARG, "%s: options->combine is NULL", who);
    else if ((mask & PGDDS_HASHMAP_BUFFER_OPTION_UPDATE_ONLY) && options->update_only != 0 && options->update_only != 1)
        st = fail(PGDDS_ERR_INVALID_ARG, "%s: options->update_only is %d, not 0 or 1", who, options->update_only);
    st = agree_arguments(rt, who, st, {queue_capacity, message_size, uint64_t(combining), uint64_t(update_only)});
    if (st != PGDDS_OK) return st;
    std::unique_ptr<hash_map_buffer> b(new hash_map_buffer(rt));
    b->map_handle_ = map_handle;
    b->entry_bytes_ = m->key_size() + m->value_size();
    b->message_entries_ = message_size;
    if (combining) {
        b->combine_ = options->combine;
        b->combine_arg_ = options->combine_arg;
    }
    b->update_only_ = update_only;
    b->outboxes_.reset(new outbox[size_t(rt->nranks())]);
    st = queue::create_per_rank(rt, who, PGDDS_QUEUE_FAST, b->entry_bytes_, queue_capacity, b->queues_);
    if (st != PGDDS_OK) return st;
    out = b.release();
    return PGDDS_OK;
}

status hash_map_buffer::destroy(const char *who)
{
    status st = rt->barrier(who);
    queues_[size_t(rt->rank())]->release_storage();
    return st;
}

status hash_map_buffer::send(const char *who, int owner, outbox &o, bool all)
{
    size_t waiting = o.entries.size() / entry_bytes_, sent = 0;
    status st = PGDDS_OK;
    while (!o.stalled && (all ? sent < waiting : waiting - sent >= message_entries_)) {
        size_t count = std::min(message_entries_, waiting - sent);
        st = queues_[size_t(owner)]->push(who, o.entries.data() + sent * entry_bytes_, count, PGDDS_CP_PUSH);
        if (st == PGDDS_ERR_FULL) {
            o.stalled = true;
            st = PGDDS_OK;
        } else if (st != PGDDS_OK) {
            break;
        } else {
            sent += count;
        }
    }
    o.entries.drop_front(sent * entry_bytes_);
    return st;
}

status hash_map_buffer::insert(const char *who, const void *key, const void *value)
{
    hash_map *m = nullptr;
    status st = map(who, m);
    if (st != PGDDS_OK) return st;
    if (!key) return fail(PGDDS_ERR_INVALID_ARG, "%s: key is NULL", who);
    if (!value && m->value_size()) return fail(PGDDS_ERR_INVALID_ARG, "%s: value is NULL", who);
    int owner = m->owner(key);
    outbox &o = outboxes_[size_t(owner)];
    maybe_lock hold(o.lock, rt->threaded());
    try {
        o.entries.append(key, m->key_size(), value, m->value_size());
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory for the buffer", who);
    }
    if (owner == rt->rank() || o.stalled || o.entries.size() < message_entries_ * entry_bytes_) return PGDDS_OK;
    return send(who, owner, o, false);
}

status hash_map_buffer::drain(const char *who, hash_map *m, size_t count, const uint8_t *records,
                              uint64_t &dropped) const
{
    if (!combine_ && !update_only_) return m->insert_own_records(who, count, records, dropped);
    return m->combine_own_records(who, count, records, combine_, combine_arg_, update_only_, dropped);
}

status hash_map_buffer::flush(const char *who)
{
    hash_map *m = nullptr;
    status st = map(who, m);
    st = agree(rt, who, st);
    if (st != PGDDS_OK) return st;
    const int me = rt->rank();
    status failure = PGDDS_OK;  // the first failure; the rounds still finish everywhere
    uint64_t dropped = 0;
    auto note = [&](status s) {
        if (s != PGDDS_OK && failure == PGDDS_OK) failure = s;
    };
    for (;;) {
        for (int r = 0; r < rt->nranks(); ++r) {
            if (r == me) continue;
            outboxes_[size_t(r)].stalled = false;
            note(send(who, r, outboxes_[size_t(r)], true));
        }
        note(rt->barrier(who));  // every push of the round is complete and visible
        note(queues_[size_t(me)]->drain_local(
            [&](const uint8_t *records, size_t count) { return drain(who, m, count, records, dropped); }));
        outbox &own = outboxes_[size_t(me)];
        note(drain(who, m, own.entries.size() / entry_bytes_, own.entries.data(), dropped));
        own.entries.clear();
        uint64_t waiting = 0, anywhere = 0;
        for (int r = 0; r < rt->nranks(); ++r) {
            // After a failure other than a full map, give up the rest so the rounds end.
            if (failure != PGDDS_OK && failure != PGDDS_ERR_FULL) outboxes_[size_t(r)].entries.clear();
            waiting += outboxes_[size_t(r)].entries.size();
        }
        // Also the end of the round's drains: nobody pushes into a queue still being drained.
        note(rt->allreduce(who, &waiting, &anywhere, 1, PGDDS_UINT64, PGDDS_OP_SUM));
        if (anywhere == 0) break;
    }
    if (failure == PGDDS_ERR_FULL)
        failure = fail(PGDDS_ERR_FULL, "%s: %llu entries did not fit in this rank's part of the hash map", who,
                       (unsigned long long)dropped);
    return agree(rt, who, failure);
}

}  // namespace pgdds::containers

// ---------------------------------------------------------------------------------------------
// C ABI
// ---------------------------------------------------------------------------------------------
using namespace pgdds;
using namespace pgdds::containers;

namespace {
status resolve_buffer(pgdds_hashmap_buffer *h, const char *who, hash_map_buffer *&out)
{
    return resolve(h, hashmap_buffer_magic, who, "hash map buffer", out);
}

status create_buffer(const char *who, pgdds_hashmap_t map, size_t queue_capacity, size_t message_size,
                     const pgdds_hashmap_buffer_options_t *options, pgdds_hashmap_buffer_t *buf)
{
    hash_map *m = nullptr;
    status st = resolve_hashmap(map, who, m);
    if (st != PGDDS_OK) return st;
    if (!buf) return fail(PGDDS_ERR_INVALID_ARG, "%s: buf is NULL", who);
    try {
        hash_map_buffer *impl = nullptr;
        st = hash_map_buffer::create(who, m->rt, map, queue_capacity, message_size, options, impl);
        if (st != PGDDS_OK) return st;
        st = make_handle(hashmap_buffer_magic, impl, *buf);
        if (st != PGDDS_OK) delete impl;
        return st;
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}
}  // namespace

extern "C" {

PGDDS_API pgdds_status_t pgdds_hashmap_buffer_create(pgdds_hashmap_t map, size_t queue_capacity, size_t message_size,
                                                     pgdds_hashmap_buffer_t *buf)
{
    return create_buffer("pgdds_hashmap_buffer_create", map, queue_capacity, message_size, nullptr, buf);
}

PGDDS_API pgdds_status_t pgdds_hashmap_buffer_create_with(pgdds_hashmap_t map, size_t queue_capacity,
                                                          size_t message_size,
                                                          const pgdds_hashmap_buffer_options_t *options,
                                                          pgdds_hashmap_buffer_t *buf)
{
    return create_buffer("pgdds_hashmap_buffer_create_with", map, queue_capacity, message_size, options, buf);
}

PGDDS_API pgdds_status_t pgdds_hashmap_buffer_insert(pgdds_hashmap_buffer_t buf, const void *key, const void *value)
{
    hash_map_buffer *b = nullptr;
    status st = resolve_buffer(buf, "pgdds_hashmap_buffer_insert", b);
    return st != PGDDS_OK ? st : b->insert("pgdds_hashmap_buffer_insert", key, value);
}

PGDDS_API pgdds_status_t pgdds_hashmap_buffer_flush(pgdds_hashmap_buffer_t buf)
{
    const char *who = "pgdds_hashmap_buffer_flush";
    hash_map_buffer *b = nullptr;
    status st = resolve_buffer(buf, who, b);
    if (st != PGDDS_OK) return st;
    try {
        return b->flush(who);
    } catch (const std::bad_alloc &) {
        return fail(PGDDS_ERR_NO_MEMORY, "%s: out of host memory", who);
    }
}

PGDDS_API pgdds_status_t pgdds_hashmap_buffer_destroy(pgdds_hashmap_buffer_t buf)
{
    const char *who = "pgdds_hashmap_buffer_destroy";
    if (!buf || buf->magic != hashmap_buffer_magic) return bad_handle(buf, who, "hash map buffer");
    status st = runtime::from(buf->impl->ctx) ? buf->impl->destroy(who)
                                              : fail(PGDDS_ERR_STATE, "%s: the context was finalized first", who);
    kill_handle(buf);
    return st;
}

}  // extern "C"
