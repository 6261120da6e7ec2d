#define _GNU_SOURCE
#include "AddressTable.h"
#include "CLeakRuntime.h"
#include "EntryBlocks.h"
#include "ReadableMemory.h"
#include "ReferenceWords.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

// The census process: forked by a capture child before the child writes any object address
// into memory, it keeps the image of the program's memory as it was at the capture's instant,
// and scans all of it, on request, for words that refer to given objects. The capture child
// cannot scan its own memory for that purpose: its tables and snapshot columns hold the
// address of every object it captured.
//
// What the census process is asked about and what it answers lives in memory it maps itself and
// leaves out of the scan, as are the tracker's tables (they hold the address of every tracked
// object) and its own stack frames below the point of the fork; the mappings it reads are text.

enum { excludedCapacity = 256 };

typedef struct {
  const cleak_census_object *objects;  // ascending by start, not overlapping
  size_t count;
  cleak_census_result *results;
  cleak_memory_range excluded[excludedCapacity];
  size_t excludedCount;
  cleak_capture_progress *progress;
  uintptr_t stackLimit;  // the frame that forked the census process: its own frames lie below
} census_t;

typedef struct {
  census_t *census;
  uintptr_t start, end;
} census_chunk_t;

/// Reads (`reading`) or writes all `length` bytes; returns 0 when the other end is gone.
static int transferAll(int descriptor, void *buffer, size_t length, int reading) {
  size_t done = 0;
  while (done < length) {
    ssize_t count = reading ? read(descriptor, (char *)buffer + done, length - done)
                            : write(descriptor, (const char *)buffer + done, length - done);
    if (count > 0) {
      done += (size_t)count;
    } else if (count < 0 && errno == EINTR) {
      continue;
    } else {
      return 0;
    }
  }
  return 1;
}

static int fullyRead(int descriptor, void *buffer, size_t length) { return transferAll(descriptor, buffer, length, 1); }

static int fullyWritten(int descriptor, const void *buffer, size_t length) {
  return transferAll(descriptor, (void *)buffer, length, 0);
}

static void *mapped(size_t length) {
  void *memory = mmap(NULL, length ? length : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return memory == MAP_FAILED ? NULL : memory;
}

static void exclude(census_t *census, uintptr_t start, uintptr_t end) {
  if (end > start && census->excludedCount < excludedCapacity) {
    census->excluded[census->excludedCount++] = (cleak_memory_range){start, end};
  }
}

/// The number in a text of /proc after `key` (e.g. "SwapFree:"), or -1.
static long long valueAfter(const char *text, const char *key) {
  const char *found = strstr(text, key);
  return found ? strtoll(found + strlen(key), NULL, 10) : -1;
}

/// Whether some of this process's memory may be in swap, where `mincore` calls a page absent.
static int swapInUse(void) {
  char text[8192];
  int file = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
  if (file < 0) return 1;
  ssize_t length = read(file, text, sizeof text - 1);
  close(file);
  if (length <= 0) return 1;
  text[length] = '\0';
  long long total = valueAfter(text, "SwapTotal:"), available = valueAfter(text, "SwapFree:");
  return total < 0 || available < 0 || total != available;
}

CLEAK_UNINSTRUMENTED static void scanChunk(void *context) {
  census_chunk_t *chunk = context;
  census_t *census = chunk->census;
  const cleak_census_object *objects = census->objects;
  const uintptr_t lowest = objects[0].start, highest = objects[census->count - 1].end;
  for (uintptr_t slot = chunk->start; slot + sizeof(uintptr_t) <= chunk->end; slot += sizeof(uintptr_t)) {
    uintptr_t value = cleak_reference_in_word(cleak_word_at(slot));
    if (value < lowest || value >= highest) continue;
    size_t low = 0, high = census->count;  // the last object that starts at or below the value
    while (low < high) {
      size_t middle = low + (high - low) / 2;
      if (objects[middle].start <= value) low = middle + 1; else high = middle;
    }
    if (low == 0) continue;
    const cleak_census_object *object = &objects[low - 1];
    if (value >= object->end) continue;
    // The object's own words and its side table's pointer back to it hold nothing.
    if ((slot >= object->start && slot < object->end) || slot == object->sideTable) continue;
    cleak_census_result *result = &census->results[low - 1];
    if (result->count < CLEAK_CENSUS_SLOTS) result->slots[result->count] = slot;
    result->count += 1;
  }
}

/// Scans the resident pages of [start, end), each stretch of them guarded.
static void scanResident(census_t *census, uintptr_t start, uintptr_t end) {
  unsigned char resident[256];
  for (uintptr_t run = start & ~(uintptr_t)(cleak_page_size - 1); run < end;) {
    uintptr_t runEnd = run + sizeof resident * cleak_page_size < end ? run + sizeof resident * cleak_page_size : end;
    if (mincore((void *)run, runEnd - run, resident) == 0) {
      for (uintptr_t page = run; page < runEnd;) {
        if (!(resident[(page - run) / cleak_page_size] & 1)) {
          page += cleak_page_size;
          continue;
        }
        uintptr_t pagesEnd = page + cleak_page_size;
        while (pagesEnd < runEnd && (resident[(pagesEnd - run) / cleak_page_size] & 1)) pagesEnd += cleak_page_size;
        census_chunk_t chunk = {census, page > start ? page : start, pagesEnd < end ? pagesEnd : end};
        cleak_run_guarded(scanChunk, &chunk);
        page = pagesEnd;
      }
    }
    if (census->progress) __atomic_fetch_add(&census->progress->steps, 1, __ATOMIC_RELEASE);
    run = runEnd;
  }
}

/// Scans [start, end) but its excluded parts (word by word: a table of the tracker's may share a
/// page with the program's data).
static void scanRange(census_t *census, uintptr_t start, uintptr_t end) {
  for (size_t index = 0; index < census->excludedCount && start < end; index++) {
    cleak_memory_range excluded = census->excluded[index];  // ascending by start
    if (excluded.end <= start || excluded.start >= end) continue;
    if (excluded.start > start) scanResident(census, start, excluded.start);
    start = excluded.end;
  }
  if (start < end) scanResident(census, start, end);
}

/// Sorts the excluded ranges by start (there are few).
static void sortExcluded(census_t *census) {
  for (size_t index = 1; index < census->excludedCount; index++) {
    cleak_memory_range range = census->excluded[index];
    size_t position = index;
    for (; position > 0 && census->excluded[position - 1].start > range.start; position--) {
      census->excluded[position] = census->excluded[position - 1];
    }
    census->excluded[position] = range;
  }
}

static void scanMapping(uintptr_t start, uintptr_t end, const char *permissions, void *context) {
  census_t *census = context;
  // "rw-p": memory shared with other processes (the capture's progress page among it) is left out.
  if (permissions[0] != 'r' || permissions[1] != 'w' || permissions[3] != 'p') return;
  // Of the stack this process runs on, only the frames above the fork: its own are below.
  if (census->stackLimit >= start && census->stackLimit < end) start = census->stackLimit & ~(uintptr_t)(sizeof(uintptr_t) - 1);
  scanRange(census, start, end);
}

/// The census process's life: wait for a request, answer it, end.
static void serve(int request, int reply, uintptr_t stackLimit, cleak_capture_progress *progress) {
  uint64_t count = 0;
  if (!fullyRead(request, &count, sizeof count) || count == 0 || count > ((uint64_t)1 << 32)) _exit(0);
  census_t census = {.count = (size_t)count, .progress = progress, .stackLimit = stackLimit};
  size_t objectBytes = census.count * sizeof(cleak_census_object), resultBytes = census.count * sizeof(cleak_census_result);
  cleak_census_object *objects = mapped(objectBytes);
  census.results = mapped(resultBytes);
  if (objects == NULL || census.results == NULL || !fullyRead(request, objects, objectBytes)) _exit(0);
  census.objects = objects;
  exclude(&census, (uintptr_t)objects, (uintptr_t)objects + objectBytes);
  exclude(&census, (uintptr_t)census.results, (uintptr_t)census.results + resultBytes);
  cleak_memory_range tasks = cleak_task_registry_storage();
  exclude(&census, tasks.start, tasks.end);
  cleak_memory_range entries = cleak_entries_storage();
  exclude(&census, entries.start, entries.end);
  cleak_memory_range table[128];
  size_t tableCount = cleak_address_table_storage(table, 128);
  for (size_t index = 0; index < tableCount && index < 128; index++) exclude(&census, table[index].start, table[index].end);
  sortExcluded(&census);
  uint64_t status = !swapInUse() && cleak_for_each_mapping_in("/proc/self/maps", scanMapping, &census);
  if (fullyWritten(reply, &status, sizeof status) && status) fullyWritten(reply, census.results, resultBytes);
  _exit(0);
}

int cleak_census_begin(cleak_census *census, cleak_capture_progress *progress, uintptr_t programFrames) {
  int request[2], reply[2];
  if (pipe2(request, O_CLOEXEC) != 0) return 0;
  if (pipe2(reply, O_CLOEXEC) != 0) {
    close(request[0]);
    close(request[1]);
    return 0;
  }
  uintptr_t stackLimit = (uintptr_t)__builtin_frame_address(0);
  if (programFrames > stackLimit) stackLimit = programFrames;
  pid_t child = fork();
  if (child == 0) {
    close(request[1]);
    close(reply[0]);
    serve(request[0], reply[1], stackLimit, progress);
  }
  close(request[0]);
  close(reply[1]);
  if (child < 0) {
    close(request[1]);
    close(reply[0]);
    return 0;
  }
  signal(SIGPIPE, SIG_IGN);  // a census process that died is a failed census, not the end of this one
  *census = (cleak_census){request[1], reply[0], child};
  return 1;
}

int cleak_census_take(cleak_census *census, const cleak_census_object *objects, size_t count, cleak_census_result *results) {
  if (census->pid <= 0 || count == 0) return 0;
  uint64_t header = count, status = 0;
  int done = fullyWritten(census->request, &header, sizeof header) &&
             fullyWritten(census->request, objects, count * sizeof(cleak_census_object)) &&
             fullyRead(census->reply, &status, sizeof status) && status == 1 &&
             fullyRead(census->reply, results, count * sizeof(cleak_census_result));
  return done;
}

void cleak_census_end(cleak_census *census) {
  if (census->pid <= 0) return;
  close(census->request);
  close(census->reply);
  int status;
  while (waitpid(census->pid, &status, 0) < 0 && errno == EINTR) {}
  census->pid = 0;
}
