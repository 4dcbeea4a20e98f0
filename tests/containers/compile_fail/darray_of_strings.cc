// Arrays are read and written in place: their elements must be trivially copyable.
// expect: pgdds arrays hold trivially copyable elements
#include <pgdds/array.hpp>

#include <string>

void f(pgdds::context_ref ctx) { pgdds::darray<std::string> a(ctx, 16); }
