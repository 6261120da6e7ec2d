#define _GNU_SOURCE
#include "CLeakRuntime.h"
#include "ExecutableSymbols.h"

// The reflection sections of a program that runs on a runtime of its own (`-static-stdlib`):
// its images registered with that runtime, not with the shared one the agent's reflection
// context enumerates, so they are read from the executable's section headers.

bool cleak_reflection_add_images_of_executable(SwiftReflectionContextRef context) {
  if (!cleak_executable_runtime_is_hooked()) return false;
  cleak_reflection_sections sections;
  if (!cleak_elf_reflection_sections("/proc/self/exe", cleak_executable_load_bias(), &sections)) return false;
  cleak_reflection_add_sections(context, &sections, 1);
  return true;
}
