// The target is the header (include/SwiftAllocationABI.h); SwiftPM builds a C target only with a
// source file. Compiling the header here checks its assertions once on its own.
#include "SwiftAllocationABI.h"
