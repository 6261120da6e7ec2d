import HeapGraph

/// The GNU build id of an ELF image (its `NT_GNU_BUILD_ID` note): the linker's digest of the
/// image's contents, equal for two files only when they are the same build.
package struct BuildID: Sendable, Hashable, CustomStringConvertible {
  /// The note's bytes.
  package var bytes: [UInt8]

  package init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// `b521f25fdeacf504eca83d97c7308e8fc11be729`: every byte, in lowercase hex.
  package var description: String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }

  /// `b521f25fdeac`: the first six bytes, enough for a person to tell builds apart.
  package var shortDescription: String {
    String(description.prefix(12))
  }
}
