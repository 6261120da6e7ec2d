#ifndef CLEAK_ELF_BUILD_ID_H
#define CLEAK_ELF_BUILD_ID_H

// The one reader of GNU build ids (`NT_GNU_BUILD_ID` notes) of ELF images: of an image loaded in
// this process, from its note segments as mapped, and of a file on disk, from its note segments
// as stored. Both go through one parser of note bytes. It needs the C library only, so that the
// CLI (`leak-detector --version`) and the agent's runtime check (`CLeakAgent`) share it without
// linking libelf or libdw. (Symbolization finds debug files by the build id libdw read for its
// module: that is libdw's reader, of an image libdw has open.)

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most bytes of a build id any caller keeps (linkers write 8, 16 or 20).
#define CLEAK_BUILD_ID_CAPACITY 64

/// Copies the descriptor of the first GNU build-id note (name `GNU`, type `NT_GNU_BUILD_ID`) among
/// the `size` bytes of notes at `notes`, whose entries are aligned to `alignment` (a note
/// segment's `p_align`: 8 aligns to 8 bytes, 0 to 4 to 4 bytes; any other value is a corrupt
/// segment, read as none), into `buildID`, at most `capacity` bytes of it. Returns the bytes
/// copied, 0 when there is no such note or a note runs past the end.
size_t cleak_build_id_in_notes(const void *notes, size_t size, size_t alignment, unsigned char *buildID, size_t capacity);

/// The build id of an image loaded in this process (as `dl_iterate_phdr` describes it: its base
/// address and program headers), read from its `PT_NOTE` segments in memory, into `buildID`
/// (at most `capacity` bytes). Returns its length, 0 when it has none.
size_t cleak_build_id_of_loaded_image(uintptr_t base, const ElfW(Phdr) *headers, size_t headerCount, unsigned char *buildID,
                                      size_t capacity);

/// The build id of the ELF file at `path`, read from its `PT_NOTE` segments with `pread`, into
/// `buildID` (at most `capacity` bytes). Only files of this process's class and byte order
/// (64-bit little-endian here) are read. Returns its length, 0 when the file cannot be read, is
/// not such an ELF file or has no build id.
size_t cleak_build_id_of_file(const char *path, unsigned char *buildID, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif
