#ifndef CLEAK_AGENT_H
#define CLEAK_AGENT_H

#include <stdbool.h>

#include "SwiftRuntimeFacts.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Called on a thread of the agent's own, once per delivery of a watched signal, with its number.
typedef void (*cleak_agent_signal_callback)(int signal);

/// Installs a handler for `signal` that wakes a thread of the agent, which then calls
/// `callback` with the signal's number (outside the signal handler, so that it may allocate and
/// fork). Returns whether the handler and thread are in place. Every watched signal shares the
/// thread and the first callback given. In a child the process forks, which inherits the handler
/// but not the thread, a signal that `endsTheProcess` ends it as its default action would, and
/// another is dropped.
bool cleak_agent_watch_signal(int signal, bool endsTheProcess, cleak_agent_signal_callback callback);

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
