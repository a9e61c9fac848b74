// How nccl-tests turns a requested size into a call, per collective, so that kcoll's rows line up with nccl-tests'
// rows of the same size:
//
//   collective      count (the call's argument)   send elems     recv elems     in place: send at / recv at
//   all_reduce      size/elem                     count          count          buf / buf
//   reduce_scatter  size/elem/n (per rank)        count*n        count          buf / buf + rank*count
//   all_gather      size/elem/n (per rank)        count          count*n        buf + rank*count / buf
//   broadcast       size/elem                     count          count          buf / buf
//   reduce          size/elem                     count          count          buf / buf
//   alltoall        size/elem/n (per peer)        count*n        count*n        buf / buf
//   gather          size/elem/n (per rank)        count          count*n        buf + rank*count / buf
//   scatter         size/elem/n (per rank)        count*n        count          buf / buf + rank*count
//   sendrecv        size/elem                     count          count          buf / buf
//
// The reported size is max(send, recv) bytes, which is nccl-tests' S of the busbw formula (bandwidth.h); it can be
// smaller than the requested size when the size does not divide into n blocks of whole elements.
#ifndef KCOLL_BENCH_DATA_LAYOUT_H_
#define KCOLL_BENCH_DATA_LAYOUT_H_

#include <cstddef>

#include "base/names.h"

namespace kcoll {
namespace bench {

struct Layout {
  size_t count = 0;       // the call's count argument (elements)
  size_t send_count = 0;  // elements in a rank's send buffer
  size_t recv_count = 0;  // elements in a rank's receive buffer
  // In place, both pointers point into one buffer of max(send_count, recv_count) elements, at these element
  // offsets multiplied by the rank.
  size_t send_inplace_offset = 0;
  size_t recv_inplace_offset = 0;
  size_t bytes = 0;  // max(send_count, recv_count) * elem: the size column and the S of busbw
};

Layout MakeLayout(Collective collective, size_t requested_bytes, size_t elem_bytes, int nranks);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DATA_LAYOUT_H_
