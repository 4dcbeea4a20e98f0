// The active-message engine: registry, fragmentation, reassembly and handlers.
#include "am_engine.h"
#include "runtime.h"

#include <algorithm>
#include <cstring>

namespace pgdds {

thread_local bool am_engine::tls_in_handler = false;

void am_engine::create() { handlers_.assign(1024, handler_entry{nullptr, nullptr}); }

status am_engine::register_internal(uint32_t id, pgdds_am_handler_t fn, void *arg)
{
    PGDDS_LOG(LOG_TRACE, "active-message handler %u registered (internal)", id);
    handlers_[id] = handler_entry{fn, arg};
    return PGDDS_OK;
}

status am_engine::register_user(pgdds_am_handler_t fn, void *arg, uint32_t &id)
{
    std::lock_guard<std::mutex> guard(lock_);
    if (AM_INTERNAL_COUNT + user_count_ >= handlers_.size())
        return fail(PGDDS_ERR_NO_MEMORY, "pgdds_am_register: all %zu handler slots are taken",
                    handlers_.size() - AM_INTERNAL_COUNT);
    id = AM_INTERNAL_COUNT + user_count_++;
    PGDDS_LOG(LOG_TRACE, "active-message handler %u registered", id);
    handlers_[id] = handler_entry{fn, arg};
    return PGDDS_OK;
}

status am_engine::send(const char *who, vci &v, int dst, uint32_t handler, const void *payload, size_t size)
{
    vci_set &vcis = rt_.vcis();
    transport *route = rt_.peers().am_route(dst);
    size_t max_frag = route->am_max_packet() - sizeof(am_packet_header);
    uint32_t msg_id;
    {
        vci_scope scope(v, vcis.threaded(), !vcis.is_mine(v));
        msg_id = uint32_t(v.next_am_id++);
    }
    size_t first = std::min(size, max_frag);
    uint8_t stack_buf[4096];
    std::vector<uint8_t> heap_buf;
    uint8_t *pkt = stack_buf;
    if (sizeof(am_packet_header) + first > sizeof stack_buf) {
        heap_buf.resize(sizeof(am_packet_header) + first);
        pkt = heap_buf.data();
    }
    size_t off = 0;
    do {
        size_t frag = std::min(size - off, max_frag);
        am_packet_header h{handler, rt_.rank(), msg_id, uint32_t(size), uint32_t(off), 0};
        memcpy(pkt, &h, sizeof h);
        if (frag) memcpy(pkt + sizeof h, static_cast<const uint8_t *>(payload) + off, frag);
        status st = vcis.retry(who, v, [&] { return route->am_send(v.index, dst, pkt, sizeof h + frag); });
        if (st != PGDDS_OK) return st;
        off += frag;
    } while (off < size);
    return PGDDS_OK;
}

void am_engine::incoming(unsigned vci_index, const void *packet, size_t len)
{
    vci &v = rt_.vci_at(vci_index);
    am_packet_header h;
    if (len < sizeof h) {
        PGDDS_LOG(LOG_ERROR, "dropped a truncated active-message packet (%zu bytes)", len);
        return;
    }
    memcpy(&h, packet, sizeof h);
    const uint8_t *data = static_cast<const uint8_t *>(packet) + sizeof h;
    size_t frag = len - sizeof h;
    if (h.handler >= handlers_.size() || h.src < 0 || h.src >= rt_.nranks() || h.total > PGDDS_AM_MAX_PAYLOAD ||
        uint64_t(h.offset) + frag > h.total) {
        PGDDS_LOG(LOG_ERROR, "dropped a malformed active-message packet (handler %u, from %d, %u bytes)",
                  h.handler, h.src, h.total);
        return;
    }
    if (h.handler == AM_SOFT_ATOMIC) {  // served at once: see soft_atomics.h
        if (rt_.soft()) rt_.soft()->incoming(vci_index, h.src, data, frag);
        else PGDDS_LOG(LOG_ERROR, "dropped rank %d's software atomic: this rank uses the transport's", h.src);
        return;
    }
    if (h.offset == 0 && frag == h.total) {
        v.inbox.push_back(am_message{h.handler, h.src, std::vector<uint8_t>(data, data + frag)});
        v.inbox_count.fetch_add(1, std::memory_order_release);
        return;
    }
    uint64_t key = uint64_t(h.src) << 32 | h.msg_id;
    auto &part = v.reassembly[key];
    if (part.data.empty()) part.data.resize(h.total);
    memcpy(part.data.data() + h.offset, data, frag);
    part.received += uint32_t(frag);
    if (part.received == h.total) {
        v.inbox.push_back(am_message{h.handler, h.src, std::move(part.data)});
        v.inbox_count.fetch_add(1, std::memory_order_release);
        v.reassembly.erase(key);
    }
}

void am_engine::run_handlers(vci &v)
{
    vci_set &vcis = rt_.vcis();
    const config &cfg = rt_.cfg();
    for (;;) {
        am_message m;
        {
            vci_scope scope(v, vcis.threaded(), !vcis.is_mine(v));
            if (v.inbox.empty()) return;
            m = std::move(v.inbox.front());
            v.inbox.pop_front();
            v.inbox_count.fetch_sub(1, std::memory_order_relaxed);
        }
        handler_entry e = handlers_[m.handler];
        if (!e.fn) {
            PGDDS_LOG(LOG_ERROR, "active message from rank %d for unregistered handler %u dropped", m.src,
                      m.handler);
            continue;
        }
        // Unless the program asked for PGDDS_THREAD_MULTIPLE, handlers never run at the same time
        // as each other, even when the progress thread runs some of them.
        std::unique_lock<std::mutex> serial(handler_lock_, std::defer_lock);
        if (cfg.thread_level != PGDDS_THREAD_MULTIPLE && cfg.progress_thread) serial.lock();
        tls_in_handler = true;
        e.fn(rt_.handle(), m.src, m.payload.data(), m.payload.size(), e.arg);
        tls_in_handler = false;
    }
}

}  // namespace pgdds
