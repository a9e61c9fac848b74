#include "base/algorithm_list.h"
#include "base/listed_function.h"
#include "models/prices/prices.h"

namespace kcoll {
namespace models {

// Every price of base/algorithm_list.h, declared here from the list: each is defined in its algorithm's file.
#define KCOLL_DECLARE_PRICE(collective, algorithm, schedule, price) void price(PriceBuilder& builder);
KCOLL_SCHEDULES(KCOLL_DECLARE_PRICE)
#undef KCOLL_DECLARE_PRICE

// The list's mark for a schedule the model leaves out of `auto`'s comparison; never called.
void NotPriced(PriceBuilder& /*builder*/) {}

constexpr ListedFunction<PriceFn> kPrices[] = {KCOLL_SCHEDULES(KCOLL_PRICE_ROW)};

PriceFn FindPrice(Collective collective, Algorithm algorithm) {
  const PriceFn price = FindListedFunction(kPrices, collective, algorithm);
  return price == &NotPriced ? nullptr : price;
}

}  // namespace models
}  // namespace kcoll
