#ifndef CLEAK_AGENT_H
#define CLEAK_AGENT_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The environment variables of `leak-detector run` that the loader reads before any Swift code
/// runs, to decide whether this process is one to check: the run directory (unset, the process
/// was not started by `run`) and the shell patterns of the executables to check, one a line.
/// This is their only C spelling; the Swift side's is `RunProtocol.Variable` in HeapGraph, and a
/// test keeps the two equal.
#define CLEAK_AGENT_RUN_DIRECTORY_VARIABLE "LEAK_DETECTOR_RUN_DIRECTORY"
#define CLEAK_AGENT_PROCESSES_VARIABLE "LEAK_DETECTOR_PROCESSES"

/// Called on a thread of the agent's own, once per delivery of the snapshot signal.
typedef void (*cleak_agent_signal_callback)(void);

/// Installs a handler for `signal` that wakes a thread of the agent, which then calls
/// `callback` (outside the signal handler, so that it may allocate and fork). Returns whether
/// the handler and thread are in place.
bool cleak_agent_watch_signal(int signal, cleak_agent_signal_callback callback);

/// The agent's entry point, defined in Swift: reads the rest of the settings from the
/// environment, starts tracking and arranges the captures.
void leak_detector_agent_start(void);

#ifdef __cplusplus
}
#endif

#endif
