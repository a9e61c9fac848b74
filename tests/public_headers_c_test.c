/* kcoll.h compiled as C, as a C or Fortran code includes it: its status codes, read back by public_headers_test. */
#include "collectives/kcoll.h"

int KcollHeaderStatusCodes(int* codes, int capacity) {
  const int c[] = {
      KCOLL_OK,      KCOLL_INVALID_ARGUMENT, KCOLL_DEADLINE_EXCEEDED, KCOLL_FAILED_PRECONDITION, KCOLL_UNIMPLEMENTED,
      KCOLL_INTERNAL};
  int n = 0;
  for (; n < capacity && n < (int)(sizeof(c) / sizeof(c[0])); ++n) codes[n] = c[n];
  return n;
}
