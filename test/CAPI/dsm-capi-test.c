/*===- dsm-capi-test.c - The C API from C ---------------------------------===*\
|* Registers the dialect through its handle, parses a model, maps it with   *|
|* dsmMapSystem and prints the mapped IR: what a binding in another language *|
|* does. Run by test/CAPI/c-api.test.                                         *|
\*===----------------------------------------------------------------------===*/

#include "dsm-c/Dsm.h"

#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>

static void print(MlirStringRef text, void *userData) {
  fwrite(text.data, 1, text.length, (FILE *)userData);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: dsm-capi-test model.mlir options\n");
    return 2;
  }
  FILE *file = fopen(argv[1], "rb");
  if (!file)
    return 2;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  if (!text || fread(text, 1, (size_t)size, file) != (size_t)size)
    return 2;
  text[size] = 0;
  fclose(file);

  printf("dsm %.*s\n", (int)dsmGetVersion().length, dsmGetVersion().data);
  MlirContext context = mlirContextCreate();
  MlirDialectHandle dsm = mlirGetDialectHandle__dsm__();
  mlirDialectHandleLoadDialect(dsm, context);
  /* The handle loads dsm and the dialects models are written in (func). */
  dsmRegisterPasses();

  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "cannot parse the model\n");
    return 1;
  }
  MlirLogicalResult mapped =
      dsmMapSystem(module, mlirStringRefCreateFromCString(argv[2]));
  if (mlirLogicalResultIsFailure(mapped)) {
    fprintf(stderr, "mapping failed\n");
    return 1;
  }
  mlirOperationPrint(mlirModuleGetOperation(module), print, stdout);
  printf("\n");
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return 0;
}
