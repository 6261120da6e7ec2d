// The Swift runtime's type metadata as this library reads it: class metadata, nominal type
// descriptors and their field descriptors, value witness tables, and the metadata of closure
// contexts and generic boxes.
//
// Read from the Swift 6.3.1 runtime (swift-6.3.1-RELEASE: `include/swift/ABI/Metadata.h`,
// `MetadataValues.h`, `Reflection/Records.h`) for Linux on 64-bit targets, where there is no
// Objective-C interoperability (class metadata has no cache or data words). Only the leading
// fields this library reads are mirrored; more follow in the runtime's structures. C reads them
// through these structs and accessors; Swift reads the same fields fault-safely with
// `MemoryReader.read(_:of:)`, which takes their offsets from these structs. `RuntimeLayoutCheck`
// checks them against a class of its own before the first capture or tracking start.
#ifndef CLEAK_SWIFT_METADATA_LAYOUT_H
#define CLEAK_SWIFT_METADATA_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

// MARK: - Metadata kinds

/// The kind word of a class's metadata on Linux (there is no Objective-C isa).
static const uintptr_t cleak_metadata_kind_class = 0;
/// The kind of a closure context's metadata (`HeapLocalVariable`).
static const uintptr_t cleak_metadata_kind_heap_local_variable = 0x400;
/// The kind of a generic box's metadata (`HeapGenericLocalVariable`: a captured `var`, an
/// `indirect` payload).
static const uintptr_t cleak_metadata_kind_heap_generic_local_variable = 0x500;
/// The kind of an async task's metadata (`Task`).
static const uintptr_t cleak_metadata_kind_task = 0x502;
/// The largest kind value; a larger kind word is an Objective-C isa, which on Linux no class has.
static const uintptr_t cleak_metadata_kind_last_enumerated = 0x7FF;

// MARK: - Class metadata

/// `TargetClassMetadata` without Objective-C interoperability, up to its nominal type descriptor.
/// A class's field offset vector is a run of words `fieldOffsetVectorOffset` words into it.
typedef struct {
  uintptr_t kind;  // 0 for a class
  uintptr_t superclass;  // the superclass's metadata, 0 for a root class
  uint32_t flags;
  uint32_t instanceAddressPoint;
  uint32_t instanceSize;
  uint16_t instanceAlignMask;
  uint16_t reserved;
  uint32_t classSize;
  uint32_t classAddressPoint;
  uintptr_t description;  // the nominal type descriptor
} cleak_class_metadata;

_Static_assert(offsetof(cleak_class_metadata, superclass) == 8, "superclass: one word after the kind");
_Static_assert(offsetof(cleak_class_metadata, instanceSize) == 24, "instance size: 6.3.1 class metadata");
_Static_assert(offsetof(cleak_class_metadata, description) == 40, "descriptor: 6.3.1 class metadata without ObjC");

/// The superclass of the class whose metadata is at `metadata` (a plain read: C callers hold
/// metadata the runtime handed them).
static inline uintptr_t cleak_superclass(uintptr_t metadata) {
  return ((const cleak_class_metadata *)metadata)->superclass;
}

/// The nominal type descriptor of the class whose metadata is at `metadata` (a plain read).
static inline uintptr_t cleak_class_descriptor(uintptr_t metadata) {
  return ((const cleak_class_metadata *)metadata)->description;
}

/// The size of an instance of the class whose metadata is at `metadata` (a plain read).
static inline uint32_t cleak_class_instance_size(uintptr_t metadata) {
  return ((const cleak_class_metadata *)metadata)->instanceSize;
}

/// The kind word of the metadata at `metadata` (a plain read).
static inline uintptr_t cleak_metadata_kind(uintptr_t metadata) {
  return *(const uintptr_t *)metadata;
}

// MARK: - Nominal type descriptors

/// `TargetClassDescriptor`, up to its field offset vector's place. The relative pointers are
/// 32-bit offsets from the field's own address.
typedef struct {
  uint32_t flags;  // ContextDescriptorFlags: the kind in the low bits, kind-specific flags above
  int32_t parent;
  int32_t name;  // relative pointer to the type's NUL-terminated name
  int32_t accessFunction;
  int32_t fields;  // relative pointer to its field descriptor
  int32_t superclassType;
  uint32_t metadataNegativeSizeInWords;
  uint32_t metadataPositiveSizeInWords;
  uint32_t numImmediateMembers;
  uint32_t numFields;
  uint32_t fieldOffsetVectorOffset;  // in words from the start of the metadata
} cleak_class_descriptor_layout;

_Static_assert(offsetof(cleak_class_descriptor_layout, fields) == 16, "fields: 6.3.1 type context descriptor");
_Static_assert(offsetof(cleak_class_descriptor_layout, numFields) == 36, "field count: 6.3.1 class descriptor");

/// The bits of a context descriptor's flags that hold its kind.
static const uint32_t cleak_context_descriptor_kind_mask = 0x1F;
/// The kind of a class's context descriptor.
static const uint32_t cleak_context_descriptor_kind_class = 16;
/// The class flag "has a resilient superclass" (its field offset vector's place is then
/// relative to bounds known only at run time), in the flags' kind-specific upper half.
static const uint32_t cleak_class_flag_has_resilient_superclass = 0x2000u << 16;

/// `FieldDescriptor`: a header, then `numFields` records of `fieldRecordSize` bytes.
typedef struct {
  int32_t mangledTypeName;
  int32_t superclass;
  uint16_t kind;
  uint16_t fieldRecordSize;
  uint32_t numFields;
} cleak_field_descriptor;

/// `FieldRecord`.
typedef struct {
  uint32_t flags;
  int32_t mangledTypeName;
  int32_t fieldName;  // relative pointer to the field's NUL-terminated name
} cleak_field_record;

_Static_assert(sizeof(cleak_field_descriptor) == 16, "records follow a 16-byte header");
_Static_assert(sizeof(cleak_field_record) == 12, "6.3.1 field records are 12 bytes");

// MARK: - Value witnesses

/// `ValueWitnessTable`, then the enum value witnesses that follow it when the flags have
/// `cleak_value_witness_flag_has_enum_witnesses`. A type's table is the word before its metadata.
typedef struct {
  uintptr_t initializeBufferWithCopyOfBuffer;
  uintptr_t destroy;
  uintptr_t initializeWithCopy;
  uintptr_t assignWithCopy;
  uintptr_t initializeWithTake;
  uintptr_t assignWithTake;
  uintptr_t getEnumTagSinglePayload;
  uintptr_t storeEnumTagSinglePayload;
  uintptr_t size;
  uintptr_t stride;
  uint32_t flags;  // the alignment mask in the low byte, then flags
  uint32_t extraInhabitantCount;
  uintptr_t getEnumTag;
  uintptr_t destructiveProjectEnumData;
  uintptr_t destructiveInjectEnumTag;
} cleak_value_witness_table;

_Static_assert(offsetof(cleak_value_witness_table, size) == 64, "size: 6.3.1 value witness table");
_Static_assert(offsetof(cleak_value_witness_table, flags) == 80, "flags: 6.3.1 value witness table");
_Static_assert(offsetof(cleak_value_witness_table, getEnumTag) == 88, "getEnumTag: the first enum witness");

/// The value witness flags' alignment mask.
static const uint32_t cleak_value_witness_alignment_mask = 0xFF;
/// The value witness flag "the enum witnesses follow".
static const uint32_t cleak_value_witness_flag_has_enum_witnesses = 0x00200000;

/// The value witness table of the type whose metadata is at `metadata` (a plain read).
static inline const cleak_value_witness_table *cleak_value_witnesses(uintptr_t metadata) {
  return ((const cleak_value_witness_table *const *)metadata)[-1];
}

// MARK: - Closure contexts and boxes

/// `HeapLocalVariableMetadata`: a closure context's metadata.
typedef struct {
  uintptr_t kind;  // cleak_metadata_kind_heap_local_variable
  uint32_t offsetToFirstCapture;
  uint32_t reserved;
  uintptr_t captureDescription;  // a capture descriptor
} cleak_closure_context_metadata;

/// `CaptureDescriptor`: what a closure context holds, and the metadata its layout depends on.
typedef struct {
  uint32_t numCaptureTypes;
  uint32_t numMetadataSources;
  uint32_t numBindings;
} cleak_capture_descriptor;

/// `GenericBoxHeapMetadata`: the metadata of a generic box.
typedef struct {
  uintptr_t kind;  // cleak_metadata_kind_heap_generic_local_variable
  uint32_t valueOffset;  // where the boxed value starts in the box
  uint32_t reserved;
  uintptr_t boxedType;  // the boxed type's metadata
} cleak_generic_box_metadata;

_Static_assert(offsetof(cleak_closure_context_metadata, captureDescription) == 16, "6.3.1 closure metadata");
_Static_assert(offsetof(cleak_generic_box_metadata, boxedType) == 16, "6.3.1 generic box metadata");

#endif
