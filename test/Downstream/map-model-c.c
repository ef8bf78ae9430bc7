/* A C program on DSM::CAPI alone (no MLIR C API archive, no -lstdc++):
 * maps a model and prints the report the library returns as a string.
 * Usage: map-model-c model.mlir "system=... report=-". */
#include "dsm-c/Dsm.h"

#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: map-model-c model.mlir options\n");
    return 2;
  }
  char *report = NULL, *diagnostics = NULL;
  int status = dsmMapModelFile(argv[1], argv[2], &report, NULL, &diagnostics);
  fputs(diagnostics ? diagnostics : "", stderr);
  if (status == 0)
    fputs(report ? report : "", stdout);
  dsmStringDestroy(report);
  dsmStringDestroy(diagnostics);
  return status;
}
