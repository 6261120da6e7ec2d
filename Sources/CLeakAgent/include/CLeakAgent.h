#ifndef CLEAK_AGENT_H
#define CLEAK_AGENT_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What the agent's loader found in the environment `leak-detector run` set.
typedef struct {
  const char *runDirectory;       // where exit snapshots go (LEAK_DETECTOR_RUN_DIRECTORY)
  const char *snapshotDirectory;  // where signal snapshots go (LEAK_DETECTOR_SNAPSHOT_DIRECTORY)
  bool stacks;                    // record allocation stacks (LEAK_DETECTOR_STACKS, default 1)
  int snapshotSignal;             // 0: none (LEAK_DETECTOR_SNAPSHOT_SIGNAL)
} cleak_agent_settings;

/// Called on a thread of the agent's own, once per delivery of the snapshot signal.
typedef void (*cleak_agent_signal_callback)(void);

/// Installs a handler for `signal` that wakes a thread of the agent, which then calls
/// `callback` (outside the signal handler, so that it may allocate and fork). Returns whether
/// the handler and thread are in place.
bool cleak_agent_watch_signal(int signal, cleak_agent_signal_callback callback);

/// The agent's entry point, defined in Swift: starts tracking and arranges the captures.
void leak_detector_agent_start(const cleak_agent_settings *settings);

#ifdef __cplusplus
}
#endif

#endif
