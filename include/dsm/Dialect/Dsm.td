//===- Dsm.td - dsm dialect umbrella -----------------------*- tablegen -*-===//

#ifndef DSM_DIALECT_DSM_TD
#define DSM_DIALECT_DSM_TD

include "dsm/Dialect/DsmDialect.td"
include "dsm/Dialect/DsmAttrs.td"
include "dsm/Dialect/DsmInterfaces.td"
include "dsm/Dialect/DsmOps.td"

#endif // DSM_DIALECT_DSM_TD
