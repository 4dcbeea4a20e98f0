// Concurrency promises for the C++ containers (BCL paper §7): the operations that may run at the
// same time as a call, as a typed bit set. The default, nothing promised, is fully atomic.
//   map.find(key, pgdds::promise::find);                       // only finds overlap: one read
//   map.insert(key, value, pgdds::promise::insert);            // only inserts of other keys: A+W
//   map.insert(key, value, pgdds::promise::local);             // owner's part, CPU only
#pragma once

#include <pgdds/pgdds.h>

namespace pgdds {

class promise_set {
  public:
    constexpr promise_set() = default;
    constexpr explicit promise_set(unsigned bits) : bits_(bits) {}
    constexpr unsigned bits() const { return bits_; }
    friend constexpr promise_set operator|(promise_set a, promise_set b) { return promise_set(a.bits_ | b.bits_); }
    friend constexpr bool operator==(promise_set a, promise_set b) { return a.bits_ == b.bits_; }
    friend constexpr bool operator!=(promise_set a, promise_set b) { return a.bits_ != b.bits_; }

  private:
    unsigned bits_ = 0;
};

namespace promise {
inline constexpr promise_set atomic{};  // nothing promised
inline constexpr promise_set insert{PGDDS_CP_INSERT};
inline constexpr promise_set find{PGDDS_CP_FIND};
inline constexpr promise_set push{PGDDS_CP_PUSH};
inline constexpr promise_set pop{PGDDS_CP_POP};
inline constexpr promise_set local{PGDDS_CP_LOCAL};
}  // namespace promise

}  // namespace pgdds
