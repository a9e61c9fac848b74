#include "base/algorithm_list.h"
#include "models/prices/prices.h"

namespace kcoll {
namespace models {

// Every price of base/algorithm_list.h, declared here from the list: each is defined in its algorithm's file.
#define KCOLL_DECLARE_PRICE(collective, algorithm, schedule, price) void price(PriceBuilder& builder);
KCOLL_SCHEDULES(KCOLL_DECLARE_PRICE)
#undef KCOLL_DECLARE_PRICE

// The list's mark for a schedule the model leaves out of `auto`'s comparison; never called.
void NotPriced(PriceBuilder& /*builder*/) {}

namespace {

struct Entry {
  Collective collective;
  Algorithm algorithm;
  PriceFn price;
};

constexpr Entry kPrices[] = {
#define KCOLL_PRICE_ENTRY(collective, algorithm, schedule, price) \
  {Collective::k##collective, Algorithm::k##algorithm, &price},
    KCOLL_SCHEDULES(KCOLL_PRICE_ENTRY)
#undef KCOLL_PRICE_ENTRY
};

}  // namespace

PriceFn FindPrice(Collective collective, Algorithm algorithm) {
  for (const Entry& e : kPrices) {
    if (e.collective == collective && e.algorithm == algorithm) return e.price == &NotPriced ? nullptr : e.price;
  }
  return nullptr;
}

}  // namespace models
}  // namespace kcoll
