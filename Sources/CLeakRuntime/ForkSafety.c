#define _GNU_SOURCE
#include "CLeakRuntime.h"
#include "ForkSafety.h"

#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

// Fork safety: whoever forks this process (a live capture, or the program itself), the child
// finds every lock of this library released and the state behind it consistent. Before the
// fork, the forking thread takes each lock in a fixed order (registered Swift locks first, since
// code holding them calls into the C layer; then libdw's, the tracker's, the mappings cache's),
// so no other thread is inside a critical section at the fork instant; afterwards the parent
// releases them and the child re-initializes them. This is what glibc does for malloc.

#define MAX_PROTECTED 32

static pthread_mutex_t *protectedMutexes[MAX_PROTECTED];
static int protectedCount = 0;
static atomic_flag registryLock = ATOMIC_FLAG_INIT;

static void lockRegistry(void) {
  while (atomic_flag_test_and_set_explicit(&registryLock, memory_order_acquire)) __builtin_ia32_pause();
}

static void unlockRegistry(void) {
  atomic_flag_clear_explicit(&registryLock, memory_order_release);
}

bool cleak_fork_protect(pthread_mutex_t *mutex) {
  lockRegistry();
  bool added = protectedCount < MAX_PROTECTED;
  if (added) protectedMutexes[protectedCount++] = mutex;
  unlockRegistry();
  return added;
}

void cleak_fork_unprotect(pthread_mutex_t *mutex) {
  lockRegistry();
  for (int index = 0; index < protectedCount; index++) {
    if (protectedMutexes[index] != mutex) continue;
    for (int later = index + 1; later < protectedCount; later++) protectedMutexes[later - 1] = protectedMutexes[later];
    protectedCount -= 1;
    break;
  }
  unlockRegistry();
}

static void prepare(void) {
  lockRegistry();  // held across the fork: no registration changes meanwhile
  for (int index = 0; index < protectedCount; index++) pthread_mutex_lock(protectedMutexes[index]);
  cleak_symbolize_lock_for_fork();
  cleak_tracker_lock_for_fork();
  cleak_readable_lock_for_fork();
}

static void releaseInParent(void) {
  cleak_readable_unlock_after_fork(0);
  cleak_tracker_unlock_after_fork();
  cleak_symbolize_unlock_after_fork(0);
  for (int index = protectedCount - 1; index >= 0; index--) pthread_mutex_unlock(protectedMutexes[index]);
  unlockRegistry();
}

static void releaseInChild(void) {
  // The child's only thread is a copy of the forking thread: re-initializing is the portable way
  // to release what that thread held.
  cleak_readable_unlock_after_fork(1);
  cleak_tracker_unlock_after_fork();
  cleak_symbolize_unlock_after_fork(1);
  for (int index = 0; index < protectedCount; index++) pthread_mutex_init(protectedMutexes[index], NULL);
  unlockRegistry();
}

__attribute__((constructor)) static void installForkHandlers(void) {
  pthread_atfork(prepare, releaseInParent, releaseInChild);
}

// A sanitizer's runtime defines it; without one the weak reference is null.
extern void __sanitizer_set_report_path(const char *path) __attribute__((weak));

static const char *sanitizerReportPrefix(void) {
  static char prefix[256];
  const char *directory = getenv("TMPDIR");
  if (directory == NULL || directory[0] == 0) directory = "/tmp";
  snprintf(prefix, sizeof prefix, "%s/leak-detector-capture-report", directory);
  return prefix;
}

const char *cleak_sanitizer_report_path(int child) {
  if (__sanitizer_set_report_path == NULL) return NULL;
  static char path[300];
  snprintf(path, sizeof path, "%s.%d", sanitizerReportPrefix(), child);
  return path;
}

void cleak_capture_child_begin(int keepDescriptor) {
  if (__sanitizer_set_report_path != NULL) __sanitizer_set_report_path(sanitizerReportPrefix());
  cleak_tracker_stop_recording_in_child();
  // The child reads the parent's heap, freed parts included (stale references point there), and
  // checks each read against the mappings it read once. Its own frees must then never give
  // memory back to the system: trimming an arena would unmap or protect pages that the check
  // still calls readable.
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  // A crash must end the child at once: no crash reporter, backtracer or test-framework handler
  // of the parent runs here.
  const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
  for (size_t index = 0; index < sizeof fatal / sizeof fatal[0]; index++) signal(fatal[index], SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  cleak_guard_reads_in_child();
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, NULL);
  // Nothing the child prints reaches the parent's output; no descriptor but the result pipe stays
  // open, so that the parent sees the end of the stream when the child ends.
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
  int highest = (int)sysconf(_SC_OPEN_MAX);
  if (highest < 0 || highest > 65536) highest = 65536;
#ifdef SYS_close_range
  if (keepDescriptor > 3) syscall(SYS_close_range, 3, (unsigned)keepDescriptor - 1, 0);
  if (syscall(SYS_close_range, (unsigned)keepDescriptor + 1, ~0U, 0) == 0) return;
#endif
  for (int descriptor = 3; descriptor < highest; descriptor++) {
    if (descriptor != keepDescriptor) close(descriptor);
  }
}

int cleak_enum_tag(uintptr_t value, uintptr_t metadata) {
  // A memory image's witnesses are code of another process: RemoteMirror projects its cases.
  if (__builtin_expect(cleak_memory_image_active, 0)) return -1;
  // The value witness table's flags say whether the enum witnesses (getEnumTag, ...) follow
  // the common ones.
  const cleak_value_witness_table *witnesses = cleak_value_witnesses(metadata);
  if (witnesses == NULL) return -1;
  if ((witnesses->flags & cleak_value_witness_flag_has_enum_witnesses) == 0) return -1;
  typedef unsigned (*get_enum_tag_t)(const void *value, const void *metadata) __attribute__((swiftcall));
  get_enum_tag_t getEnumTag = (get_enum_tag_t)witnesses->getEnumTag;
  return (int)getEnumTag((const void *)value, (const void *)metadata);
}
