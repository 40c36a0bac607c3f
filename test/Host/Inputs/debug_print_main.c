/* Runs debug_print once with Y >= 0, then with Y[2] < 0 unless asked not
   to, so that the assertion stops the program. */
#include "debug_print.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  _Alignas(16) uint16_t x[4] = {0x3c00, 0x4000, 0x4200, 0xbc00}; /* 1 2 3 -1 */
  _Alignas(16) int32_t y[4] = {5, 6, 7, 8};
  if (debug_print_run(x, y) != TILEC_HOST_SUCCESS)
    return 1;
  fflush(stdout);
  if (argc > 1) {
    y[2] = -1;
    debug_print_run(x, y);
    printf("not reached\n");
  }
  return 0;
}
