/// Heap blocks of the blocks runtime, as libdispatch and CoreFoundation keep them, and the
/// captures of a block made from a Swift closure.
///
/// Read from the Blocks ABI (`Block_private.h` of swift-corelibs-libdispatch's BlocksRuntime,
/// Swift 6.3.1) and from Swift 6.3.1's bridging of a closure to a block, 64-bit Linux: `struct
/// Block_layout` is `isa`, `flags` and `reserved` (32 bits each), `invoke`, `descriptor`; the
/// captures follow the header. The readers check a block's class (`_NSConcreteMallocBlock`) and
/// its descriptor's size before they read a capture; ``DispatchLayoutCheck`` checks these
/// offsets on the blocks of a source of its own before the first capture.
enum BlockLayout {
  /// `isa`: the block's class.
  static let isa: UInt = 0
  /// `descriptor`: a `struct Block_descriptor_1`.
  static let descriptor: UInt = 24
  /// `Block_descriptor_1.size`: the block's size, captures included.
  static let descriptorSize: UInt = 8
  /// The captured Swift closure (a thick function) of a block made from one: its code, then its
  /// context, which the block retains.
  static let capturedFunction: UInt = 32
  static let capturedContext: UInt = 40
  /// The size of a block that captures one thick function.
  static let sizeWithCapturedClosure: UInt = 48
}
