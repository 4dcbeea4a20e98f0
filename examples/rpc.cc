// Remote procedure calls with futures: every rank asks its right-hand neighbour to square a
// number, adds one to the answer when it comes, and counts visits on rank 0 without replies.
#include <pgdds/rpc.hpp>

#include <cstdio>
#include <string>

static int visits = 0;  // on rank 0: the calls without reply that reached it

int main()
{
    try {
        pgdds::context ctx;
        const int me = ctx.rank(), n = ctx.nranks(), right = (me + 1) % n;

        pgdds::future<long> squared = pgdds::rpc(ctx, right, [](long x) { return x * x; }, long(me + 2));
        pgdds::future<long> plus_one = squared.then([](long v) { return v + 1; });
        auto greeting = pgdds::rpc(ctx, right, [](std::string who) { return "hello, " + who; }, "rank " + std::to_string(me));

        pgdds::rpc_ff(ctx, 0, [] { ++visits; });
        long answer = plus_one.get();  // waits, progressing, until the reply came
        std::printf("rank %d: (%d + 2)^2 + 1 = %ld; rank %d says \"%s\"\n", me, me, answer, right,
                    greeting.get().c_str());

        // Rank 0 serves until every visit arrived (the others progress in the barrier).
        if (me == 0)
            while (visits < n) ctx.progress();
        ctx.barrier();
        if (me == 0) std::printf("visits on rank 0: %d of %d\n", visits, n);
        return answer == long(me + 2) * (me + 2) + 1 ? 0 : 1;
    } catch (const pgdds::error &e) {
        std::fprintf(stderr, "pgdds_init failed (%s): %s\n", e.status() == PGDDS_ERR_UNSUPPORTED ? "unsupported" : "error",
                     e.what());
        return 1;
    }
}
