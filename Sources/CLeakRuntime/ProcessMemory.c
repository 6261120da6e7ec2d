#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "CLeakRuntime.h"

void cleak_malloc_totals_now(cleak_malloc_totals *totals) {
  struct mallinfo2 info = mallinfo2();
  totals->arena = info.arena;
  totals->uordblks = info.uordblks;
  totals->fordblks = info.fordblks;
  totals->hblkhd = info.hblkhd;
}

char *cleak_malloc_info_text(size_t *length) {
  char *text = NULL;
  size_t size = 0;
  FILE *stream = open_memstream(&text, &size);
  if (stream == NULL) return NULL;
  int failed = malloc_info(0, stream);
  if (fclose(stream) != 0 || failed != 0 || text == NULL) {
    free(text);
    return NULL;
  }
  *length = size;
  return text;
}
