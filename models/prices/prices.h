// The price of every (collective, algorithm) pair of base/algorithm_list.h: the function of this folder that builds
// its CostModel. Each file prices one algorithm, with the schedule it prices and its alpha-beta cost at its top; the
// table is expanded from the list (price_table.cc), so a new price is a file here and its rows in the list.
//
// Notation of the costs: n ranks (p2 the largest power of two <= n, d = ceil(log2 n)), S the collective's size in
// nccl-tests' convention (models/bandwidth/bus_bandwidth.h), alpha per message, beta per byte sent, gamma per byte
// reduced, k the chunks of a pipeline (ceil(S / chunk_bytes)). The model itself prices each round's slowest link and
// rank (cost_model.h, link_load.h), so on several nodes or on measured curves its times differ from these textbook
// forms.
#ifndef KCOLL_MODELS_PRICES_PRICES_H_
#define KCOLL_MODELS_PRICES_PRICES_H_

#include "base/names.h"
#include "models/price_builder.h"

namespace kcoll {
namespace models {

using PriceFn = void (*)(PriceBuilder& builder);

// The price of `algorithm` for `collective`; nullptr when the list has no such row or leaves it unpriced.
PriceFn FindPrice(Collective collective, Algorithm algorithm);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_PRICES_PRICES_H_
