#ifndef CLEAK_AGENT_SWIFT_RUNTIME_FACTS_H
#define CLEAK_AGENT_SWIFT_RUNTIME_FACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "ELFBuildID.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What this process's ELF images say about the Swift runtime it runs on and the one the agent
/// was linked against, read by ``cleak_agent_read_swift_runtime_facts``; the agent decides from
/// them whether it understands the program.
typedef struct cleak_agent_swift_runtime_facts {
  /// Whether the main executable names `libswiftCore.so` among the libraries it needs
  /// (`DT_NEEDED`): it runs on the shared Swift runtime.
  bool executableNeedsSharedRuntime;
  /// Whether the main executable's file has Swift metadata sections (`swift5_…`): it is a Swift
  /// program. Read only when it does not need the shared runtime (then it has its own copy of
  /// the runtime linked in), false otherwise.
  bool executableHasSwiftSections;

  /// The `libswiftCore.so` whose `swift_retain` the process calls, as the dynamic loader opened
  /// it (malloc'd; NULL when none is loaded).
  char *loadedRuntimePath;
  /// Its build id, read from its notes in memory (`loadedRuntimeBuildIDLength` 0 when it has none).
  unsigned char loadedRuntimeBuildID[CLEAK_BUILD_ID_CAPACITY];
  size_t loadedRuntimeBuildIDLength;
  /// The newest `_SwiftStdlibVersion` it exports a property descriptor for (`6` and `3` for
  /// `v6_3_0`); both 0 when none was found.
  int loadedRuntimeMajorVersion;
  int loadedRuntimeMinorVersion;

  /// The `libswiftCore.so` in the first directory of the agent's own run path (`DT_RUNPATH`, or
  /// `DT_RPATH`; `$ORIGIN` is the agent's directory) that has one: the runtime the agent was
  /// linked against (malloc'd; NULL when none of those directories has it).
  char *agentRuntimePath;
  /// Its build id, read from the file's notes (`agentRuntimeBuildIDLength` 0 when it has none).
  unsigned char agentRuntimeBuildID[CLEAK_BUILD_ID_CAPACITY];
  size_t agentRuntimeBuildIDLength;
} cleak_agent_swift_runtime_facts;

/// Reads the facts of this process (its main executable, the loaded Swift runtime, the agent's
/// run path) into `facts`; release them with ``cleak_agent_free_swift_runtime_facts``.
void cleak_agent_read_swift_runtime_facts(cleak_agent_swift_runtime_facts *facts);

/// Frees the paths ``cleak_agent_read_swift_runtime_facts`` allocated.
void cleak_agent_free_swift_runtime_facts(cleak_agent_swift_runtime_facts *facts);

#ifdef __cplusplus
}
#endif

#endif
