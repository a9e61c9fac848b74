// Linked against //:kcoll by tools/install.sh, which reads this link's parameters (the archives kcoll is made of
// and the flags of its dependencies) to assemble the installed libkcoll and its CMake and pkg-config files.
#include "collectives/communicator.h"
#include "collectives/kcoll.h"

int main() {
  // Referencing both APIs keeps every archive on the link line.
  const void* volatile kept[] = {reinterpret_cast<const void*>(&kcoll::Communicator::Create),
                                 reinterpret_cast<const void*>(&kcoll_error_string)};
  return kept[0] == kept[1];
}
