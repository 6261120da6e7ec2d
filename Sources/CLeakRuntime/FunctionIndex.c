#include "FunctionIndex.h"

#include <dwarf.h>
#include <stdlib.h>

typedef struct {
  Dwarf_Addr low, high;  // [low, high)
  Dwarf_Off function;    // the function's DIE
} range_t;

typedef struct {
  Dwarf *dwarf;
  Dwarf_Off unit;   // the unit's DIE
  range_t *ranges;  // by low address
  size_t count;
} index_t;

static index_t *indexes = NULL;
static size_t indexCount = 0, indexCapacity = 0;
static size_t lastUsed = 0;  // consecutive frames are mostly in one unit

static int compareRanges(const void *left, const void *right) {
  const range_t *a = left, *b = right;
  return a->low < b->low ? -1 : a->low > b->low;
}

typedef struct {
  range_t *ranges;
  size_t count, capacity;
} ranges_t;

static void append(ranges_t *list, range_t range) {
  if (list->count == list->capacity) {
    size_t grown = list->capacity ? list->capacity * 2 : 64;
    range_t *larger = realloc(list->ranges, sizeof(range_t) * grown);
    if (larger == NULL) return;
    list->ranges = larger;
    list->capacity = grown;
  }
  list->ranges[list->count++] = range;
}

/// Adds the ranges of the functions among `parent`'s children, and of those inside the module,
/// namespace and type DIEs among them.
static void collect(Dwarf_Die *parent, ranges_t *list, int depth) {
  Dwarf_Die child;
  if (depth > 8 || dwarf_child(parent, &child) != 0) return;
  do {
    switch (dwarf_tag(&child)) {
    case DW_TAG_subprogram: {
      Dwarf_Addr base = 0, start = 0, end = 0;
      ptrdiff_t position = 0;
      while ((position = dwarf_ranges(&child, position, &base, &start, &end)) > 0) {
        if (end > start) append(list, (range_t){start, end, dwarf_dieoffset(&child)});
      }
      break;
    }
    case DW_TAG_module:
    case DW_TAG_namespace:
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type:
      if (dwarf_haschildren(&child)) collect(&child, list, depth + 1);
      break;
    default:
      break;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

static const index_t *indexOf(Dwarf_Die *unit) {
  Dwarf *dwarf = dwarf_cu_getdwarf(unit->cu);
  Dwarf_Off offset = dwarf_dieoffset(unit);
  if (lastUsed < indexCount && indexes[lastUsed].dwarf == dwarf && indexes[lastUsed].unit == offset) return &indexes[lastUsed];
  for (size_t position = 0; position < indexCount; position++) {
    if (indexes[position].dwarf == dwarf && indexes[position].unit == offset) {
      lastUsed = position;
      return &indexes[position];
    }
  }
  if (indexCount == indexCapacity) {
    size_t grown = indexCapacity ? indexCapacity * 2 : 16;
    index_t *larger = realloc(indexes, sizeof(index_t) * grown);
    if (larger == NULL) return NULL;
    indexes = larger;
    indexCapacity = grown;
  }
  ranges_t list = {NULL, 0, 0};
  collect(unit, &list, 0);
  if (list.count > 0) qsort(list.ranges, list.count, sizeof(range_t), compareRanges);
  indexes[indexCount] = (index_t){dwarf, offset, list.ranges, list.count};
  lastUsed = indexCount;
  return &indexes[indexCount++];
}

int cleak_function_index_lookup(Dwarf_Die *unit, Dwarf_Addr address, Dwarf_Die *function) {
  const index_t *index = indexOf(unit);
  if (index == NULL) return 0;
  size_t low = 0, high = index->count;  // the first range that starts past the address
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    if (index->ranges[middle].low <= address) low = middle + 1; else high = middle;
  }
  // Functions do not overlap, but a range may hold another's (a few are looked at).
  for (size_t position = low; position > 0 && low - position < 8; position--) {
    const range_t *range = &index->ranges[position - 1];
    if (address < range->high) return dwarf_offdie(dwarf_cu_getdwarf(unit->cu), range->function, function) != NULL;
  }
  return 0;
}
