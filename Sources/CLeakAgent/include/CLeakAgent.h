#ifndef CLEAK_AGENT_H
#define CLEAK_AGENT_H

#include <stdbool.h>

#include "SwiftRuntimeFacts.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Called once per delivery of a watched signal, with its number: on a thread of the agent's own
/// (`inForkedChild` false), or, for a termination signal that reaches a process without that
/// thread, in a child forked in the signal handler (`inForkedChild` true), which has the
/// process's memory as the signal found it and ends when the callback returns.
typedef void (*cleak_agent_signal_callback)(int signal, bool inForkedChild);

/// Installs a handler for `signal` whose callback runs outside the signal handler, so that it may
/// allocate and fork. Returns whether the handler (and, when needed, the thread) is in place.
/// Every watched signal shares the first callback given. A signal that does not end the process
/// (a snapshot signal) wakes a thread of the agent, started at once. A signal that
/// `endsTheProcess` wakes that thread once the process has a second thread (the loader calls
/// `cleak_agent_before_thread_creation` before each `pthread_create`); in a single-threaded
/// process its handler forks a child that runs the callback, waits for it (30 s at most), then
/// ends the process as the signal's default action would. In a child the process forks, which
/// inherits the handler but not the thread, such a signal ends it at once, and another is dropped.
bool cleak_agent_watch_signal(int signal, bool endsTheProcess, cleak_agent_signal_callback callback);

/// Starts the agent's thread if a signal is watched and it has not started: called by the loader
/// before the program creates a thread, so that a single-threaded program has none of the
/// agent's, and by the exit capture, which creates threads and holds what a forked child would
/// wait for (a termination signal during the capture then waits for it on that thread).
void cleak_agent_before_thread_creation(void);

/// Whether `signal` still has its default action here (neither ignored, as `nohup` leaves
/// `SIGHUP`, nor handled).
bool cleak_agent_signal_is_default(int signal);

/// Gives `signal` back its default action, unblocks it and raises it in this thread: the process
/// ends as the signal would have ended it.
void cleak_agent_raise_default(int signal);

/// Installs handlers for the signals that end a process with a fault or an abort (SIGSEGV,
/// SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS) which write the signal's number, in
/// decimal, to the file at `path` when one arrives in this process (not in a child it forks),
/// then give the signal back to the action it had before (the Swift runtime's backtracer, or the
/// default), which ends the process as it would have. Returns whether every handler is in place.
bool cleak_agent_note_fatal_signals(const char *path);
/// The agent's entry point, defined in Swift and called by its loader (libLeakDetectorPreload.so)
/// in a process to check: reads the settings from the environment, starts tracking and arranges
/// the captures.
void leak_detector_agent_start(void);

#ifdef __cplusplus
}
#endif

#endif
