// An outside C++ program, built against an installed libpgdds with nothing but
// `pkg-config --cflags --libs pgdds`, through the C++ header pgdds.hpp.
#include <pgdds/pgdds.hpp>
// The containers' C++ headers join here once they are installed, e.g.:
//   #include <pgdds/hash_map.hpp>   (pgdds::hash_map<K, V>)

#include <cstdint>
#include <cstdio>

int main()
{
    try {
        pgdds::context ctx;
        const int me = ctx.rank(), n = ctx.nranks();
        auto mine = ctx.alloc<uint64_t>(2);
        mine.put(0);
        (mine + 1).put(0);
        auto all = ctx.allgather(mine);
        ctx.barrier();

        all[0].fetch_add(uint64_t(me) + 1);
        (all[size_t((me + 1) % n)] + 1).put(uint64_t(2000 + me));
        ctx.barrier();

        int failed = 0;
        if ((mine + 1).get() != uint64_t(2000 + (me + n - 1) % n)) ++failed;
        if (me == 0 && mine.atomic_load() != uint64_t(n) * (n + 1) / 2) ++failed;
        failed = ctx.sum(failed);
        if (me == 0) std::printf("consumer-cxx: %s on %d ranks over %s\n", failed ? "FAILED" : "passed", n,
                                 ctx.transport_name().c_str());
        ctx.finalize();
        return failed ? 1 : 0;
    } catch (const pgdds::error &e) {
        std::fprintf(stderr, "consumer-cxx: %s\n", e.what());
        return 1;
    }
}
