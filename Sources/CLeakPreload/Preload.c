#define _GNU_SOURCE
#include "CLeakPreload.h"
#include "InterposerFastPath.h"
#include "SwiftAllocationABI.h"

#include <dlfcn.h>
#include <fnmatch.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// MARK: - The entry points passed on

// Each entry point starts as the Swift runtime's own (found on its first call: libFoundation
// allocates Swift objects before any constructor of a preloaded library runs) and becomes the
// agent's once the agent is loaded. The call is passed on by a tail call, so that no frame of
// this library lies between the program's code and the agent's, whose stack walk starts at its
// own frame. The entry points and their pointer types are declared in `SwiftAllocationABI.h`,
// which the tracker's definitions include too.
//
// An allocation or a deallocation, the calls every object makes, does not enter the agent's
// interposer only to be passed on: with the agent's fast path (`InterposerFastPath.h`), this
// library decides as the agent's interposer would, with the same function on the agent's state,
// and jumps straight to the runtime, or to the tracker's slow path. A program under `run` thus
// reaches the runtime through two indirect jumps (the PLT, this library's), not three.

static _Atomic(void *) allocate = NULL;
static _Atomic(void *) deallocate = NULL;
static _Atomic(void *) deallocatePartial = NULL;
static _Atomic(void *) createTask = NULL;
/// The agent's fast path, once the agent is loaded (NULL before, and in a process not checked).
static _Atomic(const cleak_interposer_fast_path *) agentFastPath = NULL;

/// The runtime's definition of `name` (the next after this library's), kept in `slot` unless
/// the agent's or another thread's is there first.
__attribute__((noinline)) static void *resolve(_Atomic(void *) *slot, const char *name) {
  void *expected = NULL, *runtimes = dlsym(RTLD_NEXT, name);
  return atomic_compare_exchange_strong(slot, &expected, runtimes) ? runtimes : expected;
}

/// Where a call to `name` goes now: the function in `slot`, or the runtime's on the first call.
static inline void *next(_Atomic(void *) *slot, const char *name) {
  void *function = atomic_load_explicit(slot, memory_order_acquire);
  return __builtin_expect(function != NULL, 1) ? function : resolve(slot, name);
}

void *swift_allocObject(const void *metadata, size_t size, size_t alignMask) {
  const cleak_interposer_fast_path *fastPath = atomic_load_explicit(&agentFastPath, memory_order_acquire);
  if (fastPath != NULL) {
    if (cleak_allocation_is_unrecorded(&fastPath->gate, cleak_interposer_bytes_until_sample(fastPath), size)) {
      __attribute__((musttail)) return fastPath->allocate(metadata, size, alignMask);
    }
    __attribute__((musttail)) return fastPath->allocateRecorded(metadata, size, alignMask);
  }
  __attribute__((musttail)) return ((cleak_allocate_object_t)next(&allocate, "swift_allocObject"))(metadata, size, alignMask);
}

void swift_deallocClassInstance(void *object, size_t allocatedSize, size_t allocatedAlignMask) {
  const cleak_interposer_fast_path *fastPath = atomic_load_explicit(&agentFastPath, memory_order_acquire);
  if (fastPath != NULL) {
    if (cleak_deallocation_is_watched(&fastPath->gate, object, allocatedSize)) {
      __attribute__((musttail)) return fastPath->deallocateWatched(object, allocatedSize, allocatedAlignMask);
    }
    __attribute__((musttail)) return fastPath->deallocateObject(object, allocatedSize, allocatedAlignMask);
  }
  __attribute__((musttail)) return ((cleak_deallocate_class_instance_t)next(&deallocate, "swift_deallocClassInstance"))(
      object, allocatedSize, allocatedAlignMask);
}

void swift_deallocPartialClassInstance(void *object, const void *metadata, size_t size, size_t alignMask) {
  __attribute__((musttail)) return ((cleak_deallocate_partial_class_instance_t)next(
      &deallocatePartial, "swift_deallocPartialClassInstance"))(object, metadata, size, alignMask);
}

__attribute__((swiftcall)) cleak_task_and_context_t swift_task_create(size_t flags, void *options, const void *resultType,
                                                                      void *entry, void *context) {
  __attribute__((musttail)) return ((cleak_task_create_t)next(&createTask, "swift_task_create"))(flags, options, resultType, entry,
                                                                                                 context);
}

// MARK: - Deciding, and loading the agent

extern char *program_invocation_short_name;

/// The file name of this process's executable.
static const char *executableName(char *buffer, size_t size) {
  ssize_t length = readlink("/proc/self/exe", buffer, size - 1);
  if (length <= 0) return program_invocation_short_name;
  buffer[length] = 0;
  const char *slash = strrchr(buffer, '/');
  return slash ? slash + 1 : buffer;
}

/// Whether this process matches one of the newline-separated shell patterns in `patterns`
/// (against the executable's file name, or the name it was invoked as).
static bool processMatches(const char *patterns) {
  if (patterns == NULL || *patterns == 0) return true;
  char path[4096];
  const char *executable = executableName(path, sizeof path);
  const char *invoked = program_invocation_short_name;
  char pattern[1024];
  for (const char *start = patterns; *start;) {
    const char *end = strchr(start, '\n');
    size_t length = end ? (size_t)(end - start) : strlen(start);
    if (length > 0 && length < sizeof pattern) {
      memcpy(pattern, start, length);
      pattern[length] = 0;
      if (fnmatch(pattern, executable, 0) == 0 || (invoked && fnmatch(pattern, invoked, 0) == 0)) return true;
    }
    if (end == NULL) break;
    start = end + 1;
  }
  return false;
}

/// One line on standard error, marked as the tool's.
static void complain(const char *what, const char *detail) {
  char line[4608];
  int length = snprintf(line, sizeof line, "leak-detector: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  if (length > 0) {
    ssize_t written = write(2, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
    (void)written;
  }
}

/// The agent's path: the environment's, or `CLEAK_PRELOAD_AGENT_FILE_NAME` in this library's
/// directory.
static bool agentPath(char *buffer, size_t size) {
  const char *configured = getenv(CLEAK_PRELOAD_AGENT_LIBRARY_VARIABLE);
  if (configured != NULL && *configured != 0) {
    if (strlen(configured) >= size) return false;
    strcpy(buffer, configured);
    return true;
  }
  Dl_info info;
  if (dladdr((const void *)agentPath, &info) == 0 || info.dli_fname == NULL) return false;
  const char *slash = strrchr(info.dli_fname, '/');
  size_t directory = slash == NULL ? 0 : (size_t)(slash - info.dli_fname) + 1;
  if (directory + sizeof CLEAK_PRELOAD_AGENT_FILE_NAME > size) return false;
  memcpy(buffer, info.dli_fname, directory);
  memcpy(buffer + directory, CLEAK_PRELOAD_AGENT_FILE_NAME, sizeof CLEAK_PRELOAD_AGENT_FILE_NAME);
  return true;
}

__attribute__((constructor)) static void loadAgentIfChecked(void) {
  const char *runDirectory = getenv(CLEAK_PRELOAD_RUN_DIRECTORY_VARIABLE);
  if (runDirectory == NULL || *runDirectory == 0) return;
  if (!processMatches(getenv(CLEAK_PRELOAD_PROCESSES_VARIABLE))) return;
  char path[4096];
  if (!agentPath(path, sizeof path)) {
    complain("cannot find the agent library", NULL);
    return;
  }
  void *agent = dlopen(path, RTLD_LAZY | RTLD_GLOBAL);
  if (agent == NULL) {
    complain("cannot load the agent", dlerror());
    return;
  }
  void (*start)(void) = (void (*)(void))dlsym(agent, "leak_detector_agent_start");
  cleak_interposer_fast_path_function_t agentsFastPath =
      (cleak_interposer_fast_path_function_t)dlsym(agent, CLEAK_INTERPOSER_FAST_PATH_FUNCTION);
  cleak_deallocate_partial_class_instance_t agentsDeallocatePartial =
      (cleak_deallocate_partial_class_instance_t)dlsym(agent, "swift_deallocPartialClassInstance");
  cleak_task_create_t agentsCreateTask = (cleak_task_create_t)dlsym(agent, "swift_task_create");
  if (start == NULL || agentsFastPath == NULL || agentsDeallocatePartial == NULL || agentsCreateTask == NULL) {
    complain("the agent lacks the entry points its loader passes on", path);
    return;
  }
  const cleak_interposer_fast_path *fastPath = agentsFastPath();
  if (fastPath == NULL) {
    complain("the agent cannot find the runtime's swift_allocObject", path);
    return;
  }
  // Objects end through the agent before any begins there.
  atomic_store_explicit(&deallocatePartial, (void *)agentsDeallocatePartial, memory_order_release);
  atomic_store_explicit(&createTask, (void *)agentsCreateTask, memory_order_release);
  atomic_store_explicit(&agentFastPath, fastPath, memory_order_release);
  start();
}
