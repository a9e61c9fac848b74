// kcoll's one log format, modelled on NCCL's: every line starts with
//
//   <host>:<pid>:<tid> [<rank>] KCOLL <LEVEL> <message>
//
// where <rank> is the rank in the communicator that logs. $KCOLL_DEBUG picks the level (WARN, INFO or TRACE, case
// insensitive; NONE silences even warnings; unset means WARN). Lines go to stderr, or to the file named by
// $KCOLL_DEBUG_FILE, in which %r is replaced by the rank in MPI_COMM_WORLD, %h by the host name, %p by the pid and
// %% by %; so "kcoll.%r.log" gives one file per process. docs/observability.md documents the messages.
#ifndef KCOLL_COLLECTIVES_OBSERVABILITY_LOG_H_
#define KCOLL_COLLECTIVES_OBSERVABILITY_LOG_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kcoll {

enum class LogLevel {
  kNone = 0,
  kWarn = 1,   // something is off but the call goes on (e.g. a setting was ignored)
  kInfo = 2,   // communicator creation (topology, channels, trees) and finalization (counters)
  kTrace = 3,  // one line per collective call
};

absl::string_view LogLevelName(LogLevel level);  // "NONE", "WARN", "INFO", "TRACE"
// Case-insensitive; InvalidArgument names the text and lists the levels.
absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view text);

struct LogConfig {
  LogLevel level = LogLevel::kWarn;
  std::string file_pattern;  // empty: stderr
};

// From $KCOLL_DEBUG and $KCOLL_DEBUG_FILE; InvalidArgument names the variable and its value.
absl::StatusOr<LogConfig> LogConfigFromEnv();

// `pattern` with %r, %h, %p and %% replaced.
std::string ExpandLogFileName(absl::string_view pattern, int world_rank, absl::string_view host, int64_t pid);

class LogSink;

class Logger {
 public:
  // A logger writing to stderr (or to the file of `config`, opened once per process and shared by every logger
  // that names it; InvalidArgument when it cannot be opened). `rank` goes into the prefix.
  static absl::StatusOr<Logger> Create(const LogConfig& config, int world_rank, int rank);
  // Writes nowhere.
  Logger() = default;

  LogLevel level() const { return level_; }
  bool Enabled(LogLevel level) const { return level != LogLevel::kNone && level <= level_ && sink_ != nullptr; }
  // Writes `text` if `level` is enabled, one prefixed line per line of text, in one piece (lines of concurrent
  // writers do not interleave).
  void Log(LogLevel level, absl::string_view text) const;

  // The prefix of a line: "host:pid:tid [rank] KCOLL LEVEL ".
  static std::string Prefix(absl::string_view host, int64_t pid, int64_t tid, int rank, LogLevel level);

 private:
  LogLevel level_ = LogLevel::kNone;
  int rank_ = 0;
  std::shared_ptr<LogSink> sink_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_OBSERVABILITY_LOG_H_
