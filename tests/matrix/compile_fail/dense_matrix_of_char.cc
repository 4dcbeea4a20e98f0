// The dense matrices hold the element types of pgdds_dtype_t that CBLAS or the generic kernel
// multiply: float, double, int32_t and int64_t.
// expect: pgdds::dense_matrix holds float, double, int32_t or int64_t
#include <pgdds/dense_matrix.hpp>

void f(pgdds::context_ref ctx) { pgdds::dense_matrix<char> m(ctx, 4, 4); }
