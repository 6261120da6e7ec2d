#define _GNU_SOURCE
#include "CLeakRuntime.h"
#include "ForkSafety.h"
#include "ReadableMemory.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

// A sorted snapshot of the readable mappings of this process (from /proc/self/maps), so that
// "is this address readable?" is a binary search instead of a system call. A miss refreshes the
// snapshot (mappings come and go), at most once per millisecond.

typedef struct {
  uintptr_t start;
  uintptr_t end;
} region_t;

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static region_t *regions = NULL;
static size_t regionCount = 0;
static struct timespec lastRefresh = {0, 0};
/// Set in a forked child: the snapshot is the parent's, and must be read afresh before use.
static int staleAfterFork = 0;
/// Which snapshot is current: each refresh (and a fork) makes the regions each thread
/// remembered from an earlier one stale.
static _Atomic unsigned long snapshotGeneration = 1;

// The regions this thread found its last reads in, with the snapshot they came from: reads
// alternate between a few regions (the heap, the images' metadata), and a hit here takes no lock.
typedef struct {
  uintptr_t start;
  uintptr_t end;
  unsigned long generation;
} remembered_region_t;
enum { rememberedCount = 4 };
static __thread remembered_region_t remembered[rememberedCount];
static __thread unsigned rememberedNext;

static int isRemembered(uintptr_t address, size_t length) {
  unsigned long generation = atomic_load_explicit(&snapshotGeneration, memory_order_acquire);
  for (int index = 0; index < rememberedCount; index++) {
    remembered_region_t *region = &remembered[index];
    if (region->generation == generation && region->start <= address && address + length <= region->end && address + length >= address)
      return 1;
  }
  return 0;
}

int cleak_for_each_mapping_in(const char *mapsPath,
                              void (*visit)(uintptr_t start, uintptr_t end, const char *permissions, void *context),
                              void *context) {
  FILE *maps = fopen(mapsPath, "r");
  if (maps == NULL) return 0;
  // The fields come first; a line longer than the buffer (a long path) is read in pieces, and
  // only the first piece of a line is parsed: the next ones are the rest of its path.
  char line[512];
  bool startsLine = true;
  while (fgets(line, sizeof line, maps) != NULL) {
    bool parse = startsLine;
    startsLine = strchr(line, '\n') != NULL;
    if (!parse) continue;
    unsigned long start, end;
    char permissions[5] = {0};
    if (sscanf(line, "%lx-%lx %4s", &start, &end, permissions) == 3) visit(start, end, permissions, context);
  }
  fclose(maps);
  return 1;
}

typedef struct {
  region_t *regions;
  size_t count, capacity;
} region_list_t;

static void addReadable(uintptr_t start, uintptr_t end, const char *permissions, void *context) {
  region_list_t *list = context;
  if (list->regions == NULL || permissions[0] != 'r') return;
  if (list->count > 0 && list->regions[list->count - 1].end == start) {  // merge adjacent readable mappings
    list->regions[list->count - 1].end = end;
    return;
  }
  if (list->count == list->capacity) {
    list->capacity *= 2;
    region_t *grown = realloc(list->regions, list->capacity * sizeof(region_t));
    if (grown == NULL) {  // keep what was read
      list->capacity /= 2;
      return;
    }
    list->regions = grown;
  }
  list->regions[list->count++] = (region_t){start, end};
}

static void refresh(void) {
  region_list_t fresh = {malloc(256 * sizeof(region_t)), 0, 256};
  if (!cleak_for_each_mapping_in("/proc/self/maps", addReadable, &fresh) || fresh.regions == NULL) {
    free(fresh.regions);
    return;
  }
  free(regions);
  regions = fresh.regions;
  regionCount = fresh.count;
  staleAfterFork = 0;
  atomic_fetch_add_explicit(&snapshotGeneration, 1, memory_order_release);
  clock_gettime(CLOCK_MONOTONIC, &lastRefresh);
}

/// Whether the snapshot has `[address, address + length)` in one region; called under the lock.
/// A hit is remembered for this thread.
static int contains(uintptr_t address, size_t length) {
  size_t low = 0, high = regionCount;
  while (low < high) {
    size_t middle = (low + high) / 2;
    if (regions[middle].end <= address) low = middle + 1;
    else high = middle;
  }
  int found = low < regionCount && regions[low].start <= address && address + length <= regions[low].end &&
              address + length >= address;
  if (found) {
    remembered[rememberedNext] = (remembered_region_t){regions[low].start, regions[low].end,
                                                      atomic_load_explicit(&snapshotGeneration, memory_order_relaxed)};
    rememberedNext = (rememberedNext + 1) % rememberedCount;
  }
  return found;
}

void cleak_refresh_readable_regions(void) {
  pthread_rwlock_wrlock(&lock);
  refresh();
  pthread_rwlock_unlock(&lock);
}

bool cleak_is_readable_without_refresh(uintptr_t address, size_t length) {
  if (address < cleak_lowest_mapped_address) return false;
  if (__builtin_expect(cleak_memory_image_active, 0)) return cleak_memory_image_is_readable(address, length);
  if (staleAfterFork) cleak_refresh_readable_regions();
  if (isRemembered(address, length)) return true;
  pthread_rwlock_rdlock(&lock);
  int found = regions != NULL && contains(address, length);
  pthread_rwlock_unlock(&lock);
  return found;
}

void cleak_hold_readable_regions(void) {
  if (__builtin_expect(cleak_memory_image_active, 0)) return;
  if (staleAfterFork) cleak_refresh_readable_regions();
  pthread_rwlock_rdlock(&lock);
}

void cleak_release_readable_regions(void) {
  if (__builtin_expect(cleak_memory_image_active, 0)) return;
  pthread_rwlock_unlock(&lock);
}

bool cleak_is_readable_while_held(uintptr_t address, size_t length) {
  if (__builtin_expect(cleak_memory_image_active, 0)) return address >= cleak_lowest_mapped_address && cleak_memory_image_is_readable(address, length);
  return address >= cleak_lowest_mapped_address && (isRemembered(address, length) || (regions != NULL && contains(address, length)));
}

bool cleak_is_readable(uintptr_t address, size_t length) {
  if (address < cleak_lowest_mapped_address) return false;
  if (__builtin_expect(cleak_memory_image_active, 0)) return cleak_memory_image_is_readable(address, length);
  if (cleak_is_readable_without_refresh(address, length)) return true;
  pthread_rwlock_wrlock(&lock);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  long elapsed = (now.tv_sec - lastRefresh.tv_sec) * 1000000000L + (now.tv_nsec - lastRefresh.tv_nsec);
  if (regions == NULL || elapsed > 1000000L) refresh();
  int found = regions != NULL && contains(address, length);
  pthread_rwlock_unlock(&lock);
  return found;
}

// Copies live memory that another thread may free or write at any moment. That is the point of
// the readers above it (a freed object's memory stays mapped, and a stale value is caught by the
// caller's validation), so the copy is not instrumented by the sanitizers: to them it would be a
// use after free or a data race, when it is a deliberate racy read of mapped memory. The
// volatile accesses keep the compiler from turning the loop back into an intercepted memcpy.
__attribute__((no_sanitize("address", "thread", "memory")))
static void copyLiveMemory(void *destination, uintptr_t address, size_t length) {
  if (((address | (uintptr_t)destination | length) & (sizeof(uintptr_t) - 1)) == 0) {
    volatile const uintptr_t *from = (volatile const uintptr_t *)address;
    uintptr_t *to = destination;
    for (size_t index = 0; index < length / sizeof(uintptr_t); index++) to[index] = from[index];
    return;
  }
  volatile const unsigned char *from = (volatile const unsigned char *)address;
  unsigned char *to = destination;
  for (size_t index = 0; index < length; index++) to[index] = from[index];
}

// In a capture child, a read that faults anyway (the mappings changed after they were read)
// returns to the reader instead of ending the child: the child is single-threaded, and its
// SIGSEGV and SIGBUS handlers (`cleak_guard_reads_in_child`) jump back to the read that faulted.
static sigjmp_buf faultRecovery;
static volatile sig_atomic_t readInProgress = 0;
static int readsGuarded = 0;

static void recoverFromFault(int signal) {
  if (readInProgress) {
    readInProgress = 0;
    siglongjmp(faultRecovery, 1);
  }
  // A fault outside a guarded read: end the child as the signal's default action would.
  struct sigaction fallback = {.sa_handler = SIG_DFL};
  sigemptyset(&fallback.sa_mask);
  sigaction(signal, &fallback, NULL);
  raise(signal);
}

void cleak_guard_reads_in_child(void) {
  struct sigaction guard = {.sa_handler = recoverFromFault, .sa_flags = SA_NODEFER};
  sigemptyset(&guard.sa_mask);
  sigaction(SIGSEGV, &guard, NULL);
  sigaction(SIGBUS, &guard, NULL);
  readsGuarded = 1;
}

int cleak_reads_are_guarded(void) {
  return readsGuarded;
}

int cleak_run_guarded(void (*body)(void *context), void *context) {
  if (!readsGuarded) {
    body(context);
    return 1;
  }
  if (sigsetjmp(faultRecovery, 0) != 0) return 0;
  readInProgress = 1;
  body(context);
  readInProgress = 0;
  return 1;
}

typedef struct {
  void *destination;
  uintptr_t address;
  size_t length;
} copy_t;

static void runCopy(void *context) {
  copy_t *copy = context;
  copyLiveMemory(copy->destination, copy->address, copy->length);
}

ptrdiff_t cleak_read_memory(void *destination, uintptr_t address, size_t length) {
  if (__builtin_expect(cleak_memory_image_active, 0)) return cleak_memory_image_read(destination, address, length);
  if (cleak_is_readable(address, length)) {
    if (!readsGuarded) {  // the program's own process: a direct copy, inlined (reads are hot)
      copyLiveMemory(destination, address, length);
      return (ptrdiff_t)length;
    }
    copy_t copy = {destination, address, length};
    if (cleak_run_guarded(runCopy, &copy)) return (ptrdiff_t)length;
    errno = EFAULT;
    return -1;
  }
  struct iovec local = {.iov_base = destination, .iov_len = length};
  struct iovec remote = {.iov_base = (void *)address, .iov_len = length};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
}

void cleak_read_words_checked(const uintptr_t *addresses, uintptr_t *words, size_t count) {
  if (__builtin_expect(cleak_memory_image_active, 0)) {
    for (size_t index = 0; index < count; index++) words[index] = cleak_memory_image_word(addresses[index]);
    return;
  }
  enum { batch = 1024 };
  struct iovec local[batch], remote[batch];
  size_t next = 0;
  while (next < count) {
    size_t n = count - next < batch ? count - next : batch;
    for (size_t index = 0; index < n; index++) {
      words[next + index] = 0;
      local[index] = (struct iovec){.iov_base = &words[next + index], .iov_len = sizeof(uintptr_t)};
      remote[index] = (struct iovec){.iov_base = (void *)addresses[next + index], .iov_len = sizeof(uintptr_t)};
    }
    ssize_t copied = process_vm_readv(getpid(), local, n, remote, n, 0);
    // The kernel stops at the first remote range it cannot read: skip that one and go on.
    size_t done = copied < 0 ? 0 : (size_t)copied / sizeof(uintptr_t);
    if (done < n) words[next + done] = 0;
    next += done < n ? done + 1 : n;
  }
}

void cleak_readable_lock_for_fork(void) {
  pthread_rwlock_wrlock(&lock);
}

void cleak_readable_unlock_after_fork(int inChild) {
  if (inChild) {
    pthread_rwlock_init(&lock, NULL);
    // The parent's snapshot may still list memory unmapped since (a freed large allocation, a
    // shrunk arena): the child reads the mappings afresh before its first check (not here: most
    // forks exec at once).
    staleAfterFork = 1;
  } else {
    pthread_rwlock_unlock(&lock);
  }
}
