#define _GNU_SOURCE
#include "EntryPatching.h"

#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// Patching a function's entry: a 5-byte relative jump at the entry goes to a stub near it (in
// reach of 32 bits), which jumps to the hook through a 64-bit address; a trampoline beside the
// stub runs the instructions the jump covered, then jumps back past them. Both are in pages
// mapped near the function, written before they are made executable.

enum {
  nearJumpLength = 5,         // E9 rel32
  farJumpLength = 14,         // FF 25 00000000, then the 64-bit target
  slotLength = 64,            // a stub, then a trampoline: at most 20 moved bytes and a far jump
  movedCapacity = slotLength - farJumpLength - farJumpLength - 2,
  nearPageLength = 1 << 16,
};

/// The length of the x86-64 instruction at `code` when it is one that can run anywhere (no
/// relative operand, no control flow): the frame set-ups that start the runtime's functions
/// (`push`, `mov %rsp, %rbp`, register moves, loads through a register, `sub $n, %rsp`,
/// `endbr64`). 0 for any other.
static size_t movableInstructionLength(const uint8_t *code) {
  const uint8_t *at = code;
  if (at[0] == 0xF3 && at[1] == 0x0F && at[2] == 0x1E && at[3] == 0xFA) return 4;  // endbr64
  if ((*at & 0xF0) == 0x40) at++;                                                  // REX
  uint8_t opcode = *at++;
  if (opcode >= 0x50 && opcode <= 0x57) return (size_t)(at - code);  // push
  size_t immediate;
  switch (opcode) {
    case 0x01: case 0x03: case 0x09: case 0x0B: case 0x21: case 0x23: case 0x29: case 0x2B:
    case 0x31: case 0x33: case 0x39: case 0x3B: case 0x63: case 0x85: case 0x89: case 0x8B: case 0x8D:
      immediate = 0;
      break;
    case 0x83: immediate = 1; break;
    case 0x81: case 0xC7: immediate = 4; break;
    default: return 0;
  }
  uint8_t modRM = *at++;
  unsigned mod = modRM >> 6, rm = modRM & 7;
  if (mod == 0 && rm == 5) return 0;  // relative to the instruction pointer
  if (mod != 3 && rm == 4) {
    uint8_t sib = *at++;
    if (mod == 0 && (sib & 7) == 5) at += 4;
  }
  if (mod == 1) at += 1;
  if (mod == 2) at += 4;
  return (size_t)(at - code) + immediate;
}

/// Writes a jump through the 64-bit `target` at `code`.
static void writeFarJump(uint8_t *code, uintptr_t target) {
  static const uint8_t jumpThroughNextWord[] = {0xFF, 0x25, 0, 0, 0, 0};
  memcpy(code, jumpThroughNextWord, sizeof jumpThroughNextWord);
  memcpy(code + sizeof jumpThroughNextWord, &target, sizeof target);
}

static uint8_t *nearPage = NULL;
static size_t nearPageUsed = 0;

/// Whether a 32-bit displacement reaches from `from` to `to`.
static bool inNearReach(uintptr_t from, uintptr_t to) {
  intptr_t distance = (intptr_t)(to - from);
  return distance > INT32_MIN / 2 && distance < INT32_MAX / 2;
}

/// A free slot in pages near `entry`, mapped the first time (searched outward from it, in steps).
static uint8_t *nearSlot(uintptr_t entry) {
  if (nearPage != NULL && nearPageUsed + slotLength <= nearPageLength && inNearReach(entry, (uintptr_t)nearPage)) {
    nearPageUsed += slotLength;
    return nearPage + nearPageUsed - slotLength;
  }
  uintptr_t step = (uintptr_t)nearPageLength << 4;
  for (uintptr_t distance = step; distance < ((uintptr_t)1 << 30); distance += step) {
    for (int side = 0; side < 2; side++) {
      uintptr_t hint = side == 0 ? (entry + distance) & ~(uintptr_t)(nearPageLength - 1)
                                 : (entry - distance) & ~(uintptr_t)(nearPageLength - 1);
      if (side == 1 && entry < distance) continue;
      void *memory = mmap((void *)hint, nearPageLength, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      if (memory == MAP_FAILED) continue;
      if (!inNearReach(entry, (uintptr_t)memory)) {
        munmap(memory, nearPageLength);
        continue;
      }
      nearPage = memory;
      nearPageUsed = slotLength;
      return nearPage;
    }
  }
  return NULL;
}

/// Makes the pages that hold `[start, start + length)` writable (`writable`) or executable again.
static bool setWritable(uintptr_t start, size_t length, bool writable) {
  uintptr_t pageSize = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t first = start & ~(pageSize - 1), end = (start + length + pageSize - 1) & ~(pageSize - 1);
  return mprotect((void *)first, end - first, PROT_READ | PROT_EXEC | (writable ? PROT_WRITE : 0)) == 0;
}

bool cleak_patch_entry(uintptr_t entry, const void *hook, void **original, const char **failure) {
#if defined(__x86_64__)
  const uint8_t *code = (const uint8_t *)entry;
  size_t moved = 0;
  while (moved < nearJumpLength) {
    size_t length = movableInstructionLength(code + moved);
    if (length == 0 || moved + length > (size_t)movedCapacity) {
      *failure = "its first instructions are not a frame set-up the agent can move";
      return false;
    }
    moved += length;
  }
  uint8_t *slot = nearSlot(entry);
  if (slot == NULL) {
    *failure = "no memory near it is free for the jump to the agent";
    return false;
  }
  if (!setWritable((uintptr_t)nearPage, nearPageLength, true)) {
    *failure = "the agent cannot write its jumps (mprotect)";
    return false;
  }
  uint8_t *stub = slot, *trampoline = slot + farJumpLength + 2;
  writeFarJump(stub, (uintptr_t)hook);
  memcpy(trampoline, code, moved);
  writeFarJump(trampoline + moved, entry + moved);
  setWritable((uintptr_t)nearPage, nearPageLength, false);
  *original = trampoline;  // before the jump: the hook may run as soon as it is written
  if (!setWritable(entry, moved, true)) {
    *failure = "its code cannot be made writable (mprotect)";
    return false;
  }
  uint8_t jump[movedCapacity];
  memset(jump, 0xCC, moved);  // int3 after the jump: never run
  jump[0] = 0xE9;
  int32_t displacement = (int32_t)((intptr_t)stub - (intptr_t)(entry + nearJumpLength));
  memcpy(jump + 1, &displacement, sizeof displacement);
  memcpy((void *)entry, jump, moved);
  setWritable(entry, moved, false);
  return true;
#else
  (void)entry, (void)hook, (void)original;
  *failure = "the agent patches x86-64 code only";
  return false;
#endif
}
