#include "collectives/observability/log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/env.h"
#include "base/named_values.h"

namespace kcoll {

// A file (or stderr) shared by every logger of the process that writes to it. Files stay open until the process
// ends, so a second communicator appends to the first one's log instead of truncating it.
class LogSink {
 public:
  explicit LogSink(FILE* file) : file_(file) {}
  void Write(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu_);
    std::fwrite(text.data(), 1, text.size(), file_);
    std::fflush(file_);
  }

 private:
  std::mutex mu_;
  FILE* file_;
};

namespace {

constexpr NamedValue<LogLevel> kLogLevelNames[] = {
    {LogLevel::kNone, "NONE"}, {LogLevel::kWarn, "WARN"}, {LogLevel::kInfo, "INFO"}, {LogLevel::kTrace, "TRACE"}};

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

const std::string& CachedHostName() {
  static const std::string* host = new std::string(HostName());
  return *host;
}

absl::StatusOr<std::shared_ptr<LogSink>> OpenSink(const std::string& path) {
  static std::mutex* mu = new std::mutex;
  static auto* sinks = new std::map<std::string, std::shared_ptr<LogSink>>;
  std::lock_guard<std::mutex> lock(*mu);
  auto it = sinks->find(path);
  if (it != sinks->end()) return it->second;
  std::shared_ptr<LogSink> sink;
  if (path.empty()) {
    sink = std::make_shared<LogSink>(stderr);
  } else {
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("KCOLL_DEBUG_FILE: cannot open '", path, "' for writing"));
    }
    sink = std::make_shared<LogSink>(f);
  }
  (*sinks)[path] = sink;
  return sink;
}

}  // namespace

absl::string_view LogLevelName(LogLevel level) { return NameIn(kLogLevelNames, level, "?"); }

absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view text) {
  return ParseNameIn(kLogLevelNames, text, "log level");
}

absl::StatusOr<LogConfig> LogConfigFromEnv() {
  LogConfig config;
  if (const char* level = GetEnv("KCOLL_DEBUG")) {
    absl::StatusOr<LogLevel> parsed = ParseLogLevel(level);
    if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat("KCOLL_DEBUG: ", parsed.status().message()));
    config.level = *parsed;
  }
  if (const char* file = GetEnv("KCOLL_DEBUG_FILE")) config.file_pattern = file;
  return config;
}

std::string ExpandLogFileName(absl::string_view pattern, int world_rank, absl::string_view host, int64_t pid) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out.push_back(pattern[i]);
      continue;
    }
    const char c = pattern[++i];
    if (c == 'r') {
      absl::StrAppend(&out, world_rank);
    } else if (c == 'h') {
      absl::StrAppend(&out, host);
    } else if (c == 'p') {
      absl::StrAppend(&out, pid);
    } else if (c == '%') {
      out.push_back('%');
    } else {
      out.push_back('%');
      out.push_back(c);
    }
  }
  return out;
}

absl::StatusOr<Logger> Logger::Create(const LogConfig& config, int world_rank, int rank) {
  Logger logger;
  logger.level_ = config.level;
  logger.rank_ = rank;
  if (config.level == LogLevel::kNone) return logger;
  const std::string path =
      config.file_pattern.empty()
          ? std::string()
          : ExpandLogFileName(config.file_pattern, world_rank, CachedHostName(), static_cast<int64_t>(getpid()));
  absl::StatusOr<std::shared_ptr<LogSink>> sink = OpenSink(path);
  if (!sink.ok()) return sink.status();
  logger.sink_ = *std::move(sink);
  return logger;
}

std::string Logger::Prefix(absl::string_view host, int64_t pid, int64_t tid, int rank, LogLevel level) {
  return absl::StrCat(host, ":", pid, ":", tid, " [", rank, "] KCOLL ", LogLevelName(level), " ");
}

void Logger::Log(LogLevel level, absl::string_view text) const {
  if (!Enabled(level)) return;
  const std::string prefix =
      Prefix(CachedHostName(), static_cast<int64_t>(getpid()), static_cast<int64_t>(syscall(SYS_gettid)), rank_, level);
  absl::ConsumeSuffix(&text, "\n");
  std::string out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) absl::StrAppend(&out, prefix, line, "\n");
  sink_->Write(out);
}

}  // namespace kcoll
