// The prefetch is a function in the header (with its module map, which SwiftPM and the fuzzer
// build both read), inlined where Swift calls it; SwiftPM needs a source.
#include "CPrefetch.h"
