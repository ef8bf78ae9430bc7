//===- DsmInterfaces.cpp - dsm op interfaces ------------------------------===//

#include "dsm/Dialect/DsmInterfaces.h"

#include "dsm/Dialect/DsmInterfaces.cpp.inc"
