// The prefetch is a function in the header, inlined where Swift calls it; SwiftPM needs a source.
#include "CPrefetch.h"
