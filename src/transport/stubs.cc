// Constructors of the backends this build does not include.
#include "transport.h"

namespace pgdds {

#ifndef PGDDS_HAVE_OFI
status transport_create_ofi(std::unique_ptr<transport> &)
{
    return fail(PGDDS_ERR_UNSUPPORTED, "this libpgdds was built without libfabric (meson option ofi)");
}
#endif
#ifndef PGDDS_HAVE_UCX
status transport_create_ucx(std::unique_ptr<transport> &)
{
    return fail(PGDDS_ERR_UNSUPPORTED, "this libpgdds was built without UCX (meson option ucx)");
}
#endif
#ifndef PGDDS_HAVE_VERBS
status transport_create_verbs(std::unique_ptr<transport> &)
{
    return fail(PGDDS_ERR_UNSUPPORTED, "this libpgdds was built without ibverbs (meson option verbs)");
}
#endif

}  // namespace pgdds
