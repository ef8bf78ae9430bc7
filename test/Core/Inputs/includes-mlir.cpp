// What core code must not include: anything of MLIR.
#include "mlir/IR/Operation.h"
