/// The part of a JSON file that a streaming ``JSONScanner`` holds: what it has read of the file
/// and not yet let go of. The scanner grows it when a token runs past its end (nothing is dropped
/// then, so that the offsets the scanner holds stay valid), and drops what lies before a point
/// it names only between two elements of an array, where nothing before that point is needed
/// any more.
final class JSONStreamWindow {
  private let input: FileInput
  /// The bytes held, with room to read more.
  private var storage: UnsafeMutableBufferPointer<UInt8>
  /// How many bytes of ``storage`` hold the file.
  private var filled = 0
  /// Whether the file has no more bytes to read.
  private(set) var isAtEndOfFile = false
  /// Whether reading the file failed (the scanner then sees its end).
  private(set) var readFailed = false

  /// How many bytes a window reads at a time, and how far the scanner reads into it before the
  /// next element's start lets it drop what lies before.
  static let pieceSize = 1 << 20

  init(_ input: FileInput) {
    self.input = input
    storage = .allocate(capacity: 2 * Self.pieceSize)
  }

  deinit {
    storage.deallocate()
  }

  /// The bytes held.
  var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: storage[0..<filled]) }

  /// Reads at least one more piece of the file (fewer bytes only at its end), keeping every byte
  /// held; `false` when the file has none left.
  func readMore() -> Bool {
    guard !isAtEndOfFile else { return false }
    if storage.count - filled < Self.pieceSize {
      let grown = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(2 * storage.count, filled + Self.pieceSize))
      _ = grown.initialize(fromContentsOf: storage[0..<filled])
      storage.deallocate()
      storage = grown
    }
    let before = filled
    do {
      filled += try input.read(
        into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: storage[filled..<filled + Self.pieceSize])))
    } catch {
      readFailed = true
      isAtEndOfFile = true
    }
    if filled - before < Self.pieceSize { isAtEndOfFile = true }
    return filled > before
  }

  /// Drops the first `count` bytes held; what follows them moves to the front.
  func drop(first count: Int) {
    guard count > 0 else { return }
    let kept = filled - count
    if kept > 0 {
      UnsafeMutableRawPointer(storage.baseAddress!).copyMemory(from: storage.baseAddress! + count, byteCount: kept)
    }
    filled = kept
  }
}
