#ifndef CLEAK_PRELOAD_H
#define CLEAK_PRELOAD_H

// The preloaded loader of `leak-detector run` (libLeakDetectorPreload.so). `run` puts it, not
// the agent, in LD_PRELOAD: every process the program starts loads it, compilers and shells
// included, and it is small (no library of its own beyond the C library and the Swift runtime
// SwiftPM links). In the processes to check, it loads the agent (libLeakDetectorAgent.so, beside
// it) and starts it; elsewhere the agent, libdw, libunwind and the reflection library are never
// loaded, and no handler of the agent is installed.
//
// It defines the Swift runtime's allocation entry points that the agent interposes, because only
// a library loaded before libswiftCore wins the program's calls: each passes the call on, by a
// tail call, to the agent's version once the agent is loaded, and to the runtime's until then.
// An allocation or a deallocation the agent would only pass on goes straight to the runtime: the
// loader decides it as the agent would (`InterposerFastPath.h`).

/// The environment variables of `leak-detector run` that the loader reads before any Swift code
/// runs: the run directory (unset, the process was not started by `run`), the shell patterns of
/// the executables to check, one a line, and the agent library to load in those. This is their
/// only C spelling; the Swift side's is `RunProtocol.Variable` in HeapGraph, and a test keeps the
/// two equal.
#define CLEAK_PRELOAD_RUN_DIRECTORY_VARIABLE "LEAK_DETECTOR_RUN_DIRECTORY"
#define CLEAK_PRELOAD_PROCESSES_VARIABLE "LEAK_DETECTOR_PROCESSES"
#define CLEAK_PRELOAD_AGENT_LIBRARY_VARIABLE "LEAK_DETECTOR_AGENT_LIBRARY"

/// The file name of the agent, which the loader looks for in its own directory when the
/// environment names none.
#define CLEAK_PRELOAD_AGENT_FILE_NAME "libLeakDetectorAgent.so"

#endif
