#define _GNU_SOURCE
#include "CProcessImage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// How long one thread may take to stop after it was interrupted (a thread in an uninterruptible
/// sleep stops when it wakes), and how many passes over `/proc/PID/task` may find new threads
/// (a process that creates threads without end would otherwise keep the capture going).
enum { stopDeadlineNanoseconds = 5000000000, passLimit = 10000 };

uint64_t cpi_monotonic_nanoseconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/// The `TracerPid` of thread `threadID` of `processID`, 0 when untraced, -1 when unknown.
static pid_t tracerOf(pid_t processID, pid_t threadID) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)processID, (int)threadID);
  FILE *file = fopen(path, "re");
  if (file == NULL) return -1;
  char line[256];
  pid_t tracer = -1;
  while (fgets(line, sizeof line, file) != NULL) {
    if (strncmp(line, "TracerPid:", 10) == 0) {
      tracer = (pid_t)strtol(line + 10, NULL, 10);
      break;
    }
  }
  fclose(file);
  return tracer;
}

static bool contains(const cpi_stopped_process *process, pid_t threadID) {
  for (size_t index = 0; index < process->count; index++) {
    if (process->threadIDs[index] == threadID) return true;
  }
  return false;
}

static bool append(cpi_stopped_process *process, pid_t threadID) {
  if (process->count == process->capacity) {
    size_t capacity = process->capacity == 0 ? 16 : process->capacity * 2;
    pid_t *threadIDs = realloc(process->threadIDs, capacity * sizeof *threadIDs);
    if (threadIDs == NULL) return false;
    process->threadIDs = threadIDs;
    int *signals = realloc(process->pendingSignals, capacity * sizeof *signals);
    if (signals == NULL) return false;
    process->pendingSignals = signals;
    process->capacity = capacity;
  }
  process->threadIDs[process->count] = threadID;
  process->pendingSignals[process->count] = 0;
  process->count++;
  return true;
}

static void removeLast(cpi_stopped_process *process) { process->count--; }

/// The outcome of waiting for one seized thread.
typedef enum { threadStopped, threadGone, threadNotStopping } stopOutcome;

/// Waits for the seized thread `threadID` to report a stop (or its end), polling so that a thread
/// that never stops cannot hold the capture. A signal-delivery stop leaves the signal in
/// `*pendingSignal`, to be delivered on detach; any other stop (the interrupt's, a group stop, a
/// clone event, the first stop of a thread traced on creation) leaves 0.
static stopOutcome waitForStop(pid_t threadID, int *pendingSignal) {
  uint64_t deadline = cpi_monotonic_nanoseconds() + stopDeadlineNanoseconds;
  long pauseNanoseconds = 10000;
  for (;;) {
    int status = 0;
    pid_t reported = waitpid(threadID, &status, __WALL | WNOHANG);
    if (reported == threadID) {
      if (WIFEXITED(status) || WIFSIGNALED(status)) return threadGone;
      if (!WIFSTOPPED(status)) continue;
      int event = status >> 16;
      *pendingSignal = event == 0 ? WSTOPSIG(status) : 0;
      return threadStopped;
    }
    if (reported < 0 && errno == EINTR) continue;
    if (reported < 0) return threadGone;  // ECHILD: it ended and was reaped
    if (cpi_monotonic_nanoseconds() > deadline) return threadNotStopping;
    struct timespec pause = {0, pauseNanoseconds};
    nanosleep(&pause, NULL);
    if (pauseNanoseconds < 1000000) pauseNanoseconds *= 2;
  }
}

/// Seizes, interrupts and waits for one thread not seen before. Returns 0 (stopped and recorded,
/// or gone), or an errno value with `failure` filled.
static int stopThread(cpi_stopped_process *process, pid_t threadID, cpi_stop_failure *failure) {
  if (ptrace(PTRACE_SEIZE, threadID, 0, (void *)(uintptr_t)PTRACE_O_TRACECLONE) != 0) {
    int error = errno;
    if (error == ESRCH) return 0;  // it exited since the listing
    pid_t tracer = tracerOf(process->processID, threadID);
    // A thread another seized thread created: traced already, by this process, on creation.
    if (error == EPERM && tracer == getpid()) {
      if (!append(process, threadID)) return failure->error = ENOMEM, failure->threadID = threadID, ENOMEM;
    } else {
      failure->error = (error == EPERM && tracer > 0) ? EBUSY : error;
      failure->threadID = threadID;
      failure->tracerID = tracer > 0 ? tracer : 0;
      return failure->error;
    }
  } else if (!append(process, threadID)) {
    ptrace(PTRACE_DETACH, threadID, 0, 0);
    return failure->error = ENOMEM, failure->threadID = threadID, ENOMEM;
  }
  if (ptrace(PTRACE_INTERRUPT, threadID, 0, 0) != 0 && errno == ESRCH) {
    removeLast(process);
    return 0;
  }
  switch (waitForStop(threadID, &process->pendingSignals[process->count - 1])) {
  case threadStopped:
    if (process->firstStopNanoseconds == 0) process->firstStopNanoseconds = cpi_monotonic_nanoseconds();
    return 0;
  case threadGone:
    removeLast(process);
    return 0;
  case threadNotStopping:
    removeLast(process);
    ptrace(PTRACE_DETACH, threadID, 0, 0);
    failure->error = ETIMEDOUT;
    failure->threadID = threadID;
    return ETIMEDOUT;
  }
  return 0;
}

/// Stops the threads `/proc/PID/task` lists that are not stopped yet. Returns 0 and sets
/// `*foundNew`, or an errno value with `failure` filled.
static int stopListedThreads(cpi_stopped_process *process, bool *foundNew, cpi_stop_failure *failure) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)process->processID);
  DIR *tasks = opendir(path);
  if (tasks == NULL) {
    failure->error = (errno == ENOENT) ? ESRCH : errno;
    failure->threadID = process->processID;
    return failure->error;
  }
  int result = 0;
  *foundNew = false;
  struct dirent *entry;
  while ((entry = readdir(tasks)) != NULL) {
    char *end;
    long threadID = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || threadID <= 0 || contains(process, (pid_t)threadID)) continue;
    *foundNew = true;
    if ((result = stopThread(process, (pid_t)threadID, failure)) != 0) break;
  }
  closedir(tasks);
  return result;
}

int cpi_stop_process(pid_t processID, cpi_stopped_process *process, cpi_stop_failure *failure) {
  memset(process, 0, sizeof *process);
  memset(failure, 0, sizeof *failure);
  process->processID = processID;
  // The main thread first: a permission failure is then reported before anything is stopped.
  int result = stopThread(process, processID, failure);
  if (result == 0 && process->count == 0) result = failure->error = ESRCH, failure->threadID = processID;
  for (int pass = 0; result == 0; pass++) {
    bool foundNew = false;
    result = stopListedThreads(process, &foundNew, failure);
    if (result == 0 && !foundNew) break;
    if (result == 0 && pass == passLimit) result = failure->error = EAGAIN;
  }
  if (result != 0) {
    cpi_resume_process(process);
    return -1;
  }
  return 0;
}

uint64_t cpi_resume_process(cpi_stopped_process *process) {
  for (size_t index = 0; index < process->count; index++) {
    ptrace(PTRACE_DETACH, process->threadIDs[index], 0, (void *)(uintptr_t)process->pendingSignals[index]);
  }
  uint64_t resumed = cpi_monotonic_nanoseconds();
  free(process->threadIDs);
  free(process->pendingSignals);
  process->threadIDs = NULL;
  process->pendingSignals = NULL;
  process->count = process->capacity = 0;
  return resumed;
}

int cpi_thread_registers(pid_t threadID, struct user_regs_struct *registers) {
  return ptrace(PTRACE_GETREGS, threadID, 0, registers) == 0 ? 0 : errno;
}

/// Reads on from `/proc/PID/mem` what `process_vm_readv` could not: `length - done` bytes.
static size_t readFromMemoryFile(int memory, void *local, uintptr_t remote, size_t length, size_t done) {
  if (memory < 0) return done;
  while (done < length) {
    ssize_t read = pread(memory, (char *)local + done, length - done, (off_t)(remote + done));
    if (read < 0 && errno == EINTR) continue;
    if (read <= 0) break;
    done += (size_t)read;
  }
  return done;
}

void cpi_copy_memory(pid_t processID, void *const *locals, const uintptr_t *remoteStarts, const size_t *lengths, size_t count,
                     size_t *copied) {
  enum { batch = 1024 };
  struct iovec local[batch], remote[batch];
  int memory = -2;  // opened on the first range that needs it
  size_t index = 0;
  while (index < count) {
    size_t n = count - index < batch ? count - index : batch;
    for (size_t offset = 0; offset < n; offset++) {
      local[offset] = (struct iovec){locals[index + offset], lengths[index + offset]};
      remote[offset] = (struct iovec){(void *)remoteStarts[index + offset], lengths[index + offset]};
    }
    ssize_t read = process_vm_readv(processID, local, n, remote, n, 0);
    size_t left = read > 0 ? (size_t)read : 0;
    // The ranges read whole, then the one the read stopped in (if any), read on from the file.
    size_t offset = 0;
    while (offset < n && left >= lengths[index + offset]) {
      copied[index + offset] = lengths[index + offset];
      left -= lengths[index + offset];
      offset++;
    }
    if (offset == n) {
      index += n;
      continue;
    }
    if (memory == -2) {
      char path[64];
      snprintf(path, sizeof path, "/proc/%d/mem", (int)processID);
      memory = open(path, O_RDONLY | O_CLOEXEC);
    }
    size_t stopped = index + offset;
    copied[stopped] = readFromMemoryFile(memory, locals[stopped], remoteStarts[stopped], lengths[stopped], left);
    index = stopped + 1;
  }
  if (memory >= 0) close(memory);
}

void *cpi_map_anonymous(size_t length, int prefault) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | (prefault ? MAP_POPULATE : MAP_NORESERVE);
  void *start = mmap(NULL, length, PROT_READ | PROT_WRITE, flags, -1, 0);
  return start == MAP_FAILED ? NULL : start;
}

const void *cpi_map_file(int descriptor, size_t length, uint64_t offset) {
  void *start = mmap(NULL, length, PROT_READ, MAP_PRIVATE, descriptor, (off_t)offset);
  return start == MAP_FAILED ? NULL : start;
}

void cpi_unmap(const void *start, size_t length) { munmap((void *)start, length); }

size_t cpi_resident_runs(int pagemap, uintptr_t start, uintptr_t end, uintptr_t *runStarts, size_t *runLengths, size_t capacity) {
  enum { page = 4096, batch = 4096 };
  const uint64_t present = (uint64_t)1 << 63, swapped = (uint64_t)1 << 62;
  uint64_t entries[batch];
  size_t runs = 0;
  uintptr_t runStart = 0;
  bool inRun = false;
  for (uintptr_t address = start; address < end;) {
    size_t pages = (end - address) / page < batch ? (end - address) / page : batch;
    ssize_t read = pread(pagemap, entries, pages * sizeof(uint64_t), (off_t)(address / page * sizeof(uint64_t)));
    if (read <= 0) {  // unknown: the rest counts as resident, copied whole
      if (!inRun) runStart = address;
      inRun = true;
      address = end;
      break;
    }
    size_t got = (size_t)read / sizeof(uint64_t);
    for (size_t index = 0; index < got; index++, address += page) {
      bool has = (entries[index] & (present | swapped)) != 0;
      if (has && !inRun) {
        runStart = address;
        inRun = true;
      } else if (!has && inRun) {
        if (runs < capacity) {
          runStarts[runs] = runStart;
          runLengths[runs] = address - runStart;
        }
        runs++;
        inRun = false;
      }
    }
  }
  if (inRun) {
    if (runs < capacity) {
      runStarts[runs] = runStart;
      runLengths[runs] = end - runStart;
    }
    runs++;
  }
  return runs;
}
