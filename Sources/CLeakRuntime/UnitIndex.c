#include "UnitIndex.h"

#include <stdlib.h>

typedef struct {
  Dwarf_Addr low, high;  // [low, high)
  Dwarf_Off unit;        // the unit's DIE
} range_t;

typedef struct {
  Dwarf *dwarf;
  range_t *ranges;  // by low address
  size_t count;
} index_t;

/// The modules indexed so far (past this many, lookups walk the units as libdw would).
enum { maximumModules = 1024 };
static index_t indexes[maximumModules];
static size_t indexCount = 0;

static int compareRanges(const void *left, const void *right) {
  const range_t *a = left, *b = right;
  return a->low < b->low ? -1 : a->low > b->low;
}

static int append(range_t **ranges, size_t *count, size_t *capacity, range_t range) {
  if (*count == *capacity) {
    size_t grown = *capacity ? *capacity * 2 : 64;
    range_t *larger = realloc(*ranges, sizeof(range_t) * grown);
    if (larger == NULL) return 0;
    *ranges = larger;
    *capacity = grown;
  }
  (*ranges)[(*count)++] = range;
  return 1;
}

static const index_t *indexOf(Dwarf *dwarf) {
  for (size_t position = 0; position < indexCount; position++) {
    if (indexes[position].dwarf == dwarf) return &indexes[position];
  }
  if (indexCount == maximumModules) return NULL;
  range_t *ranges = NULL;
  size_t count = 0, capacity = 0;
  Dwarf_Off offset = 0, next = 0;
  size_t headerSize = 0;
  while (dwarf_nextcu(dwarf, offset, &next, &headerSize, NULL, NULL, NULL) == 0) {
    Dwarf_Die die;
    if (dwarf_offdie(dwarf, offset + headerSize, &die) != NULL) {
      Dwarf_Addr base = 0, start = 0, end = 0;
      ptrdiff_t position = 0;
      while ((position = dwarf_ranges(&die, position, &base, &start, &end)) > 0) {
        if (end > start && !append(&ranges, &count, &capacity, (range_t){start, end, offset + headerSize})) break;
      }
    }
    offset = next;
  }
  if (count > 0) qsort(ranges, count, sizeof(range_t), compareRanges);
  indexes[indexCount] = (index_t){dwarf, ranges, count};
  return &indexes[indexCount++];
}

/// The unit whose ranges hold `address`, by walking every unit (when the index is full).
static int walkUnits(Dwarf *dwarf, Dwarf_Addr address, Dwarf_Die *unit) {
  Dwarf_Off offset = 0, next = 0;
  size_t headerSize = 0;
  while (dwarf_nextcu(dwarf, offset, &next, &headerSize, NULL, NULL, NULL) == 0) {
    if (dwarf_offdie(dwarf, offset + headerSize, unit) != NULL && dwarf_haspc(unit, address) == 1) return 1;
    offset = next;
  }
  return 0;
}

int cleak_unit_index_lookup(Dwarf *dwarf, Dwarf_Addr address, Dwarf_Die *unit) {
  const index_t *index = indexOf(dwarf);
  if (index == NULL) return walkUnits(dwarf, address, unit);
  size_t low = 0, high = index->count;  // the first range that starts past the address
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    if (index->ranges[middle].low <= address) low = middle + 1; else high = middle;
  }
  // Units do not overlap, but a unit's range may hold another's (a few are looked at).
  for (size_t position = low; position > 0 && low - position < 8; position--) {
    const range_t *range = &index->ranges[position - 1];
    if (address < range->high) return dwarf_offdie(dwarf, range->unit, unit) != NULL;
  }
  return 0;
}
