#ifndef CZLIB_H
#define CZLIB_H

// The system's zlib (Debian's `zlib1g-dev`), for gzip files. Its initializers are macros, which
// Swift does not import: the functions below stand in for the ones used.

#include <zlib.h>

/// `deflateInit2(stream, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY)`: a deflate stream that
/// writes a gzip file (window bits 15, plus 16 for the gzip wrapper) at `level`, with zlib's
/// default memory level and strategy.
static inline int czlib_deflate_init_gzip(z_stream *stream, int level) {
  return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/// `inflateInit2(stream, 31)`: an inflate stream that reads a gzip file (and nothing else).
static inline int czlib_inflate_init_gzip(z_stream *stream) {
  return inflateInit2(stream, 15 + 16);
}

#endif
