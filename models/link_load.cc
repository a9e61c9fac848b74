#include "models/link_load.h"

#include <algorithm>
#include <tuple>

namespace kcoll {
namespace models {

bool RoundLoad::Receive::operator<(const Receive& o) const {
  return std::tie(intra_amount, intra_messages, inter_amount, inter_messages, reduce_amount) <
         std::tie(o.intra_amount, o.intra_messages, o.inter_amount, o.inter_messages, o.reduce_amount);
}

namespace {

// A rank's copies of what it receives in a round, one message after the other (a class's amount split evenly over its
// messages).
double CopySeconds(const RoundLoad::Receive& r, const Profile& profile, double unit_bytes, double working_set_bytes) {
  auto copies = [&](const LinkParams& link, double amount, double messages) {
    return messages > 0 ? messages * link.Seconds(amount / messages * unit_bytes, working_set_bytes) : 0.0;
  };
  return copies(profile.intra, r.intra_amount, r.intra_messages) +
         copies(profile.inter, r.inter_amount, r.inter_messages);
}

}  // namespace

RoundLoad SummarizeRound(const Topology& topology, std::vector<Transfer> transfers, bool reduces) {
  RoundLoad load;
  // Sorted by directed link, so that transfers sharing an intra-node link are adjacent.
  std::sort(transfers.begin(), transfers.end(),
            [](const Transfer& a, const Transfer& b) { return std::tie(a.src, a.dst) < std::tie(b.src, b.dst); });
  const int64_t nodes = topology.nodes;
  std::vector<double> out_total(nodes, 0), out_max(nodes, 0), in_total(nodes, 0), in_max(nodes, 0);
  std::vector<int64_t> out_streams(nodes, 0), in_streams(nodes, 0);
  std::vector<double> received;
  if (reduces) received.assign(topology.ranks(), 0);
  const bool ports = topology.intra_links_per_rank > 0;
  std::vector<double> rank_out, rank_in;  // intra-node totals per rank, when a rank's links are shared
  std::vector<RoundLoad::Receive> per_rank(topology.ranks());
  if (ports) {
    rank_out.assign(topology.ranks(), 0);
    rank_in.assign(topology.ranks(), 0);
  }
  double link_amount = 0;  // running sum over the transfers of the current intra-node link
  for (size_t i = 0; i < transfers.size(); ++i) {
    const Transfer& t = transfers[i];
    if (t.src == t.dst) continue;
    const int64_t src_node = topology.NodeOf(t.src);
    const int64_t dst_node = topology.NodeOf(t.dst);
    if (src_node == dst_node) {
      const bool same_link = i > 0 && transfers[i - 1].src == t.src && transfers[i - 1].dst == t.dst;
      link_amount = same_link ? link_amount + t.amount : t.amount;
      load.has_intra = true;
      load.intra = std::max(load.intra, link_amount);
      per_rank[t.dst].intra_amount += t.amount;
      per_rank[t.dst].intra_messages += 1;
      if (ports) {
        rank_out[t.src] += t.amount;
        rank_in[t.dst] += t.amount;
      }
    } else {
      load.has_inter = true;
      per_rank[t.dst].inter_amount += t.amount;
      per_rank[t.dst].inter_messages += 1;
      ++out_streams[src_node];
      ++in_streams[dst_node];
      out_total[src_node] += t.amount;
      out_max[src_node] = std::max(out_max[src_node], t.amount);
      in_total[dst_node] += t.amount;
      in_max[dst_node] = std::max(in_max[dst_node], t.amount);
    }
    if (reduces) {
      received[t.dst] += t.amount;
      load.reduce = std::max(load.reduce, received[t.dst]);
    }
  }
  if (ports && load.has_intra) {
    const double links = topology.intra_links_per_rank;
    for (size_t r = 0; r < rank_out.size(); ++r) {
      load.intra = std::max({load.intra, rank_out[r] / links, rank_in[r] / links});
    }
  }
  if (reduces) {
    for (size_t r = 0; r < per_rank.size(); ++r) per_rank[r].reduce_amount = received[r];
  }
  std::sort(per_rank.begin(), per_rank.end());
  for (const RoundLoad::Receive& r : per_rank) {
    if (load.receives.empty() || load.receives.back() < r) load.receives.push_back(r);
    ++load.receives.back().ranks;
  }
  if (load.has_inter) {
    const double nics = topology.nics_per_node;
    for (int64_t node = 0; node < nodes; ++node) {
      load.inter = std::max({load.inter, out_max[node], out_total[node] / nics, in_max[node], in_total[node] / nics});
      const int64_t streams = std::max(out_streams[node], in_streams[node]);
      load.inter_streams = std::max(load.inter_streams, StreamsPerNic(topology, streams));
    }
  }
  return load;
}

double TransferSeconds(const RoundLoad& load, double unit_bytes, const Profile& profile, double working_set_bytes) {
  double seconds = 0;
  if (profile.transfers_use_cores) {
    for (const RoundLoad::Receive& r : load.receives) {
      seconds = std::max(seconds, CopySeconds(r, profile, unit_bytes, working_set_bytes));
    }
    return seconds;
  }
  if (load.has_intra) seconds = std::max(seconds, profile.intra.Seconds(load.intra * unit_bytes, working_set_bytes));
  if (load.has_inter) {
    seconds = std::max(seconds,
                       profile.inter.SecondsOfStreams(load.inter * unit_bytes, load.inter_streams, working_set_bytes));
  }
  return seconds;
}

double RoundSeconds(const RoundLoad& load, double unit_bytes, const Profile& profile, double working_set_bytes) {
  const double busiest = TransferSeconds(load, unit_bytes, profile, working_set_bytes) +
                         profile.ReduceSeconds(load.reduce * unit_bytes, working_set_bytes);
  if (!profile.transfers_use_cores || !(profile.rank_core_share < 1)) return busiest;
  double total = 0;
  int64_t ranks = 0;
  for (const RoundLoad::Receive& r : load.receives) {
    const double work = CopySeconds(r, profile, unit_bytes, working_set_bytes) +
                        profile.ReduceSeconds(r.reduce_amount * unit_bytes, working_set_bytes);
    total += static_cast<double>(r.ranks) * work;
    ranks += r.ranks;
  }
  return ranks > 0 ? std::max(busiest * profile.rank_core_share, total / static_cast<double>(ranks)) : busiest;
}

int64_t StreamsPerNic(const Topology& topology, int64_t streams) {
  return (streams + topology.nics_per_node - 1) / topology.nics_per_node;
}

int64_t PairwiseCrossingSenders(const Topology& topology, int64_t shift) {
  // Rank l of node q sends to rank l + b of node q + a (shift = a P + b), or to rank l + b - P of node q + a + 1 when
  // l + b >= P. Node indices are taken mod Q: the target is on the sender's node iff that offset is 0 mod Q.
  const int64_t p = topology.ranks_per_node;
  const int64_t q = topology.nodes;
  const int64_t a = shift / p;
  const int64_t b = shift % p;
  int64_t same_node = 0;
  if (a % q == 0) same_node += p - b;    // l in [0, P - b)
  if ((a + 1) % q == 0) same_node += b;  // l in [P - b, P)
  return p - same_node;
}

}  // namespace models
}  // namespace kcoll
