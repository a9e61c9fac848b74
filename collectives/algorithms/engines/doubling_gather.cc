#include "collectives/algorithms/engines/doubling_gather.h"

#include "base/status_macros.h"

namespace kcoll {

absl::Status GatherByRecursiveDoubling(Resources& res, char* out, size_t count, size_t elem, int p, int v, int lo,
                                       int hi, const std::function<int(int)>& rank_of, int tag) {
  for (int d = p / 2; d >= 1; d /= 2) {
    const int peer = rank_of(v ^ d);
    const bool lower = (v & d) == 0;
    const int width = hi - lo;  // the partner's window is as wide
    const Block have = BlocksRange(count, p, lo, hi);
    const Block get = lower ? BlocksRange(count, p, hi, hi + width) : BlocksRange(count, p, lo - width, lo);
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(peer, out + get.offset * elem, get.count * elem, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(peer, out + have.offset * elem, have.count * elem, tag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    if (lower) {
      hi += width;
    } else {
      lo -= width;
    }
  }
  return absl::OkStatus();
}

}  // namespace kcoll
