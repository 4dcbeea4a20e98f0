// A queue's local view hands out elements in place: serialized elements have no such form.
// expect: local_view needs trivially copyable elements
#include <pgdds/queue.hpp>

#include <string>

void f(pgdds::context_ref ctx)
{
    pgdds::fast_queue<std::string> q(ctx, 16, 0, 32);
    q.local_view();
}
