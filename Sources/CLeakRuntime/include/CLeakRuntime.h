#ifndef CLEAK_RUNTIME_H
#define CLEAK_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "PlatformLayout.h"
#include "SwiftHeapObjectLayout.h"
#include "SwiftMetadataLayout.h"
#include "SwiftStandardLibraryLayout.h"
#include "SwiftConcurrencyLayout.h"

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - Memory

/// Calls `visit` with each mapping that `mapsPath`, a file in the format of `/proc/PID/maps`,
/// lists (this process's: `"/proc/self/maps"`), in its order: its bounds and its permissions
/// (`"rw-p"`). Returns 0 when the file cannot be opened.
///
/// The C side's one reader of that format, for code that runs without Swift (a capture child,
/// the census process); Swift code parses the text with `ProcessMapping` (HeapGraph). It reads
/// with `fopen` and `fgets`, so it allocates.
int cleak_for_each_mapping_in(const char *mapsPath,
                              void (*visit)(uintptr_t start, uintptr_t end, const char *permissions, void *context),
                              void *context);

/// Re-reads this process's readable mappings now. The root scans below test pointer-like words
/// against the mappings as of the last refresh: call it once before a capture's scans.
void cleak_refresh_readable_regions(void);

/// Whether `length` bytes at `address` lie in a readable mapping of this process, according to a
/// cached copy of `/proc/self/maps` (refreshed on a miss). Thread-safe.
bool cleak_is_readable(uintptr_t address, size_t length);

/// Copies `length` bytes at `address` in this process into `destination` without faulting:
/// an unmapped or unreadable source gives a short count instead of a crash. Readable ranges are
/// copied directly; others go through `process_vm_readv` on the calling process.
///
/// Returns the number of bytes copied, or -1 with errno set.
ptrdiff_t cleak_read_memory(void *destination, uintptr_t address, size_t length);

// MARK: - Memory images

/// A range of memory, [start, end): of this process, or of the memory image being read.
typedef struct {
  uintptr_t start;
  uintptr_t end;
} cleak_memory_range;

/// A range of another process's memory, [start, end), and where its bytes lie in this process.
typedef struct {
  uintptr_t start;
  uintptr_t end;
  const unsigned char *bytes;
  /// Whether `bytes` are anonymous memory of this process into which only the pages that held
  /// data were copied: a page of it this process never touched reads as zeros, and a scan may
  /// skip it (`mincore` says which).
  bool isSparseCopy;
} cleak_image_segment;

/// Whether the reads of this library go to a memory image (`cleak_read_from_memory_image`)
/// instead of this process's memory.
extern bool cleak_memory_image_active;
/// `cleak_memory_image_active`, for Swift (which cannot read a mutable C global safely).
bool cleak_reads_memory_image(void);

/// Makes every read of this library (`cleak_read_memory`, `cleak_load_word`, the readability
/// checks, the scans, RemoteMirror's reader) read the memory of another process: `count` segments
/// (copied; their bytes must outlive the reads; segments without bytes are left out). Installed
/// once, in a process that reads that image only (the CLI analysing a core or a stopped process's
/// copy), before the first capture: the reflection context and the caches built by the first read
/// are the image's.
void cleak_read_from_memory_image(const cleak_image_segment *segments, size_t count);

/// Where the `length` bytes at `address` of the memory image lie in this process, or NULL when
/// they are not all in one segment.
const unsigned char *cleak_memory_image_bytes(uintptr_t address, size_t length);
/// Whether the segment of the memory image that holds `address` is a sparse copy.
bool cleak_memory_image_is_sparse(uintptr_t address);
/// Whether the memory image has the `length` bytes at `address` in one segment.
bool cleak_memory_image_is_readable(uintptr_t address, size_t length);
/// The word at `address` of the memory image, 0 when it has none there.
uintptr_t cleak_memory_image_word(uintptr_t address);
/// Copies what the memory image has from `address` on, up to `length` bytes: the count copied.
ptrdiff_t cleak_memory_image_read(void *destination, uintptr_t address, size_t length);

/// Where an image of a memory image keeps its reflection metadata: the address ranges of its
/// `swift5_fieldmd`, `swift5_assocty`, `swift5_builtin`, `swift5_capture`, `swift5_typeref` and
/// `swift5_reflstr` sections (empty when it has none).
typedef struct {
  cleak_memory_range fieldmd, assocty, builtin, capture, typeref, reflstr;
} cleak_reflection_sections;

/// The reflection sections of the memory image's Swift images, for the reflection context
/// (`cleak_reflection_context_create`), which is made after this call.
void cleak_memory_image_set_reflection_sections(const cleak_reflection_sections *sections, size_t count);

/// The address range a loaded image (the program or a shared library) of the memory image spans,
/// and whether it is the Swift runtime's (the runtime linked into a program counts).
typedef struct {
  uintptr_t start;
  uintptr_t end;
  bool isSwiftRuntime;
  /// Whether it is this tool's agent, whose objects a memory image's objects leave out.
  bool isLeakDetector;
  /// Whether it is a Swift runtime library other than the standard library's own
  /// (`libswift_Concurrency.so`): its classes of module `Swift` are objects to list, as a
  /// tracker lists them; those of the standard library (storage of collections and strings) are not.
  bool listsStandardLibraryClasses;
  /// The image's file, readable here (for its symbols and debug information), and its load bias.
  const char *path;
  uintptr_t bias;
} cleak_image_range;

/// The loaded images of the memory image (copied, paths too), for `cleak_is_in_loaded_image`,
/// `cleak_is_in_swift_runtime` and the symbolizer, which then reads their files.
void cleak_memory_image_set_loaded_images(const cleak_image_range *ranges, size_t count);
/// The loaded image of the memory image that spans `address`, or NULL.
const cleak_image_range *cleak_memory_image_loaded_image(uintptr_t address);
/// The loaded images of the memory image, `*count` of them.
const cleak_image_range *cleak_memory_image_loaded_images(size_t *count);

/// The load bias of the ELF file at `path` when its first loadable segment is mapped at
/// `firstMappingStart` (what its addresses are moved by); `false` when it cannot be read.
bool cleak_elf_load_bias(const char *path, uintptr_t firstMappingStart, uintptr_t *bias);

/// The reflection sections (`swift5_*`) of the ELF file at `path`, its addresses moved by `bias`;
/// `false` when it cannot be read or has none.
bool cleak_elf_reflection_sections(const char *path, uintptr_t bias, cleak_reflection_sections *sections);

/// The addresses the writable loadable segments of the ELF file at `path` span, moved by
/// `bias`: its global data, `.bss` included (which the file does not hold); `false` when it
/// cannot be read or has none.
bool cleak_elf_writable_extent(const char *path, uintptr_t bias, cleak_memory_range *extent);

/// The bytes the thread-local storage block of the ELF file at `path` takes in a thread's static
/// TLS, with room for its alignment; 0 when it has none or cannot be read.
size_t cleak_elf_tls_block_size(const char *path);

/// Calls `visit` with each defined symbol of the ELF file at `path` (its symbol table and, unless
/// `fullTableOnly`, its dynamic one), its address moved by `bias` (thread-local ones: their
/// offset). Returns how many symbol tables it read: 0 when the file cannot be read or has none
/// (a stripped file has no full table).
int cleak_elf_for_each_symbol(const char *path, uintptr_t bias, bool fullTableOnly,
                              void (*visit)(const char *name, uintptr_t address, uintptr_t size, void *context), void *context);

/// What kind of heap object ``cleak_memory_image_find_objects`` found.
typedef enum : uint8_t {
  cleak_found_class_instance = 0,
  cleak_found_closure_context = 1,
  cleak_found_box = 2,
  cleak_found_task = 3,
} cleak_found_object_kind;

/// A live Swift heap object of the memory image: its address, metadata, instance size (0 when
/// its metadata does not say) and kind.
typedef struct {
  uintptr_t object;
  uintptr_t metadata;
  uint32_t size;
  cleak_found_object_kind kind;
} cleak_found_object;

/// The live Swift heap objects in `ranges` of the memory image (the heap, not images or stacks),
/// found from their headers alone: metadata of a heap object (a class whose descriptor lies in a
/// loaded image, a closure context, a box, a task) and a live reference count (not deinitializing:
/// freed memory keeps a deinitialized count where the allocator leaves it as it was). An object
/// found is skipped whole. With `glibcBlocks` (the process allocates with glibc's `malloc`), an
/// object must also start a block `malloc` has in use. Returns a `malloc`ed array of `*count`
/// objects, by address within each range (the caller frees it), NULL when there are none.
cleak_found_object *cleak_memory_image_find_objects(const cleak_memory_range *ranges, size_t rangeCount, bool glibcBlocks,
                                                    size_t *count);

/// How RemoteMirror finds a symbol of the memory image (its address there, 0 when unknown).
void cleak_memory_image_set_symbols(uintptr_t (*lookup)(const char *name));

/// The word at `address`, which the caller knows to be readable (inside an object or storage
/// it keeps alive): the readers' direct load of a field. Not instrumented by the sanitizers: a
/// capture reads the frozen heap as it is, and a field that the runtime's layout places inside
/// an allocation may lie, for AddressSanitizer, in a redzone of it.
__attribute__((no_sanitize("address", "thread", "memory"))) static inline uintptr_t cleak_load_word(uintptr_t address) {
  if (__builtin_expect(cleak_memory_image_active, 0)) return cleak_memory_image_word(address);
  return *(volatile const uintptr_t *)address;
}

/// The 32 bits at `address`, as ``cleak_load_word`` reads a word.
__attribute__((no_sanitize("address", "thread", "memory"))) static inline uint32_t cleak_load_u32(uintptr_t address) {
  if (__builtin_expect(cleak_memory_image_active, 0)) {
    uint32_t value = 0;
    cleak_memory_image_read(&value, address, sizeof value);
    return value;
  }
  return *(volatile const uint32_t *)address;
}

/// Reads the word at each of `count` addresses into `words` (0 where it cannot be read) with
/// `process_vm_readv`, 1,024 addresses per call: the kernel checks each read, so memory that
/// another thread has just freed and unmapped reads as 0 instead of faulting, whatever the
/// readable-mappings snapshot says. For memory that may be freed concurrently (the tracker's
/// objects, read by queries in the program's own process).
void cleak_read_words_checked(const uintptr_t *addresses, uintptr_t *words, size_t count);

// MARK: - Swift runtime entry points (wrapped so that Swift code never declares runtime names)

/// Whether `object`'s deinitialization has started (its fields may be destroyed already); the
/// runtime entry point is `swift_isDeallocating`. Reads the reference count only; in a capture
/// child, a count that cannot be read (a freed object's) answers `true`.
bool cleak_is_deallocating(uintptr_t object);

/// The strong reference count of a live `object` (side tables included); the runtime entry point
/// is `swift_retainCount`. A snapshot of a count other threads may be changing; in a capture
/// child, 0 when the count cannot be read.
size_t cleak_strong_retain_count(uintptr_t object);

/// The strong count and deinit state of `object` in the memory image, decoded from its count
/// word (and side table); `false` when they cannot be read. An immortal object's count is huge.
bool cleak_image_reference_count(uintptr_t object, size_t *strongCount, bool *isDeiniting);

/// The object a `weak` reference at `slot` refers to, or 0 when it is nil or deallocating.
/// The runtime entry point is `swift_weakLoadStrong` (its +1 is released before returning).
uintptr_t cleak_weak_load(uintptr_t slot);

/// Demangles a Swift symbol with `swift_demangle`; returns a malloc'd string or NULL.
char *cleak_demangle(const char *mangled, size_t length);

// MARK: - Deallocation

/// Called with the address of every Swift class instance that is deallocated (after its deinit
/// ran, before its memory is freed). It must not retain the object.
typedef void (*cleak_deallocation_observer)(uintptr_t object);

/// Installs (or, with NULL, removes) the deallocation observer. The interposed
/// `swift_deallocClassInstance` calls it; only one observer is active.
void cleak_set_deallocation_observer(cleak_deallocation_observer observer);

/// Whether the interposed `swift_allocObject` of this library is the one the process calls.
bool cleak_interposition_is_active(void);

// MARK: - Allocation tracking

/// A tracked object, as copied out of the live table.
typedef struct {
  uintptr_t object;
  uintptr_t metadata;
  uint32_t generation;
  uint32_t stack;  // 0: no stack captured
  uint64_t size;
  uint64_t location;  // where the tracker keeps it: an entry number, or 0 (the address table)
} cleak_tracked_object;

// MARK: - A Swift runtime linked into the executable

/// What the main executable's file says about a Swift runtime linked into it (a program built
/// with `-static-stdlib`), read by ``cleak_executable_runtime_read_facts``.
typedef struct {
  /// Whether its symbol table defines `swift_allocObject`: the program runs on its own copy of
  /// the runtime, which no interposer reaches.
  bool hasOwnRuntime;
  /// Whether its file has a symbol table (`.symtab`); a stripped executable has none.
  bool hasSymbolTable;
  /// The newest `_SwiftStdlibVersion` its standard library declares a property descriptor for
  /// (`6` and `3` for `v6_3_0`); both 0 when none.
  int standardLibraryMajorVersion;
  int standardLibraryMinorVersion;
} cleak_executable_runtime_facts;

/// Reads the facts of this process's main executable from its file.
void cleak_executable_runtime_read_facts(cleak_executable_runtime_facts *facts);

/// Hooks the runtime linked into the executable: patches the first instructions of its
/// `swift_allocObject`, `swift_deallocClassInstance`, `swift_deallocPartialClassInstance` and
/// `swift_task_create` with jumps to the tracker's hooks, which then see its objects and tasks as
/// the interposers see the shared runtime's. Call it at start-up, before the program's own code
/// runs (the loader's constructor). Returns false, with a sentence fragment in `failure` saying
/// why ("its symbol table … was stripped"), when it cannot.
///
///     char why[256];
///     if (!cleak_executable_runtime_hook(why, sizeof why)) refuse(why);
bool cleak_executable_runtime_hook(char *failure, size_t capacity);

/// Whether ``cleak_executable_runtime_hook`` hooked the executable's runtime.
bool cleak_executable_runtime_is_hooked(void);

/// The address of the symbol `name` of the main executable's symbol table (local symbols
/// included), or 0. Reads the file: for a lookup made once, not in a hook.
uintptr_t cleak_executable_symbol(const char *name);

/// Starts recording class instances allocated through the interposed `swift_allocObject`,
/// optionally with their allocation stacks (the frame-pointer chain), every `interval`th
/// allocation per thread.
void cleak_tracker_start(bool stacks, unsigned interval);
/// Makes the next `cleak_tracker_start` sample: one allocation in about every `meanBytes`
/// allocated bytes, at exponentially distributed distances, is tracked with its stack; the
/// others only count their bytes down on their thread. 0 (and `cleak_tracker_stop`) goes back
/// to tracking every allocation.
void cleak_tracker_start_sampling(uint64_t meanBytes);
/// The mean distance of sampled tracking in bytes, 0 when every allocation is tracked.
uint64_t cleak_tracker_sample_interval(void);
/// How many allocations with stack `stack` were sampled since tracking started, their bytes
/// (what pprof calls alloc_objects and alloc_space, before scaling) and the class metadata of
/// the last one. False for an unknown stack.
bool cleak_tracker_sampled_totals(uint32_t stack, uint64_t *count, uint64_t *bytes, uintptr_t *metadata);
/// Stops recording and empties the table.
void cleak_tracker_stop(void);
bool cleak_tracker_is_running(void);
/// Starts a new generation; returns its number.
uint32_t cleak_tracker_mark_generation(void);
uint32_t cleak_tracker_generation(void);
/// Records an object explicitly (when interposition is unavailable), in the current generation.
void cleak_tracker_track(uintptr_t object, uintptr_t metadata, size_t size);
/// Forgets a copied entry whose object was freed where no interposer saw it, if the tracker still
/// holds it.
void cleak_tracker_forget(const cleak_tracked_object *entry);
/// The number of tracked live objects.
size_t cleak_tracker_count(void);
/// How many objects the tracker's entry blocks can hold now (they grow with the live objects,
/// not with the threads that ever allocated).
size_t cleak_tracker_entry_capacity(void);
/// Copies up to `capacity` live entries (of `generation`, or all when negative) into `buffer`.
size_t cleak_tracker_copy_entries(cleak_tracked_object *buffer, size_t capacity, int64_t generation);
/// Copies the frames of stack `id` (innermost first); returns their number.
int cleak_tracker_stack(uint32_t id, uintptr_t *frames, int capacity);

/// The return addresses of the frames above the one at `framePointer` (innermost first), found
/// by following saved frame pointers while they stay inside this thread's stack and go up. The
/// Swift toolchain's code and its runtime libraries keep frame pointers on this platform, except
/// an optimized program's top-level code (`main` saves the register and uses it for data). At the
/// frame of an async function that the concurrency runtime resumed, the walk goes on along the
/// function's async context instead: each logical caller's resume point (one past it, like a
/// return address), up to the first function of the task; the runtime's own frames below it are
/// left out. Returns 0 when `framePointer` is not in this thread's stack (an alternate signal
/// stack, say). A function without a frame pointer leaves whatever its code put in the register
/// as its caller's "frame": the walk stops at any value outside the stack.
int cleak_stack_walk(uintptr_t framePointer, uintptr_t *frames, int capacity);

/// Where the task at `task`, which is not running, will resume: the function the runtime resumes
/// it in, then each logical caller's resume point along the async contexts (innermost first, one
/// past each point, as return addresses are), up to the task's first function. Reads the task
/// and its contexts with faults guarded in a capture child; returns the number of frames.
int cleak_task_suspension_frames(uintptr_t task, uintptr_t *frames, int capacity);

/// How many tasks the task registry remembers: the most recently created ones.
enum { CLEAK_TASK_REGISTRY_CAPACITY = 1 << 16 };

/// Copies the tasks created through `swift_task_create` that the registry remembers (the
/// latest ``CLEAK_TASK_REGISTRY_CAPACITY``), oldest first, as entries with the task's address,
/// its creation stack (when the tracker records stacks), the tracker's generation at its creation
/// and, as `size`, the task's job id then; metadata is 0. An entry may name a task that has
/// completed or been freed since, and its address a later task (whose id differs): the reader
/// checks each. Returns how many were copied.
size_t cleak_task_registry_copy(cleak_tracked_object *buffer, size_t capacity);
/// How many slots of the registry tasks have taken: the tasks made so far, at most
/// `CLEAK_TASK_REGISTRY_CAPACITY`.
size_t cleak_task_registry_count(void);

// MARK: - Process memory

/// glibc malloc's totals over all its arenas, as `mallinfo2()` gives them, in bytes.
typedef struct {
  uint64_t arena;     // taken from the system for the arenas (sbrk and arena heaps)
  uint64_t uordblks;  // in use in the arenas
  uint64_t fordblks;  // free in the arenas
  uint64_t hblkhd;    // in blocks of their own mappings
} cleak_malloc_totals;

/// malloc's totals now. glibc walks each arena's free lists under that arena's lock.
void cleak_malloc_totals_now(cleak_malloc_totals *totals);

/// The XML that glibc's `malloc_info(0, …)` writes (one `<heap nr=…>` per arena), in a malloc'd
/// buffer of `*length` bytes that the caller frees, or NULL. glibc writes each arena's entry after
/// releasing that arena's lock, so the buffer's growth cannot wait on a lock malloc_info holds.
char *cleak_malloc_info_text(size_t *length);

// MARK: - Fork safety and capture processes

/// Adds `mutex` to the locks taken before any `fork()` of this process and released on both
/// sides after it (the child re-initializes it), so that a forked child finds the state it guards
/// consistent. Lock order: in registration order, before this target's own locks. Returns false
/// when the registry is full.
bool cleak_fork_protect(pthread_mutex_t *mutex);
/// Removes `mutex` from the fork-protected locks.
void cleak_fork_unprotect(pthread_mutex_t *mutex);

/// Prepares a freshly forked capture child: stops allocation recording, restores default
/// handling of fatal signals (a crash ends the child at once), sends standard input, output and
/// error to /dev/null, and closes every descriptor but `keepDescriptor`. In a sanitizer build,
/// the sanitizer's report goes to `cleak_sanitizer_report_path(getpid())` instead, for the parent
/// to tell why the child ended.
void cleak_capture_child_begin(int keepDescriptor);

/// Where a capture child `child` of a sanitizer build writes its sanitizer's report (the
/// sanitizer adds `.` and the pid to the prefix), in a static buffer; `NULL` without a sanitizer.
const char *cleak_sanitizer_report_path(int child);

/// How far a capture child got, in memory shared with its parent.
typedef struct {
  uint64_t steps;    // grows while the child makes progress
  uint64_t address;  // the object being read
  uint64_t metadata;  // its metadata word, as the child read it
} cleak_capture_progress;

static inline void cleak_capture_progress_step(cleak_capture_progress *progress, uintptr_t address) {
  __atomic_store_n(&progress->address, (uint64_t)address, __ATOMIC_RELAXED);
  uint64_t metadata = cleak_memory_image_active ? cleak_memory_image_word(address) : *(const uint64_t *)address;
  __atomic_store_n(&progress->metadata, metadata, __ATOMIC_RELAXED);
  __atomic_fetch_add(&progress->steps, 1, __ATOMIC_RELEASE);
}

static inline uint64_t cleak_capture_progress_steps(const cleak_capture_progress *progress) {
  return __atomic_load_n(&progress->steps, __ATOMIC_ACQUIRE);
}

static inline uint64_t cleak_capture_progress_address(const cleak_capture_progress *progress) {
  return __atomic_load_n(&progress->address, __ATOMIC_RELAXED);
}

static inline uint64_t cleak_capture_progress_metadata(const cleak_capture_progress *progress) {
  return __atomic_load_n(&progress->metadata, __ATOMIC_RELAXED);
}

/// The tag (case index: payload cases first, then empty ones) of the enum value at `value`
/// whose type metadata is `metadata`, from the type's `getEnumTag` value witness, which only
/// reads the value (no copy, no retain). -1 when the type has no enum witnesses.
int cleak_enum_tag(uintptr_t value, uintptr_t metadata);

// MARK: - Root scanning


/// Where the task registry lives (empty before the first task): the census leaves it out.
cleak_memory_range cleak_task_registry_storage(void);

/// A word of root memory that refers to an object: where it is, and the object.
typedef struct {
  uintptr_t slot;
  uintptr_t object;
} cleak_reference_hit;

/// The writable loaded segments (global and static data) of every image loaded in this process
/// but this library's own when it is a shared library (the agent). Writes up to `capacity` ranges; returns how many there are. Takes the
/// dynamic loader's lock: call it before forking a capture child, not in one.
size_t cleak_writable_image_segments(cleak_memory_range *ranges, size_t capacity);

/// The static thread-local storage of the calling thread, generously bounded, with its thread
/// descriptor (and so its pthread-specific values) unless the descriptor's layout holds
/// (`cleak_thread_specific_values` reads the values then). Returns 0 when the C library does not
/// say the storage's size.
int cleak_static_tls_of_current_thread(cleak_memory_range *range);

/// The kernel's id of the calling thread (`gettid`).
int32_t cleak_thread_id(void);

/// A pthread-specific value of a thread (`pthread_setspecific`): its key, the address where glibc
/// keeps it, and the value.
typedef struct {
  uint32_t key;
  uintptr_t slot;
  uintptr_t value;
} cleak_thread_specific_value;

/// Whether glibc's thread descriptor is laid out as `PlatformLayout.h` says, checked once when
/// this library loads: a key of its own, set on the loading thread to a known value, is found
/// where the layout says, the descriptor holds its thread's id and its first key block where
/// the layout says, and its dynamic thread vector holds the loading thread's TLS blocks.
bool cleak_thread_specific_layout_holds(void);

/// The non-null pthread-specific values of the thread `thread`, read now: the calling thread's
/// (when `thread` is its id), the main thread's (when this library was loaded on it), or
/// another's whose descriptor lies at the top of its stack mapping, which ends at `stackEnd`
/// (glibc puts it there on the stacks it allocates). Writes up to
/// `capacity` values; returns how many there are, or -1 when the layout does not hold or no
/// descriptor of that thread lies there (a stack the program allocated itself). Memory is read
/// with checks, so a thread that ends meanwhile gives no values, never a fault.
ptrdiff_t cleak_thread_specific_values(int32_t thread, uintptr_t stackEnd, cleak_thread_specific_value *values, size_t capacity);

/// A block of dynamic thread-local storage: memory from malloc that holds one thread's
/// `__thread` variables of an image loaded with `dlopen`, and the image's path.
typedef struct {
  uintptr_t start;
  uintptr_t end;
  const char *image;
} cleak_dynamic_tls_block;

/// The dynamic TLS blocks of the thread `thread` (found as `cleak_thread_specific_values` finds
/// its descriptor), read through its dynamic thread vector. Writes up to `capacity` blocks;
/// returns how many there are, or -1 when the layout does not hold or no descriptor is found.
/// Takes the dynamic loader's lock (`dl_iterate_phdr`): call it before forking a capture child.
ptrdiff_t cleak_dynamic_tls_blocks(int32_t thread, uintptr_t stackEnd, cleak_dynamic_tls_block *blocks, size_t capacity);

/// Scans the aligned words of [start, end) (its pages readable as of the last
/// `cleak_refresh_readable_regions`) for references to the objects
/// at `sortedObjects` (ascending). Writes up to `capacity` hits; returns how many there are.
size_t cleak_scan_for_objects(
    uintptr_t start, uintptr_t end, const uintptr_t *sortedObjects, size_t objectCount,
    cleak_reference_hit *hits, size_t capacity);

/// Scans the aligned words of [start, end) (likewise) for references to Swift objects
/// whose class metadata has one of the nominal type `descriptors` (the storage classes of the
/// standard library's collections). Writes up to `capacity` hits; returns how many there are.
size_t cleak_scan_for_collection_storage(
    uintptr_t start, uintptr_t end, const uintptr_t *descriptors, size_t descriptorCount,
    cleak_reference_hit *hits, size_t capacity);

// MARK: - Reference census

/// An object a census looks for: words that point into [start, end) refer to it, except its own
/// words and the first word of its side table (`sideTable`, 0 when it has none), which points
/// back at it.
typedef struct {
  uintptr_t start;
  uintptr_t end;
  uintptr_t sideTable;
} cleak_census_object;

#define CLEAK_CENSUS_SLOTS 8

/// What a census found for one object: how many words refer to it, and where the first
/// `CLEAK_CENSUS_SLOTS` of them are.
typedef struct {
  uint64_t count;
  uintptr_t slots[CLEAK_CENSUS_SLOTS];
} cleak_census_result;

/// A census process and the pipes to it.
typedef struct {
  int request;
  int reply;
  pid_t pid;
} cleak_census;

/// Forks a census process from a capture child, before the child writes any object address into
/// memory: it keeps this instant's image of every private writable mapping and scans it on request
/// (`cleak_census_take`), leaving out the tracker's tables and its own buffers and frames. It
/// counts its work in `progress` (may be NULL), so the capture's stall detector sees it. On the
/// calling thread's stack it scans from `programFrames` up, when that lies above its own frame:
/// the stack pointer where the capture was entered, so that the frames of the capture's own code
/// below it (whose unused slots hold what earlier calls left) count as nothing; 0 scans from its
/// own frame. Returns 0 when it could not start.
int cleak_census_begin(cleak_census *census, cleak_capture_progress *progress, uintptr_t programFrames);
/// Asks the census process for the words that refer to each of `objects` (ascending by start,
/// not overlapping) and writes one result per object. Returns 0 when it could not answer: it
/// failed, or swap is in use (pages in swap look absent to it). Answers once.
int cleak_census_take(cleak_census *census, const cleak_census_object *objects, size_t count, cleak_census_result *results);
/// Ends the census process (whether or not it was asked) and reaps it.
void cleak_census_end(cleak_census *census);

// MARK: - Symbolication (libdw)

/// Symbolizes a code address of this process with libdw: the (mangled) function symbol from the
/// symbol table and, when debug information exists and `file` is not NULL, the source file, line
/// and column. Output strings are malloc'd (free them); absent parts are NULL or 0. Thread-safe.
/// Returns whether anything was found.
int cleak_symbolize(uintptr_t pc, char **symbol, char **file, int *line, int *column);

/// One function of the code at an address: the function the address is in, or one inlined into
/// it. Strings are malloc'd (free them with `cleak_symbolized_frames_free`); absent parts are
/// NULL or 0.
typedef struct {
  char *symbol;  ///< the (mangled) function name: the symbol table's, or DWARF's for an inlined function
  char *file;
  int line;
  int column;
  int inlined;  ///< whether the function is inlined into the next frame
} cleak_symbolized_frame;

/// Symbolizes a code address of this process as the functions whose code it is, innermost first:
/// each function inlined at the address (libdw's `DW_TAG_inlined_subroutine` chain), then the
/// function the symbol table names. The innermost frame has the line table's line (or, where
/// that line is 0, the inlined function's declaration line); each outer frame the line of the
/// call that the inner frame was inlined at (`DW_AT_call_file`, `DW_AT_call_line`). An address
/// with no inlined code gives one frame, as `cleak_symbolize` does. Returns how many frames it
/// wrote (at most `capacity`; the outermost is kept when the chain is longer), 0 when nothing is
/// known. Thread-safe.
int cleak_symbolize_frames(uintptr_t pc, cleak_symbolized_frame *frames, int capacity);

/// Frees the strings of `count` frames that `cleak_symbolize_frames` wrote.
void cleak_symbolized_frames_free(cleak_symbolized_frame *frames, int count);

/// How many of the addresses `start`, `start + step`, … below `end` (in one module of this
/// process) the symbol index names differently from libdwfl's own linear lookup
/// (`dwfl_module_addrinfo`: another symbol, or one where the other finds none). The index's
/// self-check, for tests. `checked` is how many addresses were in a module.
size_t cleak_symbol_index_disagreements(uintptr_t start, uintptr_t end, uintptr_t step, size_t *checked);

/// Whether the code address `pc` lies in one of the Swift toolchain's runtime libraries (an image
/// whose file name starts with `libswift`: `libswiftCore.so`, `libswift_Concurrency.so`, …).
bool cleak_is_in_swift_runtime(uintptr_t pc);

/// Whether `address` lies in a loaded image (the program or a shared library), as `dladdr` says.
bool cleak_is_in_loaded_image(uintptr_t address);

/// The symbol (mangled; malloc'd) whose object covers the data address `address`, and the
/// offset of the address in it. Returns whether one was found. Thread-safe.
int cleak_data_symbol(uintptr_t address, char **symbol, uintptr_t *offset);

/// The thread-local variable (mangled; malloc'd) that covers `address` in the calling thread's
/// thread-local blocks, and the offset of the address in it: found through the image whose
/// block holds the address (`dl_iterate_phdr`'s `dlpi_tls_data` is the calling thread's) and
/// its `STT_TLS` symbols, whose values are offsets in that block. Returns whether one was found.
int cleak_thread_local_symbol(uintptr_t address, char **symbol, uintptr_t *offset);

/// The address of the data symbol `name` (local ones included: the full symbol table, when the
/// file has one) in the image that holds `addressInImage`, or 0. Thread-safe.
uintptr_t cleak_local_symbol(uintptr_t addressInImage, const char *name);

// MARK: - RemoteMirror (libswiftRemoteMirror), used in-process

typedef uint64_t swift_addr_t;
typedef uint64_t swift_typeref_t;
typedef struct SwiftReflectionContext *SwiftReflectionContextRef;

/// The layout kinds of `SwiftRemoteMirrorTypes.h`, in its order.
typedef enum swift_layout_kind {
  SWIFT_UNKNOWN,
  SWIFT_BUILTIN,
  SWIFT_RAW_POINTER,
  SWIFT_TUPLE,
  SWIFT_STRUCT,
  SWIFT_NO_PAYLOAD_ENUM,
  SWIFT_SINGLE_PAYLOAD_ENUM,
  SWIFT_MULTI_PAYLOAD_ENUM,
  SWIFT_THICK_FUNCTION,
  SWIFT_OPAQUE_EXISTENTIAL,
  SWIFT_CLASS_EXISTENTIAL,
  SWIFT_ERROR_EXISTENTIAL,
  SWIFT_EXISTENTIAL_METATYPE,
  SWIFT_STRONG_REFERENCE,
  SWIFT_UNOWNED_REFERENCE,
  SWIFT_WEAK_REFERENCE,
  SWIFT_UNMANAGED_REFERENCE,
  SWIFT_CLASS_INSTANCE,
  SWIFT_CLOSURE_CONTEXT,
} swift_layout_kind_t;

typedef struct swift_typeinfo {
  swift_layout_kind_t Kind;
  unsigned Size;
  unsigned Alignment;
  unsigned Stride;
  unsigned NumFields;
} swift_typeinfo_t;

typedef struct swift_childinfo {
  const char *Name;
  unsigned Offset;
  swift_layout_kind_t Kind;
  swift_typeref_t TR;
} swift_childinfo_t;

/// A reflection context over this process, with the reflection sections of every loaded Swift
/// image registered (through `swift_enumerateAllMetadataSections`). Its memory reader copies
/// through `process_vm_readv`, so bad addresses are read failures, not crashes.
/// Not thread-safe: callers serialize.
SwiftReflectionContextRef cleak_reflection_context_create(void);

/// Adds the reflection sections of `count` images to `context` (each section on its own, read
/// where this process reads it: in place, or in the installed memory image's copy).
void cleak_reflection_add_sections(SwiftReflectionContextRef context, const cleak_reflection_sections *sections, size_t count);

/// Adds the reflection sections of the main executable to `context` when it runs on a runtime
/// of its own that ``cleak_executable_runtime_hook`` hooked (its images registered with that
/// runtime, which the shared one's enumeration does not list). Returns whether it added them.
bool cleak_reflection_add_images_of_executable(SwiftReflectionContextRef context);

swift_typeref_t swift_reflection_typeRefForMetadata(SwiftReflectionContextRef, uintptr_t Metadata);
swift_typeref_t swift_reflection_typeRefForInstance(SwiftReflectionContextRef, uintptr_t Object);
swift_typeinfo_t swift_reflection_infoForTypeRef(SwiftReflectionContextRef, swift_typeref_t);
swift_childinfo_t swift_reflection_childOfTypeRef(SwiftReflectionContextRef, swift_typeref_t, unsigned Index);
swift_typeinfo_t swift_reflection_infoForMetadata(SwiftReflectionContextRef, uintptr_t Metadata);
swift_childinfo_t swift_reflection_childOfMetadata(SwiftReflectionContextRef, uintptr_t Metadata, unsigned Index);
swift_typeinfo_t swift_reflection_infoForInstance(SwiftReflectionContextRef, uintptr_t Object);
swift_childinfo_t swift_reflection_childOfInstance(SwiftReflectionContextRef, uintptr_t Object, unsigned Index);
unsigned swift_reflection_genericArgumentCountOfTypeRef(swift_typeref_t);
swift_typeref_t swift_reflection_genericArgumentOfTypeRef(swift_typeref_t, unsigned Index);
char *swift_reflection_copyNameForTypeRef(SwiftReflectionContextRef, swift_typeref_t, bool mangled);
int swift_reflection_projectExistential(
    SwiftReflectionContextRef, swift_addr_t ExistentialAddress, swift_typeref_t ExistentialTypeRef,
    swift_typeref_t *OutInstanceTypeRef, swift_addr_t *OutStartOfInstanceData);
int swift_reflection_projectExistentialAndUnwrapClass(
    SwiftReflectionContextRef, swift_addr_t ExistentialAddress, swift_typeref_t ExistentialTypeRef,
    swift_typeref_t *OutInstanceTypeRef, swift_addr_t *OutStartOfInstanceData);
int swift_reflection_projectEnumValue(SwiftReflectionContextRef, swift_addr_t EnumAddress, swift_typeref_t EnumTypeRef,
                                      int *CaseIndex);

#ifdef __cplusplus
}
#endif

#endif
