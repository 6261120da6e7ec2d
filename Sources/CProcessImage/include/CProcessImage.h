#ifndef CPROCESS_IMAGE_H
#define CPROCESS_IMAGE_H

// The system calls under `ProcessImage`'s live capture: stopping every thread of another process
// with ptrace (PTRACE_SEIZE, never PTRACE_ATTACH: if the tool dies, the kernel detaches and the
// process goes on running), reading their registers, copying its memory, and resuming it with
// the signals it was about to receive. The Swift side decides what to read; this side only does.

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The threads of a process that `cpi_stop_process` stopped, each with the signal it was about to
/// receive when it stopped (0 for none): `cpi_resume_process` delivers it on detaching.
typedef struct cpi_stopped_process {
  pid_t processID;
  pid_t *threadIDs;
  int *pendingSignals;
  size_t count;
  size_t capacity;
  /// `CLOCK_MONOTONIC` nanoseconds when the first thread was seen stopped.
  uint64_t firstStopNanoseconds;
} cpi_stopped_process;

/// Why `cpi_stop_process` failed: `error` is an errno value (`EPERM`, `ESRCH`, `ETIMEDOUT` when a
/// thread did not stop within the deadline, `EBUSY` when another tracer holds it), `threadID`
/// the thread it failed on, `tracerID` that thread's tracer when `EBUSY`.
typedef struct cpi_stop_failure {
  int error;
  pid_t threadID;
  pid_t tracerID;
} cpi_stop_failure;

/// Stops every thread of `processID`: seizes each thread `/proc/PID/task` lists (with
/// `PTRACE_O_TRACECLONE`, so a thread created meanwhile starts stopped and traced), interrupts
/// it and waits for it to stop, then lists the threads again until a pass finds no new one.
/// Threads that exit meanwhile are dropped. Returns 0 with every thread stopped, or -1 with
/// `failure` filled and nothing left stopped or traced. Call it and `cpi_resume_process` from
/// the same thread: ptrace ties a tracee to the thread that seized it.
int cpi_stop_process(pid_t processID, cpi_stopped_process *process, cpi_stop_failure *failure);

/// Detaches every thread of `process`, re-injecting the signal each was about to receive, and
/// frees its lists. Returns `CLOCK_MONOTONIC` nanoseconds after the last detach.
uint64_t cpi_resume_process(cpi_stopped_process *process);

/// Reads the general-purpose registers of a stopped thread (`PTRACE_GETREGS`). Returns 0 or an
/// errno value.
int cpi_thread_registers(pid_t threadID, struct user_regs_struct *registers);

/// `CLOCK_MONOTONIC` now, in nanoseconds.
uint64_t cpi_monotonic_nanoseconds(void);

/// Copies `count` ranges of `processID`'s memory, `lengths[i]` bytes at `remoteStarts[i]` into
/// `locals[i]`, with `process_vm_readv` (up to 1,024 ranges a call); a range it cannot read to
/// the end is read on from `/proc/PID/mem` with `pread`. `copied[i]` receives how many bytes of
/// range `i` were copied from its start.
void cpi_copy_memory(pid_t processID, void *const *locals, const uintptr_t *remoteStarts, const size_t *lengths, size_t count,
                     size_t *copied);

/// An anonymous private mapping of `length` bytes, readable and writable, or NULL; with
/// `prefault`, its pages are allocated now (`MAP_POPULATE`), so that a copy into it later does
/// not stop at each page for the kernel to allocate and zero it.
void *cpi_map_anonymous(size_t length, int prefault);

/// A read-only private mapping of `length` bytes of the file open as `descriptor` from `offset`
/// (a multiple of the page size), or NULL.
const void *cpi_map_file(int descriptor, size_t length, uint64_t offset);

/// Unmaps what one of the two above mapped.
void cpi_unmap(const void *start, size_t length);

/// The runs of pages of [start, end) in a process that hold data (resident or swapped out), from
/// its `pagemap` (an open descriptor of `/proc/PID/pagemap`): anonymous memory never touched
/// reads as zeros and need not be copied. Writes up to `capacity` runs; returns how many there
/// are. A range whose entries cannot be read counts as one run.
size_t cpi_resident_runs(int pagemap, uintptr_t start, uintptr_t end, uintptr_t *runStarts, size_t *runLengths, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif
