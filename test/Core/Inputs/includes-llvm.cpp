// What core code may include: LLVM Support/ADT and the core's own headers.
#include "dsm/Core/Support/Executor.h"
#include "llvm/ADT/SmallVector.h"
