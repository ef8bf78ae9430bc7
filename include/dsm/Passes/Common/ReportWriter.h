//===- ReportWriter.h - Moved to dsm/Support/ReportWriter.h -----*- C++ -*-===//
//
// The report writer is shared by passes, front ends and back ends, so it
// lives in the MLIR-tier support room now. This forwarding header keeps the
// benchmarks (tools/dsm-bench) building until they include the new path;
// delete it then.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_PASSES_COMMON_REPORTWRITER_H
#define DSM_PASSES_COMMON_REPORTWRITER_H

#include "dsm/Support/ReportWriter.h"

#endif // DSM_PASSES_COMMON_REPORTWRITER_H
