// The command line of a program whose options are all absl flags (--name=value): //bench:calibrate, //models:predict.
#ifndef KCOLL_BASE_FLAGS_ONLY_H_
#define KCOLL_BASE_FLAGS_ONLY_H_

namespace kcoll {

// Sets `usage` as the program's usage message and parses the flags (absl::ParseCommandLine: --help prints the usage
// and exits, an unknown flag is an error that exits). Returns false after printing "`program`: unexpected argument
// 'X' (every option is a --name=value flag)" when an argument that is not a flag is left.
bool ParseFlagsOnly(int argc, char** argv, const char* program, const char* usage);

}  // namespace kcoll

#endif  // KCOLL_BASE_FLAGS_ONLY_H_
